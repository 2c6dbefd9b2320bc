package web

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/page"
)

// testTokenHeader carries, in these tests only, the bearer token the
// request acts with: a stand-in for the sign-in middleware, which sets the
// requester from a session.
const testTokenHeader = "X-Test-Token"

// multiUserConsole is a console in token mode over a fake that accepts any
// token; each request acts with the token in testTokenHeader.
func multiUserConsole(t *testing.T, fake *apitest.Server) *harness {
	t.Helper()
	h := newConsole(t, fake, "dev")
	h.server.echo.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if tok := c.Request().Header.Get(testTokenHeader); tok != "" {
				page.SetRequester(c, page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: tok}})
			}
			return next(c)
		}
	})
	return h
}

// getAs is get acting with token.
func (h *harness) getAs(t *testing.T, token, path string, wantStatus int) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.console.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(testTokenHeader, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s as %s: %d, want %d:\n%s", path, token, resp.StatusCode, wantStatus, body)
	}
	return string(body)
}

// dialAs is dial acting with token.
func (h *harness) dialAs(t *testing.T, token, path string) *wsClient {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	header := http.Header{"Origin": {h.console.URL}, testTokenHeader: {token}}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(h.console.URL, "http")+path, header)
	if err != nil {
		t.Fatalf("dial %s as %s: %v (%s)", path, token, err, statusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &wsClient{t: t, ws: ws}
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
		rv, _ := parse(t, h.getAs(t, token, path, http.StatusOK)).Find("[data-testid=live-list]").Attr("data-rv")
		return rv
	}
	first := h.dialAs(t, "token-1", path+"?resourceVersion="+rvOf("token-1"))
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	refreshed := h.dialAs(t, "token-2", path+"?resourceVersion="+rvOf("token-2"))
	if !fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches: the tab with the new token joined the old token's", fake.OpenWatches())
	}
	again := h.dialAs(t, "token-1", path+"?resourceVersion="+rvOf("token-1"))
	fake.Modify(podGVK, "demo", "web-1", setPhase("Failed"))
	for _, tab := range []*wsClient{first, refreshed, again} {
		tab.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	}
	if n := fake.OpenWatches(); n != 2 {
		t.Errorf("%d upstream watches for two tokens, want 2 (tabs of one token share)", n)
	}
	if got := watchTokens(fake, "/api/v1/namespaces/demo/pods"); len(got) != 2 || got["token-1"] != 1 || got["token-2"] != 1 {
		t.Errorf("upstream watches by token: %v, want one each", got)
	}
	// The old token's tabs leave: its upstream ends, the new one's stays.
	_ = first.ws.Close()
	_ = again.ws.Close()
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatalf("%d upstream watches after the old token's tabs left, want 1", fake.OpenWatches())
	}
	fake.Modify(podGVK, "demo", "web-1", setPhase("Running"))
	refreshed.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
}
