package web

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/page"
)

// securityHeaders sets a strict CSP with a fresh nonce per response. The nonce
// travels in the request context, where templ components read it.
// formActions are origins forms may lead to besides the console's own
// (auth.Handler.FormActions).
func securityHeaders(formActions []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			nonce, err := newNonce()
			if err != nil {
				return fmt.Errorf("generating CSP nonce: %w", err)
			}
			req := c.Request()
			c.SetRequest(req.WithContext(templ.WithNonce(req.Context(), nonce)))
			h := c.Response().Header()
			h.Set("Content-Security-Policy", contentSecurityPolicy(nonce, formActions))
			h.Set("Referrer-Policy", "same-origin")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			// Pages show what one user may see: no cache may keep them. Static
			// assets override this with their own, immutable, policy.
			h.Set("Cache-Control", "no-store")
			if req.TLS != nil {
				// Served over TLS itself: browsers keep to https. Behind a
				// TLS-terminating proxy, the proxy owns this header.
				h.Set("Strict-Transport-Security", "max-age=31536000")
			}
			return next(c)
		}
	}
}

// Styles come from the stylesheet, and from <style> elements carrying the
// nonce: the YAML editor (CodeMirror) writes its styles into one.
func contentSecurityPolicy(nonce string, formActions []string) string {
	formAction := "'self'"
	for _, o := range formActions {
		formAction += " " + o
	}
	return "default-src 'none'; " +
		"script-src 'nonce-" + nonce + "' 'strict-dynamic'; " +
		"style-src 'self' 'nonce-" + nonce + "'; img-src 'self' data:; font-src 'self'; " +
		"connect-src 'self'; form-action " + formAction + "; base-uri 'none'; frame-ancestors 'none'"
}

func newNonce() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// requestLog writes one structured line per request.
func requestLog(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			status := c.Response().Status
			if err != nil && !c.Response().Committed {
				status = page.StatusOf(err)
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelWarn
			}
			attrs := []slog.Attr{
				slog.String("method", c.Request().Method),
				// The path as sent, base path included.
				slog.String("path", page.URLsOf(c.Request().Context()).Base()+c.Request().URL.Path),
				slog.String("route", c.Path()),
				slog.Int("status", status),
				slog.Duration("duration", time.Since(start)),
			}
			if err != nil {
				attrs = append(attrs, slog.String("error", err.Error()))
			}
			log.LogAttrs(c.Request().Context(), level, "http request", attrs...)
			return err
		}
	}
}

// recoverPanics turns a panic into an error for the central mapper, so the
// user gets an error page and the log gets the stack, never the reverse.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					log.Error("panic serving request", "path", c.Request().URL.Path, "panic", r, "stack", string(debug.Stack()))
					err = fmt.Errorf("internal error: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// Bounds on what a browser may send. A form is read only once CSRF has
// vouched for it (csrf.Protect reads its first field, the token), and only
// an editor's form, which carries the text, the text as loaded and a
// Secret's new values (each refused above edit.MaxText with a clear
// message), may be large; no form may take long to arrive.
const (
	maxRequestBody = 16 << 20
	maxSmallForm   = 1 << 20
	bodyTimeout    = 30 * time.Second
)

// limitBody gives a request's body bodyTimeout to arrive, and refuses one
// that claims more than maxRequestBody unread. Its form is read whole, and
// bounded, only by readForm. A request refused before its body was read to
// the end closes its connection: net/http would otherwise read on, to
// reuse the connection, and a stalled body would hold the answer back.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > maxRequestBody {
			c.Response().Header().Set(echo.HeaderConnection, "close")
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than %d MiB; nothing was sent to the API server.", maxRequestBody>>20))
		}
		if req.Body == nil || req.Body == http.NoBody || safeMethod(req.Method) {
			return next(c)
		}
		rc := http.NewResponseController(c.Response().Writer)
		if err := rc.SetReadDeadline(time.Now().Add(s.bodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		b := &timedBody{ReadCloser: req.Body, done: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		req.Body = b
		err := next(c)
		if !b.ended && !c.Response().Committed {
			c.Response().Header().Set(echo.HeaderConnection, "close")
		}
		return err
	}
}

// timedBody is a request body whose read deadline is lifted at its end,
// so that net/http's watch for the client going away, which reads on after
// the body, never hits it and cancels the request.
type timedBody struct {
	io.ReadCloser
	done  func()
	ended bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.ended {
		b.ended = true
		b.done()
	}
	return n, err
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}
