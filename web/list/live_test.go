package list_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/webtest"
)

// timeTitle is a rendered time cell's title, the time its age stands for.
var timeTitle = regexp.MustCompile(`<time title="([^"]*)">`)

// A changed row arrives rendered exactly as the page renders it.
func TestLiveListPushesRowsRenderedLikeThePage(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	// As static/live/list.js asks for a page whose rows have checkboxes.
	c := h.Dial(t, path+"?select=on&resourceVersion="+rv)
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-1" || m.UID == "" || m.RV == "" || m.Resume != m.RV {
		t.Fatalf("message %+v", m)
	}
	_, body := h.Get(t, path, http.StatusOK)
	row, err := goquery.OuterHtml(webtest.Parse(t, body).Find(`tr[data-key="demo/web-1"]`))
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

	h.Fake.Add(apitest.Pod("demo", "web-3", map[string]string{"app": "web"}))
	added := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "ADDED" })
	if added.Key != "demo/web-3" || !strings.Contains(added.HTML, `href="/c/dev/api/v1/namespaces/demo/pods/web-3"`) {
		t.Fatalf("ADDED %+v", added)
	}
	h.Fake.Delete(webtest.PodGVK, "demo", "web-3")
	deleted := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "DELETED" })
	if deleted.Key != "demo/web-3" {
		t.Fatalf("DELETED %+v", deleted)
	}
}

// Tabs of one identity that follow the same list share one upstream watch.
func TestLiveListTabsShareOneUpstreamWatch(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb"
	rv := h.ListRV(t, path)
	tabs := []*webtest.WS{h.Dial(t, path+"&resourceVersion="+rv), h.Dial(t, path+"&resourceVersion="+rv), h.Dial(t, path+"&resourceVersion="+rv, "channel.k8s.io")}
	if !h.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	h.Fake.Modify(webtest.PodGVK, "demo", "web-2", webtest.SetPhase("Succeeded"))
	for _, tab := range tabs {
		webtest.NextData(tab, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "demo/web-2" })
	}
	if n := h.Fake.OpenWatches(); n != 1 {
		t.Fatalf("%d upstream watches for three tabs, want 1", n)
	}
	_, metrics := h.Get(t, "/metrics", http.StatusOK)
	for _, want := range []string{"tabula_upstream_watches 1", "tabula_websockets_open 3"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// A cut upstream watch resumes from the last version: no event is lost.
func TestLiveListSurvivesAnUpstreamCut(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	c := h.Dial(t, path+"?resourceVersion="+h.ListRV(t, path))
	if !h.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	h.Fake.CloseWatches()
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Unknown"))
	m := webtest.NextData(c, 10*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-1" || !strings.Contains(m.HTML, "Unknown") {
		t.Fatalf("after the cut: %+v", m)
	}
}

// A version the server no longer has (410) relists the page with a notice.
func TestLiveListRelistsAfterAn410(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	h.Fake.Modify(webtest.PodGVK, "demo", "web-2", webtest.SetPhase("Failed"))
	h.Fake.ExpireWatchHistory()
	c := h.Dial(t, path+"?resourceVersion="+rv)
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "RELIST" })
	if !strings.Contains(m.Notice, "410") || strings.Count(m.HTML, "<tr ") != 2 || !strings.Contains(m.HTML, "Failed") || m.Resume == "" {
		t.Fatalf("RELIST %+v", m)
	}
}

// A user who may list but not watch gets the server's 403 on channel 3.
func TestLiveListReportsAForbiddenWatchOnChannel3(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	h.Fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Message: `pods is forbidden: User "viewer" cannot watch resource "pods" in API group "" in the namespace "demo"`})
	})
	c := h.Dial(t, path+"?resourceVersion="+rv)
	ch, payload := c.Frame(5 * time.Second)
	var st metav1.Status
	if err := json.Unmarshal(payload, &st); ch != 3 || err != nil || st.Code != http.StatusForbidden || !strings.Contains(st.Message, "cannot watch") {
		t.Fatalf("channel %d: %s (%v)", ch, payload, err)
	}
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.Conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("after the Status: %v, want a normal close", err)
	}
}

func TestLiveUpgradeRefusesOtherOriginsAndUnknownSubprotocols(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	for _, origin := range []string{"http://evil.example", ""} {
		_, resp, err := h.TryDial(path, origin)
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: %v, %s; want 403", origin, err, webtest.StatusText(resp))
		}
	}
	_, resp, err := h.TryDial(path, h.URL, "v5.channel.k8s.io")
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown subprotocol: %v, %s; want 400", err, webtest.StatusText(resp))
	}
	if body := webtest.StatusText(resp); !strings.Contains(body, "base64.channel.k8s.io") {
		t.Errorf("the refusal does not list what is spoken: %s", body)
	}
}

// Opening and closing 1,000 live lists leaves no goroutine behind.
func TestLiveListConnectionsLeakNoGoroutines(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	ignore := goleak.IgnoreCurrent()
	for i := range 1000 {
		ws, resp, err := h.TryDial(path+"?resourceVersion="+rv, h.URL)
		if err != nil {
			t.Fatalf("connection %d: %v %s", i, err, webtest.StatusText(resp))
		}
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
		_ = ws.Close()
	}
	h.HTTP.CloseClientConnections()
	// Connections wind down asynchronously: check until they have. Idle
	// keep-alive connections to the fake API server are not leaks, so they
	// are closed before each look.
	opts := []goleak.Option{ignore, goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"), goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop")}
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.Fake.CloseClientConnections()
		err := goleak.Find(opts...)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	if n := h.Fake.OpenWatches(); n != 0 {
		t.Fatalf("%d upstream watches still open", n)
	}
}

// While the API server is away (a restart), the live list keeps its tab and
// retries; when the server is back the tab sees what changed meanwhile.
func TestLiveListRecoversWhenTheAPIServerComesBack(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	c := h.Dial(t, path+"?resourceVersion="+h.ListRV(t, path))
	if !h.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	down := make(chan struct{}, 100)
	h.Fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, _ *http.Request) {
		down <- struct{}{}
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable,
			Reason: metav1.StatusReasonServiceUnavailable, Message: "apiserver is shutting down"})
	})
	h.Fake.CloseWatches()
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
		ch, payload := c.Frame(time.Until(deadline))
		if ch == 2 && strings.Contains(string(payload), "being retried") {
			break
		}
	}
	h.Fake.Modify(webtest.PodGVK, "demo", "web-2", webtest.SetPhase("Failed"))
	h.Fake.Override("/api/v1/namespaces/demo/pods", nil)
	m := webtest.NextData(c, 15*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" })
	if m.Key != "demo/web-2" || !strings.Contains(m.HTML, "Failed") {
		t.Fatalf("after recovery: %+v", m)
	}
}
