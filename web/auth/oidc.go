package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/seal"
)

// OIDC configures sign-in with an OpenID Connect provider.
type OIDC struct {
	IssuerURL    string
	ClientID     string
	ClientSecret string
	// CAFile holds the PEM certificates the provider's TLS is checked
	// against, besides the system's.
	CAFile string
	// Scopes are asked for at login; "openid" is always the first, and
	// "offline_access" is added when the provider lists it (discovery's
	// scopes_supported) unless NoOfflineAccess: providers such as Dex give
	// no refresh token without it.
	Scopes          []string
	NoOfflineAccess bool
	// UsernameClaim and GroupsClaim name the ID token claims the user's
	// name and groups come from (default email and groups).
	UsernameClaim string
	GroupsClaim   string
	// Identity is how the user acts upstream: IdentityPassthrough (their
	// ID token is the bearer token) or IdentityImpersonate (the console's
	// own credentials, impersonating them).
	Identity string
	// Contexts are the contexts whose API servers accept the provider's
	// ID tokens (passthrough): the ID token is sent to these only, and a
	// page of another is refused. Default: the console's current context.
	Contexts []string
	// UsernamePrefix and GroupsPrefix are put before the impersonated user
	// and groups, so they match what the API server derives from a token:
	// "" is DefaultImpersonationPrefix, "-" none (as kube-apiserver's
	// --oidc-username-prefix). Neither may begin with "system:".
	UsernamePrefix string
	GroupsPrefix   string
}

// The ways an OIDC user acts toward the API server.
const (
	IdentityPassthrough = "passthrough"
	IdentityImpersonate = "impersonate"
)

// DefaultImpersonationPrefix is put before impersonated users and groups
// unless configured otherwise: a provider's names never land on names the
// cluster already uses for something else.
const DefaultImpersonationPrefix = "oidc:"

// reservedPrefix begins the names Kubernetes keeps for itself
// (system:masters, system:serviceaccount:…, system:node:…): the console
// never impersonates them on a provider's word.
const reservedPrefix = "system:"

// reservedUser is a provider's user under reservedPrefix.
type reservedUser struct{ name string }

func (e *reservedUser) Error() string {
	return fmt.Sprintf("the sign-in provider names the user %q: names beginning with %q are reserved for Kubernetes' own users, and this console does not act as them", e.name, reservedPrefix)
}

// admit applies, in impersonation mode, what the console lets a provider
// name: a reserved user is refused; reserved groups are dropped (a group
// can only add rights, so the user keeps the others) and logged.
func (h *Handler) admit(t *tokens) error {
	if h.cfg.OIDC.Identity != IdentityImpersonate {
		return nil // the API server judges the token's names itself
	}
	if strings.HasPrefix(t.User, reservedPrefix) {
		return &reservedUser{name: t.User}
	}
	var dropped []string
	t.Groups = slices.DeleteFunc(t.Groups, func(g string) bool {
		if strings.HasPrefix(g, reservedPrefix) {
			dropped = append(dropped, g)
			return true
		}
		return false
	})
	if len(dropped) > 0 {
		h.log.Warn("the provider's reserved system: groups are not impersonated", "user", t.User, "dropped", dropped)
	}
	return nil
}

// loginCookie holds a login in progress: the state, nonce and PKCE
// verifier the callback checks, and where to go afterwards.
const (
	loginCookie = "tabula_login"
	loginMaxAge = 10 * time.Minute
)

type pendingLogin struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Return   string `json:"r"`
	Redirect string `json:"u"`
	Created  int64  `json:"c"`
}

// rejected is a sign-in the console refuses: the status and what to say.
func rejected(code int, msg string) error { return echo.NewHTTPError(code, msg) }

// loginOIDC starts the authorization code flow: PKCE (S256), state and
// nonce, all kept in a short-lived encrypted cookie with the return path.
func (h *Handler) loginOIDC(c echo.Context, ret string) error {
	if _, err := h.oidc.get(c.Request().Context()); err != nil {
		return h.providerDown(err)
	}
	state, err := randomString(32)
	if err != nil {
		return err
	}
	nonce, err := randomString(32)
	if err != nil {
		return err
	}
	pl := pendingLogin{
		State: state, Nonce: nonce, Verifier: oauth2.GenerateVerifier(),
		Return: ret, Redirect: h.absoluteURL(c, "/auth/callback"), Created: h.now().Unix(),
	}
	v, err := h.codec.Seal(loginCookie, pl)
	if err != nil {
		return err
	}
	tls := csrf.IsTLS(c)
	c.SetCookie(newCookie(seal.CookieName(loginCookie, tls), v, tls, int(loginMaxAge/time.Second)))
	u := h.oidc.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(pl.Verifier),
		oauth2.SetAuthURLParam("redirect_uri", pl.Redirect))
	return c.Redirect(http.StatusFound, u)
}

func (h *Handler) providerDown(err error) error {
	h.log.Warn("OIDC provider unavailable", "error", err)
	return rejected(http.StatusBadGateway, "The sign-in provider "+h.cfg.OIDC.IssuerURL+" could not be reached. Try again in a moment; if it persists, tell the console's operator.")
}

// Callback finishes an OIDC login: it checks state against the login
// cookie, exchanges the code with the PKCE verifier, verifies the ID token
// (signature through the provider's keys, issuer, audience, expiry) and its
// nonce, then starts a session and goes on to the return path.
func (h *Handler) Callback(c echo.Context) error {
	if h.cfg.Mode != page.ModeOIDC {
		return echo.ErrNotFound
	}
	tls := csrf.IsTLS(c)
	ck, err := c.Cookie(seal.CookieName(loginCookie, tls))
	// Whatever happens, this login is over.
	c.SetCookie(newCookie(seal.CookieName(loginCookie, tls), "", tls, -1))
	q := c.QueryParams()
	if e := q.Get("error"); e != "" {
		// Anyone can craft this URL: what it says goes to the log, bounded,
		// and never onto the page, which must not speak for the provider.
		h.log.Info("sign-in refused", "reason", "the provider answered with an error",
			"error", logText(e, maxProviderError), "description", logText(q.Get("error_description"), maxProviderError))
		return rejected(http.StatusUnauthorized, "The sign-in provider did not sign you in. Sign in again; if it keeps failing, tell the console's operator (the console's log has the provider's reason).")
	}
	var pl pendingLogin
	if err != nil || h.codec.Open(loginCookie, ck.Value, &pl) != nil || h.now().After(time.Unix(pl.Created, 0).Add(loginMaxAge)) {
		return rejected(http.StatusBadRequest, "This sign-in was not started here, or took longer than 10 minutes, or was started in another browser. Sign in again.")
	}
	if state := q.Get("state"); state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(pl.State)) != 1 {
		return rejected(http.StatusBadRequest, "This sign-in's state does not match the one this browser started (was another sign-in started since, in another tab?). Sign in again.")
	}
	code := q.Get("code")
	if code == "" {
		return rejected(http.StatusBadRequest, "The sign-in provider sent no authorization code.")
	}
	ctx := c.Request().Context()
	if _, err := h.oidc.get(ctx); err != nil {
		return h.providerDown(err)
	}
	tok, err := h.oidc.exchange(ctx, code, oauth2.VerifierOption(pl.Verifier), oauth2.SetAuthURLParam("redirect_uri", pl.Redirect))
	if err != nil {
		return h.exchangeFailed(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return rejected(http.StatusBadGateway, "The sign-in provider returned no ID token. Is \"openid\" among the scopes it allows this client?")
	}
	t, err := h.verify(ctx, raw, tok.AccessToken, nil)
	var nn *notNamed
	switch {
	case errors.As(err, &nn):
		h.log.Info("sign-in refused", "reason", "no user", "error", err)
		return rejected(http.StatusUnauthorized, "The sign-in provider did not name a user this console accepts: "+nn.why+".")
	case err != nil:
		h.log.Info("sign-in refused", "reason", "ID token verification", "error", err)
		return rejected(http.StatusUnauthorized, "The ID token from the sign-in provider did not verify: "+err.Error())
	}
	if subtle.ConstantTimeCompare([]byte(t.nonce), []byte(pl.Nonce)) != 1 {
		h.log.Info("sign-in refused", "reason", "nonce mismatch")
		return rejected(http.StatusUnauthorized, "The ID token was not issued for this sign-in (its nonce does not match). Sign in again.")
	}
	if err := h.admit(&t.tokens); err != nil {
		h.log.Warn("sign-in refused", "reason", "reserved user", "user", t.tokens.User)
		return rejected(http.StatusForbidden, "Sign-in refused: "+err.Error()+".")
	}
	t.tokens.RefreshToken = tok.RefreshToken
	if err := h.startSession(c, sessionFrom(t.tokens)); err != nil {
		return h.sessionFailed(err)
	}
	if t.fromUserinfo && h.cfg.OIDC.Identity == IdentityPassthrough {
		h.log.Info("the user is named by userinfo, not the ID token: the API server, given the ID token, reads its own claims from it",
			"user", t.tokens.User, "claim", h.cfg.OIDC.UsernameClaim)
	}
	if tok.RefreshToken == "" {
		// Said once per session here, rather than by each of its requests
		// once the token gets old.
		h.log.Warn("the provider gave no refresh token: this session ends 30 s before its ID token expires, and the user signs in again (providers such as Dex issue one only for the offline_access scope)",
			"user", t.tokens.User, "tokenExpires", time.Unix(t.tokens.Expiry, 0).UTC())
	}
	return c.Redirect(http.StatusSeeOther, string(page.URLsOf(c.Request().Context()).Console(pl.Return)))
}

func (h *Handler) exchangeFailed(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
		h.log.Info("sign-in refused", "reason", "code exchange", "status", re.Response.StatusCode, "error", re.ErrorCode)
		msg := "The sign-in provider refused the authorization code"
		if re.ErrorCode != "" {
			msg += " (" + re.ErrorCode + ")"
		}
		return rejected(http.StatusUnauthorized, msg+". Sign in again.")
	}
	return h.providerDown(err)
}

func (h *Handler) sessionFailed(err error) error {
	var big *TooLargeError
	if errors.As(err, &big) {
		return echo.NewHTTPError(http.StatusInternalServerError, "You signed in, but "+big.Error()+
			". The ID token probably carries very many groups: ask for fewer (--oidc-scopes) or limit the groups claim at the provider.").SetInternal(err)
	}
	return err
}

// verified is what a verified ID token says.
type verified struct {
	tokens tokens
	nonce  string
	// fromUserinfo says the user's name came from userinfo, not the ID
	// token.
	fromUserinfo bool
}

// notNamed is an ID token that verified but, with userinfo, does not name
// a user the console accepts: why, to show.
type notNamed struct{ why string }

func (e *notNamed) Error() string { return e.why }

// verify checks an ID token (go-oidc: signature with the provider's keys,
// issuer, audience = client ID, expiry) and reads the user from it. A
// provider may leave the username claim out of an ID token it issues
// with an access token (OpenID Connect Core 5.4): userinfo, asked with
// accessToken, then names the user, if it is about the ID token's
// subject. At a refresh, prev is the session: if userinfo cannot be
// reached then, the name it had stands, the subject being the same.
func (h *Handler) verify(ctx context.Context, raw, accessToken string, prev *Session) (verified, error) {
	idt, err := h.oidc.verifier.Verify(h.oidc.ctx(ctx), raw)
	if err != nil {
		return verified{}, err
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return verified{}, err
	}
	v := verified{nonce: idt.Nonce}
	claim := h.cfg.OIDC.UsernameClaim
	if user, _ := claims[claim].(string); user == "" {
		info, err := h.userinfo(ctx, accessToken, idt.Subject)
		switch {
		case err == nil:
			// The claims that name the user are userinfo's, and so are
			// the groups, unless the ID token has them.
			if _, ok := claims[h.cfg.OIDC.GroupsClaim]; ok {
				info[h.cfg.OIDC.GroupsClaim] = claims[h.cfg.OIDC.GroupsClaim]
			}
			claims, v.fromUserinfo = info, true
		case prev != nil && !errors.As(err, new(*notNamed)) && prev.Subject == idt.Subject:
			h.log.Warn("userinfo could not be read at a refresh; the session keeps its user", "session", *prev, "error", err)
			claims = map[string]any{claim: prev.User}
			groups := make([]any, len(prev.Groups))
			for i, g := range prev.Groups {
				groups[i] = g
			}
			claims[h.cfg.OIDC.GroupsClaim] = groups
		default:
			return verified{}, err
		}
	}
	user, _ := claims[claim].(string)
	if user == "" {
		return verified{}, &notNamed{fmt.Sprintf("neither its ID token nor its userinfo has a %q claim to name the user by", claim)}
	}
	if claim == "email" && !emailVerified(claims) {
		return verified{}, &notNamed{"the user's email address is not verified"}
	}
	var groups []string
	switch g := claims[h.cfg.OIDC.GroupsClaim].(type) {
	case string:
		groups = []string{g}
	case []any:
		for _, v := range g {
			if s, ok := v.(string); ok {
				groups = append(groups, s)
			}
		}
	}
	v.tokens = tokens{Token: raw, Expiry: idt.Expiry.Unix(), User: user, Groups: groups, Subject: idt.Subject}
	if !idt.IssuedAt.IsZero() {
		v.tokens.IssuedAt = idt.IssuedAt.Unix()
	} else {
		v.tokens.IssuedAt = h.now().Unix()
	}
	return v, nil
}

// userinfo asks the provider's userinfo endpoint about the holder of
// accessToken, and returns its claims if they are about subject (the ID
// token's): a userinfo answer without sub, or with another, is not.
func (h *Handler) userinfo(ctx context.Context, accessToken, subject string) (map[string]any, error) {
	claim := h.cfg.OIDC.UsernameClaim
	if accessToken == "" {
		return nil, &notNamed{fmt.Sprintf("its ID token has no %q claim to name the user by, and it gave no access token to ask userinfo with", claim)}
	}
	op, err := h.oidc.get(ctx)
	if err != nil {
		return nil, err
	}
	info, err := op.UserInfo(h.oidc.ctx(ctx), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: accessToken, TokenType: "Bearer"}))
	if err != nil {
		// go-oidc's error carries the provider's answer: for the log only.
		h.log.Info("userinfo failed", "error", logText(err.Error(), 300))
		return nil, fmt.Errorf("its ID token has no %q claim to name the user by, and its userinfo could not be read", claim)
	}
	var claims map[string]any
	if err := info.Claims(&claims); err != nil {
		return nil, fmt.Errorf("its userinfo answer is not a JSON object: %w", err)
	}
	if sub, _ := claims["sub"].(string); sub == "" || subtle.ConstantTimeCompare([]byte(sub), []byte(subject)) != 1 {
		return nil, &notNamed{fmt.Sprintf("its ID token has no %q claim to name the user by, and its userinfo answer is not about the ID token's subject (it names another, or none)", claim)}
	}
	return claims, nil
}

// refreshTokens asks the provider for new tokens with the session's
// refresh token, and verifies the new ID token as a login's: it must name
// the same subject. mockoidc's expires_in is in nanoseconds and others
// differ, so the refresh time comes from the ID token's own iat and exp,
// never from the token response.
func (h *Handler) refreshTokens(ctx context.Context, s Session) (tokens, error) {
	if s.RefreshToken == "" {
		// The provider gave none: the token serves until it expires.
		return tokens{}, errNoRefreshToken
	}
	if _, err := h.oidc.get(ctx); err != nil {
		return tokens{}, err
	}
	tok, err := h.oidc.refresh(ctx, s.RefreshToken)
	if err != nil {
		return tokens{}, err
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return tokens{}, &refreshRefused{reason: "the provider's refresh returned no ID token"}
	}
	t, err := h.verify(ctx, raw, tok.AccessToken, &s)
	if err != nil {
		return tokens{}, &refreshRefused{reason: "the refreshed ID token did not verify: " + err.Error()}
	}
	if s.Subject != "" && t.tokens.Subject != s.Subject {
		return tokens{}, &refreshRefused{reason: "the refreshed ID token names another subject"}
	}
	if err := h.admit(&t.tokens); err != nil {
		return tokens{}, &refreshRefused{reason: err.Error()}
	}
	t.tokens.RefreshToken = tok.RefreshToken
	if t.tokens.RefreshToken == "" {
		t.tokens.RefreshToken = s.RefreshToken
	}
	return t.tokens, nil
}

var errNoRefreshToken = errors.New("the provider gave no refresh token")

// refreshRefused is a refresh that must end the session.
type refreshRefused struct{ reason string }

func (e *refreshRefused) Error() string { return e.reason }

// permanent says whether a failed refresh ends the session even while
// its token is still valid: the provider said no, or answered nonsense. A
// provider that could not be reached is asked again by the next request.
func permanent(err error) bool {
	var re *oauth2.RetrieveError
	var rr *refreshRefused
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 || errors.As(err, &rr)
}

func sessionFrom(t tokens) Session {
	return Session{
		User: t.User, Groups: t.Groups, Subject: t.Subject,
		Token: t.Token, RefreshToken: t.RefreshToken, IssuedAt: t.IssuedAt, Expiry: t.Expiry,
	}
}

// emailVerified says whether claims let an email name the user, as
// kube-apiserver's OIDC authenticator decides (k8s.io/apiserver
// plugin/pkg/authenticator/token/oidc, getUsername): without an
// email_verified claim it may; with one, only if it is JSON true. A string
// "true" fails to parse there, and so is refused here too.
func emailVerified(claims map[string]any) bool {
	v, present := claims["email_verified"]
	return !present || v == true
}

// maxProviderError bounds each of a provider's error fields in the log.
const maxProviderError = 200

// logText is s for a log line: printable ASCII only (what RFC 6749 allows
// in error and error_description; anything else becomes '?'), at most max
// bytes.
func logText(s string, max int) string {
	b := make([]byte, 0, min(len(s), max))
	for i := 0; i < len(s); i++ {
		if len(b) == max {
			return string(b) + "…"
		}
		c := s[i]
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}
