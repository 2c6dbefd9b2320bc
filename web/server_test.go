package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

func TestRootRedirectsToCurrentContext(t *testing.T) {
	h := webtest.New(t, "dev", "prod")
	resp, _ := h.Get(t, "/", http.StatusFound)
	if got := resp.Header.Get("Location"); got != "/c/dev/" {
		t.Errorf("Location = %q, want /c/dev/", got)
	}
	resp, _ = h.Get(t, "/c/prod", http.StatusMovedPermanently)
	if got := resp.Header.Get("Location"); got != "/c/prod/" {
		t.Errorf("Location = %q, want /c/prod/", got)
	}
}

func TestHomeListsDiscoveredGroupsAndResources(t *testing.T) {
	h := webtest.New(t, "dev", "prod")
	resp, body := h.Get(t, "/c/dev/", http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q, want text/html", ct)
	}
	doc := webtest.Parse(t, body)

	var groups []string
	doc.Find("[data-testid=api-group]").Each(func(_ int, s *goquery.Selection) {
		groups = append(groups, s.AttrOr("data-group", ""))
	})
	if want := []string{"core", "apps", "maritime.example.com"}; strings.Join(groups, ",") != strings.Join(want, ",") {
		t.Errorf("groups = %v, want %v (core first, then by name)", groups, want)
	}

	links := map[string]string{}
	doc.Find("[data-testid=api-resource] a.resource-name").Each(func(_ int, s *goquery.Selection) {
		links[s.Text()] = s.AttrOr("href", "")
	})
	for name, want := range map[string]string{
		"pods":        "/c/dev/api/v1/pods",
		"deployments": "/c/dev/apis/apps/v1/deployments",
		"lighthouses": "/c/dev/apis/maritime.example.com/v1alpha1/lighthouses",
	} {
		if links[name] != want {
			t.Errorf("link for %s = %q, want %q", name, links[name], want)
		}
	}
	if _, ok := links["pods/log"]; ok {
		t.Error("subresource pods/log is listed as a resource")
	}
	if _, ok := links["bindings"]; ok {
		t.Error("bindings (create only) is linked although it cannot be listed")
	}
	if got := doc.Find("[data-testid=current-context]").Text(); got != "dev" {
		t.Errorf("current context = %q, want dev", got)
	}
	// Two contexts, and all of them at once.
	if got := webtest.Texts(doc, "[data-testid=context-switcher] li a"); len(got) != 3 || !strings.HasPrefix(got[2], "All contexts") {
		t.Errorf("context switcher = %q, want two contexts and All contexts", got)
	}
	if got := doc.Find("[data-testid=server-version]").Text(); got != "v1.36.0-fake" {
		t.Errorf("server version = %q", got)
	}
}

func TestContextNamesWithSlashesAndColons(t *testing.T) {
	name := "arn:aws:eks:eu-west-1:123456789012:cluster/prod"
	h := webtest.New(t, name)
	resp, _ := h.Get(t, "/", http.StatusFound)
	loc := resp.Header.Get("Location")
	if !strings.Contains(loc, "%2F") {
		t.Fatalf("Location %q does not escape the slash", loc)
	}
	_, body := h.Get(t, loc, http.StatusOK)
	if got := webtest.Parse(t, body).Find("[data-testid=current-context]").Text(); got != name {
		t.Errorf("current context = %q, want %q", got, name)
	}
}

func TestUnknownContextIs404Page(t *testing.T) {
	h := webtest.New(t)
	_, body := h.Get(t, "/c/nope/", http.StatusNotFound)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=error-code]").Text(); got != "404" {
		t.Errorf("error code = %q", got)
	}
	if !strings.Contains(doc.Find("[data-testid=error-message]").Text(), `"nope"`) {
		t.Errorf("message does not name the context: %q", doc.Find("[data-testid=error-message]").Text())
	}
}

func TestUpstreamStatusIsMappedFaithfully(t *testing.T) {
	h := webtest.New(t)
	h.Fake.Override("/api", func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Message: `forbidden: User "outsider" cannot get path "/api"`,
		})
	})
	_, body := h.Get(t, "/c/dev/", http.StatusForbidden)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=error-reason]").Text(); got != "Forbidden" {
		t.Errorf("reason = %q", got)
	}
	if got := doc.Find("[data-testid=error-message]").Text(); !strings.Contains(got, `User "outsider" cannot get path`) {
		t.Errorf("message = %q", got)
	}
}

func TestThrottledUpstreamHonoursRetryAfter(t *testing.T) {
	h := webtest.New(t)
	h.Fake.Override("/api", func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
			Message: "too many requests", Details: &metav1.StatusDetails{RetryAfterSeconds: 7},
		})
	})
	// client-go retries 429s itself (honouring Retry-After) before giving up,
	// so this test takes a moment; the page must still carry the hint.
	resp, body := h.Get(t, "/c/dev/", http.StatusTooManyRequests)
	if got := resp.Header.Get("Retry-After"); got != "7" {
		t.Errorf("Retry-After = %q, want 7", got)
	}
	if webtest.Parse(t, body).Find("[data-testid=error-retry]").Length() != 1 {
		t.Error("no retry link on a 429 page")
	}
}

func TestUnreachableServerGivesRetryPage(t *testing.T) {
	h := webtest.New(t)
	h.Fake.Close()
	_, body := h.Get(t, "/c/dev/", http.StatusBadGateway)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=error-title]").Text(); got != "The API server is unreachable" {
		t.Errorf("title = %q", got)
	}
	if href := doc.Find("[data-testid=error-retry]").AttrOr("href", ""); href != "/c/dev/" {
		t.Errorf("retry href = %q", href)
	}
}

func TestEveryUpstreamCallCarriesTheIdentity(t *testing.T) {
	h := webtest.New(t)
	h.Get(t, "/c/dev/", http.StatusOK)
	reqs := h.Fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("no upstream requests")
	}
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer secret-token" {
			t.Errorf("%s %s sent without the context's token", r.Method, r.URL.Path)
		}
	}
}

func TestSecurityHeadersAndNonce(t *testing.T) {
	h := webtest.New(t)
	resp, body := h.Get(t, "/c/dev/", http.StatusOK)
	csp := resp.Header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`script-src 'nonce-([A-Za-z0-9+/=]+)'`).FindStringSubmatch(csp)
	if m == nil {
		t.Fatalf("CSP has no script nonce: %q", csp)
	}
	for _, want := range []string{"frame-ancestors 'none'", "default-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP lacks %q: %s", want, csp)
		}
	}
	if got := resp.Header.Get("Referrer-Policy"); got == "" {
		t.Error("no Referrer-Policy")
	}
	doc := webtest.Parse(t, body)
	doc.Find("script").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("nonce", "") != m[1] {
			t.Errorf("script %q has nonce %q, want the CSP's", s.AttrOr("src", "inline"), s.AttrOr("nonce", ""))
		}
		// The import map is data, not code; every script runs from a file.
		if s.AttrOr("type", "") != "importmap" && strings.TrimSpace(s.Text()) != "" {
			t.Error("inline script body found")
		}
	})
	resp2, _ := h.Get(t, "/c/dev/", http.StatusOK)
	if resp2.Header.Get("Content-Security-Policy") == csp {
		t.Error("nonce is reused across responses")
	}
}

func TestStaticAssetsAreFingerprinted(t *testing.T) {
	h := webtest.New(t)
	_, body := h.Get(t, "/c/dev/", http.StatusOK)
	doc := webtest.Parse(t, body)
	css := h.Server.AssetURL("app.css")
	js := doc.Find(`script[type=module]`).AttrOr("src", "")
	for _, u := range []string{css, js} {
		if !regexp.MustCompile(`^/static/app(\.bundle)?\.[0-9a-f]{12}\.(css|js)$`).MatchString(u) {
			t.Fatalf("asset URL %q is not fingerprinted", u)
		}
		resp, _ := h.Get(t, u, http.StatusOK)
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control = %q", u, cc)
		}
	}
	h.Get(t, "/static/app.css", http.StatusNotFound)
}

func TestHealthAndReadiness(t *testing.T) {
	h := webtest.New(t)
	h.Get(t, "/healthz", http.StatusOK)
	h.Get(t, "/readyz", http.StatusOK)
	// Probes are not signed in: what failed upstream is logged, not told.
	h.Fake.FailPath("/version", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: "etcd at 10.0.0.7:2379 is unreachable"})
	// The answer is kept readyTTL: move its clock past that.
	h.Server.SetReadyClock(func() time.Time { return time.Now().Add(web.ReadyTTL) })
	if _, body := h.Get(t, "/readyz", http.StatusServiceUnavailable); body != "not ready" {
		t.Errorf("/readyz of a failing server says %q, want only \"not ready\"", body)
	}
	h.Fake.Close()
	h.Get(t, "/healthz", http.StatusOK)
	if _, body := h.Get(t, "/readyz", http.StatusServiceUnavailable); body != "not ready" {
		t.Errorf("/readyz of an unreachable server says %q, want only \"not ready\"", body)
	}
}

func TestMetricsCountRequestsAndUpstreamCalls(t *testing.T) {
	h := webtest.New(t)
	h.Get(t, "/c/dev/", http.StatusOK)
	h.Get(t, "/c/dev/api/v1/pods", http.StatusOK)
	_, body := h.Get(t, "/metrics", http.StatusOK)
	for _, want := range []string{
		`tabula_http_requests_total{code="200",method="GET",route="/c/:context/"} 1`,
		`tabula_http_requests_total{code="200",method="GET",route="/c/:context/api/*"} 1`,
		`tabula_upstream_requests_total{code="200",resource="pods",verb="list"}`,
		`tabula_upstream_requests_total{code="200",resource="discovery",verb="get"}`,
		`tabula_upstream_request_duration_seconds_count{resource="discovery",verb="get"}`,
		`tabula_websockets_open 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestPanicsBecomeA500PageAndAreCounted(t *testing.T) {
	h := webtest.New(t)
	h.Server.Echo().GET("/c/:context/boom", func(echo.Context) error { panic("internal detail 42") }, h.Server.RequireContext)
	_, body := h.Get(t, "/c/dev/boom", http.StatusInternalServerError)
	doc := webtest.Parse(t, body)
	if doc.Find("[data-testid=error-page]").Length() != 1 {
		t.Error("no error page")
	}
	if strings.Contains(body, "internal detail 42") || strings.Contains(body, "goroutine") {
		t.Error("the page leaks the panic or a stack trace")
	}
	_, metrics := h.Get(t, "/metrics", http.StatusOK)
	if !strings.Contains(metrics, `tabula_http_requests_total{code="500",method="GET",route="/c/:context/boom"} 1`) {
		t.Error("the failed request is not counted with its status")
	}
}

func TestUnknownRouteIsA404Page(t *testing.T) {
	h := webtest.New(t)
	_, body := h.Get(t, "/no/such/page", http.StatusNotFound)
	if got := webtest.Parse(t, body).Find("[data-testid=error-code]").Text(); got != "404" {
		t.Errorf("error code = %q", got)
	}
}

// DNS rebinding: a page on another site that resolves its own name to the
// console gets a bare 421, not the console. In-cluster Service names are
// trusted only in a cluster: on a laptop, anyone on the LAN answers for
// names under .local (mDNS).
func TestRequestsForUnknownHostsAreRefused(t *testing.T) {
	h := webtest.New(t)
	for host, want := range map[string]int{
		"evil.example:8080":               http.StatusMisdirectedRequest,
		"127.0.0.1:8080":                  http.StatusFound,
		"[::1]:8080":                      http.StatusFound,
		"localhost:8080":                  http.StatusFound,
		"tabula.tabula.svc":               http.StatusMisdirectedRequest,
		"tabula.tabula.svc.cluster.local": http.StatusMisdirectedRequest,
		"printer.local":                   http.StatusMisdirectedRequest,
	} {
		status, body := requestWithHost(t, h.URL+"/", host)
		if status != want {
			t.Errorf("Host %s: status %d, want %d", host, status, want)
		}
		if want != http.StatusMisdirectedRequest {
			continue
		}
		// The refusal tells a stranger nothing: no contexts, clusters or
		// API server, and no way to be let in.
		doc := webtest.Parse(t, body)
		if doc.Find("[data-testid=context-switcher], [data-testid=sidebar]").Length() != 0 ||
			doc.Find("[data-testid=current-context], .ctx-server").Length() != 0 ||
			strings.Contains(body, h.Fake.URL) || strings.Contains(body, "/c/dev/") || strings.Contains(body, "allowed-hosts") {
			t.Errorf("Host %s: the 421 page says more than it should:\n%s", host, body)
		}
	}
}

func requestWithHost(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServiceNamesAreTrustedInCluster(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS, InCluster: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"tabula.tabula.svc", "tabula.tabula.svc.cluster.local:8080"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Host = host
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("in cluster, Host %s: status %d", host, rec.Code)
		}
	}
}

func TestAllowedHostsAreServed(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS, AllowedHosts: []string{"Tabula.Example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Host = "tabula.example.com:443"
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("allowed host: status %d", rec.Code)
	}
}

func TestUnknownResourceIs404(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/nope.example.com/v1/things", http.StatusNotFound)
	if !strings.Contains(webtest.Parse(t, body).Find("[data-testid=error-message]").Text(), "does not serve") {
		t.Error("no clear message for an unknown resource")
	}
}

func TestJumpResolvesLikeKubectl(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	for q, want := range map[string]string{
		"sts":                        "/c/dev/apis/apps/v1/namespaces/demo/statefulsets",
		"deploy":                     "/c/dev/apis/apps/v1/namespaces/demo/deployments",
		"Pod":                        "/c/dev/api/v1/namespaces/demo/pods",
		"deployments.apps":           "/c/dev/apis/apps/v1/namespaces/demo/deployments",
		"bos":                        "/c/dev/apis/policy.example.com/v1/sessions",
		"session.policy.example.com": "/c/dev/apis/policy.example.com/v1/sessions",
	} {
		resp, _ := h.Get(t, "/c/dev/jump?namespace=demo&q="+url.QueryEscape(q), http.StatusSeeOther)
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("jump %q → %q, want %q", q, got, want)
		}
	}
	_, body := h.Get(t, "/c/dev/jump?q=all", http.StatusOK)
	if n := webtest.Parse(t, body).Find("[data-testid=jump-results] li").Length(); n < 3 {
		t.Errorf("category all matched %d resources", n)
	}
	// Anything else is a search, in the same namespace.
	resp, _ := h.Get(t, "/c/dev/jump?namespace=demo&q="+url.QueryEscape("web app=x"), http.StatusSeeOther)
	if got, want := resp.Header.Get("Location"), "/c/dev/search?namespace=demo&q=web+app%3Dx"; got != want {
		t.Errorf("jump to a non-kind → %q, want %q", got, want)
	}
}

// A WebSocket is counted as the 101 it was, not as a 200 page, and its
// lifetime is not a response time.
func TestWebSocketsAreCountedAsSwitchingProtocols(t *testing.T) {
	h := webtest.Pods(t)
	c := h.Dial(t, "/c/dev/api/v1/namespaces/demo/pods")
	_ = c.Conn.Close()
	// The socket is counted once its handler returned.
	var body string
	apitest.WaitFor(t, 5*time.Second, func() error {
		_, body = h.Get(t, "/metrics", http.StatusOK)
		if !strings.Contains(body, `tabula_http_requests_total{code="101",method="GET",route="/c/:context/api/*"} 1`) {
			return fmt.Errorf("no 101 counted for the live list:\n%s", grepLines(body, "tabula_http_requests_total"))
		}
		return nil
	})
	if strings.Contains(body, `tabula_http_request_duration_seconds_count{route="/c/:context/api/*"}`) {
		t.Error("the WebSocket's lifetime was observed as a response time")
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// /readyz is for unauthenticated probes: a burst of them makes one API
// call, not one each, and the answer is asked again once it is older
// than a probe's period allows.
func TestReadinessProbesShareOneCall(t *testing.T) {
	h := webtest.New(t)
	versions := func() int {
		n := 0
		for _, r := range h.Fake.Requests() {
			if r.URL.Path == "/version" {
				n++
			}
		}
		return n
	}
	start := time.Now()
	var aged atomic.Int64 // nanoseconds the clock is moved on by
	h.Server.SetReadyClock(func() time.Time { return start.Add(time.Duration(aged.Load())) })
	var wg sync.WaitGroup
	codes := make(chan int, 50)
	for range 50 {
		wg.Go(func() {
			resp, err := http.Get(h.URL + "/readyz")
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a probe got %d", code)
		}
	}
	if n := versions(); n != 1 {
		t.Errorf("50 probes made %d calls to /version, want 1", n)
	}
	aged.Store(int64(web.ReadyTTL))
	h.Get(t, "/readyz", http.StatusOK)
	if n := versions(); n != 2 {
		t.Errorf("a probe after the answer aged made %d calls in all, want 2", n)
	}
}

// A 401 to the console's own credential is not ready where the console
// acts with that credential for its users (kubeconfig mode, OIDC
// impersonation: every page would fail), and is where users bring their
// own (a pasted token, a passed-through ID token).
func TestReadinessRefusedCredential(t *testing.T) {
	unauthorized := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"}
	for _, tc := range []struct {
		auth web.AuthConfig
		want int
	}{
		{web.AuthConfig{}, http.StatusServiceUnavailable},
		{web.AuthConfig{Mode: web.ModeToken}, http.StatusOK},
	} {
		fake := apitest.NewServer(t, apitest.CoreV1())
		fake.FailPath("/version", unauthorized)
		h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Auth: tc.auth}})
		h.Get(t, "/readyz", tc.want)
	}
}
