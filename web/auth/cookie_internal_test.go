package auth

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

var (
	keyA = bytes.Repeat([]byte("a"), 32)
	keyB = bytes.Repeat([]byte("b"), 40)
)

func TestChunksRoundTripAndStaleChunksGo(t *testing.T) {
	e := echo.New()
	value := strings.Repeat("x", 3*chunkSize+10)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for i := range 5 { // a bigger session before
		req.AddCookie(&http.Cookie{Name: chunkName("s", i), Value: "old"})
	}
	rec := httptest.NewRecorder()
	if err := writeChunks(e.NewContext(req, rec), "s", value, false); err != nil {
		t.Fatal(err)
	}
	back := httptest.NewRequest(http.MethodGet, "/", nil)
	deleted := 0
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 {
			deleted++
			continue
		}
		if len(ck.Value) > chunkSize {
			t.Errorf("chunk %s: %d bytes", ck.Name, len(ck.Value))
		}
		back.AddCookie(ck)
	}
	if deleted != 1 {
		t.Errorf("%d stale chunks deleted, want 1 (s.4)", deleted)
	}
	if got := readChunks(back, "s"); got != value {
		t.Errorf("read back %d bytes, want %d", len(got), len(value))
	}
	var big *TooLargeError
	if err := writeChunks(e.NewContext(req, httptest.NewRecorder()), "s", strings.Repeat("x", maxChunks*chunkSize+1), false); !errors.As(err, &big) {
		t.Errorf("too large: %v", err)
	}
}

func TestSessionNeverPrintsItsTokens(t *testing.T) {
	s := Session{User: "alice", Mode: "oidc", Token: "secret-id-token", RefreshToken: "secret-refresh"}
	for _, out := range []string{s.String(), s.GoString(), s.LogValue().String()} {
		if strings.Contains(out, "secret") {
			t.Errorf("%q shows a token", out)
		}
	}
}

func TestSessionEnds(t *testing.T) {
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	e := newSessionEnds(now)
	// Logout closes at once, and forgets the session.
	ch := e.watch("a", now().Add(time.Hour))
	if e.watch("a", now().Add(time.Hour)) != ch {
		t.Error("two requests of a session got two channels")
	}
	e.end("a")
	select {
	case <-ch:
	default:
		t.Fatal("end did not close the channel")
	}
	if e.size() != 0 {
		t.Error("an ended session is still tracked")
	}
	// A deadline closes it; use extends it.
	ch = e.watch("b", now().Add(50*time.Millisecond))
	e.watch("b", now().Add(200*time.Millisecond))
	select {
	case <-ch:
		t.Fatal("closed before its extended deadline")
	case <-time.After(100 * time.Millisecond):
	}
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
		t.Fatal("not closed at its deadline")
	}
	if e.size() != 0 {
		t.Error("a fired session is still tracked")
	}
	// A deadline already past is a closed channel.
	select {
	case <-e.watch("c", now().Add(-time.Second)):
	default:
		t.Error("a past deadline gave an open channel")
	}
	// Past an entry's deadline (the clock jumped), a new request replaces
	// it: the old streams end, the new ones get a new channel.
	old := e.watch("d", now().Add(time.Hour))
	offset.Store(int64(2 * time.Hour))
	fresh := e.watch("d", now().Add(time.Hour))
	select {
	case <-old:
	default:
		t.Error("the overdue entry was not closed")
	}
	if fresh == old {
		t.Error("the new request got the overdue channel")
	}
	e.end("d")
}

func TestEndsAreBounded(t *testing.T) {
	e := newSessionEnds(time.Now)
	for i := range maxEnds + 10 {
		e.watch(string(rune(i)), time.Now().Add(time.Hour))
	}
	if e.size() > maxEnds {
		t.Errorf("%d sessions tracked, bound %d", e.size(), maxEnds)
	}
}

func TestRefresherSharesOneRefreshAndRemembersFailures(t *testing.T) {
	var calls atomic.Int32
	started, release := make(chan struct{}, 10), make(chan struct{})
	fail := atomic.Bool{}
	r := newRefresher(func(context.Context, Session) (tokens, error) {
		calls.Add(1)
		started <- struct{}{}
		<-release
		if fail.Load() {
			return tokens{}, errors.New("provider down")
		}
		return tokens{Token: "new", IssuedAt: 200}, nil
	}, time.Now, time.Hour)
	s := Session{ID: "s", IssuedAt: 100}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if got, err := r.tokensFor(t.Context(), s); err != nil || got.Token != "new" {
				t.Errorf("tokensFor: %v %v", got, err)
			}
		})
	}
	// Callers that arrive while the refresh runs wait for it; those that
	// arrive after find its result.
	<-started
	close(release)
	wg.Wait()
	if got, _ := r.tokensFor(t.Context(), s); got.Token != "new" {
		t.Error("a late request with the old cookie did not get the refreshed tokens")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	fail.Store(true)
	s2 := Session{ID: "s2", IssuedAt: 100}
	for range 3 {
		if _, err := r.tokensFor(t.Context(), s2); err == nil {
			t.Error("a failed refresh succeeded")
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("a failing provider was asked %d times in a row, want once", n-1)
	}
}
