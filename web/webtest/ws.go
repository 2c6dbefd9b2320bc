package webtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// WS is an open console WebSocket that speaks the Kubernetes channel
// framing; reads fail T.
type WS struct {
	T    testing.TB
	Conn *websocket.Conn
}

// Dial opens a console WebSocket from the console's own origin, offering
// protocols (default: base64.channel.k8s.io). It is closed when the test
// ends.
func (c *Console) Dial(t testing.TB, path string, protocols ...string) *WS {
	t.Helper()
	ws, resp, err := c.TryDial(path, c.URL, protocols...)
	if err != nil {
		t.Fatalf("dial %s: %v (response %v)", path, err, StatusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &WS{T: t, Conn: ws}
}

// TryDial is the handshake alone, from origin ("": no Origin header).
func (c *Console) TryDial(path, origin string, protocols ...string) (*websocket.Conn, *http.Response, error) {
	if len(protocols) == 0 {
		protocols = []string{"base64.channel.k8s.io"}
	}
	d := websocket.Dialer{Subprotocols: protocols, HandshakeTimeout: 5 * time.Second}
	header := http.Header{}
	if origin != "" {
		header.Set("Origin", origin)
	}
	return d.Dial(c.wsURL(path), header)
}

// DialAs is Dial acting with token (Options.ActAs).
func (c *Console) DialAs(t testing.TB, token, path string) *WS {
	t.Helper()
	ws, resp, err := c.TryDialAs(token, path)
	if err != nil {
		t.Fatalf("dial %s as %s: %v (%s)", path, token, err, StatusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &WS{T: t, Conn: ws}
}

// TryDialAs is TryDial acting with token ("": none), from the console's
// origin.
func (c *Console) TryDialAs(token, path string) (*websocket.Conn, *http.Response, error) {
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	header := http.Header{"Origin": {c.URL}}
	if token != "" {
		header.Set(TokenHeader, token)
	}
	return d.Dial(c.wsURL(path), header)
}

func (c *Console) wsURL(path string) string { return "ws" + strings.TrimPrefix(c.URL, "http") + path }

// StatusText is a handshake's response for a failure message: status and
// body, or "none".
func StatusText(resp *http.Response) string {
	if resp == nil {
		return "none"
	}
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// Frame reads one frame and decodes either framing: its channel and
// payload.
func (c *WS) Frame(timeout time.Duration) (byte, []byte) {
	c.T.Helper()
	_ = c.Conn.SetReadDeadline(time.Now().Add(timeout))
	typ, data, err := c.Conn.ReadMessage()
	if err != nil {
		c.T.Fatalf("read: %v", err)
	}
	if typ == websocket.BinaryMessage {
		return data[0], data[1:]
	}
	payload, err := base64.StdEncoding.DecodeString(string(data[1:]))
	if err != nil {
		c.T.Fatalf("frame %q: %v", data, err)
	}
	return data[0] - '0', payload
}

// NextData reads channel-1 JSON messages until one matches, failing on a
// channel-3 Status or at the deadline.
func NextData[T any](c *WS, timeout time.Duration, match func(T) bool) T {
	c.T.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ch, payload := c.Frame(time.Until(deadline))
		if ch == 3 {
			c.T.Fatalf("status on channel 3: %s", payload)
		}
		if ch != 1 {
			continue
		}
		var m T
		if err := json.Unmarshal(payload, &m); err != nil {
			c.T.Fatal(err)
		}
		if match(m) {
			return m
		}
	}
	c.T.Fatal("no matching message before the deadline")
	var zero T
	return zero
}

// TextUntil reads channel-1 text until it holds want, logging channel 2
// and failing on a channel-3 Status or at the deadline; it returns the
// text read.
func (c *WS) TextUntil(t testing.TB, want string, timeout time.Duration) string {
	t.Helper()
	var got strings.Builder
	deadline := time.Now().Add(timeout)
	for !strings.Contains(got.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", want, got.String())
		}
		ch, payload := c.Frame(time.Until(deadline))
		switch ch {
		case 1:
			got.Write(payload)
		case 2:
			t.Logf("diagnostics: %s", payload)
		case 3:
			t.Fatalf("status: %s", payload)
		}
	}
	return got.String()
}
