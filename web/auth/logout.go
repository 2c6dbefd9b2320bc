package auth

import (
	"context"
	"net/http"
	"net/url"
	"slices"
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
		until := time.Unix(s.LoginAt, 0).Add(h.cfg.MaxAge)
		h.revoked.add(s.ID, until, h.now())
		if h.shared != nil {
			// Before the answer: once the browser is told it is signed
			// out, every replica's watch is about to say so too. A browser
			// that leaves meanwhile does not undo the logout.
			if err := h.shared.revoke(context.WithoutCancel(c.Request().Context()), s.ID, until); err != nil {
				h.log.Warn("the logout could not be shared with the other replicas: there, copies of this session's cookies open it until it times out", "session", s, "error", err)
			}
		}
		if h.refresh != nil {
			h.refresh.forget(s.ID)
		}
		h.log.Info("signed out", "session", s)
	}
	h.clearSession(c)
	signedOut := page.SignedOutPath
	if h.oidc != nil {
		if end := h.oidc.endSessionURL(); end != "" {
			u, err := url.Parse(end)
			switch {
			case err != nil || u.Scheme != "https" && u.Scheme != "http":
			case !slices.Contains(h.FormActions(), u.Scheme+"://"+u.Host):
				// The pages' CSP (form-action) would stop the browser
				// at this redirect, leaving it on the page it signed
				// out from.
				h.log.Warn("the provider's end_session_endpoint is not on the issuer's origin; signing out of the console only", "endpoint", u.Scheme+"://"+u.Host+u.Path)
			default:
				q := u.Query()
				q.Set("client_id", h.cfg.OIDC.ClientID)
				q.Set("post_logout_redirect_uri", h.absoluteURL(c, signedOut))
				u.RawQuery = q.Encode()
				return c.Redirect(http.StatusSeeOther, u.String())
			}
		}
	}
	return c.Redirect(http.StatusSeeOther, string(page.URLsOf(c.Request().Context()).Console(signedOut)))
}

// FormActions are the origins besides the console's own that a form on its
// pages may lead to, for their Content-Security-Policy (form-action): in
// OIDC mode the issuer's, as the sign-out form's answer redirects there for
// RP-initiated logout, and browsers check form-action on every redirect of
// a form's navigation.
func (h *Handler) FormActions() []string {
	if h.cfg.Mode != page.ModeOIDC {
		return nil
	}
	u, err := url.Parse(h.cfg.OIDC.IssuerURL)
	if err != nil || u.Host == "" {
		return nil
	}
	return []string{u.Scheme + "://" + u.Host}
}
