package object_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// A server without metrics-server: no column, no section, no chart, and
// not one request for metrics.k8s.io.
func TestNoMetricsServerNoUsageAndNoRequest(t *testing.T) {
	h, fake := webtest.Usage(t, false)
	fake.ResetRequests()
	for _, path := range []string{
		"/c/dev/api/v1/namespaces/demo/pods",
		"/c/dev/api/v1/pods",
		"/c/dev/api/v1/nodes",
		"/c/dev/api/v1/namespaces/demo/pods/web-5d9-a",
		"/c/dev/api/v1/nodes/node-1",
		"/c/dev/apis/apps/v1/namespaces/demo/deployments/web",
	} {
		_, body := h.Get(t, path, http.StatusOK)
		doc := webtest.Parse(t, body)
		if hs := strings.Join(webtest.Columns(doc), ","); strings.Contains(hs, "CPU") {
			t.Errorf("%s: headers %s", path, hs)
		}
		if doc.Find("[data-testid=usage]").Length() != 0 || strings.Contains(body, "data-usage-src") {
			t.Errorf("%s: a usage section without metrics.k8s.io", path)
		}
	}
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/usage", http.StatusNotFound)
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("requests for metrics.k8s.io on a server without it: %v", reqs)
	}
}

// An object page that fails does not wait for its usage: the metrics
// request is given up at once.
func TestFailedObjectPageDoesNotWaitForUsage(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	fake.Override("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/ghost", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	began := time.Now()
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/ghost", http.StatusNotFound)
	// Waiting would take the whole usage timeout (2 s).
	if took := time.Since(began); took >= 2*time.Second {
		t.Errorf("the 404 took %s: it waited for the metrics request", took)
	}
}

func TestPodPageChartsItsUsage(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	chart := doc.Find("[data-testid=usage] [data-testid=usage-chart]")
	if chart.Length() != 1 {
		t.Fatal("no usage chart on the pod page")
	}
	if src := chart.AttrOr("data-usage-src", ""); src != "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/usage" {
		t.Errorf("chart source = %q", src)
	}
	wantHistory := strconv.FormatInt(webtest.SampledAt.Unix(), 10) + ",13," + strconv.Itoa(64<<20)
	if got := chart.AttrOr("data-usage-history", ""); got != wantHistory {
		t.Errorf("history = %q, want %q", got, wantHistory)
	}
	if every := chart.AttrOr("data-usage-every", ""); every != "15000" {
		t.Errorf("period = %q ms, want metrics-server's window", every)
	}
	if got := webtest.Texts(doc, "[data-testid=usage-latest]"); strings.Join(got, ",") != "13m,64Mi" {
		t.Errorf("latest = %v", got)
	}
	if got := doc.Find("[data-testid=usage-svg]").Length(); got != 2 {
		t.Errorf("%d sparklines, want CPU and memory", got)
	}
	fields := strings.Join(webtest.Texts(doc, "[data-testid=usage-fields] dt, [data-testid=usage-fields] dd"), ",")
	if fields != "CPU requested,100m,Memory requested,64Mi,CPU limit,500m,Memory limit,128Mi" {
		t.Errorf("requests and limits = %s", fields)
	}

	// A pod metrics-server has not scraped yet: an empty chart that waits.
	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-b", http.StatusOK)
	doc = webtest.Parse(t, body)
	chart = doc.Find("[data-testid=usage-chart]")
	if chart.Length() != 1 || chart.AttrOr("data-usage-history", "x") != "" || !strings.Contains(chart.Text(), "Waiting for metrics-server") {
		t.Errorf("chart of a pod without a sample: %q", chart.Text())
	}

	// A user who may not read metrics gets the page without the section.
	fake.FailResource("metrics.k8s.io", "pods", apitest.Forbidden("jane", "get", "metrics.k8s.io", "pods", "web-5d9-a"))
	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	if webtest.Parse(t, body).Find("[data-testid=usage]").Length() != 0 {
		t.Error("usage section despite a forbidden metrics request")
	}
}

func TestNodePageChartsItsUsageAgainstAllocatable(t *testing.T) {
	h, _ := webtest.Usage(t, true)
	_, body := h.Get(t, "/c/dev/api/v1/nodes/node-1", http.StatusOK)
	doc := webtest.Parse(t, body)
	if src := doc.Find("[data-testid=usage-chart]").AttrOr("data-usage-src", ""); src != "/c/dev/api/v1/nodes/node-1/usage" {
		t.Errorf("chart source = %q", src)
	}
	if got := strings.Join(webtest.Texts(doc, "[data-testid=usage-latest]"), ","); got != "250m,2048Mi" {
		t.Errorf("latest = %s", got)
	}
	if every := doc.Find("[data-testid=usage-chart]").AttrOr("data-usage-every", ""); every != "20000" {
		t.Errorf("period = %q ms, want the node's 20 s window", every)
	}
	if got := strings.Join(webtest.Texts(doc, "[data-testid=usage-fields] dd"), ","); got != "4,8192Mi" {
		t.Errorf("allocatable = %s", got)
	}
}

// Workload pages sum the samples of the pods their selector matches, in one
// request.
func TestWorkloadPagesSumTheirPods(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	fake.Add(apitest.PodMetrics("demo", "web-5d9-b", map[string]string{"app": "web"}, webtest.SampledAt, 15*time.Second,
		apitest.ContainerUsage{Name: "app", CPU: "7m", Memory: "32Mi"}))
	for _, path := range []string{
		"/c/dev/apis/apps/v1/namespaces/demo/deployments/web",
		"/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9",
	} {
		fake.ResetRequests()
		_, body := h.Get(t, path, http.StatusOK)
		doc := webtest.Parse(t, body)
		if got := strings.Join(webtest.Texts(doc, "[data-testid=usage-fields] dd"), ","); got != "20m,96Mi" {
			t.Errorf("%s: usage = %s, want 13m+7m, 64Mi+32Mi", path, got)
		}
		if note := doc.Find("[data-testid=usage-note]").Text(); !strings.Contains(note, "2 pods") || !strings.Contains(note, "app=web") {
			t.Errorf("%s: note = %q", path, note)
		}
		if doc.Find("[data-usage-src]").Length() != 0 {
			t.Errorf("%s: a workload has no chart", path)
		}
		reqs := webtest.MetricsRequests(fake)
		if len(reqs) != 1 || reqs[0].RequestURI() != "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods?labelSelector=app%3Dweb" {
			t.Errorf("%s: metrics requests = %v", path, reqs)
		}
	}
	// Other kinds have no usage, and ask for none.
	fake.ResetRequests()
	h.Get(t, "/c/dev/api/v1/namespaces/demo/services", http.StatusOK)
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("a services list asked for metrics: %v", reqs)
	}
}

func TestUsageEndpoint(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/usage"
	older := webtest.SampledAt.Add(-15 * time.Second).Unix()
	prev := strconv.FormatInt(older, 10) + ",10," + strconv.Itoa(60<<20)

	// The current sample joins the page's history.
	resp, body := h.Get(t, path+"?history="+url.QueryEscape(prev), http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q", ct)
	}
	doc := webtest.Parse(t, body)
	chart := doc.Find("[data-testid=usage-chart]")
	history := chart.AttrOr("data-usage-history", "")
	want := prev + ";" + strconv.FormatInt(webtest.SampledAt.Unix(), 10) + ",13," + strconv.Itoa(64<<20)
	if history != want {
		t.Errorf("history = %q, want %q", history, want)
	}
	if strings.Contains(body, "<html") {
		t.Error("the endpoint answered a whole page, not the chart")
	}
	// metrics-server still serves the same sample: nothing is added.
	_, body = h.Get(t, path+"?history="+url.QueryEscape(history), http.StatusOK)
	if again := webtest.Parse(t, body).Find("[data-testid=usage-chart]").AttrOr("data-usage-history", ""); again != history {
		t.Errorf("the same sample was added twice: %q", again)
	}

	long := make([]string, 61)
	for i := range long {
		long[i] = strconv.Itoa(1000+i) + ",1,1"
	}
	for _, tc := range []struct {
		name, path string
		want       int
	}{
		{"malformed history", path + "?history=1,2", http.StatusBadRequest},
		{"history out of order", path + "?history=" + url.QueryEscape("5,1,1;4,1,1"), http.StatusBadRequest},
		{"too long a history", path + "?history=" + url.QueryEscape(strings.Join(long, ";")), http.StatusBadRequest},
		{"a pod without a sample", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-b/usage", http.StatusNotFound},
		{"a node", "/c/dev/api/v1/nodes/node-1/usage", http.StatusOK},
		{"a kind without usage", "/c/dev/api/v1/namespaces/demo/services/web/usage", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) { h.Get(t, tc.path, tc.want) })
	}
	fake.FailResource("metrics.k8s.io", "pods", apitest.Forbidden("jane", "get", "metrics.k8s.io", "pods", "web-5d9-a"))
	h.Get(t, path, http.StatusForbidden)
}
