package auth

import (
	"context"
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
	"golang.org/x/oauth2"
)

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
	// oauth is the client for authorization URLs; token requests go
	// through tokenConfig, by the way the client's credentials are sent.
	oauth *oauth2.Config
	// byStyle are the clients for each way of sending the credentials
	// (oauth2.AuthStyleInHeader, …InParams), and style the one in use.
	byStyle map[oauth2.AuthStyle]*oauth2.Config
	style   oauth2.AuthStyle
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
		EndSession  string   `json:"end_session_endpoint"`
		AuthMethods []string `json:"token_endpoint_auth_methods_supported"`
		Scopes      []string `json:"scopes_supported"`
	}
	_ = op.Claims(&extra) // optional
	p.p, p.endSession = op, extra.EndSession
	// The signing algorithms are those the provider advertises (RS256 if
	// none): never "none", never widened here.
	p.verifier = op.Verifier(&oidc.Config{ClientID: p.cfg.ClientID, Now: p.now})
	scopes := p.cfg.Scopes
	if !p.cfg.NoOfflineAccess && slices.Contains(extra.Scopes, oidc.ScopeOfflineAccess) && !slices.Contains(scopes, oidc.ScopeOfflineAccess) {
		// Without it Dex and zitadel give no refresh token, and the
		// session could last no longer than one ID token.
		scopes = append(slices.Clone(scopes), oidc.ScopeOfflineAccess)
	}
	p.byStyle = map[oauth2.AuthStyle]*oauth2.Config{}
	for _, style := range []oauth2.AuthStyle{oauth2.AuthStyleInHeader, oauth2.AuthStyleInParams} {
		ep := op.Endpoint()
		// Never AuthStyleAutoDetect: left to guess, x/oauth2 sends a
		// request the provider refuses a second time the other way, and a
		// refused refresh grant is not about the credentials.
		ep.AuthStyle = style
		p.byStyle[style] = &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: ep, Scopes: scopes}
	}
	p.style = authStyleFor(extra.AuthMethods, p.cfg.ClientSecret)
	p.oauth = p.byStyle[p.style]
	return op, nil
}

// authStyleFor is how the client's credentials are first sent to a
// provider that advertises methods (token_endpoint_auth_methods_supported):
// HTTP Basic (client_secret_basic) when it lists it or lists nothing, as
// OpenID Connect Discovery makes it the default; the form body
// (client_secret_post) when it lists that and not Basic. A client without
// a secret names itself in the body.
func authStyleFor(methods []string, secret string) oauth2.AuthStyle {
	switch {
	case secret == "":
		return oauth2.AuthStyleInParams
	case len(methods) == 0 || slices.Contains(methods, "client_secret_basic"):
		return oauth2.AuthStyleInHeader
	case slices.Contains(methods, "client_secret_post"):
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// token runs one token request (do, with a client) the way the provider
// takes the client's credentials. If it refuses them as sent (the request,
// not the grant, was refused), the other way is tried once, and kept if
// it works: some providers list a method a given client may not use.
func (p *provider) token(do func(*oauth2.Config) (*oauth2.Token, error)) (*oauth2.Token, error) {
	p.mu.Lock()
	style := p.style
	p.mu.Unlock()
	tok, err := do(p.byStyle[style])
	if err == nil || !clientAuthRefused(err) {
		return tok, err
	}
	other := oauth2.AuthStyleInParams
	if style == oauth2.AuthStyleInParams {
		other = oauth2.AuthStyleInHeader
	}
	tok, err2 := do(p.byStyle[other])
	if err2 != nil {
		return nil, err // the first answer is the one that speaks for the provider's choice
	}
	p.mu.Lock()
	p.style = other
	p.mu.Unlock()
	return tok, nil
}

// clientAuthRefused says whether a token request was refused for how the
// client authenticated (invalid_client, or a malformed request: mockoidc
// says invalid_request to Basic), which leaves the grant unused; a refusal
// of the grant (invalid_grant and the rest) is final.
func clientAuthRefused(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	switch re.ErrorCode {
	case "invalid_client", "invalid_request":
		return true
	case "":
		return re.Response.StatusCode == http.StatusBadRequest || re.Response.StatusCode == http.StatusUnauthorized
	}
	return false
}

// exchange redeems an authorization code.
func (p *provider) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return p.token(func(cfg *oauth2.Config) (*oauth2.Token, error) {
		return cfg.Exchange(p.ctx(ctx), code, opts...)
	})
}

// refresh redeems a refresh token.
func (p *provider) refresh(ctx context.Context, refreshToken string) (*oauth2.Token, error) {
	return p.token(func(cfg *oauth2.Config) (*oauth2.Token, error) {
		// An expired token makes the source refresh.
		return cfg.TokenSource(p.ctx(ctx), &oauth2.Token{RefreshToken: refreshToken, Expiry: time.Unix(1, 0)}).Token()
	})
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

// endSessionURL is the provider's RP-initiated logout endpoint, if it has one.
func (p *provider) endSessionURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endSession
}
