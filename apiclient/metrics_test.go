package apiclient_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestUsageResourceOnlyWhereDiscoveryListsMetrics(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		gvs  []apitest.GroupVersion
		want bool
	}{
		{"metrics-server", []apitest.GroupVersion{apitest.CoreV1(), apitest.MetricsV1Beta1()}, true},
		{"no metrics-server", []apitest.GroupVersion{apitest.CoreV1()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clientFor(t, apitest.NewServer(t, tc.gvs...))
			d, err := c.Discovery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"pods", "nodes"} {
				r, _ := d.Lookup("", "v1", name)
				m, ok := d.UsageResource(r)
				if ok != tc.want {
					t.Errorf("UsageResource(%s) ok = %v, want %v", name, ok, tc.want)
				}
				if ok && (m.Group != "metrics.k8s.io" || m.Version != "v1beta1" || m.Name != name) {
					t.Errorf("UsageResource(%s) = %+v", name, m)
				}
			}
			services, _ := d.Lookup("", "v1", "services")
			if _, ok := d.UsageResource(services); ok {
				t.Error("services have a usage resource")
			}
		})
	}
}

func TestListAndGetUsage(t *testing.T) {
	ctx := context.Background()
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.MetricsV1Beta1())
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	fake.Add(
		apitest.PodMetrics("demo", "web-a", map[string]string{"app": "web"}, at, 15*time.Second,
			apitest.ContainerUsage{Name: "app", CPU: "12345678n", Memory: "65536Ki"},
			apitest.ContainerUsage{Name: "sidecar", CPU: "1m", Memory: "1Mi"}),
		apitest.PodMetrics("demo", "db-0", map[string]string{"app": "db"}, at, 15*time.Second,
			apitest.ContainerUsage{Name: "db", CPU: "250m", Memory: "1Gi"}),
		apitest.NodeMetrics("node-1", at, 20*time.Second, "1500m", "2Gi"),
	)
	c := clientFor(t, fake)
	d, err := c.Discovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	podsRes, _ := d.Lookup("", "v1", "pods")
	pods, _ := d.UsageResource(podsRes)
	got, err := c.ListUsage(ctx, pods, "demo", "app=web")
	if err != nil {
		t.Fatal(err)
	}
	// 12345678n rounds up to 13m, as kubectl top shows it; plus 1m.
	want := apiclient.UsageSample{Namespace: "demo", Name: "web-a", Timestamp: at, Window: 15 * time.Second,
		Usage: apiclient.Usage{CPUMilli: 14, MemoryBytes: 65 << 20}, Containers: 2}
	if len(got) != 1 || got[0] != want {
		t.Errorf("ListUsage = %+v, want [%+v]", got, want)
	}
	if q := fake.Requests()[len(fake.Requests())-1].URL; q.Path != "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods" || q.Query().Get("labelSelector") != "app=web" {
		t.Errorf("request = %s", q)
	}

	nodesRes, _ := d.Lookup("", "v1", "nodes")
	nodes, _ := d.UsageResource(nodesRes)
	node, err := c.GetUsage(ctx, nodes, "", "node-1")
	if err != nil {
		t.Fatal(err)
	}
	if node.Usage != (apiclient.Usage{CPUMilli: 1500, MemoryBytes: 2 << 30}) || node.Window != 20*time.Second || !node.Timestamp.Equal(at) {
		t.Errorf("GetUsage(node-1) = %+v", node)
	}

	_, err = c.GetUsage(ctx, pods, "demo", "not-scraped-yet")
	if !apierrors.IsNotFound(err) {
		t.Errorf("GetUsage of a pod without a sample: %v, want NotFound", err)
	}
	fake.FailResource("metrics.k8s.io", "pods", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
		Reason: metav1.StatusReasonServiceUnavailable, Message: "the server is currently unable to handle the request"})
	if _, err := c.ListUsage(ctx, pods, "", ""); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("ListUsage with the APIService down: %v, want 503", err)
	}
	before := len(fake.Requests())
	if _, err := c.GetUsage(ctx, pods, "demo", "../x"); !apierrors.IsBadRequest(err) {
		t.Errorf("GetUsage with a bad name: %v, want 400 before any request", err)
	}
	if after := len(fake.Requests()); after != before {
		t.Errorf("GetUsage with a bad name made %d requests", after-before)
	}
}

// A metrics answer is read up to a bound: a server that sends more gets an
// error, not a console holding all of it.
func TestListUsageIsBounded(t *testing.T) {
	ctx := context.Background()
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.MetricsV1Beta1())
	fake.Override("/apis/metrics.k8s.io/v1beta1/pods", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"PodMetricsList","items":[`)
		item := `{"metadata":{"namespace":"bulk","name":"p"},"timestamp":"2026-03-01T10:00:00Z","window":"15s","containers":[{"name":"app","usage":{"cpu":"1m","memory":"1Mi"}}]},`
		for range (9 << 20) / len(item) {
			if _, err := io.WriteString(w, item); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `{}]}`)
	})
	c := clientFor(t, fake)
	d, err := c.Discovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	podsRes, _ := d.Lookup("", "v1", "pods")
	pods, _ := d.UsageResource(podsRes)
	if _, err := c.ListUsage(ctx, pods, "", ""); err == nil || !strings.Contains(err.Error(), "over 8 MiB") {
		t.Errorf("ListUsage of a 9 MiB answer: %v, want an error naming the bound", err)
	}
}

func TestWorkloadSelector(t *testing.T) {
	deploy := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	sel, ok, err := apiclient.WorkloadSelector(deploy)
	if err != nil || !ok || sel.String() != "app=web" {
		t.Errorf("Deployment: %v %v %v", sel, ok, err)
	}
	expr := apitest.StatefulSet("demo", "db", 1, nil)
	expr.Object["spec"].(map[string]any)["selector"] = map[string]any{
		"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"db", "cache"}}},
	}
	sel, ok, err = apiclient.WorkloadSelector(expr)
	if err != nil || !ok || sel.String() != "tier in (cache,db)" {
		t.Errorf("matchExpressions: %v %v %v", sel, ok, err)
	}
	everything := apitest.Deployment("demo", "all", 1, nil)
	everything.Object["spec"].(map[string]any)["selector"] = map[string]any{}
	if _, ok, err := apiclient.WorkloadSelector(everything); ok || err != nil {
		t.Errorf("an empty selector: ok %v, err %v; want no selector", ok, err)
	}
	if _, ok, _ := apiclient.WorkloadSelector(apitest.Service("demo", "web", map[string]string{"app": "web"})); ok {
		t.Error("a Service is not a workload")
	}
}
