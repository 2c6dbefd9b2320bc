package list

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// stylesheet is what every page carries inline.
var stylesheet = func() string {
	css, err := static.FS.ReadFile("app.css")
	if err != nil {
		panic(err)
	}
	return string(css)
}()

// benchPods is the pods resource as discovery describes it.
var benchPods = apiclient.Resource{
	Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true,
	Verbs:        []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	ShortNames:   []string{"po"},
	Categories:   []string{"all"},
	Subresources: []string{"status", "log", "exec", "attach", "portforward", "binding", "eviction", "ephemeralcontainers", "resize"},
}

// benchPodTable is apitest's page of kwok pods, decoded as apiclient
// decodes it.
func benchPodTable(rows int) *apiclient.Table {
	wire := apitest.KwokPodTable(rows)
	t := &apiclient.Table{
		Served:             apiclient.TableV1,
		ResourceVersion:    wire.ResourceVersion,
		Continue:           wire.Continue,
		RemainingItemCount: wire.RemainingItemCount,
		Rows:               make([]apiclient.Row, len(wire.Rows)),
	}
	for _, c := range wire.ColumnDefinitions {
		t.Columns = append(t.Columns, apiclient.Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority})
	}
	for i, r := range wire.Rows {
		t.Rows[i] = apiclient.Row{Cells: r.Cells}
	}
	return t
}

// benchLayout is a page frame as the dev cluster's admin context has it.
var benchLayout = views.Layout{
	Title:  "Pod list",
	Assets: views.Assets{Styles: stylesheet, JS: "/static/app.0123456789ab.js"},
	Context: views.ContextBar{
		Current: "admin", Cluster: "devcluster", Server: "https://127.0.0.1:6443",
		Options: []views.ContextOption{
			{Name: "admin", Cluster: "devcluster", Href: "/c/admin/", Current: true},
			{Name: "editor", Cluster: "devcluster", Href: "/c/editor/"},
			{Name: "viewer", Cluster: "devcluster", Href: "/c/viewer/"},
		},
	},
	Nav: []views.NavGroup{{Label: "core/v1", Open: true, Items: []views.NavItem{
		{Label: "configmaps", Href: "/c/admin/api/v1/namespaces/bulk/configmaps"},
		{Label: "pods", Href: "/c/admin/api/v1/namespaces/bulk/pods", Current: true},
		{Label: "secrets", Href: "/c/admin/api/v1/namespaces/bulk/secrets"},
		{Label: "services", Href: "/c/admin/api/v1/namespaces/bulk/services"},
	}}},
	Jump: views.JumpBox{Action: "/c/admin/jump", Namespace: "bulk"},
}

// benchListPage builds the page model with the handler's own builder for
// GET /c/admin/api/v1/namespaces/bulk/pods, minus the requests it makes.
func benchListPage(ctx context.Context, t *apiclient.Table) views.ListPage {
	lq, err := ParseQuery(url.Values{})
	if err != nil {
		panic(err)
	}
	p := Model(ctx, Input{URLs: page.URLsOf(ctx).In("admin"), Resource: benchPods, Namespace: "bulk", Query: lq, Table: t})
	p.Layout = benchLayout
	p.Picker = views.NamespacePicker{
		Action:  "/c/admin/namespace",
		Current: "bulk",
		Options: []string{"bulk", "default", "demo", "kube-node-lease", "kube-public", "kube-system"},
		Hidden:  []views.HiddenField{{Name: "resource", Value: "pods"}, {Name: "version", Value: "v1"}},
	}
	return p
}

// benchmarkRenderList measures what the list handler does per request once
// the Table is decoded: the page model, then the HTML.
func benchmarkRenderList(b *testing.B, rows int) {
	table := benchPodTable(rows)
	ctx := context.Background()
	var size int
	b.ReportAllocs()
	for b.Loop() {
		// A fresh buffer each time: the worst case of page.Env.Render, which reuses them.
		var buf bytes.Buffer
		if err := views.List(benchListPage(ctx, table)).Render(ctx, &buf); err != nil {
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

// BenchmarkRenderListLabelColumns500 is the page with two label columns
// (?labelColumns=…, what make bench measures), then also with the Labels
// column of chips (&showLabels=1); rows carry the labels bulk pods have.
func BenchmarkRenderListLabelColumns500(b *testing.B) {
	table := benchPodTable(500)
	for i := range table.Rows {
		table.Rows[i].Object = &apiclient.ObjectMeta{Name: table.Rows[i].Cells[0].(string), Namespace: "bulk", Labels: map[string]string{
			"app.kubernetes.io/managed-by": "devcluster", "app.kubernetes.io/name": "bulk", "topology.kubernetes.io/zone": "zone-a",
		}}
	}
	for _, tc := range []struct {
		name  string
		query url.Values
		chips int
	}{
		{"labelColumns", url.Values{"labelColumns": {"app.kubernetes.io/name,topology.kubernetes.io/zone"}}, 0},
		{"showLabels", url.Values{"labelColumns": {"app.kubernetes.io/name,topology.kubernetes.io/zone"}, "showLabels": {"1"}}, 500},
	} {
		b.Run(tc.name, func(b *testing.B) {
			lq, err := ParseQuery(tc.query)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var buf bytes.Buffer
				p := Model(ctx, Input{URLs: page.URLsOf(ctx).In("admin"), Resource: benchPods, Namespace: "bulk", Query: lq, Table: table})
				p.Layout = benchLayout
				if err := views.List(p).Render(ctx, &buf); err != nil {
					b.Fatal(err)
				}
				// One chip a row offers its label as a column (managed-by).
				if n := bytes.Count(buf.Bytes(), []byte(`data-testid="chip-column"`)); n != tc.chips {
					b.Fatalf("%d chips offer a column, want %d", n, tc.chips)
				}
			}
		})
	}
}
