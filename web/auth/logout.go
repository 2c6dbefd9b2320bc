package auth

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/page"
)

// Logout is POST /auth/logout, behind the CSRF check: it clears the
// session's cookies and ends its streams on this replica, then signs out at
// the provider when it advertises end_session_endpoint (RP-initiated
// logout), else goes to /auth/signed-out.
//
// The provider is sent client_id and post_logout_redirect_uri but no
// id_token_hint: that would put a live ID token (a bearer credential until
// it expires) into a URL, the browser's history and the provider's logs.
func (h *Handler) Logout(c echo.Context) error {
	if h.cfg.Mode == page.ModeKubeconfig {
		return echo.NewHTTPError(http.StatusNotFound, "Nobody signs in to this console: it acts with the kubeconfig's identity.")
	}
	if s, ok := h.readSession(c); ok {
		h.ends.end(s.ID)
		h.revoked.add(s.ID, time.Unix(s.LoginAt, 0).Add(h.cfg.MaxAge), h.now())
		if h.refresh != nil {
			h.refresh.forget(s.ID)
		}
		h.log.Info("signed out", "session", s)
	}
	h.clearSession(c)
	signedOut := page.SignedOutPath
	if h.oidc != nil {
		if end := h.oidc.endSessionURL(); end != "" {
			if u, err := url.Parse(end); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
				q := u.Query()
				q.Set("client_id", h.cfg.OIDC.ClientID)
				q.Set("post_logout_redirect_uri", h.absoluteURL(c, signedOut))
				u.RawQuery = q.Encode()
				return c.Redirect(http.StatusSeeOther, u.String())
			}
		}
	}
	return c.Redirect(http.StatusSeeOther, string(page.ConsoleURL(c.Request().Context(), signedOut)))
}
