package list_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/webtest"
)

// rowCells are the texts of a row's cells, by the row's key.
func rowCells(doc *goquery.Document, key string) []string {
	var out []string
	doc.Find(`[data-testid=list-table] tr[data-key="` + key + `"] td`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Text()))
	})
	return out
}

func lastTwo(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, ",")
	}
	return strings.Join(s[len(s)-2:], ",")
}

func TestListsShowUsageColumnsMergedByName(t *testing.T) {
	for _, tc := range []struct {
		name, path  string
		wantHeaders string
		rows        map[string]string // key → CPU,Memory
		muted       int               // muted cells: rows without a sample
		wantRequest string            // path and labelSelector of the one metrics request
	}{
		{"pods in a namespace, with the page's selector", "/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb",
			"Name,Ready,Status,Restarts,Age,CPU,Memory",
			map[string]string{"demo/web-5d9-a": "13m,64Mi", "demo/web-5d9-b": "—,—"}, 2,
			"/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods?labelSelector=app%3Dweb"},
		{"pods in all namespaces", "/c/dev/api/v1/pods",
			"Namespace,Name,Ready,Status,Restarts,Age,CPU,Memory",
			map[string]string{"demo/web-5d9-a": "13m,64Mi", "team-a/worker-1": "1.5,12Gi"}, 2,
			"/apis/metrics.k8s.io/v1beta1/pods"},
		{"pods sorted within the page", "/c/dev/api/v1/namespaces/demo/pods?sort=-Name",
			"Name,Ready,Status,Restarts,Age,CPU,Memory",
			map[string]string{"demo/web-5d9-a": "13m,64Mi", "demo/web-5d9-b": "—,—"}, 2,
			"/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods"},
		{"nodes", "/c/dev/api/v1/nodes",
			"Name,Status,Age,Version,CPU,Memory",
			map[string]string{"/node-1": "250m,2048Mi"}, 0,
			"/apis/metrics.k8s.io/v1beta1/nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, fake := webtest.Usage(t, true)
			fake.ResetRequests()
			_, body := h.Get(t, tc.path, http.StatusOK)
			doc := webtest.Parse(t, body)
			if got := strings.Join(webtest.Columns(doc), ","); got != tc.wantHeaders {
				t.Errorf("headers = %s, want %s", got, tc.wantHeaders)
			}
			for key, want := range tc.rows {
				if got := lastTwo(rowCells(doc, key)); got != want {
					t.Errorf("row %s usage = %s, want %s", key, got, want)
				}
			}
			if n := doc.Find(`td.num.muted`).Length(); n != tc.muted {
				t.Errorf("%d muted usage cells, want %d", n, tc.muted)
			}
			reqs := webtest.MetricsRequests(fake)
			if len(reqs) != 1 || reqs[0].RequestURI() != tc.wantRequest {
				t.Errorf("metrics requests = %v, want one: %s", reqs, tc.wantRequest)
			}
		})
	}
}

// A metrics request that fails leaves the page whole: rows, muted usage
// cells, and a quiet reason in the columns' titles.
func TestListSurvivesAFailingMetricsRequest(t *testing.T) {
	unavailable := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
		Reason: metav1.StatusReasonServiceUnavailable, Message: "the server is currently unable to handle the request"}
	for _, tc := range []struct {
		name   string
		inject func(*apitest.Server)
		reason string
	}{
		{"forbidden", func(f *apitest.Server) {
			f.FailResource("metrics.k8s.io", "pods", apitest.Forbidden("jane", "list", "metrics.k8s.io", "pods", ""))
		}, "forbidden"},
		{"APIService unavailable", func(f *apitest.Server) { f.FailResource("metrics.k8s.io", "pods", unavailable) }, "unable to handle"},
		{"not found", func(f *apitest.Server) {
			f.FailResource("metrics.k8s.io", "pods", apitest.NotFound("metrics.k8s.io", "pods", ""))
		}, "not found"},
		{"too slow", func(f *apitest.Server) {
			f.Override("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			})
		}, "in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The console's own wait: a metrics-server that does not answer
			// in it leaves the page whole.
			h, fake := webtest.UsageWaiting(t, true, time.Second)
			tc.inject(fake)
			began := time.Now()
			_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)
			if took := time.Since(began); took > 5*time.Second {
				t.Errorf("the page took %s: it must not wait long for metrics", took)
			}
			doc := webtest.Parse(t, body)
			if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,Restarts,Age,CPU,Memory" {
				t.Errorf("headers = %s", got)
			}
			if got := lastTwo(rowCells(doc, "demo/web-5d9-a")); got != "—,—" {
				t.Errorf("usage of web-5d9-a = %s, want muted dashes", got)
			}
			title := doc.Find("[data-testid=list-table] thead th").Last().AttrOr("title", "")
			if !strings.Contains(title, "Usage unavailable") || !strings.Contains(strings.ToLower(title), tc.reason) {
				t.Errorf("memory column title = %q, want the reason (%s)", title, tc.reason)
			}
			if doc.Find(".notice, [role=alert]").Length() != 0 {
				t.Error("a failing metrics request raised a banner")
			}
		})
	}
}

// A live list pushes rows with the same usage cells as the page: the page
// says it has them (data-usage), and static/live/list.js passes that on.
func TestLiveListRowsCarryUsage(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	_, body := h.Get(t, path, http.StatusOK)
	live := webtest.Parse(t, body).Find("[data-testid=live-list]")
	if got := live.AttrOr("data-usage", ""); got != "on" {
		t.Fatalf("data-usage = %q, want on", got)
	}
	c := h.Dial(t, path+"?usage=on&resourceVersion="+live.AttrOr("data-rv", ""))
	fake.Modify(webtest.PodGVK, "demo", "web-5d9-a", webtest.SetPhase("Failed"))
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "demo/web-5d9-a" })
	doc := webtest.Parse(t, "<table><tbody>"+m.HTML+"</tbody></table>")
	cells := webtest.Texts(doc, "td")
	if len(cells) != 7 || lastTwo(cells) != "13m,64Mi" {
		t.Errorf("pushed row cells = %v, want the page's seven with usage 13m, 64Mi", cells)
	}
}

// A deleted row is only named in what a live list pushes: it costs no
// metrics request.
func TestLiveListDeletionsAskNoUsage(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	c := h.Dial(t, path+"?usage=on&resourceVersion="+h.ListRV(t, path))
	fake.ResetRequests()
	fake.Delete(webtest.PodGVK, "demo", "web-5d9-b")
	webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "DELETED" && m.Key == "demo/web-5d9-b" })
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("a deletion asked metrics.k8s.io: %v", reqs)
	}
}

// A user the server would refuse metrics gets pods and workloads without
// usage, and the pages ask metrics.k8s.io nothing: an access review (kept
// per identity) answers first. A user granted the metrics read, as the view
// role aggregates it, gets the columns.
func TestUsageOnlyForUsersWhoMayReadMetrics(t *testing.T) {
	const metricsToken = "metrics-token"
	ac := webtest.AccessRules()
	ac.Users[metricsToken] = apitest.User{Name: "carol@example.com", Groups: []string{"tabula:viewers", "tabula:metrics"}}
	ac.Rules = append(ac.Rules, apitest.Rule{Groups: []string{"tabula:metrics"}, Namespaces: []string{"demo"},
		Verbs: []string{"get", "list"}, APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods"}})
	h := webtest.WithAccess(t, ac, apitest.MetricsV1Beta1())
	h.Fake.Add(apitest.PodMetrics("demo", "web-1", map[string]string{"app": "web"}, webtest.SampledAt, 15*time.Second,
		apitest.ContainerUsage{Name: "app", CPU: "13m", Memory: "64Mi"}))
	const (
		podsPath = "/c/dev/api/v1/namespaces/demo/pods"
		podPath  = podsPath + "/web-1"
	)

	h.Fake.ResetRequests()
	for _, path := range []string{podsPath, podPath, webtest.WebPath} {
		doc := webtest.Parse(t, h.GetAs(t, webtest.ViewerToken, path, http.StatusOK))
		if hs := strings.Join(webtest.Columns(doc), ","); strings.Contains(hs, "CPU") {
			t.Errorf("%s as a viewer without metrics: headers %s", path, hs)
		}
		if doc.Find("[data-testid=usage]").Length() != 0 {
			t.Errorf("%s as a viewer without metrics: a usage section", path)
		}
	}
	if reqs := webtest.MetricsRequests(h.Fake); len(reqs) != 0 {
		t.Errorf("metrics requests for a user the server would refuse: %v", reqs)
	}

	doc := webtest.Parse(t, h.GetAs(t, metricsToken, podsPath, http.StatusOK))
	if got := lastTwo(rowCells(doc, "demo/web-1")); got != "13m,64Mi" {
		t.Errorf("usage of web-1 for a metrics reader = %s", got)
	}
	doc = webtest.Parse(t, h.GetAs(t, metricsToken, podPath, http.StatusOK))
	if doc.Find("[data-testid=usage-chart]").Length() != 1 {
		t.Error("no usage chart for a metrics reader")
	}
	doc = webtest.Parse(t, h.GetAs(t, metricsToken, webtest.WebPath, http.StatusOK))
	if got := strings.Join(webtest.Texts(doc, "[data-testid=usage-fields] dd"), ","); got != "13m,64Mi" {
		t.Errorf("deployment usage for a metrics reader = %s", got)
	}

	// A live list told the page has usage columns, by a user the server
	// would refuse (a page from before a RoleBinding was removed, or a
	// forged URL), keeps the columns with dashes and asks nothing.
	rv, _ := webtest.Parse(t, h.GetAs(t, webtest.ViewerToken, podsPath, http.StatusOK)).Find("[data-testid=live-list]").Attr("data-rv")
	c := h.DialAs(t, webtest.ViewerToken, podsPath+"?usage=on&resourceVersion="+rv)
	h.Fake.ResetRequests()
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "demo/web-1" })
	if cells := webtest.Texts(webtest.Parse(t, "<table><tbody>"+m.HTML+"</tbody></table>"), "td"); lastTwo(cells) != "—,—" {
		t.Errorf("pushed row for a refused user = %v, want dashes", cells)
	}
	if reqs := webtest.MetricsRequests(h.Fake); len(reqs) != 0 {
		t.Errorf("a refused user's live list asked metrics.k8s.io: %v", reqs)
	}
}

// metrics-server does not page: its answer holds every pod of the
// namespace the label selector matches. A list longer than the console
// shows usage for asks it nothing and has no usage columns, with a remark
// saying why; a short list split into pages still gets usage on each, and a
// field selector (which narrows the list but not metrics-server's answer)
// is judged by what metrics-server would return.
func TestLongListsAskForNoUsage(t *testing.T) {
	h, fake := webtest.Usage(t, true)
	bulk := make([]*unstructured.Unstructured, 0, 2010)
	for i := range 2010 {
		bulk = append(bulk, apitest.Pod("bulk", "bulk-"+strconv.Itoa(10000+i), map[string]string{"app": "bulk"}))
	}
	fake.Add(bulk...)
	fake.Add(apitest.PodMetrics("bulk", "bulk-10000", map[string]string{"app": "bulk"}, webtest.SampledAt, 15*time.Second,
		apitest.ContainerUsage{Name: "app", CPU: "5m", Memory: "16Mi"}))

	for _, tc := range []struct {
		path, key, usage string
		// omitted is the remark's reason, "" where the list has usage.
		omitted string
	}{
		// 2,010 pods: over the bound, whether the head says so or a
		// one-row list does.
		{"/c/dev/api/v1/namespaces/bulk/pods", "bulk/bulk-10000", "", "this one holds more"},
		{"/c/dev/api/v1/namespaces/bulk/pods?fieldSelector=metadata.name%3Dbulk-10000", "bulk/bulk-10000", "", "this one holds more"},
		{"/c/dev/api/v1/pods?limit=5", "bulk/bulk-10000", "", "this one holds more"},
		// A selected list's length is not told past its first page: the
		// namespace's is, and it holds too many.
		{"/c/dev/api/v1/namespaces/bulk/pods?labelSelector=app%3Dbulk", "bulk/bulk-10000", "", "this one holds more"},
		// A page holding the whole list: metrics-server's answer is no
		// larger than the page.
		{"/c/dev/api/v1/namespaces/bulk/pods?limit=5000", "bulk/bulk-10000", "5m,16Mi", ""},
		// Short lists: whole, paged, or narrowed by a field selector.
		{"/c/dev/api/v1/namespaces/demo/pods?limit=1", "demo/web-5d9-a", "13m,64Mi", ""},
		{"/c/dev/api/v1/namespaces/demo/pods?fieldSelector=metadata.name%3Dweb-5d9-a", "demo/web-5d9-a", "13m,64Mi", ""},
		{"/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb", "demo/web-5d9-a", "13m,64Mi", ""},
		{"/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb&limit=1", "demo/web-5d9-a", "13m,64Mi", ""},
	} {
		fake.ResetRequests()
		_, body := h.Get(t, tc.path, http.StatusOK)
		doc := webtest.Parse(t, body)
		hs := strings.Join(webtest.Columns(doc), ",")
		remark := doc.Find("[data-testid=page-info] [data-testid=usage-omitted]")
		asked := len(webtest.MetricsRequests(fake)) > 0
		if tc.omitted == "" {
			if got := lastTwo(rowCells(doc, tc.key)); got != tc.usage {
				t.Errorf("%s: usage of %s = %s, want %s", tc.path, tc.key, got, tc.usage)
			}
			if !asked || remark.Length() != 0 {
				t.Errorf("%s: asked metrics.k8s.io = %v, remark %q; want usage", tc.path, asked, remark.Text())
			}
			continue
		}
		if strings.Contains(hs, "CPU") || doc.Find(`[data-testid=list-table] tr[data-key="`+tc.key+`"]`).Length() != 1 {
			t.Errorf("%s: headers %s, want the list without usage columns", tc.path, hs)
		}
		if asked {
			t.Errorf("%s: asked metrics.k8s.io for a list too long for it", tc.path)
		}
		if why := remark.AttrOr("title", ""); !strings.Contains(why, "up to 2000") || !strings.Contains(why, tc.omitted) {
			t.Errorf("%s: remark %q titled %q, want why (%s)", tc.path, remark.Text(), why, tc.omitted)
		}
	}

	// A later page of a long list counts the list, whatever page number
	// its URL claims.
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods", http.StatusOK)
	next := webtest.Parse(t, body).Find("[data-testid=page-next]").AttrOr("href", "")
	if !strings.Contains(next, "page=2") {
		t.Fatalf("next page link %q", next)
	}
	fake.ResetRequests()
	_, body = h.Get(t, strings.Replace(next, "page=2", "page=1", 1), http.StatusOK)
	if why := webtest.Parse(t, body).Find("[data-testid=usage-omitted]").AttrOr("title", ""); !strings.Contains(why, "holds more") {
		t.Errorf("later page of a long list: remark titled %q", why)
	}
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("a later page of a long list asked metrics.k8s.io: %v", reqs)
	}

	// The second page of a short list gets usage too.
	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?limit=1", http.StatusOK)
	next = webtest.Parse(t, body).Find("[data-testid=page-next]").AttrOr("href", "")
	if next == "" {
		t.Fatal("no next page link")
	}
	_, body = h.Get(t, next, http.StatusOK)
	if got := strings.Join(webtest.Columns(webtest.Parse(t, body)), ","); !strings.HasSuffix(got, "CPU,Memory") {
		t.Errorf("second page headers = %s", got)
	}

	// Live rows of a long list match its columns, and ask nothing either.
	const bulkPath = "/c/dev/api/v1/namespaces/bulk/pods"
	_, body = h.Get(t, bulkPath, http.StatusOK)
	live := webtest.Parse(t, body).Find("[data-testid=live-list]")
	if got := live.AttrOr("data-usage", ""); got != "" {
		t.Errorf("data-usage of a long list = %q, want none", got)
	}
	c := h.Dial(t, bulkPath+"?resourceVersion="+live.AttrOr("data-rv", ""))
	fake.ResetRequests()
	fake.Modify(webtest.PodGVK, "bulk", "bulk-10000", webtest.SetPhase("Failed"))
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "bulk/bulk-10000" })
	if cells := webtest.Texts(webtest.Parse(t, "<table><tbody>"+m.HTML+"</tbody></table>"), "td"); len(cells) != 5 {
		t.Errorf("pushed row of a long list = %v, want the page's five cells", cells)
	}
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("a live long list asked metrics.k8s.io: %v", reqs)
	}
}

// A server that never says how long a list is (remainingItemCount is
// optional) gets usage on lists that fit one page, and none on paged ones,
// with the reason; a failing count is a reason too, never an error page.
func TestUsageWhereTheServerCountsNothing(t *testing.T) {
	fake := apitest.NewServerWith(t, apitest.Options{NoRemainingCount: true}, apitest.CoreV1(), apitest.MetricsV1Beta1())
	fake.Add(
		apitest.Pod("demo", "web-a", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-b", map[string]string{"app": "web"}),
		apitest.PodMetrics("demo", "web-a", map[string]string{"app": "web"}, webtest.SampledAt, 15*time.Second,
			apitest.ContainerUsage{Name: "app", CPU: "13m", Memory: "64Mi"}),
	)
	h := webtest.Start(t, fake, webtest.Options{})
	const path = "/c/dev/api/v1/namespaces/demo/pods"

	_, body := h.Get(t, path, http.StatusOK)
	if got := lastTwo(rowCells(webtest.Parse(t, body), "demo/web-a")); got != "13m,64Mi" {
		t.Errorf("usage on a whole list = %s", got)
	}

	fake.ResetRequests()
	_, body = h.Get(t, path+"?limit=1", http.StatusOK)
	doc := webtest.Parse(t, body)
	if why := doc.Find("[data-testid=usage-omitted]").AttrOr("title", ""); !strings.Contains(why, "does not say how long") {
		t.Errorf("paged list: remark titled %q", why)
	}
	if reqs := webtest.MetricsRequests(fake); len(reqs) != 0 {
		t.Errorf("a list of unknown length asked metrics.k8s.io: %v", reqs)
	}

	// A field selector makes the console count with a one-row list; here
	// it fails.
	fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("limit") == "1" {
			apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
				Reason: metav1.StatusReasonInternalError, Message: "etcd is sulking"})
			return
		}
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		_, _ = io.WriteString(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},`+
			`"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],`+
			`"rows":[{"cells":["web-a"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web-a","namespace":"demo"}}}]}`)
	})
	_, body = h.Get(t, path+"?fieldSelector=metadata.name%3Dweb-a", http.StatusOK)
	doc = webtest.Parse(t, body)
	if why := doc.Find("[data-testid=usage-omitted]").AttrOr("title", ""); !strings.Contains(why, "could not tell") || !strings.Contains(why, "etcd is sulking") {
		t.Errorf("failed count: remark titled %q", why)
	}
	if len(rowCells(doc, "demo/web-a")) == 0 {
		t.Error("the failed count lost the list")
	}
}
