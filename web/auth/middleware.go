package auth

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/page"
)

// sessionCheckPath is the session probe (Handler.Session): unlike the
// other sign-in pages it needs the session, but never redirects.
const sessionCheckPath = "/auth/session"

// expiryMargin is how close to its expiry a token is no longer sent: the
// API server allows no clock skew on exp.
const expiryMargin = 30 * time.Second

// Middleware records who every request acts for (page.SetRequester)
// before any feature runs. In a sign-in mode it opens the session cookie,
// ends a session past its idle or absolute timeout, refreshes an ID token
// at 80% of its lifetime (once per session however many requests ask),
// writes the updated session back, and binds the CSRF token to the
// session. Without a valid session a page GET is sent to sign in, keeping
// its URL, and anything else (a form, a WebSocket, a fetch) gets 401: an
// expired token is never sent upstream. Config.Public paths and the
// sign-in pages need no session.
func (h *Handler) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		mode := h.cfg.Mode
		if mode == page.ModeKubeconfig {
			page.SetRequester(c, page.Requester{Mode: mode})
			return next(c)
		}
		// Nobody yet, until a session says who: pages about a refusal must
		// not look like kubeconfig mode's.
		page.SetRequester(c, page.Requester{Mode: mode})
		path := c.Request().URL.Path
		if h.public(path) {
			return next(c)
		}
		s, ok := h.readSession(c)
		if strings.HasPrefix(path, authPrefix) && path != sessionCheckPath {
			r := page.Requester{Mode: mode}
			if ok {
				// A sign-out is checked against the session it ends,
				// even one that has just expired.
				csrf.Bind(c, h.csrfToken(s.ID))
				if h.ended(&s, h.now()) == "" {
					r.User, r.Groups = s.User, s.Groups
				}
			}
			page.SetRequester(c, r)
			return next(c)
		}
		if !ok {
			h.clearSession(c) // a tampered or foreign one, if any
			return h.signIn(c, "You are not signed in, or your session could not be read.")
		}
		if ok, err := h.keep(c, &s); !ok {
			return err
		}
		ends := h.ends.watch(s.ID, h.streamDeadline(&s, h.now()))
		page.SetRequester(c, h.requester(&s, ends))
		csrf.Bind(c, h.csrfToken(s.ID))
		return next(c)
	}
}

// public says whether path needs no session.
func (h *Handler) public(path string) bool {
	for _, p := range h.cfg.Public {
		if path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// keep brings a session up to date for this request (timeouts, the
// token's refresh, LastSeen; a changed session goes back as a cookie), or
// ends it and answers the request: then ok is false, and the request must
// go no further.
func (h *Handler) keep(c echo.Context, s *Session) (ok bool, err error) {
	now := h.now()
	if why := h.ended(s, now); why != "" {
		h.endSession(c, s, "session ended: "+why)
		return false, h.signIn(c, "Your session ended: "+why+".")
	}
	changed := false
	if s.Expiry != 0 && !now.Before(s.refreshAt()) {
		t, err := h.refresh.tokensFor(c.Request().Context(), *s)
		switch {
		case err == nil:
			s.Token, s.RefreshToken, s.IssuedAt, s.Expiry = t.Token, t.RefreshToken, t.IssuedAt, t.Expiry
			s.User, s.Groups, s.Subject = t.User, t.Groups, t.Subject
			changed = true
		case !permanent(err) && now.Before(s.expiry().Add(-expiryMargin)):
			h.log.Warn("token refresh failed; the current token is used until it expires", "session", *s, "error", logSafe(err))
		default:
			h.endSession(c, s, "token refresh failed: "+logSafe(err))
			return false, h.signIn(c, "Your session ended: its token expired and could not be renewed.")
		}
	}
	// A live stream reconnecting or a page asking after its session is
	// not the user being active.
	req := c.Request()
	active := !streaming.IsUpgrade(req) && req.URL.Path != sessionCheckPath
	if active && now.Sub(time.Unix(s.LastSeen, 0)) >= lastSeenEvery {
		s.LastSeen = now.Unix()
		changed = true
	}
	if changed {
		if err := h.writeSession(c, s); err != nil {
			return false, h.sessionFailed(err)
		}
	}
	return true, nil
}

// endSession ends a session that timed out or lost its token: its cookies
// go and its streams here end.
func (h *Handler) endSession(c echo.Context, s *Session, why string) {
	h.log.Info("session ended", "session", *s, "reason", why)
	h.ends.end(s.ID)
	if h.refresh != nil {
		h.refresh.forget(s.ID)
	}
	h.clearSession(c)
}

// signIn answers a request without a valid session: a page GET goes to
// the sign-in page and comes back to its URL; anything else gets 401.
func (h *Handler) signIn(c echo.Context, msg string) error {
	req := c.Request()
	to := page.URLsOf(req.Context()).SignIn(req.URL.RequestURI())
	// The session probe answers scripts, even those that do not say so.
	if isDocument(req) && req.URL.Path != sessionCheckPath {
		return c.Redirect(http.StatusFound, string(to))
	}
	return &page.SignInRequired{Message: msg, SignIn: to}
}

// isDocument says whether a browser is loading the request as a page.
// Browsers say what a request is for (Sec-Fetch-Dest); a client that does
// not say is taken to be loading a page.
func isDocument(req *http.Request) bool {
	if req.Method != http.MethodGet && req.Method != http.MethodHead || streaming.IsUpgrade(req) {
		return false
	}
	dest := req.Header.Get("Sec-Fetch-Dest")
	return dest == "" || dest == "document"
}

// requester is who a request with session s acts as: the user's own ID or
// pasted token, or in impersonation mode the console's credentials acting
// on the (prefixed) user's behalf.
func (h *Handler) requester(s *Session, ends <-chan struct{}) page.Requester {
	r := page.Requester{Mode: s.Mode, User: s.User, Groups: s.Groups, Ends: ends}
	if s.Mode == page.ModeOIDC && h.cfg.OIDC.Identity == IdentityImpersonate {
		groups := make([]string, len(s.Groups))
		for i, g := range s.Groups {
			groups[i] = h.cfg.OIDC.GroupsPrefix + g
		}
		r.Identity = apiclient.Identity{Impersonate: apiclient.Impersonation{UserName: h.cfg.OIDC.UsernamePrefix + s.User, Groups: groups}}
		return r
	}
	r.Identity = apiclient.Identity{BearerToken: s.Token}
	return r
}

// logSafe describes a refresh error for the log: a provider's error
// response is reduced to its status and error code, as some echo what
// they were sent.
func logSafe(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		s := "the provider refused the refresh"
		if re.Response != nil {
			s += " (" + re.Response.Status
			if re.ErrorCode != "" {
				s += ", " + re.ErrorCode
			}
			s += ")"
		}
		return s
	}
	return err.Error()
}
