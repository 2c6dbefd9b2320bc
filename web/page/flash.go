package page

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"
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

// SetFlash shows f on the next page this browser loads.
func SetFlash(c echo.Context, f Flash) {
	if len(f.Message) > maxFlash {
		f.Message = f.Message[:maxFlash]
	}
	b, _ := json.Marshal(f)
	c.SetCookie(&http.Cookie{
		Name: flashCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/",
		MaxAge: 60, HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode,
	})
}

// Flashes takes a pending flash for this request's page and clears it. Only
// pages take it: a flash is what the user sees next, not what a stream or
// asset request happens to fetch first. Browsers say what a request is for
// (Sec-Fetch-Dest); a script, style or fetch() is not the page.
func Flashes(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		ck, err := req.Cookie(flashCookie)
		dest := req.Header.Get("Sec-Fetch-Dest")
		if err != nil || req.Method != http.MethodGet || req.Header.Get("Upgrade") != "" || dest != "" && dest != "document" {
			return next(c)
		}
		c.SetCookie(&http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: c.Scheme() == "https", SameSite: http.SameSiteLaxMode})
		var f Flash
		if b, err := base64.RawURLEncoding.DecodeString(ck.Value); err == nil && len(b) <= 2*maxFlash && json.Unmarshal(b, &f) == nil {
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), flashKey{}, f)))
		}
		return next(c)
	}
}

func flashOf(ctx context.Context) Flash {
	f, _ := ctx.Value(flashKey{}).(Flash)
	return f
}
