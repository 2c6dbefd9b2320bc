package page

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/views"
)

// CSRFField is the form field (and CSRFHeader the header, for scripts) that
// must carry the token on every request that is not a read.
const (
	CSRFField  = "_csrf"
	CSRFHeader = "X-CSRF-Token"
)

// csrfCookie names the cookie holding the browser's token. Over TLS it is
// __Host- prefixed: Secure, host-only, Path=/, so neither a plaintext page
// of the same host nor a sibling domain can plant a token of its own.
func csrfCookie(secure bool) string {
	if secure {
		return "__Host-tabula_csrf"
	}
	return "tabula_csrf"
}

// IsTLS says whether the browser reached the console over TLS: then
// cookies are Secure and __Host- prefixed.
func IsTLS(c echo.Context) bool { return c.Scheme() == "https" }

const ctxKeyBoundCSRF = "tabula.csrf.bound"

// BindCSRF makes token the request's CSRF token instead of the browser's
// token cookie: sign-in derives it from the session, so a token is good
// for one session only and changes at every login. The sign-in middleware
// calls it before CSRF runs.
func BindCSRF(c echo.Context, token string) { c.Set(ctxKeyBoundCSRF, token) }

// CSRF guards every request that is not a read with a token the form (or
// header) must repeat. Signed in, the token is bound to the session
// (BindCSRF); otherwise it is a double-submit token, the browser's token
// cookie, which a cross-site page can neither read nor set. A request that
// comes from another origin (Origin or Sec-Fetch-Site says so) is refused
// even with a token. It sits on the whole server, so no mutating route can
// forget it.
func CSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		secure := IsTLS(c)
		name := csrfCookie(secure)
		token, bound := c.Get(ctxKeyBoundCSRF).(string)
		if !bound {
			if ck, err := req.Cookie(name); err == nil && validToken(ck.Value) {
				token = ck.Value
			}
		}
		if !safeMethod(req.Method) {
			if err := checkSameOrigin(req); err != nil {
				return err
			}
			sent := req.Header.Get(CSRFHeader)
			if sent == "" {
				sent = req.FormValue(CSRFField)
			}
			if token == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(token)) != 1 {
				return echo.NewHTTPError(http.StatusForbidden,
					"This form could not be verified (its CSRF token is missing or out of date), so nothing was changed. Go back and submit it again: your text is kept in this browser.")
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
		c.SetRequest(req.WithContext(views.WithCSRFToken(req.Context(), token)))
		return next(c)
	}
}

// CSRFToken is the request's token, for forms built outside templates.
func CSRFToken(ctx context.Context) string { return views.CSRFToken(ctx) }

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func validToken(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil && len(b) == 32
}

// checkSameOrigin refuses writes a browser says come from another site. The
// host check has already vouched for the Host header.
func checkSameOrigin(req *http.Request) error {
	forbidden := echo.NewHTTPError(http.StatusForbidden, "This request came from another site, so nothing was changed.")
	if site := req.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return forbidden
	}
	origin := req.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || !strings.EqualFold(u.Host, req.Host) {
		return forbidden
	}
	return nil
}
