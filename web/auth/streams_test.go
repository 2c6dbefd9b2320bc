package auth_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web"
)

const liveList = "/c/dev/api/v1/namespaces/demo/pods"

// dial opens a live page's WebSocket as the browser's page would: its
// cookies, its origin.
func (b *browser) dial(path string) (*websocket.Conn, *http.Response, error) {
	b.t.Helper()
	u, _ := url.Parse(b.c.url(path))
	header := http.Header{"Origin": {b.c.srv.URL}}
	var cookies []string
	for _, ck := range b.client.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	header.Set("Cookie", strings.Join(cookies, "; "))
	u.Scheme = "ws"
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.Dial(u.String(), header)
	if ws != nil {
		b.t.Cleanup(func() { _ = ws.Close() })
	}
	return ws, resp, err
}

// mustDial dials and reads the stream's first frame (the list as it is).
func (b *browser) mustDial(path string) (*websocket.Conn, *http.Response) {
	b.t.Helper()
	ws, resp, err := b.dial(path)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		b.t.Fatalf("dial %s: %v (%d)", path, err, code)
	}
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ws.ReadMessage(); err != nil {
		b.t.Fatalf("first frame: %v", err)
	}
	return ws, resp
}

// closedWith waits (at most within) for the stream to be closed, and
// returns the close code.
func closedWith(t *testing.T, ws *websocket.Conn, within time.Duration) int {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(within))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		t.Fatalf("the stream did not close within %s: %v", within, err)
	}
}

func TestLogoutEndsTheSessionsStreams(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	home := b.get("/c/dev/")
	ws, _ := b.mustDial(liveList)
	other := c.browser()
	other.tokenLogin("alice-token", "/")
	ows, _ := other.mustDial(liveList)

	b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	if code := closedWith(t, ws, 5*time.Second); code != streaming.CloseSessionEnded {
		t.Errorf("close code %d, want %d", code, streaming.CloseSessionEnded)
	}
	// Another session of the same user streams on.
	_ = ows.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, _, err := ows.ReadMessage(); err != nil && !isTimeout(err) {
		t.Errorf("another session's stream ended: %v", err)
	}
	// The page's reconnect is refused, as its probe says.
	if _, resp, err := b.dial(liveList); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("reconnect after logout: %v, want 401", err)
	}
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// At the token's refresh point the stream ends, so no stream outlives the
// token it was opened with; the reconnect gets the refreshed token, and the
// refreshed cookie with its 101.
func TestStreamsEndAtTheTokensRefreshPointAndResumeWithTheNewToken(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	s := b.session("tabula_session")
	refreshAt := time.Unix(s.IssuedAt, 0).Add(time.Duration(s.Expiry-s.IssuedAt) * time.Second * 8 / 10)
	skip := refreshAt.Add(-time.Second).Sub(c.clock.now())
	c.clock.advance(skip)
	c.idp.m.FastForward(skip)

	ws, _ := b.mustDial(liveList)
	if code := closedWith(t, ws, 5*time.Second); code != streaming.CloseSessionEnded {
		t.Fatalf("close code %d at the refresh point, want %d", code, streaming.CloseSessionEnded)
	}
	c.fake.ResetRequests()
	ws2, resp := b.mustDial(liveList)
	_ = ws2
	if n := c.idp.grantCount("refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if !strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), "\n"), "tabula_session=") {
		t.Error("the 101 did not carry the refreshed session cookie")
	}
	for _, tok := range c.bearers() {
		if tok == s.Token {
			t.Fatal("the reconnected stream used the old token")
		}
	}
}

// At the idle deadline the stream ends and its reconnect is refused: a
// live page alone does not keep a session alive.
func TestStreamsEndAtTheIdleDeadline(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, idle: time.Hour})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	c.clock.advance(time.Hour - 2*time.Second)
	ws, _ := b.mustDial(liveList)
	if code := closedWith(t, ws, 6*time.Second); code != streaming.CloseSessionEnded {
		t.Fatalf("close code %d at the idle deadline, want %d", code, streaming.CloseSessionEnded)
	}
	if _, resp, err := b.dial(liveList); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("reconnect after the idle deadline: %v, want 401", err)
	}
	if p := b.get("/auth/session", "Sec-Fetch-Dest", "empty"); p.code() != http.StatusUnauthorized {
		t.Errorf("session probe: %d, want 401", p.code())
	}
}
