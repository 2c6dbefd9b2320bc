package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/labstack/echo/v4"
)

// Memory goes back to the OS once after a burst of pages, only when the
// console is quiet and holds enough to be worth a collection; open
// WebSockets do not keep it busy.
//
// It runs in a synctest bubble: time.Sleep moves the bubble's clock at
// once, and synctest.Wait returns when the release loop has done what
// that time asks of it, so "no release in three quiet spells" is checked,
// not hoped, however loaded the machine.
func TestIdleMemoryIsReleasedOnceAfterPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var releases atomic.Int32
		var held atomic.Uint64
		const quiet = 20 * time.Millisecond
		r := newIdleRelease(quiet, slog.New(slog.NewTextHandler(io.Discard, nil)))
		r.threshold = 100
		r.held = held.Load
		r.release = func() { releases.Add(1); held.Store(10) }
		ctx, cancel := context.WithCancel(t.Context())
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
		// quietSpells lets n quiet spells pass and the release loop act on them.
		quietSpells := func(n int) {
			time.Sleep(time.Duration(n) * quiet)
			synctest.Wait()
		}

		done := make(chan struct{})
		go func() { serve("/page", false); close(done) }()
		<-inPage
		// A page being served for longer than the quiet spell holds it off,
		// though another page ended; a WebSocket is no page.
		serve("/quick", false)
		serve("/socket", true)
		quietSpells(3)
		if n := releases.Load(); n != 0 {
			t.Fatalf("released %d times while a page was being served", n)
		}
		close(leave)
		<-done
		quietSpells(1)
		if n := releases.Load(); n != 1 {
			t.Fatalf("released %d times one quiet spell after the page, want once", n)
		}
		// Below the threshold now: quiet spells after a WebSocket change nothing.
		serve("/socket", true)
		quietSpells(3)
		if n := releases.Load(); n != 1 {
			t.Errorf("released %d times, want once", n)
		}
	})
}
