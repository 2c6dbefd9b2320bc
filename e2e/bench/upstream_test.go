package main

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

func TestParseMetricKey(t *testing.T) {
	name, labels, ok := parseMetricKey(`apiserver_request_total{code="200",group="",resource="pods",verb="LIST"}`)
	if !ok || name != "apiserver_request_total" || !maps.Equal(labels, map[string]string{"code": "200", "group": "", "resource": "pods", "verb": "LIST"}) {
		t.Errorf("= %q, %v, %v", name, labels, ok)
	}
	if name, labels, ok := parseMetricKey("process_open_fds"); !ok || name != "process_open_fds" || len(labels) != 0 {
		t.Errorf("no labels: %q, %v, %v", name, labels, ok)
	}
	// The format escapes \, " and newlines in label values; a comma or a
	// brace inside a value is not a separator.
	_, labels, ok = parseMetricKey(`m{path="/a,b}",msg="say \"hi\"\nback\\slash"}`)
	if !ok || labels["path"] != "/a,b}" || labels["msg"] != "say \"hi\"\nback\\slash" {
		t.Errorf("escapes: %q, %v", labels, ok)
	}
	for _, bad := range []string{`m{a="1"`, `m{a=1}`, `m{a="1}`} {
		if _, _, ok := parseMetricKey(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
}

const apiserverMetricsFixture = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 40
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="410",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="log",verb="GET",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="bench.tabula.dev",resource="probe000s",scope="cluster",subresource="",verb="LIST",version="v1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 7
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1",le="0.005"} 99
apiserver_resource_objects{group="",resource="pods"} 20012
apiserver_resource_objects{group="bench.tabula.dev",resource="probe000s"} 3
apiserver_storage_objects{resource="pods"} 1
not_apiserver_total 3
`

func TestParseAPIServerMetrics(t *testing.T) {
	s := parseAPIServerMetrics([]byte(apiserverMetricsFixture))
	want := map[verbResource]float64{
		{"LIST", "pods"}:                       44, // summed over scopes and codes
		{"GET", "pods/log"}:                    2,
		{"LIST", "probe000s.bench.tabula.dev"}: 5,
		{"GET", ""}:                            7,
	}
	if !maps.Equal(s.requests, want) {
		t.Errorf("requests %v, want %v", s.requests, want)
	}
	if !maps.Equal(s.objects, map[string]float64{"pods": 20012, "probe000s.bench.tabula.dev": 3}) {
		t.Errorf("objects %v (the deprecated metric is read only without the new one)", s.objects)
	}

	old := parseAPIServerMetrics([]byte(`apiserver_storage_objects{resource="probe000s.bench.tabula.dev"} 3` + "\n"))
	if !maps.Equal(old.objects, map[string]float64{"probe000s.bench.tabula.dev": 3}) {
		t.Errorf("deprecated objects %v", old.objects)
	}
}

func TestSince(t *testing.T) {
	before := apiserverSample{requests: map[verbResource]float64{
		{"LIST", "pods"}:    10,
		{"WATCH", "pods"}:   4,
		{"GET", ""}:         100,
		{"LIST", "secrets"}: 2,
	}}
	after := apiserverSample{requests: map[verbResource]float64{
		{"LIST", "pods"}:                       50,
		{"WATCH", "pods"}:                      4,
		{"GET", ""}:                            101,
		{"LIST", "secrets"}:                    2,
		{"LIST", "probe000s.bench.tabula.dev"}: 1, // a series born in the window
		{"CREATE", "selfsubjectaccessreviews.authorization.k8s.io"}: 3,
	}}
	d := after.since(before)
	if d.all != 45 || d.listTotal() != 41 {
		t.Errorf("all %v, LIST %v; want 45 and 41", d.all, d.listTotal())
	}
	if !maps.Equal(d.lists, map[string]float64{"pods": 40, "probe000s.bench.tabula.dev": 1}) {
		t.Errorf("lists %v", d.lists)
	}
	lists, others := d.byCount()
	if fmt.Sprint(lists) != "[LIST pods 40 LIST probe000s.bench.tabula.dev 1]" {
		t.Errorf("LISTs by count %v", lists)
	}
	if fmt.Sprint(others) != "[CREATE selfsubjectaccessreviews.authorization.k8s.io 3 GET 1]" {
		t.Errorf("others by count %v", others)
	}
}

func TestPagesBound(t *testing.T) {
	lists := map[string]float64{"pods": 40, "events": 40, "events.events.k8s.io": 40, "probe000s.bench.tabula.dev": 1, "leases.coordination.k8s.io": 1}
	objects := map[string]float64{"pods": 20012, "events": 20000, "probe000s.bench.tabula.dev": 3, "leases.coordination.k8s.io": -1, "secrets": 0}
	bound, need, uncounted, largest := pagesBound(lists, objects, 250, 500)
	// pods: 41 pages at 500 (20,012 objects); events 40; the others one
	// each, a count the server could not take (-1) and none at all too.
	if bound != 250*41 || need != 41+40+1+1+1 || uncounted != 1 || largest != "pods" {
		t.Errorf("bound %d, need %d, uncounted %d, largest %q", bound, need, uncounted, largest)
	}
	if bound, need, uncounted, largest := pagesBound(nil, objects, 250, 500); bound != 0 || need != 0 || uncounted != 0 || largest != "" {
		t.Errorf("nothing listed: %d, %d, %d, %q", bound, need, uncounted, largest)
	}
	got := overPaged(map[string]float64{"pods": 42, "events": 40, "secrets": 2, "events.events.k8s.io": 41}, objects, 500)
	if !slices.Equal(got, []string{"pods (42 LISTs, 20012 objects)", "secrets (2 LISTs, 0 objects)"}) {
		t.Errorf("overPaged = %q, want pods and secrets (events.k8s.io has no count)", got)
	}
	for _, tc := range []struct {
		n    float64
		want int
	}{{0, 1}, {-1, 1}, {1, 1}, {500, 1}, {501, 2}, {20000, 40}} {
		if got := pageCount(tc.n, 500); got != tc.want {
			t.Errorf("pageCount(%v, 500) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
