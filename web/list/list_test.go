package list_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

func rowLinks(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	doc.Find("[data-testid=list-table] tbody td a").Each(func(_ int, s *goquery.Selection) {
		out[s.Text()] = s.AttrOr("href", "")
	})
	return out
}

// Each kind of server renders a usable list: the server's own columns when
// it serves Tables, generic Name/Namespace/Age columns when it does not.
func TestListConformanceVariants(t *testing.T) {
	tests := []struct {
		name        string
		opts        apitest.Options
		path        string
		wantServed  string
		wantHeaders string
		wantLink    [2]string
		wantAccept  string // a media type the console must have asked for
	}{
		{"table v1", apitest.Options{}, "/c/dev/api/v1/namespaces/demo/pods",
			"Table v1", "Name,Ready,Status,Restarts,Age", [2]string{"web-5d9-a", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"}, "as=Table;v=v1;"},
		{"table v1beta1 only", apitest.Options{Table: apitest.TableV1Beta1Only}, "/c/dev/api/v1/namespaces/demo/pods",
			"Table v1beta1", "Name,Ready,Status,Restarts,Age", [2]string{"web-5d9-b", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-b"}, "as=Table;v=v1beta1;"},
		{"ignores as=Table: plain list", apitest.Options{Table: apitest.TableNone}, "/c/dev/api/v1/namespaces/demo/pods",
			"JSON fallback", "Name,Age", [2]string{"web-5d9-a", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"}, "as=Table;v=v1;"},
		{"406 on as=Table", apitest.Options{Table: apitest.TableNotAcceptable}, "/c/dev/api/v1/namespaces/demo/pods",
			"Metadata fallback", "Name,Age", [2]string{"web-5d9-a", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"}, "as=PartialObjectMetadataList"},
		{"406 and no metadata lists", apitest.Options{Table: apitest.TableNotAcceptable, NoPartialMetadata: true}, "/c/dev/api/v1/namespaces/demo/pods",
			"JSON fallback", "Name,Age", [2]string{"web-5d9-b", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-b"}, "as=PartialObjectMetadataList"},
		{"legacy discovery only", apitest.Options{LegacyDiscovery: true}, "/c/dev/apis/apps/v1/namespaces/demo/deployments",
			"Table v1", "Name,Ready,Up-to-date,Available,Age", [2]string{"web", "/c/dev/apis/apps/v1/namespaces/demo/deployments/web"}, "as=Table;v=v1;"},
		{"all namespaces add a namespace column", apitest.Options{}, "/c/dev/api/v1/pods",
			"Table v1", "Namespace,Name,Ready,Status,Restarts,Age", [2]string{"worker-1", "/c/dev/api/v1/namespaces/team-a/pods/worker-1"}, "as=Table;v=v1;"},
		{"CSM-style cluster-scoped group", apitest.Options{}, "/c/dev/apis/policy.example.com/v1/sessions",
			"Table v1", "Name,Operation,Template,Status,Age", [2]string{"boot-x3000", "/c/dev/apis/policy.example.com/v1/sessions/boot-x3000"}, "as=Table;v=v1;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, fake := webtest.Demo(t, tt.opts)
			_, body := h.Get(t, tt.path, http.StatusOK)
			doc := webtest.Parse(t, body)
			if got := doc.Find("[data-testid=served]").Text(); got != tt.wantServed {
				t.Errorf("served badge = %q, want %q", got, tt.wantServed)
			}
			if got := strings.Join(webtest.Columns(doc), ","); got != tt.wantHeaders {
				t.Errorf("headers = %s, want %s", got, tt.wantHeaders)
			}
			if got := rowLinks(doc)[tt.wantLink[0]]; got != tt.wantLink[1] {
				t.Errorf("link of %s = %q, want %q", tt.wantLink[0], got, tt.wantLink[1])
			}
			asked := false
			for _, r := range fake.Requests() {
				if strings.Contains(r.Header.Get("Accept"), tt.wantAccept) {
					asked = true
				}
			}
			if !asked {
				t.Errorf("no request asked for %q", tt.wantAccept)
			}
		})
	}
}

func TestListIncludesOnlyTheObjectDataThePageNeeds(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	for path, want := range map[string]string{
		"/c/dev/api/v1/namespaces/demo/pods":         "None",
		"/c/dev/apis/policy.example.com/v1/sessions": "None",
		"/c/dev/api/v1/pods":                         "Metadata",
	} {
		fake.ResetRequests()
		h.Get(t, path, http.StatusOK)
		var got []string
		for _, r := range fake.Requests() {
			if strings.HasSuffix(r.URL.Path, "/pods") || strings.HasSuffix(r.URL.Path, "/sessions") {
				got = append(got, r.URL.Query().Get("includeObject"))
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: includeObject = %v, want [%s]", path, got, want)
		}
	}
}

func TestWideRevealsPriorityColumns(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/policy.example.com/v1/sessions", http.StatusOK)
	doc := webtest.Parse(t, body)
	if strings.Contains(strings.Join(webtest.Columns(doc), ","), "Limit") {
		t.Error("priority column shown without wide")
	}
	wide := doc.Find("[data-testid=wide-toggle]").AttrOr("href", "")
	_, body = h.Get(t, wide, http.StatusOK)
	if got := strings.Join(webtest.Columns(webtest.Parse(t, body)), ","); got != "Name,Operation,Template,Status,Limit,Age" {
		t.Errorf("wide headers = %s", got)
	}
}

func TestPagingFollowsContinueTokensBothWays(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	names := func(body string) string {
		var out []string
		webtest.Parse(t, body).Find("[data-testid=list-table] tbody tr").Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.Find("td a").First().Text())
		})
		return strings.Join(out, ",")
	}
	_, p1 := h.Get(t, "/c/dev/api/v1/pods?limit=2", http.StatusOK)
	next := webtest.Parse(t, p1).Find("[data-testid=page-next]").AttrOr("href", "")
	if next == "" || !strings.Contains(next, "continue=") {
		t.Fatalf("no Next link with a continue token: %q", next)
	}
	_, p2 := h.Get(t, next, http.StatusOK)
	if names(p1) == names(p2) || names(p2) == "" {
		t.Fatalf("page 2 (%s) repeats page 1 (%s)", names(p2), names(p1))
	}
	back := webtest.Parse(t, p2).Find("[data-testid=page-back]").AttrOr("href", "")
	_, again := h.Get(t, back, http.StatusOK)
	if names(again) != names(p1) {
		t.Errorf("Back shows %s, want page 1 %s", names(again), names(p1))
	}
}

func TestExpiredContinueTokenRestartsWithANotice(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	_, p1 := h.Get(t, "/c/dev/api/v1/pods?limit=2", http.StatusOK)
	next := webtest.Parse(t, p1).Find("[data-testid=page-next]").AttrOr("href", "")
	fake.ExpireContinueTokens()
	_, body := h.Get(t, next, http.StatusOK)
	doc := webtest.Parse(t, body)
	if !strings.Contains(doc.Find("[data-testid=list-notice]").Text(), "expired") {
		t.Error("no notice about the expired continue token")
	}
	if got := doc.Find("[data-testid=page-info]").Text(); !strings.Contains(got, "Page 1") {
		t.Errorf("page info = %q, want page 1", got)
	}
}

func TestSortSortsTheCurrentPageAndSaysSo(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/policy.example.com/v1/sessions?sort=-Name", http.StatusOK)
	doc := webtest.Parse(t, body)
	first := doc.Find("[data-testid=list-table] tbody tr").First().Find("td a").Text()
	if first != "shutdown-x3001" {
		t.Errorf("first row = %q, want shutdown-x3001 (descending)", first)
	}
	if !strings.Contains(doc.Find("[data-testid=page-info]").Text(), "within this page") {
		t.Error("the page does not say sorting is per page")
	}
	// Screen readers hear the direction the page is sorted in.
	doc.Find("[data-testid=list-table] thead th:not(.select-col)").Each(func(_ int, th *goquery.Selection) {
		want := "none"
		if strings.TrimSpace(th.Text()) == "Name" {
			want = "descending"
		}
		if got := th.AttrOr("aria-sort", ""); got != want {
			t.Errorf("column %q: aria-sort %q, want %q", strings.TrimSpace(th.Text()), got, want)
		}
	})
}

func TestLabelSelectorFilters(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/pods?labelSelector="+url.QueryEscape("app=worker"), http.StatusOK)
	links := rowLinks(webtest.Parse(t, body))
	if _, ok := links["worker-1"]; !ok || len(links) != 2 { // name + namespace links
		t.Errorf("filtered rows = %v", links)
	}
}

func TestForbiddenListNamesVerbAndResource(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.FailResource("", "secrets", metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" in the namespace "demo"`,
	})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/secrets", http.StatusForbidden)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=error-hint]").Text(); got != "You may not list secrets in namespace demo." {
		t.Errorf("hint = %q", got)
	}
	if !strings.Contains(doc.Find("[data-testid=error-message]").Text(), `cannot list resource "secrets"`) {
		t.Error("the server's message is missing")
	}
}

func TestNamespacePickerRedirectsKeepingFilters(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	resp, _ := h.Get(t, "/c/dev/namespace?group=&version=v1&resource=pods&namespace=team-a&labelSelector=app%3Dworker", http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != "/c/dev/api/v1/namespaces/team-a/pods?labelSelector=app%3Dworker" {
		t.Errorf("Location = %q", got)
	}
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)
	var options []string
	webtest.Parse(t, body).Find("[data-testid=namespace-select] option").Each(func(_ int, s *goquery.Selection) {
		options = append(options, s.AttrOr("value", ""))
	})
	if strings.Join(options, ",") != ",demo" {
		t.Errorf("namespace options = %v", options)
	}
}

func TestThrottledListPassesRetryAfterOn(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.FailResource("", "pods", apitest.TooManyRequests(9))
	resp, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusTooManyRequests)
	if got := resp.Header.Get("Retry-After"); got != "9" {
		t.Errorf("Retry-After = %q, want 9", got)
	}
	if webtest.Parse(t, body).Find("[data-testid=error-retry]").Length() != 1 {
		t.Error("no retry link")
	}
}

func TestAHungServerGivesA504Page(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; returns when the console gives up
	})
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: 300 * time.Millisecond}})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusGatewayTimeout)
	if got := webtest.Parse(t, body).Find("[data-testid=error-title]").Text(); got != "The API server did not answer in time" {
		t.Errorf("title = %q", got)
	}
}

// The namespace picker's cached options are shared by concurrent pages;
// adding the current namespace must not write into them (run with -race).
func TestConcurrentPagesDoNotShareNamespaceOptions(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK) // fills the cache
	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make([]answer, 8)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var wg sync.WaitGroup
	for i := range answers {
		// Only the test's goroutine may stop the test: the pages are
		// fetched here and checked below.
		wg.Go(func() {
			resp, err := client.Get(fmt.Sprintf("%s/c/dev/api/v1/namespaces/ns-%d/pods", h.URL, i))
			if err != nil {
				answers[i].err = err
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			answers[i] = answer{status: resp.StatusCode, body: string(body), err: err}
		})
	}
	wg.Wait()
	for i, a := range answers {
		ns := fmt.Sprintf("ns-%d", i)
		if a.err != nil || a.status != http.StatusOK {
			t.Errorf("page for %s: status %d, %v; body:\n%s", ns, a.status, a.err, webtest.Clip(a.body))
			continue
		}
		var options []string
		webtest.Parse(t, a.body).Find("[data-testid=namespace-select] option").Each(func(_ int, s *goquery.Selection) {
			options = append(options, s.AttrOr("value", ""))
		})
		if len(options) == 0 || options[len(options)-1] != ns {
			t.Errorf("page for %s offers %v, want %s last", ns, options, ns)
		}
	}
}

// bodyCutShort serves the head of a pod Table and some rows, then stops:
// with end, the connection closes mid-row; without, the server stalls
// until the console gives up.
func bodyCutShort(t *testing.T, closeEarly bool) http.HandlerFunc {
	table := apitest.KwokPodTable(50)
	full, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	// The rows start after the head; cut inside the 20th row.
	cut := bytes.Index(full, []byte(`"rows":[`)) + len(`"rows":[`)
	for range 20 {
		cut += bytes.Index(full[cut:], []byte(`{"cells"`)) + 1
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(full)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(full[:cut])
		w.(http.Flusher).Flush()
		if !closeEarly {
			<-r.Context().Done()
		}
	}
}

// A list body that breaks off after some rows were read gives a whole
// error page, never half a list.
func TestAListCutShortIsAWholeErrorPage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stall   bool
		status  int
		timeout time.Duration
	}{
		{name: "connection closed", status: http.StatusBadGateway, timeout: 5 * time.Second},
		{name: "server stalls past the deadline", stall: true, status: http.StatusGatewayTimeout, timeout: 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServer(t, apitest.CoreV1())
			fake.Override("/api/v1/namespaces/demo/pods", bodyCutShort(t, !tc.stall))
			h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: tc.timeout}})
			_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", tc.status)
			doc := webtest.Parse(t, body)
			if doc.Find("[data-testid=error-page]").Length() != 1 {
				t.Errorf("no error page:\n%.400s", body)
			}
			if doc.Find("[data-testid=list-table], tr[data-key]").Length() != 0 {
				t.Error("the error page carries part of the list")
			}
		})
	}
}

// A selector that matches nothing says so, and the empty state's link
// shows the same list (namespace, wide) without it.
func TestEmptyListOffersToClearTheSelector(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?wide=1&labelSelector="+url.QueryEscape("app=none"), http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=list-empty-reason]").Text(); got != "No pods match the label selector app=none in namespace demo." {
		t.Errorf("reason = %q", got)
	}
	clear := doc.Find("[data-testid=list-empty-clear]").AttrOr("href", "")
	if clear != "/c/dev/api/v1/namespaces/demo/pods?wide=1" {
		t.Fatalf("clear link = %q", clear)
	}
	_, body = h.Get(t, clear, http.StatusOK)
	if _, hidden := webtest.Parse(t, body).Find("[data-testid=list-empty]").Attr("hidden"); !hidden {
		t.Error("the cleared list is empty")
	}
}
