// Package csrf guards every request that is not a read with a token its
// form or header must repeat, and refuses writes that a browser says come
// from another site. It also masks secrets written into pages, so that a
// compressed page never gives one away (BREACH).
package csrf

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/seal"
)

// Field is the form field (and Header the header, for scripts) that must
// carry the token on every request that is not a read.
const (
	Field  = "_csrf"
	Header = "X-CSRF-Token"
)

// csrfCookie names the cookie holding the browser's token: over TLS
// __Host- prefixed (seal.CookieName), so neither a plaintext page of the
// same host nor a sibling domain can plant a token of its own.
func csrfCookie(secure bool) string { return seal.CookieName("tabula_csrf", secure) }

// IsTLS says whether the browser reached the console over TLS: then
// cookies are Secure and __Host- prefixed.
func IsTLS(c echo.Context) bool { return c.Scheme() == "https" }

type boundKey struct{}

// Bind makes token the request's CSRF token instead of the browser's
// token cookie: sign-in derives it from the session, so a token is good
// for one session only and changes at every login. The sign-in middleware
// calls it before CSRF runs.
func Bind(c echo.Context, token string) {
	req := c.Request()
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), boundKey{}, token)))
}

// Protect guards every request that is not a read with a token the form (or
// header) must repeat. Signed in, the token is bound to the session
// (Bind); otherwise it is a double-submit token, the browser's token
// cookie, which a cross-site page can neither read nor set. A request that
// comes from another origin is refused even with a token: Sec-Fetch-Site
// says so, or Origin is not one of origins (empty: the origin the request
// was made to), scheme included. It decides from the headers and the
// form's first field, every form's token, before anything reads the rest
// of the body: a stranger's large form is refused unread. It sits on the
// whole server, so no mutating route can forget it.
func Protect(origins []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			secure := IsTLS(c)
			name := csrfCookie(secure)
			token, bound := req.Context().Value(boundKey{}).(string)
			if !bound {
				if ck, err := req.Cookie(name); err == nil && validToken(ck.Value) {
					token = ck.Value
				}
			}
			if !SafeMethod(req.Method) {
				if err := checkSameOrigin(req, origins); err != nil {
					return err
				}
				refused := echo.NewHTTPError(http.StatusForbidden,
					"This form could not be verified (its CSRF token is missing or out of date), so nothing was changed. Go back and submit it again: your text is kept in this browser.")
				if token == "" {
					// No token to match: nothing of the body need be read.
					return refused
				}
				sent, err := sentToken(req)
				if err != nil {
					return err
				}
				if !tokenMatches(sent, token) {
					return refused
				}
			}
			if token == "" {
				b := make([]byte, 32)
				if _, err := rand.Read(b); err != nil {
					return err
				}
				token = base64.RawURLEncoding.EncodeToString(b)
				c.SetCookie(&http.Cookie{
					Name: name, Value: token, Path: "/",
					HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode,
				})
			}
			// Forms carry the token masked afresh for this response; the
			// secret itself stays in the context for what is keyed by it.
			ctx := context.WithValue(req.Context(), secretKey{}, token)
			c.SetRequest(req.WithContext(views.WithCSRFToken(ctx, Mask([]byte(token)))))
			return next(c)
		}
	}
}

// maxFirstField bounds what is read of a form to find its token: every
// form of the console sends it first ("_csrf=" and 86 bytes masked).
const maxFirstField = 512

// sentToken is the token a write carries: in the header, or as its form's
// first field, as every form of the console sends it, so that a form
// without a valid token is refused with no more of its body read. What is
// read is put back for the handler.
func sentToken(req *http.Request) (string, error) {
	if t := req.Header.Get(Header); t != "" || req.Body == nil {
		return t, nil
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); mt != echo.MIMEApplicationForm {
		return "", nil
	}
	read, err := readUpTo(req, maxFirstField, '&')
	if err != nil {
		return "", err
	}
	first, _, _ := bytes.Cut(read, []byte("&"))
	if k, v, ok := strings.Cut(string(first), "="); ok && k == Field {
		v, _ = url.QueryUnescape(v)
		return v, nil
	}
	return "", nil
}

// readUpTo reads at most n bytes of req's body, stopping once it has read
// stop, and puts them back in front of the rest.
func readUpTo(req *http.Request, n int, stop byte) ([]byte, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 4096)
	var err error
	for buf.Len() < n && err == nil && bytes.IndexByte(buf.Bytes(), stop) < 0 {
		var m int
		m, err = req.Body.Read(chunk[:min(len(chunk), n-buf.Len())])
		buf.Write(chunk[:m])
	}
	req.Body = putBack{Reader: io.MultiReader(bytes.NewReader(buf.Bytes()), req.Body), Closer: req.Body}
	if err == nil || errors.Is(err, io.EOF) {
		return buf.Bytes(), nil
	}
	return nil, bodyError(err)
}

type putBack struct {
	io.Reader
	io.Closer
}

// bodyError is the answer to a body that could not be read: too large
// (http.MaxBytesReader), too slow (the read deadline), or cut off.
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooLarge):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The form is larger than %s; nothing was sent to the API server.", humanBytes(tooLarge.Limit)))
	case errors.As(err, &netErr) && netErr.Timeout():
		return echo.NewHTTPError(http.StatusRequestTimeout, "The form did not arrive in time; nothing was sent to the API server. Submit it again.")
	}
	return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read ("+err.Error()+"); nothing was sent to the API server.")
}

// ReadForm parses a write's form, read whole (at most what the body's
// limit allows), and says why it could not: 413 when it is larger than the
// limit, 408 when it came too slowly. Handlers then read its fields.
func ReadForm(req *http.Request) error {
	if err := req.ParseForm(); err != nil {
		return bodyError(err)
	}
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tokenMatches says whether sent is the token, masked (as every form
// carries it) or as it is (as the cookie holds it, for clients that send
// that back).
func tokenMatches(sent, token string) bool {
	if raw, ok := Unmask(sent); ok && len(raw) == len(token) {
		return subtle.ConstantTimeCompare(raw, []byte(token)) == 1
	}
	return subtle.ConstantTimeCompare([]byte(sent), []byte(token)) == 1
}

type secretKey struct{}

// Secret is the request's token itself: the session's secret, which
// keys what a page hands out (web/exec's terminal tokens). Never render it:
// write views.CSRFToken, or a value masked with Mask.
func Secret(ctx context.Context) string {
	s, _ := ctx.Value(secretKey{}).(string)
	return s
}

// Mask returns secret under a fresh one-time pad, as base64url of
// pad‖(pad XOR secret), as Django and gorilla/csrf mask their tokens. A
// secret written into compressed pages as it is can be read out, a byte at
// a time, by a site that makes the browser load pages reflecting its
// guesses (a label selector, a path) and watches their sizes (BREACH);
// masked, its bytes differ in every response.
func Mask(secret []byte) string {
	b := make([]byte, 2*len(secret))
	pad, masked := b[:len(secret)], b[len(secret):]
	_, _ = rand.Read(pad) // never fails (crypto/rand)
	for i, s := range secret {
		masked[i] = pad[i] ^ s
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Unmask returns the secret Mask masked into s; ok is false
// for what Mask cannot have made. The caller compares the secret,
// and its length, with the one it expects.
func Unmask(s string) (secret []byte, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) == 0 || len(b)%2 != 0 {
		return nil, false
	}
	n := len(b) / 2
	secret = make([]byte, n)
	for i := range secret {
		secret[i] = b[i] ^ b[n+i]
	}
	return secret, true
}

// SafeMethod says whether a request of method m is a read, which CSRF
// lets through: GET, HEAD and OPTIONS change nothing.
func SafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func validToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// checkSameOrigin refuses writes a browser says come from another site, or
// from another origin than the console's (scheme, host and port, as live
// streams check theirs). The host check has already vouched for the Host
// header.
func checkSameOrigin(req *http.Request, origins []string) error {
	forbidden := echo.NewHTTPError(http.StatusForbidden, "This request came from another site, so nothing was changed.")
	if site := req.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return forbidden
	}
	origin := req.Header.Get("Origin")
	if origin == "" || streaming.OriginAllowed(req, origins, origin) {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && len(origins) == 0 && strings.EqualFold(u.Host, req.Host) {
		// The console's host under another scheme: most likely a proxy
		// that terminates TLS in front of a console that does not know it.
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf(
			"This request came from %s, which is not the origin the console was reached at (its scheme differs), so nothing was changed. Behind a proxy that terminates TLS, the console must be started with --external-url naming the URL browsers use.", origin))
	}
	return forbidden
}
