package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/object"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// liveHarness is a console over a fake with pods web-1 and web-2 in demo.
func liveHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.fake.Add(
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-2", map[string]string{"app": "web"}),
		apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"}),
	)
	return h
}

type wsClient struct {
	t  *testing.T
	ws *websocket.Conn
}

// dial opens a console WebSocket from the console's own origin.
func (h *harness) dial(t *testing.T, path string, protocols ...string) *wsClient {
	t.Helper()
	ws, resp, err := h.tryDial(path, h.console.URL, protocols...)
	if err != nil {
		t.Fatalf("dial %s: %v (response %v)", path, err, statusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &wsClient{t: t, ws: ws}
}

func (h *harness) tryDial(path, origin string, protocols ...string) (*websocket.Conn, *http.Response, error) {
	if len(protocols) == 0 {
		protocols = []string{"base64.channel.k8s.io"}
	}
	u := "ws" + strings.TrimPrefix(h.console.URL, "http") + path
	d := websocket.Dialer{Subprotocols: protocols, HandshakeTimeout: 5 * time.Second}
	header := http.Header{}
	if origin != "" {
		header.Set("Origin", origin)
	}
	return d.Dial(u, header)
}

func statusText(resp *http.Response) string {
	if resp == nil {
		return "none"
	}
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// frame reads one frame and decodes either framing.
func (c *wsClient) frame(timeout time.Duration) (byte, []byte) {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(timeout))
	typ, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if typ == websocket.BinaryMessage {
		return data[0], data[1:]
	}
	payload, err := base64.StdEncoding.DecodeString(string(data[1:]))
	if err != nil {
		c.t.Fatalf("frame %q: %v", data, err)
	}
	return data[0] - '0', payload
}

func (c *wsClient) listMessage(timeout time.Duration, match func(list.Message) bool) list.Message {
	c.t.Helper()
	return nextData(c, timeout, match)
}

// nextData reads channel-1 JSON messages until one matches, failing on a
// channel-3 Status or at the deadline.
func nextData[T any](c *wsClient, timeout time.Duration, match func(T) bool) T {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ch, payload := c.frame(time.Until(deadline))
		if ch == 3 {
			c.t.Fatalf("status on channel 3: %s", payload)
		}
		if ch != 1 {
			continue
		}
		var m T
		if err := json.Unmarshal(payload, &m); err != nil {
			c.t.Fatal(err)
		}
		if match(m) {
			return m
		}
	}
	c.t.Fatal("no matching message before the deadline")
	var zero T
	return zero
}

func pageRV(t *testing.T, h *harness, path string) string {
	t.Helper()
	_, body := h.get(t, path, http.StatusOK)
	rv, ok := parse(t, body).Find("[data-testid=live-list]").Attr("data-rv")
	if !ok || rv == "" {
		t.Fatal("the list page carries no resourceVersion to watch from")
	}
	return rv
}

func setPhase(phase string) func(*unstructured.Unstructured) {
	return func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, phase, "status", "phase")
	}
}

// timeTitle is a rendered time cell's title, the time its age stands for.
var timeTitle = regexp.MustCompile(`<time title="([^"]*)">`)

// A changed row arrives rendered exactly as the page renders it.
func TestLiveListPushesRowsRenderedLikeThePage(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := pageRV(t, h, path)
	c := h.dial(t, path+"?resourceVersion="+rv)
	h.fake.Modify(podGVK, "demo", "web-1", setPhase("Failed"))
	m := c.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-1" || m.UID == "" || m.RV == "" || m.Resume != m.RV {
		t.Fatalf("message %+v", m)
	}
	_, body := h.get(t, path, http.StatusOK)
	row, err := goquery.OuterHtml(parse(t, body).Find(`tr[data-key="demo/web-1"]`))
	if err != nil {
		t.Fatal(err)
	}
	// The page's list has no object metadata, so the time behind its age
	// is approximate ("≈ …", from an age in whole minutes), while a pushed
	// row has the object's own: the rows are equal but for that title.
	pushedTime, pageTime := timeTitle.FindStringSubmatch(m.HTML), timeTitle.FindStringSubmatch(row)
	if pushedTime == nil || pageTime == nil || !strings.HasPrefix(pageTime[1], "≈ ") {
		t.Fatalf("time titles: pushed %q, page %q", pushedTime, pageTime)
	}
	exact, err1 := time.Parse(time.RFC3339, pushedTime[1])
	approx, err2 := time.Parse(time.RFC3339, strings.TrimPrefix(pageTime[1], "≈ "))
	if err1 != nil || err2 != nil || approx.Sub(exact).Abs() > time.Minute {
		t.Errorf("pushed row's time %q and the page's %q disagree", pushedTime[1], pageTime[1])
	}
	// The page's first row also carries the first-paint mark (make bench).
	withoutTitles := func(html string) string {
		html = strings.Replace(html, ` elementtiming="list-first-row"`, "", 1)
		return timeTitle.ReplaceAllString(strings.TrimSpace(html), `<time>`)
	}
	if withoutTitles(m.HTML) != withoutTitles(row) || !strings.Contains(row, "Failed") {
		t.Fatalf("pushed row:\n%s\npage row:\n%s", m.HTML, row)
	}

	h.fake.Add(apitest.Pod("demo", "web-3", map[string]string{"app": "web"}))
	added := c.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "ADDED" })
	if added.Key != "demo/web-3" || !strings.Contains(added.HTML, `href="/c/dev/api/v1/namespaces/demo/pods/web-3"`) {
		t.Fatalf("ADDED %+v", added)
	}
	h.fake.Delete(podGVK, "demo", "web-3")
	deleted := c.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "DELETED" })
	if deleted.Key != "demo/web-3" {
		t.Fatalf("DELETED %+v", deleted)
	}
}

// Tabs of one identity that follow the same list share one upstream watch.
func TestLiveListTabsShareOneUpstreamWatch(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb"
	rv := pageRV(t, h, path)
	tabs := []*wsClient{h.dial(t, path+"&resourceVersion="+rv), h.dial(t, path+"&resourceVersion="+rv), h.dial(t, path+"&resourceVersion="+rv, "channel.k8s.io")}
	if !h.fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	h.fake.Modify(podGVK, "demo", "web-2", setPhase("Succeeded"))
	for _, tab := range tabs {
		tab.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "demo/web-2" })
	}
	if n := h.fake.OpenWatches(); n != 1 {
		t.Fatalf("%d upstream watches for three tabs, want 1", n)
	}
	_, metrics := h.get(t, "/metrics", http.StatusOK)
	for _, want := range []string{"tabula_upstream_watches 1", "tabula_websockets_open 3"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// A cut upstream watch resumes from the last version: no event is lost.
func TestLiveListSurvivesAnUpstreamCut(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	c := h.dial(t, path+"?resourceVersion="+pageRV(t, h, path))
	if !h.fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	h.fake.CloseWatches()
	h.fake.Modify(podGVK, "demo", "web-1", setPhase("Unknown"))
	m := c.listMessage(10*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-1" || !strings.Contains(m.HTML, "Unknown") {
		t.Fatalf("after the cut: %+v", m)
	}
}

// A version the server no longer has (410) relists the page with a notice.
func TestLiveListRelistsAfterAn410(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := pageRV(t, h, path)
	h.fake.Modify(podGVK, "demo", "web-2", setPhase("Failed"))
	h.fake.ExpireWatchHistory()
	c := h.dial(t, path+"?resourceVersion="+rv)
	m := c.listMessage(5*time.Second, func(m list.Message) bool { return m.Type == "RELIST" })
	if !strings.Contains(m.Notice, "410") || strings.Count(m.HTML, "<tr ") != 2 || !strings.Contains(m.HTML, "Failed") || m.Resume == "" {
		t.Fatalf("RELIST %+v", m)
	}
}

// A user who may list but not watch gets the server's 403 on channel 3.
func TestLiveListReportsAForbiddenWatchOnChannel3(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := pageRV(t, h, path)
	h.fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Message: `pods is forbidden: User "viewer" cannot watch resource "pods" in API group "" in the namespace "demo"`})
	})
	c := h.dial(t, path+"?resourceVersion="+rv)
	ch, payload := c.frame(5 * time.Second)
	var st metav1.Status
	if err := json.Unmarshal(payload, &st); ch != 3 || err != nil || st.Code != http.StatusForbidden || !strings.Contains(st.Message, "cannot watch") {
		t.Fatalf("channel %d: %s (%v)", ch, payload, err)
	}
	_ = c.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.ws.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the Status: %v, want a normal close", err)
	}
}

func TestLiveUpgradeRefusesOtherOriginsAndUnknownSubprotocols(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	for _, origin := range []string{"http://evil.example", ""} {
		_, resp, err := h.tryDial(path, origin)
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: %v, %s; want 403", origin, err, statusText(resp))
		}
	}
	_, resp, err := h.tryDial(path, h.console.URL, "v5.channel.k8s.io")
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown subprotocol: %v, %s; want 400", err, statusText(resp))
	}
	if body := statusText(resp); !strings.Contains(body, "base64.channel.k8s.io") {
		t.Errorf("the refusal does not list what is spoken: %s", body)
	}
}

// Opening and closing 1,000 live lists leaves no goroutine behind.
func TestLiveListConnectionsLeakNoGoroutines(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := pageRV(t, h, path)
	ignore := goleak.IgnoreCurrent()
	for i := range 1000 {
		ws, resp, err := h.tryDial(path+"?resourceVersion="+rv, h.console.URL)
		if err != nil {
			t.Fatalf("connection %d: %v %s", i, err, statusText(resp))
		}
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
		_ = ws.Close()
	}
	h.console.CloseClientConnections()
	// Connections wind down asynchronously: check until they have. Idle
	// keep-alive connections to the fake API server are not leaks, so they
	// are closed before each look.
	opts := []goleak.Option{ignore, goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"), goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop")}
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.fake.CloseClientConnections()
		err := goleak.Find(opts...)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	if n := h.fake.OpenWatches(); n != 0 {
		t.Fatalf("%d upstream watches still open", n)
	}
}

// An object page's live sections re-render when the object changes.
func TestLiveObjectPushesItsSectionsOnChange(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-1"
	_, body := h.get(t, path, http.StatusOK)
	if live, _ := parse(t, body).Find("[data-testid=object-live]").Attr("data-live"); live != "object" {
		t.Fatalf("object page is not live: %q", live)
	}
	c := h.dial(t, path)
	// One watch on the object, one on its events.
	if !h.fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2", h.fake.OpenWatches())
	}
	h.fake.Modify(podGVK, "demo", "web-1", setPhase("Failed"))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ch, payload := c.frame(time.Until(deadline))
		var m object.SectionsMessage
		if ch != 1 || json.Unmarshal(payload, &m) != nil || m.Type != "SECTIONS" {
			continue
		}
		if strings.Contains(m.Sections["header"], "Failed") && strings.Contains(m.Sections["conditions"], "Ready") {
			if _, ok := m.Sections["events"]; ok {
				return
			}
		}
	}
	t.Fatal("no SECTIONS message with the new phase")
}

// While the API server is away (a restart), the live list keeps its tab and
// retries; when the server is back the tab sees what changed meanwhile.
func TestLiveListRecoversWhenTheAPIServerComesBack(t *testing.T) {
	h := liveHarness(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	c := h.dial(t, path+"?resourceVersion="+pageRV(t, h, path))
	if !h.fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	down := make(chan struct{}, 100)
	h.fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, _ *http.Request) {
		down <- struct{}{}
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
			Reason: metav1.StatusReasonServiceUnavailable, Message: "apiserver is shutting down"})
	})
	h.fake.CloseWatches()
	// Two refused attempts: the console is retrying, not giving up.
	for range 2 {
		select {
		case <-down:
		case <-time.After(10 * time.Second):
			t.Fatal("the console stopped retrying")
		}
	}
	// The page hears that its rows may be stale.
	for deadline := time.Now().Add(10 * time.Second); ; {
		ch, payload := c.frame(time.Until(deadline))
		if ch == 2 && strings.Contains(string(payload), "being retried") {
			break
		}
	}
	h.fake.Modify(podGVK, "demo", "web-2", setPhase("Failed"))
	h.fake.Override("/api/v1/namespaces/demo/pods", nil)
	m := c.listMessage(15*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-2" || !strings.Contains(m.HTML, "Failed") {
		t.Fatalf("after recovery: %+v", m)
	}
}

// A WebSocket is counted as the 101 it was, not as a 200 page, and its
// lifetime is not a response time.
func TestWebSocketsAreCountedAsSwitchingProtocols(t *testing.T) {
	h := liveHarness(t)
	c := h.dial(t, "/c/dev/api/v1/namespaces/demo/pods")
	_ = c.ws.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, body := h.get(t, "/metrics", http.StatusOK)
		if strings.Contains(body, `tabula_http_requests_total{code="101",method="GET",route="/c/:context/api/*"} 1`) {
			if strings.Contains(body, `tabula_http_request_duration_seconds_count{route="/c/:context/api/*"}`) {
				t.Error("the WebSocket's lifetime was observed as a response time")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 101 counted for the live list:\n%s", grepLines(body, "tabula_http_requests_total"))
		}
		time.Sleep(20 * time.Millisecond)
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
