package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// Memory goes back to the OS once after a burst of pages, only when the
// console is quiet and holds enough to be worth a collection; open
// WebSockets do not keep it busy.
func TestIdleMemoryIsReleasedOnceAfterPages(t *testing.T) {
	var releases atomic.Int32
	var held atomic.Uint64
	r := newIdleRelease(20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	r.threshold = 100
	r.held = held.Load
	r.release = func() { releases.Add(1); held.Store(10) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.run(ctx)

	e := echo.New()
	inPage := make(chan struct{})
	leave := make(chan struct{})
	e.Use(r.middleware)
	e.GET("/page", func(c echo.Context) error {
		held.Store(1000)
		close(inPage)
		<-leave
		return c.NoContent(http.StatusOK)
	})
	e.GET("/socket", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.GET("/quick", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	serve := func(path string, upgrade bool) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if upgrade {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}

	done := make(chan struct{})
	go func() { serve("/page", false); close(done) }()
	<-inPage
	// A page being served for longer than the quiet spell holds it off,
	// though another page ended; a WebSocket is no page.
	serve("/quick", false)
	serve("/socket", true)
	time.Sleep(60 * time.Millisecond) // three quiet spells: none may release
	if n := releases.Load(); n != 0 {
		t.Fatalf("released %d times while a page was being served", n)
	}
	close(leave)
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for releases.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("memory was never released after the page")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Below the threshold now: quiet spells after a WebSocket change nothing.
	serve("/socket", true)
	time.Sleep(60 * time.Millisecond)
	if n := releases.Load(); n != 1 {
		t.Errorf("released %d times, want once", n)
	}
}
