// Package auth is sign-in and sessions: who each request acts for.
//
// In kubeconfig mode every visitor acts with the kubeconfig context's own
// credentials. In oidc mode users sign in with an OpenID Connect provider
// (authorization code flow with PKCE, state and nonce) and act upstream
// with their ID token or through impersonation; in token mode they paste
// a bearer token. Either way the session lives only in encrypted cookies
// (cookie.go, session.go), is checked by Middleware on every request, and
// ends every stream opened with it when it ends or its token is replaced.
//
// One file per action: oidc.go (login and callback), token.go, logout.go,
// refresh.go, ratelimit.go, middleware.go; cookie.go and session.go are the
// session's format, ends.go the end of its streams, provider.go the OIDC
// provider as discovered and its token endpoint, replicas.go what replicas
// share (logouts, refreshes) through a Secret.
package auth

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/seal"
)

// Config is how sign-in works.
type Config struct {
	// Mode is page.ModeKubeconfig (the default), page.ModeOIDC or page.ModeToken.
	Mode string
	OIDC OIDC
	// Keys are the session keys, each at least seal.MinKeyBytes: the first
	// seals cookies, every one opens them, so a key can be rotated in.
	// Without one a sign-in mode makes a random key, which a restart
	// loses and other replicas do not share.
	Keys [][]byte
	// IdleTimeout and MaxAge end a session that was not used for that
	// long, or that began that long ago (defaults 1 h and 12 h).
	IdleTimeout time.Duration
	MaxAge      time.Duration
	// ExternalURL is the console's URL as browsers reach it; the OIDC
	// redirect and post-logout URLs are built on it. Empty: each request's
	// own scheme and host.
	ExternalURL string
	// TrustedProxies are the proxies (an Ingress controller, a load
	// balancer) whose forwarding header names the client, for the sign-in
	// rate limit: of a request from one of them, the client is the
	// right-most address of ProxyHeader that is not a trusted proxy. Any
	// other peer is the client, whatever it sends.
	TrustedProxies []netip.Prefix
	// ProxyHeader is the header the trusted proxies forward the client's
	// address in: "X-Forwarded-For" (the default) or "Forwarded" (RFC
	// 7239). Only that one is read: a proxy passes the other on as the
	// client wrote it.
	ProxyHeader string
	// StateNamespace and StateSecret name the Secret the console's
	// replicas share what sessions cannot carry in their cookies through:
	// logouts, and refreshes in flight or done (replicas.go). The console
	// reads, writes (at a resourceVersion) and watches it with its own
	// credentials in the current context; it must exist. Without a
	// namespace each replica keeps that state to itself.
	StateNamespace string
	StateSecret    string
	// Public are the paths any request may reach without a session:
	// exactly, or every path below one that ends in "/". /auth/ always is.
	Public []string
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Defaults of Config.
const (
	DefaultIdleTimeout = time.Hour
	DefaultMaxAge      = 12 * time.Hour
)

// authPrefix is where the sign-in pages live.
const authPrefix = "/auth/"

// Handler serves the sign-in pages and checks every request's session.
type Handler struct {
	env     *page.Env
	log     *slog.Logger
	cfg     Config
	now     func() time.Time
	codec   *seal.Codec
	csrfKey []byte
	oidc    *provider
	refresh *refresher
	ends    *sessionEnds
	revoked *revokedSessions
	// shared is the state the replicas share (replicas.go); nil without.
	shared *shared
	limit  *limiter
	// clientAddr is where a sign-in attempt comes from, for limit.
	clientAddr clientAddress
}

// New builds the sign-in handler for cfg.
func New(env *page.Env, cfg Config) (*Handler, error) {
	if cfg.Mode == "" {
		cfg.Mode = page.ModeKubeconfig
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.ExternalURL = strings.TrimSuffix(cfg.ExternalURL, "/")
	h := &Handler{env: env, log: env.Log, cfg: cfg, now: cfg.Now}
	h.ends = newSessionEnds(h.now)
	h.revoked = newRevokedSessions()
	h.limit = newLimiter(h.now)
	var err error
	if h.clientAddr, err = newClientAddress(cfg.TrustedProxies, cfg.ProxyHeader); err != nil {
		return nil, err
	}
	switch cfg.Mode {
	case page.ModeKubeconfig:
		return h, nil
	case page.ModeOIDC:
		if cfg.OIDC.UsernameClaim == "" {
			h.cfg.OIDC.UsernameClaim = "email"
		}
		if cfg.OIDC.GroupsClaim == "" {
			h.cfg.OIDC.GroupsClaim = "groups"
		}
		switch cfg.OIDC.Identity {
		case "":
			h.cfg.OIDC.Identity = IdentityPassthrough
		case IdentityPassthrough, IdentityImpersonate:
		default:
			return nil, fmt.Errorf("auth: OIDC identity %q: want %s or %s", cfg.OIDC.Identity, IdentityPassthrough, IdentityImpersonate)
		}
		if h.cfg.OIDC.Identity == IdentityImpersonate {
			for _, prefix := range []*string{&h.cfg.OIDC.UsernamePrefix, &h.cfg.OIDC.GroupsPrefix} {
				switch *prefix {
				case "":
					*prefix = DefaultImpersonationPrefix
				case "-":
					*prefix = ""
				}
				if strings.HasPrefix(*prefix, reservedPrefix) {
					return nil, fmt.Errorf("auth: impersonation prefix %q: names beginning with %q are Kubernetes' own", *prefix, reservedPrefix)
				}
			}
		}
		if h.cfg.OIDC.Identity == IdentityPassthrough {
			if len(h.cfg.OIDC.Contexts) == 0 {
				h.cfg.OIDC.Contexts = []string{env.Clusters.Current()}
			}
			for _, name := range h.cfg.OIDC.Contexts {
				if _, err := env.Clusters.Context(name); err != nil {
					return nil, fmt.Errorf("auth: OIDC context %q, named to trust the provider: %w", name, err)
				}
			}
		}
		p, err := newProvider(h.cfg.OIDC, h.now)
		if err != nil {
			return nil, err
		}
		h.oidc = p
		h.refresh = newRefresher(h.refreshTokens, h.now, h.cfg.MaxAge)
	case page.ModeToken:
	default:
		return nil, fmt.Errorf("auth: unknown sign-in mode %q: want %s, %s or %s", cfg.Mode, page.ModeKubeconfig, page.ModeOIDC, page.ModeToken)
	}
	keys := cfg.Keys
	c, err := seal.New(keys)
	if err != nil {
		return nil, err
	}
	h.codec = c
	if h.csrfKey, err = hkdf.Key(sha256.New, keys[0], nil, "tabula csrf v1", 32); err != nil {
		return nil, err
	}
	if cfg.StateNamespace != "" {
		name := cfg.StateSecret
		if name == "" {
			name = DefaultStateSecret
		}
		store := secretStore{clusters: env.Clusters, namespace: cfg.StateNamespace, name: name}
		if h.shared, err = newShared(store, c, h.log, h.now); err != nil {
			return nil, err
		}
		h.shared.revoked = func(keys map[string]bool) {
			h.ends.endWhere(func(sid string) bool { return keys[sessionKey(sid)] })
		}
		if h.refresh != nil {
			h.refresh.shared = h.shared
		}
	}
	return h, nil
}

// DefaultStateSecret names the Secret replicas share session state
// through, when Config.StateSecret does not.
const DefaultStateSecret = "tabula-session-state"

// Mode is the sign-in mode.
func (h *Handler) Mode() string { return h.cfg.Mode }

// Discover reaches the OIDC provider now, so a misconfiguration shows at
// start-up; a provider that is down is tried again at the first sign-in.
func (h *Handler) Discover(ctx context.Context) error {
	if h.oidc == nil {
		return nil
	}
	_, err := h.oidc.get(ctx)
	return err
}

// Login is GET /auth/login?return=…: in oidc mode a redirect to the
// provider, in token mode the paste-a-token form.
func (h *Handler) Login(c echo.Context) error {
	ret := SafeReturn(c.QueryParam("return"))
	switch h.cfg.Mode {
	case page.ModeOIDC:
		return h.loginOIDC(c, ret)
	case page.ModeToken:
		return h.tokenForm(c, http.StatusOK, ret, "")
	}
	return c.Redirect(http.StatusFound, string(page.URLsOf(c.Request().Context()).Console(ret)))
}

// SignedOut is GET /auth/signed-out, where a sign-out ends.
func (h *Handler) SignedOut(c echo.Context) error {
	ctx := c.Request().Context()
	return h.env.Render(c, http.StatusOK, views.SignedOut(views.SignedOutPage{
		Layout: h.env.Layout(ctx, page.URLsOf(ctx), "Signed out"),
		SignIn: page.URLsOf(ctx).SignIn(""),
	}))
}

// Session is GET /auth/session: 204 while the browser's session holds, 401
// once it does not. Live pages ask it after a stream was refused, to tell
// a session that ended from a network that failed.
func (h *Handler) Session(c echo.Context) error {
	if h.cfg.Mode == page.ModeKubeconfig || page.RequesterOf(c).User != "" {
		return c.NoContent(http.StatusNoContent)
	}
	return c.NoContent(http.StatusUnauthorized)
}

// absoluteURL is the console path on the console's URL as the browser
// reaches it, under the base path.
func (h *Handler) absoluteURL(c echo.Context, path string) string {
	path = string(page.URLsOf(c.Request().Context()).Console(path))
	if h.cfg.ExternalURL != "" {
		return h.cfg.ExternalURL + path
	}
	return c.Scheme() + "://" + c.Request().Host + path
}

// SafeReturn is where a sign-in may go on to: a path of this console
// ("/…"), never another site. Anything else, "//host", "/\host", a scheme,
// a control character (browsers drop tabs and newlines, so "/\t/host" is
// "//host"), or the same percent-encoded, becomes "/".
func SafeReturn(s string) string {
	if len(s) > 2048 || !localPath(s) || strings.ContainsRune(s, '\\') {
		return "/"
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	// No handler should ever unescape a path into a redirect, but a path
	// that would lead to another site once unescaped has no business here.
	if p, err := url.PathUnescape(u.EscapedPath()); err != nil || !localPath(p) {
		return "/"
	}
	return s
}

// localPath says whether s starts as an absolute path on this origin does,
// as a browser resolves it, and holds no control character.
func localPath(s string) bool {
	if s == "" || s[0] != '/' || len(s) > 1 && (s[1] == '/' || s[1] == '\\') {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// SyncSessions keeps this replica's view of the shared session state
// (Config.StateNamespace) up to date until ctx ends; without one it
// returns at once.
func (h *Handler) SyncSessions(ctx context.Context) {
	if h.shared != nil {
		h.shared.run(ctx)
	}
}
