package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/webtest"
)

// multiUserConsole is a console in token mode over a fake that accepts any
// token; each request acts with the token in webtest.TokenHeader (a stand-in
// for the sign-in middleware, which sets the requester from a session).
func multiUserConsole(t *testing.T, fake *apitest.Server) *webtest.Console {
	t.Helper()
	return multiUserConsoleWith(t, fake, web.Deps{})
}

// multiUserConsoleWith is multiUserConsole with deps (Clusters, Metrics and
// Static are filled in).
func multiUserConsoleWith(t *testing.T, fake *apitest.Server, d web.Deps) *webtest.Console {
	t.Helper()
	// The console runs in kubeconfig mode, and webtest's ActAs stands in for
	// web/auth: each request acts with the token it names.
	return webtest.Start(t, fake, webtest.Options{Deps: d, ActAs: true})
}

// watchTokens are the tokens of the upstream watch requests on path.
func watchTokens(fake *apitest.Server, path string) map[string]int {
	out := map[string]int{}
	for _, r := range fake.Requests() {
		if r.URL.Path == path && r.URL.Query().Get("watch") != "" {
			out[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]++
		}
	}
	return out
}

// Tabs share an upstream watch only when they carry the very same
// credential: a tab with a refreshed token (or another user's) opens its
// own, and never rides one opened with another token.
func TestALaterTabNeverRidesAnEarlierTabsToken(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	h := multiUserConsole(t, fake)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rvOf := func(token string) string {
		rv, _ := webtest.Parse(t, h.GetAs(t, token, path, http.StatusOK)).Find("[data-testid=live-list]").Attr("data-rv")
		return rv
	}
	first := h.DialAs(t, "token-1", path+"?resourceVersion="+rvOf("token-1"))
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	refreshed := h.DialAs(t, "token-2", path+"?resourceVersion="+rvOf("token-2"))
	if !fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches: the tab with the new token joined the old token's", fake.OpenWatches())
	}
	again := h.DialAs(t, "token-1", path+"?resourceVersion="+rvOf("token-1"))
	fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	for _, tab := range []*webtest.WS{first, refreshed, again} {
		webtest.NextData(tab, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	}
	if n := fake.OpenWatches(); n != 2 {
		t.Errorf("%d upstream watches for two tokens, want 2 (tabs of one token share)", n)
	}
	if got := watchTokens(fake, "/api/v1/namespaces/demo/pods"); len(got) != 2 || got["token-1"] != 1 || got["token-2"] != 1 {
		t.Errorf("upstream watches by token: %v, want one each", got)
	}
	// The old token's tabs leave: its upstream ends, the new one's stays.
	_ = first.Conn.Close()
	_ = again.Conn.Close()
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatalf("%d upstream watches after the old token's tabs left, want 1", fake.OpenWatches())
	}
	fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Running"))
	webtest.NextData(refreshed, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
}

// One identity may hold only its share of the console's stream slots, so
// one user cannot take them all; another user still gets one.
func TestUpstreamStreamsAreCappedPerIdentity(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	fake.AppendLog("demo", "web-1", "app", "first line")
	h := multiUserConsoleWith(t, fake, web.Deps{MaxStreams: 3, MaxStreamsPerUser: 1})
	const logPath = "/c/dev/api/v1/namespaces/demo/pods/web-1/log"
	follow := h.DialAs(t, "alice", logPath+"?follow=1&tailLines=10")
	follow.TextUntil(t, "first line", 5*time.Second)
	if body := h.GetAs(t, "alice", logPath+"?download=1", http.StatusTooManyRequests); !strings.Contains(body, "the most one user may") {
		t.Errorf("alice's second stream: the 429 does not say why:\n%s", body)
	}
	// A live object page takes a slot too.
	if _, resp, err := h.TryDialAs("alice", "/c/dev/api/v1/namespaces/demo/pods/web-1"); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice's live object page past her share: %s, want 429", webtest.StatusText(resp))
	}
	if body := h.GetAs(t, "bob", logPath+"?download=1", http.StatusOK); !strings.Contains(body, "first line") {
		t.Errorf("bob's download: %q", body)
	}
	// Ending the follow gives alice her slot back.
	_ = follow.Conn.Close()
	apitest.WaitFor(t, 5*time.Second, func() error {
		req, _ := http.NewRequest(http.MethodGet, h.URL+logPath+"?download=1", nil)
		req.Header.Set(webtest.TokenHeader, "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("after her follow ended, alice still gets %d", resp.StatusCode)
		}
		return nil
	})
}

// In a sign-in mode a request without a signed-in identity is refused
// before it reaches a feature: a page is sent to sign in, anything else
// gets 401, and nothing reaches the API server with the kubeconfig's own
// credentials. Only the readiness probe acts as the console.
func TestSignInModesNeverActAsTheConsole(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS, Auth: web.AuthConfig{Mode: page.ModeToken}})
	if err != nil {
		t.Fatal(err)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/c/dev/", "/c/dev/api/v1/namespaces/demo/pods", "/c/dev/api/v1/namespaces/demo/pods/web-1", "/c/dev/jump?q=po"} {
		for _, dest := range []string{"document", "empty"} {
			req, _ := http.NewRequest(http.MethodGet, console.URL+path, nil)
			req.Header.Set("Sec-Fetch-Dest", dest)
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			switch want := map[string]int{"document": http.StatusFound, "empty": http.StatusUnauthorized}[dest]; {
			case resp.StatusCode != want:
				t.Errorf("GET %s (%s): %d, want %d", path, dest, resp.StatusCode, want)
			case want == http.StatusFound && !strings.HasPrefix(resp.Header.Get("Location"), "/auth/login?"):
				t.Errorf("GET %s: sent to %q, want the sign-in page", path, resp.Header.Get("Location"))
			}
		}
	}
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	_, resp, err := d.Dial("ws"+strings.TrimPrefix(console.URL, "http")+"/c/dev/api/v1/namespaces/demo/pods", http.Header{"Origin": {console.URL}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a live list without an identity: %s, want 401", webtest.StatusText(resp))
	}
	if resp, err := http.Get(console.URL + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %s, %v", webtest.StatusText(resp), err)
	}
	for _, r := range fake.Requests() {
		if r.URL.Path != "/version" {
			t.Errorf("%s %s reached the API server without a user's identity", r.Method, r.URL)
		}
	}
}

// A console offering one context of a kubeconfig that has several names
// no other: not in the switcher, not on error pages, and the others are
// not found.
func TestOnlyTheOfferedContextsAreShown(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev", "prod-admin", "staging"), apiclient.LoadOptions{OnlyCurrent: true})
	if err != nil {
		t.Fatal(err)
	}
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Clusters: clusters}})
	for path, code := range map[string]int{
		"/c/dev/":                    http.StatusOK,
		"/c/dev/api/v1/nosuch":       http.StatusNotFound,
		"/c/prod-admin/":             http.StatusNotFound,
		"/c/staging/api/v1/pods":     http.StatusNotFound,
		"/c/nosuch/":                 http.StatusNotFound,
		"/c/dev/api/v1/pods?limit=x": http.StatusBadRequest,
	} {
		_, body := h.Get(t, path, code)
		for _, hidden := range []string{"prod-admin", "staging"} {
			if strings.Contains(body, hidden) && !strings.HasPrefix(path, "/c/"+hidden+"/") {
				t.Errorf("%s names the context %s the console does not offer", path, hidden)
			}
		}
		doc := webtest.Parse(t, body)
		doc.Find("a[href^='/c/']").Each(func(_ int, s *goquery.Selection) {
			if href := s.AttrOr("href", ""); !strings.HasPrefix(href, "/c/dev/") {
				t.Errorf("%s links %s", path, href)
			}
		})
		if code == http.StatusOK {
			if n := doc.Find("[data-testid=context-switcher] li").Length(); n != 1 {
				t.Errorf("%s: the switcher offers %d contexts, want 1", path, n)
			}
		}
	}
	// A context that is not offered is as unknown as one that does not exist.
	_, body := h.Get(t, "/c/prod-admin/", http.StatusNotFound)
	if got := webtest.Parse(t, body).Find("[data-testid=error-title]").Text(); got != "Unknown context" {
		t.Errorf("a context not offered: %q", got)
	}
}

// A signed-in user's token is never sent to a plain-HTTP API server: the
// page says why instead.
func TestAUsersTokenIsRefusedForAPlainHTTPServer(t *testing.T) {
	var mu sync.Mutex
	var got []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(plain.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["plain"] = &clientcmdapi.Cluster{Server: plain.URL}
	cfg.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["dev"] = &clientcmdapi.Context{Cluster: "plain", AuthInfo: "nobody"}
	cfg.CurrentContext = "dev"
	clusters, err := apiclient.FromKubeconfig(*cfg, apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Kubeconfig mode, with the middleware below standing in for web/auth.
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS})
	if err != nil {
		t.Fatal(err)
	}
	srv.Echo().Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			page.SetRequester(c, page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: "users-token"}})
			return next(c)
		}
	})
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	h := &webtest.Console{URL: console.URL, Server: srv, HTTP: console}
	_, body := h.Get(t, "/c/dev/api/v1/pods", http.StatusBadGateway)
	doc := webtest.Parse(t, body)
	if msg := doc.Find("[data-testid=error-message]").Text(); !strings.Contains(msg, "plain HTTP") || !strings.Contains(msg, "https://") {
		t.Errorf("the page does not say why: %q", msg)
	}
	if strings.Contains(body, "users-token") {
		t.Error("the page shows the token")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range got {
		if strings.Contains(r, "users-token") {
			t.Errorf("the token reached the plain-HTTP server: %s", r)
		}
	}
}

// A live list holds a stream slot, as a live object page does: one user
// cannot open upstream watches past their share (each selector its own
// watch), nor all users past the console's; the slots, and the refusals,
// are metrics.
func TestLiveListsTakeStreamSlots(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	h := multiUserConsoleWith(t, fake, web.Deps{MaxStreams: 2, MaxStreamsPerUser: 1})
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	h.DialAs(t, "alice", path+"?labelSelector=app%3Dweb&resourceVersion="+rv)
	if _, resp, err := h.TryDialAs("alice", path+"?labelSelector=app%3Ddb&resourceVersion="+rv); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice's second live list: %s, want 429", webtest.StatusText(resp))
	}
	h.DialAs(t, "bob", path+"?resourceVersion="+rv)
	if _, resp, err := h.TryDialAs("carol", path+"?resourceVersion="+rv); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("carol's live list past the console's slots: %s, want 503", webtest.StatusText(resp))
	}
	if !fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches open, want alice's and bob's", fake.OpenWatches())
	}
	_, metrics := h.Get(t, "/metrics", http.StatusOK)
	for _, want := range []string{
		"tabula_stream_slots_in_use 2",
		"tabula_stream_slots_limit 2",
		`tabula_stream_slots_refused_total{scope="user"} 1`,
		`tabula_stream_slots_refused_total{scope="console"} 1`,
		"tabula_upstream_watches 2",
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// In kubeconfig mode every visitor acts as the console's one identity: a
// per-user share would be everyone's, so only the console's cap applies.
func TestKubeconfigVisitorsShareOnlyTheConsolesCap(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{MaxStreams: 2, MaxStreamsPerUser: 1}})
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	h.Dial(t, path+"?labelSelector=app%3Dweb&resourceVersion="+rv)
	h.Dial(t, path+"?labelSelector=app%3Ddb&resourceVersion="+rv)
	if _, resp, err := h.TryDial(path+"?resourceVersion="+rv, h.URL); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third live list past the console's two slots: %s, want 503", webtest.StatusText(resp))
	}
}
