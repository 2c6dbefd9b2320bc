package web

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// benchPods is the pods resource as discovery describes it.
var benchPods = apiclient.Resource{
	Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true,
	Verbs:        []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	ShortNames:   []string{"po"},
	Categories:   []string{"all"},
	Subresources: []string{"status", "log", "exec", "attach", "portforward", "binding", "eviction", "ephemeralcontainers", "resize"},
}

// benchPodTable is a page of kwok pods as kube-apiserver 1.36 serves it with
// includeObject=None: its pod printer's columns (Age is a server-formatted
// string there) and no row objects.
func benchPodTable(rows int) *apiclient.Table {
	t := &apiclient.Table{
		Served: apiclient.TableV1,
		Columns: []apiclient.Column{
			{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"},
			{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
			{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
			{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
			{Name: "Age", Type: "string", Description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
			{Name: "IP", Type: "string", Priority: 1, Description: "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."},
			{Name: "Node", Type: "string", Priority: 1, Description: "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName."},
			{Name: "Nominated Node", Type: "string", Priority: 1, Description: "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods."},
			{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "If specified, all readiness gates will be evaluated for pod readiness."},
		},
		ResourceVersion: "123456",
		Rows:            make([]apiclient.Row, rows),
	}
	if rows < 5000 {
		t.Continue = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDU2LCJzdGFydCI6ImJ1bGstMDA0OTlcdTAwMDAifQ"
		remaining := int64(5000 - rows)
		t.RemainingItemCount = &remaining
	}
	for i := range t.Rows {
		t.Rows[i] = apiclient.Row{Cells: []any{
			fmt.Sprintf("bulk-%05d", i), "1/1", "Running", "0", "12m",
			fmt.Sprintf("10.0.%d.%d", i/250, i%250+2), fmt.Sprintf("kwok-node-%d", i%3), "<none>", "<none>",
		}}
	}
	return t
}

// benchListPage builds the page model the way Server.list does for
// GET /c/admin/api/v1/namespaces/bulk/pods, minus the requests it makes.
func benchListPage(t *apiclient.Table) views.ListPage {
	const contextName, namespace = "admin", "bulk"
	lq, err := parseListQuery(url.Values{})
	if err != nil {
		panic(err)
	}
	base := consolePath(contextName, benchPods, namespace, "")
	page := views.ListPage{
		Layout: views.Layout{
			Title:  "Pod list",
			Assets: views.Assets{CSS: "/static/app.0123456789ab.css", JS: "/static/app.0123456789ab.js"},
			Context: views.ContextBar{
				Current: contextName, Cluster: "devcluster", Server: "https://127.0.0.1:6443",
				Options: []views.ContextOption{
					{Name: "admin", Cluster: "devcluster", Href: "/c/admin/", Current: true},
					{Name: "editor", Cluster: "devcluster", Href: "/c/editor/"},
					{Name: "viewer", Cluster: "devcluster", Href: "/c/viewer/"},
				},
			},
			Nav: []views.NavGroup{{Label: "core/v1", Open: true, Items: []views.NavItem{
				{Label: "configmaps", Href: "/c/admin/api/v1/namespaces/bulk/configmaps"},
				{Label: "pods", Href: base, Current: true},
				{Label: "secrets", Href: "/c/admin/api/v1/namespaces/bulk/secrets"},
				{Label: "services", Href: "/c/admin/api/v1/namespaces/bulk/services"},
			}}},
			Jump: views.JumpBox{Action: "/c/admin/jump", Namespace: namespace},
		},
		Kind:         benchPods.Kind,
		Resource:     benchPods.Name,
		GroupVersion: benchPods.GroupVersion().String(),
		Namespaced:   true,
		Namespace:    namespace,
		Served:       string(t.Served),
		Picker: views.NamespacePicker{
			Action:  "/c/admin/namespace",
			Current: namespace,
			Options: []string{"bulk", "default", "demo", "kube-node-lease", "kube-public", "kube-system"},
			Hidden:  []views.HiddenField{{Name: "resource", Value: "pods"}, {Name: "version", Value: "v1"}},
		},
	}
	page.Columns, page.Rows, page.HiddenColumns = tableView(contextName, benchPods, namespace, t, lq, base)
	wide := lq
	wide.Wide = !lq.Wide
	page.WideHref = withQuery(base, wide.values())
	page.Filter = listFilter(base, lq)
	page.Pager = pagerView(base, lq, t)
	return page
}

// benchmarkRenderList measures what the list handler does per request once
// the Table is decoded: the page model, then the HTML.
func benchmarkRenderList(b *testing.B, rows int) {
	table := benchPodTable(rows)
	ctx := context.Background()
	var size int
	b.ReportAllocs()
	for b.Loop() {
		// A fresh buffer each time: the worst case of Server.render, which reuses them.
		var buf bytes.Buffer
		if err := views.List(benchListPage(table)).Render(ctx, &buf); err != nil {
			b.Fatal(err)
		}
		if size == 0 {
			if got := bytes.Count(buf.Bytes(), []byte("<tr ")); got != rows {
				b.Fatalf("rendered %d body rows, want %d", got, rows)
			}
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/float64(rows), "bytes/row")
}

func BenchmarkRenderList500(b *testing.B)  { benchmarkRenderList(b, 500) }
func BenchmarkRenderList5000(b *testing.B) { benchmarkRenderList(b, 5000) }
