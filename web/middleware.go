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

// Styles come from <style> elements carrying the nonce (every page's
// stylesheet is one, and the YAML editor, CodeMirror, writes its styles
// into others), and from the console's own files ('self': terminal.css).
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
// Secret's new values (each refused above yamltext.MaxText with a clear
// message), may be large; no form may take long to arrive.
const (
	maxRequestBody = 16 << 20
	maxSmallForm   = 1 << 20
	bodyTimeout    = 30 * time.Second
)

// limitBody gives any request's body bodyTimeout to arrive, whatever its
// method and wherever it is answered (a refused host, a health check), and
// refuses one that claims more than maxRequestBody unread. A form is read
// whole, and bounded, only by readForm. A response to a request whose body
// was not read to its end closes an HTTP/1 connection: net/http would
// otherwise read on first, to reuse the connection, and a stalled body
// would hold the answer back.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength == 0 || req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		b := &bodyRead{ReadCloser: req.Body}
		req.Body = b
		c.Response().Before(func() {
			if !b.ended && req.ProtoMajor == 1 {
				c.Response().Header().Set(echo.HeaderConnection, "close")
			}
		})
		if req.ContentLength > maxRequestBody {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than %d MiB; nothing was sent to the API server.", maxRequestBody>>20))
		}
		// net/http lifts the deadline itself once the body has ended, when
		// it starts watching for the client going away.
		if err := http.NewResponseController(c.Response().Writer).SetReadDeadline(time.Now().Add(s.bodyTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return next(c)
	}
}

// bodyRead is a request body that knows whether it was read to its end.
type bodyRead struct {
	io.ReadCloser
	ended bool
}

func (b *bodyRead) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.ended = true
	}
	return n, err
}
