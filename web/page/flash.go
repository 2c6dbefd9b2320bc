package page

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/seal"
)

// Flash is a one-time notice for the page a write redirects to ("Saved
// deployment web."), and the editor draft that page may forget.
type Flash struct {
	Message string `json:"m"`
	// ClearDraft is the editor draft key whose text was saved.
	ClearDraft string `json:"d,omitempty"`
}

const flashCookie = "tabula_flash"

// maxFlash bounds what a flash cookie may carry.
const maxFlash = 1024

type flashKey struct{}

// flashTTL is how long a flash waits for the page it is for.
const flashTTL = 60 * time.Second

// sealedFlash is a flash as its cookie carries it: with its expiry inside
// the seal, which a browser cannot stretch.
type sealedFlash struct {
	Flash
	Expires int64 `json:"e"`
}

// flashSeal names a flash's seal for the browser it was set for: the
// request's CSRF secret goes into it, so a flash sealed for one browser
// (another user's, planted by a sibling site) opens in no other.
func flashSeal(ctx context.Context) string { return flashCookie + "\x00" + csrf.Secret(ctx) }

// SetFlash shows f on the next page this browser loads. The cookie is
// sealed with the session key for this browser (flashSeal), expires inside
// the seal, and is host-only over TLS, so no other site (a sibling domain,
// a plaintext page of the host) can show a notice in the console's banner
// or forget a user's editor draft.
func (e *Env) SetFlash(c echo.Context, f Flash) {
	if len(f.Message) > maxFlash {
		f.Message = f.Message[:maxFlash]
	}
	v, err := e.flashes.Seal(flashSeal(c.Request().Context()), sealedFlash{Flash: f, Expires: time.Now().Add(flashTTL).Unix()})
	if err != nil {
		e.Log.Warn("sealing a notice", "error", err)
		return
	}
	tls := csrf.IsTLS(c)
	c.SetCookie(&http.Cookie{
		Name: seal.CookieName(flashCookie, tls), Value: v, Path: "/",
		MaxAge: int(flashTTL / time.Second), HttpOnly: true, Secure: tls, SameSite: http.SameSiteLaxMode,
	})
}

// Flashes takes a pending flash for this request's page and clears it. Only
// pages take it: a flash is what the user sees next, not what a stream or
// asset request happens to fetch first. Browsers say what a request is for
// (Sec-Fetch-Dest); a script, style or fetch() is not the page. A cookie
// the console did not seal for this browser, or one past its time, is
// cleared and shown nowhere.
func (e *Env) Flashes(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		tls := csrf.IsTLS(c)
		name := seal.CookieName(flashCookie, tls)
		ck, err := req.Cookie(name)
		dest := req.Header.Get("Sec-Fetch-Dest")
		if err != nil || req.Method != http.MethodGet || req.Header.Get("Upgrade") != "" || dest != "" && dest != "document" {
			return next(c)
		}
		c.SetCookie(&http.Cookie{Name: name, Path: "/", MaxAge: -1, HttpOnly: true, Secure: tls, SameSite: http.SameSiteLaxMode})
		var f sealedFlash
		if len(ck.Value) <= 4*maxFlash && e.flashes.Open(flashSeal(req.Context()), ck.Value, &f) == nil && time.Now().Unix() <= f.Expires {
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), flashKey{}, f.Flash)))
		}
		return next(c)
	}
}

func flashOf(ctx context.Context) Flash {
	f, _ := ctx.Value(flashKey{}).(Flash)
	return f
}
