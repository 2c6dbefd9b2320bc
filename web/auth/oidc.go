package auth

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/page"
)

// OIDC configures sign-in with an OpenID Connect provider.
type OIDC struct {
	IssuerURL    string
	ClientID     string
	ClientSecret string
	// CAFile holds the PEM certificates the provider's TLS is checked
	// against, besides the system's.
	CAFile string
	// Scopes are asked for at login; "openid" is always the first.
	Scopes []string
	// UsernameClaim and GroupsClaim name the ID token claims the user's
	// name and groups come from (default email and groups).
	UsernameClaim string
	GroupsClaim   string
	// Identity is how the user acts upstream: IdentityPassthrough (their
	// ID token is the bearer token) or IdentityImpersonate (the console's
	// own credentials, impersonating them).
	Identity string
	// UsernamePrefix and GroupsPrefix are put before the impersonated user
	// and groups, so they match what the API server derives from a token.
	UsernamePrefix string
	GroupsPrefix   string
}

// The ways an OIDC user acts toward the API server.
const (
	IdentityPassthrough = "passthrough"
	IdentityImpersonate = "impersonate"
)

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

// provider is the OIDC provider, discovered on first use and kept once
// found: a console may well start before its provider answers.
type provider struct {
	cfg    OIDC
	client *http.Client
	now    func() time.Time

	mu         sync.Mutex
	p          *oidc.Provider
	verifier   *oidc.IDTokenVerifier
	endSession string
	// oauth is kept for the life of the process: it remembers how the
	// provider wants the client secret sent.
	oauth *oauth2.Config
}

func newProvider(cfg OIDC, now func() time.Time) (*provider, error) {
	if cfg.IssuerURL == "" || cfg.ClientID == "" {
		return nil, errors.New("auth: OIDC needs an issuer URL and a client ID")
	}
	u, err := url.Parse(cfg.IssuerURL)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("auth: OIDC issuer URL %q is not an http(s) URL", cfg.IssuerURL)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("auth: reading the OIDC CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("auth: the OIDC CA file %s holds no PEM certificate", cfg.CAFile)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	scopes := []string{oidc.ScopeOpenID}
	for _, s := range cfg.Scopes {
		if s != "" && !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	cfg.Scopes = scopes
	return &provider{cfg: cfg, client: &http.Client{Transport: transport, Timeout: 30 * time.Second}, now: now}, nil
}

// ctx carries the provider's HTTP client to go-oidc and x/oauth2.
func (p *provider) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, p.client)
}

// get discovers the provider, or returns what was discovered.
func (p *provider) get(ctx context.Context) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p != nil {
		return p.p, nil
	}
	op, err := oidc.NewProvider(p.ctx(ctx), p.cfg.IssuerURL)
	if err != nil {
		return nil, &ProviderError{Issuer: p.cfg.IssuerURL, Err: err}
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	_ = op.Claims(&extra) // optional
	p.p, p.endSession = op, extra.EndSession
	// The signing algorithms are those the provider advertises (RS256 if
	// none): never "none", never widened here.
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID, Now: p.now})
	p.oauth = &oauth2.Config{
		ClientID:     p.cfg.ClientID,
		ClientSecret: p.cfg.ClientSecret,
		// AuthStyle unset: x/oauth2 tries HTTP Basic, then the form body,
		// and remembers which worked (mockoidc needs the body).
		Endpoint: op.Endpoint(),
		Scopes:   p.cfg.Scopes,
	}
	return op, nil
}

// ProviderError is a provider that could not be reached or understood.
type ProviderError struct {
	Issuer string
	Err    error
}

func (e *ProviderError) Error() string {
	return fmt.Sprintf("the sign-in provider %s could not be reached: %v", e.Issuer, e.Err)
}

func (e *ProviderError) Unwrap() error { return e.Err }

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
	v, err := h.codec.seal(loginCookie, pl)
	if err != nil {
		return err
	}
	tls := csrf.IsTLS(c)
	c.SetCookie(newCookie(cookieName(loginCookie, tls), v, tls, int(loginMaxAge/time.Second)))
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
	ck, err := c.Cookie(cookieName(loginCookie, tls))
	// Whatever happens, this login is over.
	c.SetCookie(newCookie(cookieName(loginCookie, tls), "", tls, -1))
	q := c.QueryParams()
	if e := q.Get("error"); e != "" {
		msg := "The sign-in provider refused the sign-in (" + e + ")"
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		return rejected(http.StatusUnauthorized, msg+".")
	}
	var pl pendingLogin
	if err != nil || h.codec.open(loginCookie, ck.Value, &pl) != nil || h.now().After(time.Unix(pl.Created, 0).Add(loginMaxAge)) {
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
	tok, err := h.oidc.oauth.Exchange(h.oidc.ctx(ctx), code, oauth2.VerifierOption(pl.Verifier),
		oauth2.SetAuthURLParam("redirect_uri", pl.Redirect))
	if err != nil {
		return h.exchangeFailed(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return rejected(http.StatusBadGateway, "The sign-in provider returned no ID token. Is \"openid\" among the scopes it allows this client?")
	}
	t, err := h.verify(ctx, raw)
	if err != nil {
		h.log.Info("sign-in refused", "reason", "ID token verification", "error", err)
		return rejected(http.StatusUnauthorized, "The ID token from the sign-in provider did not verify: "+err.Error())
	}
	if subtle.ConstantTimeCompare([]byte(t.nonce), []byte(pl.Nonce)) != 1 {
		h.log.Info("sign-in refused", "reason", "nonce mismatch")
		return rejected(http.StatusUnauthorized, "The ID token was not issued for this sign-in (its nonce does not match). Sign in again.")
	}
	t.tokens.RefreshToken = tok.RefreshToken
	if err := h.startSession(c, sessionFrom(t.tokens)); err != nil {
		return h.sessionFailed(err)
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
}

// verify checks an ID token (go-oidc: signature with the provider's keys,
// issuer, audience = client ID, expiry) and reads the user from it.
func (h *Handler) verify(ctx context.Context, raw string) (verified, error) {
	idt, err := h.oidc.verifier.Verify(h.oidc.ctx(ctx), raw)
	if err != nil {
		return verified{}, err
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return verified{}, err
	}
	user, ok := claims[h.cfg.OIDC.UsernameClaim].(string)
	if !ok || user == "" {
		return verified{}, fmt.Errorf("it has no %q claim to name the user by", h.cfg.OIDC.UsernameClaim)
	}
	// As kube-apiserver: an email claim counts only if not marked unverified.
	if h.cfg.OIDC.UsernameClaim == "email" {
		if v, ok := claims["email_verified"].(bool); ok && !v {
			return verified{}, errors.New("its email address is not verified")
		}
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
	t := tokens{Token: raw, Expiry: idt.Expiry.Unix(), User: user, Groups: groups, Subject: idt.Subject}
	if !idt.IssuedAt.IsZero() {
		t.IssuedAt = idt.IssuedAt.Unix()
	} else {
		t.IssuedAt = h.now().Unix()
	}
	return verified{tokens: t, nonce: idt.Nonce}, nil
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
	// An expired token makes the source refresh.
	src := h.oidc.oauth.TokenSource(h.oidc.ctx(ctx), &oauth2.Token{RefreshToken: s.RefreshToken, Expiry: time.Unix(1, 0)})
	tok, err := src.Token()
	if err != nil {
		return tokens{}, err
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return tokens{}, &refreshRefused{reason: "the provider's refresh returned no ID token"}
	}
	t, err := h.verify(ctx, raw)
	if err != nil {
		return tokens{}, &refreshRefused{reason: "the refreshed ID token did not verify: " + err.Error()}
	}
	if s.Subject != "" && t.tokens.Subject != s.Subject {
		return tokens{}, &refreshRefused{reason: "the refreshed ID token names another subject"}
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

// endSessionURL is the provider's RP-initiated logout endpoint, if it has one.
func (p *provider) endSessionURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endSession
}
