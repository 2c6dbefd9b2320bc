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

// endSessionURL is the provider's RP-initiated logout endpoint, if it has one.
func (p *provider) endSessionURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endSession
}
