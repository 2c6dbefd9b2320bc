package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestDecodeFrame(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name    string
		mt      int
		data    string
		ch      int
		payload string
		wantErr bool
	}{
		{"text data", websocket.TextMessage, "1" + b64("hello\nworld\n"), 1, "hello\nworld\n", false},
		{"text status", websocket.TextMessage, "3" + b64(`{"status":"Success"}`), 3, `{"status":"Success"}`, false},
		{"text, channel only", websocket.TextMessage, "2", 2, "", false},
		{"empty message", websocket.TextMessage, "", -1, "", false},
		{"binary", websocket.BinaryMessage, "\x01raw\x00bytes", 1, "raw\x00bytes", false},
		{"binary, channel only", websocket.BinaryMessage, "\x02", 2, "", false},
		{"text without a digit", websocket.TextMessage, "x" + b64("a"), 0, "", true},
		{"bad base64", websocket.TextMessage, "1!!!!", 0, "", true},
		{"truncated base64", websocket.TextMessage, "1aGVsbG8", 0, "", true},
		{"unexpected type", websocket.PingMessage, "1", 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("kept")
			ch, payload, err := decodeFrame(prefix, tc.mt, []byte(tc.data))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("decodeFrame(%q) = %d, %q; want an error", tc.data, ch, payload)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeFrame(%q): %v", tc.data, err)
			}
			if ch != tc.ch || string(payload) != "kept"+tc.payload {
				t.Fatalf("decodeFrame(%q) = %d, %q; want %d, %q", tc.data, ch, payload, tc.ch, "kept"+tc.payload)
			}
		})
	}
}

func TestDescribeBody(t *testing.T) {
	page := []byte(`<!doctype html><html><head><meta charset="utf-8"><title>Pod list · admin &amp; co</title></head><body>…</body></html>`)
	if got, want := describeBody("text/html; charset=utf-8", page), `an HTML page titled "Pod list · admin & co"`; got != want {
		t.Errorf("HTML: %q, want %q", got, want)
	}
	if got := describeBody("text/plain", []byte("  supported: channel.k8s.io\n")); got != "supported: channel.k8s.io" {
		t.Errorf("text: %q", got)
	}
	if got := describeBody("text/plain", bytes.Repeat([]byte("a"), 400)); len(got) != 300+len("…") {
		t.Errorf("long body not cut: %d bytes", len(got))
	}
}

// fakeConsole is a console that speaks the live protocol's handshake and
// framing (docs/live-protocol.md) for the bench's own tests.
type fakeConsole struct {
	srv  *httptest.Server
	open atomic.Int64
	mux  *http.ServeMux
}

func newFakeConsole(t *testing.T) *fakeConsole {
	f := &fakeConsole{mux: http.NewServeMux()}
	f.srv = httptest.NewServer(f.mux)
	t.Cleanup(f.srv.Close)
	return f
}

var fakeUpgrader = websocket.Upgrader{
	Subprotocols: []string{"v4.base64.channel.k8s.io", "base64.channel.k8s.io", "v4.channel.k8s.io", "channel.k8s.io"},
	CheckOrigin:  func(r *http.Request) bool { return r.Header.Get("Origin") == "http://"+r.Host },
}

// handle serves path as a live endpoint; serve runs on each connection.
func (f *fakeConsole) handle(path string, serve func(r *http.Request, c *websocket.Conn)) {
	f.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			http.Error(w, "page", http.StatusOK)
			return
		}
		c, err := fakeUpgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f.open.Add(1)
		defer f.open.Add(-1)
		defer c.Close()
		serve(r, c)
	})
}

func send(c *websocket.Conn, ch int, payload []byte) error {
	msg := append([]byte{byte('0' + ch)}, base64.StdEncoding.EncodeToString(payload)...)
	return c.WriteMessage(websocket.TextMessage, msg)
}

func closeNormal(c *websocket.Conn) {
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
}

// waitClosed reads until the client's close frame or an error.
func waitClosed(c *websocket.Conn) {
	for {
		if _, _, err := c.NextReader(); err != nil {
			return
		}
	}
}

func testWSClient(t *testing.T, f *fakeConsole) *wsClient {
	ws, err := newWSClient(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestConsoleLogRun(t *testing.T) {
	f := newFakeConsole(t)
	line := bytes.Repeat([]byte("x"), 120)
	line = append(line, '\n')
	const lines = 5000
	f.handle("/c/admin/api/v1/namespaces/logbench/pods/big/log", func(r *http.Request, c *websocket.Conn) {
		if r.URL.Query().Get("tailLines") != "all" {
			send(c, 3, []byte(`{"status":"Failure","code":400,"message":"want tailLines=all"}`))
			closeNormal(c)
			return
		}
		_ = send(c, 2, []byte(`{"message":"stream started"}`))
		var chunk []byte
		for i := range lines {
			chunk = append(chunk, line...)
			if len(chunk) > 32<<10 || i == lines-1 {
				if err := send(c, 1, chunk); err != nil {
					return
				}
				chunk = chunk[:0]
			}
		}
		closeNormal(c)
		waitClosed(c)
	})
	f.handle("/c/admin/api/v1/namespaces/logbench/pods/broken/log", func(r *http.Request, c *websocket.Conn) {
		_ = send(c, 1, line)
		// No close frame: the connection just drops.
	})
	f.handle("/c/admin/api/v1/namespaces/logbench/pods/forbidden/log", func(r *http.Request, c *websocket.Conn) {
		_ = send(c, 3, []byte(`{"status":"Failure","code":403,"reason":"Forbidden","message":"no"}`))
		closeNormal(c)
		waitClosed(c)
	})
	ws := testWSClient(t, f)
	ctx := context.Background()

	r, err := consoleLogRun(ctx, ws, "/c/admin/api/v1/namespaces/logbench/pods/big/log?tailLines=all")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(lines * len(line)); r.bytes != want {
		t.Errorf("counted %d bytes, want %d", r.bytes, want)
	}
	if len(r.diag) != 1 || r.diag[0] != "stream started" {
		t.Errorf("diagnostics %q, want [stream started]", r.diag)
	}
	if r.d <= 0 || r.first <= 0 || r.first > r.d {
		t.Errorf("durations: first %v, total %v", r.first, r.d)
	}

	if _, err := consoleLogRun(ctx, ws, "/c/admin/api/v1/namespaces/logbench/pods/broken/log"); err == nil {
		t.Error("a stream that dropped without a close frame was counted as complete")
	}
	if _, err := consoleLogRun(ctx, ws, "/c/admin/api/v1/namespaces/logbench/pods/forbidden/log"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a failure status: err = %v, want one that says Forbidden", err)
	}
}

func TestDialRefused(t *testing.T) {
	f := newFakeConsole(t)
	f.mux.HandleFunc("/c/admin/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "supported subprotocols: channel.k8s.io", http.StatusBadRequest)
	})
	f.handle("/c/admin/api/v1/namespaces/demo/configmaps", func(r *http.Request, c *websocket.Conn) {})
	ws := testWSClient(t, f)
	_, err := ws.dial(context.Background(), "/c/admin/api/v1/namespaces/demo/pods")
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "supported subprotocols") {
		t.Errorf("err = %v, want the 400 and its body", err)
	}
	// The fake checks Origin like the console: the client must send its own.
	c, err := ws.dial(context.Background(), "/c/admin/api/v1/namespaces/demo/configmaps")
	if err != nil {
		t.Fatalf("dial with the console's origin: %v", err)
	}
	c.Close()
	ws.origin = "http://elsewhere.example"
	if _, err := ws.dial(context.Background(), "/c/admin/api/v1/namespaces/demo/configmaps"); err == nil {
		t.Error("the fake accepted a foreign origin; the test proves nothing")
	}
}

// fakeCluster hands out resourceVersions for PATCHes and feeds the live
// page the events, dropping every dropEvery-th one as coalesced.
type fakeCluster struct {
	mu        sync.Mutex
	rv        int
	events    chan liveEvent
	dropEvery int
	delay     time.Duration
}

func (c *fakeCluster) patch(ctx context.Context, name string, body []byte) (string, error) {
	if !json.Valid(body) {
		return "", fmt.Errorf("bad patch %q", body)
	}
	c.mu.Lock()
	c.rv++
	rv := strconv.Itoa(c.rv)
	drop := c.dropEvery > 0 && c.rv%c.dropEvery == 0
	c.mu.Unlock()
	if !drop {
		ev := liveEvent{Type: "MODIFIED", UID: "uid-" + name, Key: "watchbench/" + name, RV: rv, HTML: "<tr></tr>"}
		time.AfterFunc(c.delay, func() { c.events <- ev })
	}
	return rv, nil
}

func TestWatchLatency(t *testing.T) {
	oldQuiet := watchQuiet
	watchQuiet = 300 * time.Millisecond
	t.Cleanup(func() { watchQuiet = oldQuiet })

	cluster := &fakeCluster{events: make(chan liveEvent, 1000), dropEvery: 5, delay: 2 * time.Millisecond}
	f := newFakeConsole(t)
	f.handle("/c/admin/api/v1/namespaces/watchbench/configmaps", func(r *http.Request, c *websocket.Conn) {
		if r.URL.Query().Get("resourceVersion") != "42" {
			_ = send(c, 3, []byte(`{"status":"Failure","message":"resourceVersion missing"}`))
			closeNormal(c)
			return
		}
		go waitClosed(c)
		_ = send(c, 1, []byte(`{"type":"BOOKMARK","rv":"1"}`))
		for ev := range cluster.events {
			b, _ := json.Marshal(ev)
			if err := send(c, 1, b); err != nil {
				return
			}
		}
	})
	o := options{watchRate: 200, watchDuration: 250 * time.Millisecond, watchWorkers: 4}
	names := []string{"watch-00", "watch-01", "watch-02"}
	res, err := watchLatency(context.Background(), o, testWSClient(t, f),
		"/c/admin/api/v1/namespaces/watchbench/configmaps?resourceVersion=42", names, cluster.patch)
	if err != nil {
		t.Fatal(err)
	}
	// rv 1 was the warm-up; rvs 2..51 the measured PATCHes, of which the
	// multiples of 5 (5, 10, …, 50: 10 of them) were dropped.
	if res.planned != 50 || res.sent != 50 || res.patchErrors != 0 {
		t.Errorf("planned %d, sent %d, errors %d; want 50, 50, 0", res.planned, res.sent, res.patchErrors)
	}
	if res.received != 40 || len(res.latencies) != 40 {
		t.Errorf("received %d (%d latencies), want 40", res.received, len(res.latencies))
	}
	if res.other["BOOKMARK"] != 1 {
		t.Errorf("other messages %v, want one BOOKMARK", res.other)
	}
	if p := percentile(res.latencies, 0.5); p < cluster.delay || p > time.Second {
		t.Errorf("p50 %v, want about %v", p, cluster.delay)
	}
	if res.sendSpan < 200*time.Millisecond || res.sendSpan > 400*time.Millisecond {
		t.Errorf("PATCHes spread over %v, want about 245ms at 200/s", res.sendSpan)
	}
	var out strings.Builder
	reportWatch(&out, o, res, nil)
	if !strings.Contains(out.String(), "| 10 (20.0%) |") {
		t.Errorf("report does not show 10 coalesced:\n%s", out.String())
	}
}

func TestHoldClients(t *testing.T) {
	f := newFakeConsole(t)
	var paths sync.Map
	f.handle("/c/admin/api/v1/namespaces/", func(r *http.Request, c *websocket.Conn) {
		paths.Store(r.URL.Path, true)
		waitClosed(c)
	})
	point := func() (memPoint, error) {
		return memPoint{rssKiB: 1000 + 10*f.open.Load(), sockets: float64(f.open.Load()), hasSockets: true}, nil
	}
	o := options{clients: 40, clientNamespaces: []string{"a", "b"}, clientSettle: 200 * time.Millisecond}
	res, err := holdClients(context.Background(), o, testWSClient(t, f),
		[]string{"/c/admin/api/v1/namespaces/a/pods?resourceVersion=1", "/c/admin/api/v1/namespaces/b/pods?resourceVersion=2"}, point)
	if err != nil {
		t.Fatal(err)
	}
	if res.before.sockets != 0 || res.during.sockets != 40 || res.closed.sockets != 0 {
		t.Errorf("open sockets before/during/after = %v/%v/%v, want 0/40/0", res.before.sockets, res.during.sockets, res.closed.sockets)
	}
	for _, p := range []string{"/c/admin/api/v1/namespaces/a/pods", "/c/admin/api/v1/namespaces/b/pods"} {
		if _, ok := paths.Load(p); !ok {
			t.Errorf("no client opened %s", p)
		}
	}
	var out strings.Builder
	reportClients(&out, o, res, nil)
	if !strings.Contains(out.String(), "10.0 KiB per client") || !strings.Contains(out.String(), "| n/a | 40 |") {
		t.Errorf("report:\n%s", out.String())
	}
}
