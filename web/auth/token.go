package auth

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// maxTokenBytes bounds a pasted token (service account tokens are ~1 KB).
const maxTokenBytes = 16 << 10

// unknownTokenUser names the user of a token a server without
// SelfSubjectReview accepted.
const unknownTokenUser = "token user"

// tokenForm renders token mode's sign-in form.
func (h *Handler) tokenForm(c echo.Context, status int, ret, problem string) error {
	ctx := c.Request().Context()
	p := views.TokenSignInPage{
		Layout: h.env.Layout(ctx, page.URLsOf(ctx), "Sign in"),
		Action: page.URLsOf(c.Request().Context()).Console(page.TokenSignInPath), Return: ret, Error: problem,
	}
	if cur, err := h.env.Clusters.Context(h.env.Clusters.Current()); err == nil {
		p.Context, p.Server = cur.Name, cur.Server
	}
	return h.env.Render(c, status, views.TokenSignIn(p))
}

// Token is POST /auth/token (form field "token"), token mode's sign-in:
// the API server of the current context says whom the token belongs to
// (SelfSubjectReview); a server without that API must at least accept it
// for discovery. The token then lives only in the session cookie.
func (h *Handler) Token(c echo.Context) error {
	if h.cfg.Mode != page.ModeToken {
		return echo.ErrNotFound
	}
	ret := SafeReturn(c.FormValue("return"))
	token := strings.TrimSpace(c.FormValue("token"))
	token = strings.TrimPrefix(token, "Bearer ")
	switch {
	case token == "":
		return h.tokenForm(c, http.StatusBadRequest, ret, "Paste a token first.")
	case len(token) > maxTokenBytes || strings.ContainsAny(token, " \t\r\n"):
		return h.tokenForm(c, http.StatusBadRequest, ret, "That is not a bearer token: it is too long or has spaces in it.")
	}
	client, err := h.env.Clusters.Client(h.env.Clusters.Current(), apiclient.Identity{BearerToken: token})
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	user, err := client.WhoAmI(ctx)
	if code := page.StatusOf(err); err != nil && (code == http.StatusNotFound || code == http.StatusForbidden) {
		// No SelfSubjectReview (before Kubernetes 1.28) or not allowed:
		// a token the server does not accept gets 401 on any request,
		// and a 403 means it was accepted, then denied.
		user = apiclient.UserInfo{Username: unknownTokenUser}
		if err = client.CheckAuthenticated(ctx); page.StatusOf(err) == http.StatusForbidden {
			err = nil
		}
	}
	switch code := page.StatusOf(err); {
	case err == nil:
	case code == http.StatusUnauthorized:
		h.log.Info("sign-in refused", "mode", page.ModeToken, "reason", "the API server rejected the token")
		return h.tokenForm(c, http.StatusUnauthorized, ret, "The API server rejected this token.")
	default:
		p := page.Classify(err)
		return h.tokenForm(c, code, ret, "The token could not be checked: "+p.Title+". "+p.Message)
	}
	s := Session{User: user.Username, Groups: user.Groups, Token: token}
	if err := h.startSession(c, s); err != nil {
		return h.sessionFailed(err)
	}
	return c.Redirect(http.StatusSeeOther, string(page.URLsOf(c.Request().Context()).Console(ret)))
}
