package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/csrf"
)

// sessionCookie is the base name of the session's cookies.
const sessionCookie = "tabula_session"

// Session is what a signed-in browser carries, sealed in its cookies
// (cookie.go): nothing about a session is kept on the server, so replicas
// sharing the key need no shared store and a restart signs nobody out.
// Times are Unix seconds.
type Session struct {
	// ID is random, new at every login; CSRF tokens and the end of the
	// session's streams are bound to it.
	ID      string   `json:"id"`
	Mode    string   `json:"m"`
	User    string   `json:"u"`
	Groups  []string `json:"g,omitempty"`
	Subject string   `json:"s,omitempty"`
	// Token is the credential: the ID token (oidc) or the pasted bearer
	// token (token mode). RefreshToken, IssuedAt and Expiry are the
	// provider's; a pasted token has none.
	Token        string `json:"t"`
	RefreshToken string `json:"r,omitempty"`
	IssuedAt     int64  `json:"ti,omitempty"`
	Expiry       int64  `json:"te,omitempty"`
	// LoginAt starts the absolute timeout, LastSeen the idle timeout.
	LoginAt  int64 `json:"li"`
	LastSeen int64 `json:"ls"`
}

// String, GoString and LogValue keep the tokens out of anything printed.
func (s Session) String() string {
	return "session(" + s.Mode + ":" + s.User + ")"
}

// GoString is String, for %#v.
func (s Session) GoString() string { return s.String() }

// LogValue names the session in structured logs without its tokens.
func (s Session) LogValue() slog.Value {
	return slog.GroupValue(slog.String("mode", s.Mode), slog.String("user", s.User))
}

// lastSeenEvery is how stale LastSeen may get before a request rewrites
// the cookie: the idle timeout is that much coarse.
const lastSeenEvery = time.Minute

// refreshAt is when the ID token is refreshed: at 80% of its lifetime, as
// OpenShift's console does, so a refresh that fails still leaves time.
func (s *Session) refreshAt() time.Time {
	if s.Expiry == 0 {
		return time.Time{}
	}
	iat := s.IssuedAt
	if iat == 0 || iat > s.Expiry {
		iat = s.LoginAt
	}
	return time.Unix(iat, 0).Add(time.Duration(s.Expiry-iat) * time.Second * 8 / 10)
}

func (s *Session) expiry() time.Time {
	if s.Expiry == 0 {
		return time.Time{}
	}
	return time.Unix(s.Expiry, 0)
}

// ended says why the session is over at now, or "".
func (h *Handler) ended(s *Session, now time.Time) string {
	switch {
	case s.Mode != h.cfg.Mode:
		return "it was made for another sign-in mode"
	case h.revoked.has(s.ID, now):
		return "it was signed out"
	case !now.Before(time.Unix(s.LoginAt, 0).Add(h.cfg.MaxAge)):
		return "it reached its maximum age of " + h.cfg.MaxAge.String()
	case !now.Before(time.Unix(s.LastSeen, 0).Add(h.cfg.IdleTimeout)):
		return "it was idle for " + h.cfg.IdleTimeout.String()
	}
	return ""
}

// streamDeadline is when the session's streams must end: at its timeouts,
// and at the token's refresh point so a stream never outlives the token
// it was opened with (at expiry when a refresh is overdue).
func (h *Handler) streamDeadline(s *Session, now time.Time) time.Time {
	d := time.Unix(s.LoginAt, 0).Add(h.cfg.MaxAge)
	if idle := time.Unix(s.LastSeen, 0).Add(h.cfg.IdleTimeout); idle.Before(d) {
		d = idle
	}
	if s.Expiry != 0 {
		t := s.refreshAt()
		if !t.After(now) {
			t = s.expiry()
		}
		if t.Before(d) {
			d = t
		}
	}
	return d
}

// newSessionID is a fresh random session ID.
func newSessionID() (string, error) {
	return randomString(18)
}

func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// csrfToken is the CSRF token of a session: bound to its ID, so it changes
// at every login and a token from one session is worthless in another.
func (h *Handler) csrfToken(sid string) string {
	m := hmac.New(sha256.New, h.csrfKey)
	m.Write([]byte(sid))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// readSession opens the request's session cookie, or returns false.
func (h *Handler) readSession(c echo.Context) (Session, bool) {
	var s Session
	raw := readChunks(c.Request(), cookieName(sessionCookie, csrf.IsTLS(c)))
	if raw == "" || h.codec.open(sessionCookie, raw, &s) != nil || s.ID == "" {
		return Session{}, false
	}
	return s, true
}

// writeSession seals s into the response's session cookies.
func (h *Handler) writeSession(c echo.Context, s *Session) error {
	v, err := h.codec.seal(sessionCookie, s)
	if err != nil {
		return err
	}
	return writeChunks(c, cookieName(sessionCookie, csrf.IsTLS(c)), v, csrf.IsTLS(c))
}

// clearSession deletes the session cookies the request carries.
func (h *Handler) clearSession(c echo.Context) {
	clearChunks(c, cookieName(sessionCookie, csrf.IsTLS(c)), csrf.IsTLS(c))
}

// startSession makes a new session for a user who just signed in,
// replacing (and ending) any session the browser had.
func (h *Handler) startSession(c echo.Context, s Session) error {
	if old, ok := h.readSession(c); ok {
		h.ends.end(old.ID)
	}
	id, err := newSessionID()
	if err != nil {
		return err
	}
	now := h.now().Unix()
	s.ID, s.Mode, s.LoginAt, s.LastSeen = id, h.cfg.Mode, now, now
	if err := h.writeSession(c, &s); err != nil {
		return err
	}
	h.log.Info("signed in", "session", s)
	return nil
}
