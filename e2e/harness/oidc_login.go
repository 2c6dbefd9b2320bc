package harness

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OIDCTokens are a token endpoint's answer.
type OIDCTokens struct {
	IDToken      string
	AccessToken  string
	RefreshToken string
	// Expiry is the ID token's exp. mockoidc's expires_in is in nanoseconds,
	// so it is not used.
	Expiry time.Time
}

// OIDCError is a token endpoint's refusal.
type OIDCError struct {
	Status      int
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *OIDCError) Error() string {
	return fmt.Sprintf("token endpoint: %d %s: %s", e.Status, e.Code, e.Description)
}

// Login signs email in with the authorization code flow, as a client
// without a browser: it queues the user, sends the authorization request
// (PKCE S256, state, nonce; scopes openid email profile groups), takes the
// code from the redirect to a callback that is never contacted, checks state
// and the ID token's nonce, and exchanges the code with the client secret.
//
// The user queue is shared: a browser signing in at the same time may take
// this user.
func (m *MockOIDC) Login(ctx context.Context, email string, groups ...string) (*OIDCTokens, error) {
	m.QueueUser(email, groups...)
	client := m.HTTPClient()
	verifier, state, nonce := randomToken(), randomToken(), randomToken()
	challenge := sha256.Sum256([]byte(verifier))
	const redirectURI = "http://127.0.0.1:1/callback"
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {m.ClientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {"openid email profile groups"},
		"state":                 {state},
		"nonce":                 {nonce},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(challenge[:])},
		"code_challenge_method": {"S256"},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.issuer+"/authorize?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("authorize: %s: %s", resp.Status, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(loc.String(), redirectURI+"?") {
		return nil, fmt.Errorf("authorize redirected to %s, not the callback", loc.Redacted())
	}
	if loc.Query().Get("state") != state {
		return nil, errors.New("authorize: state does not round-trip")
	}
	toks, err := m.token(ctx, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {loc.Query().Get("code")},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
	})
	if err != nil {
		return nil, err
	}
	var claims struct {
		Nonce string `json:"nonce"`
	}
	if err := DecodeJWTClaims(toks.IDToken, &claims); err != nil {
		return nil, err
	}
	if claims.Nonce != nonce {
		return nil, errors.New("ID token nonce does not match the request's")
	}
	return toks, nil
}

// Refresh runs the refresh_token grant. A refusal is an *OIDCError.
func (m *MockOIDC) Refresh(ctx context.Context, refreshToken string) (*OIDCTokens, error) {
	return m.token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}})
}

// token posts form to the token endpoint. mockoidc wants the client
// credentials in the body (client_secret_post); HTTP Basic alone fails.
func (m *MockOIDC) token(ctx context.Context, form url.Values) (*OIDCTokens, error) {
	form.Set("client_id", m.ClientID)
	form.Set("client_secret", m.ClientSecret)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.issuer+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := m.HTTPClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		e := &OIDCError{Status: resp.StatusCode}
		_ = json.Unmarshal(body, e)
		return nil, e
	}
	var tr struct {
		IDToken      string `json:"id_token"`
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, err
	}
	if tr.IDToken == "" {
		return nil, errors.New("token endpoint returned no ID token")
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err := DecodeJWTClaims(tr.IDToken, &claims); err != nil {
		return nil, err
	}
	return &OIDCTokens{IDToken: tr.IDToken, AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken, Expiry: time.Unix(claims.Exp, 0)}, nil
}

// DecodeJWTClaims decodes a JWT's payload into v without verifying it.
func DecodeJWTClaims(token string, v any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("JWT payload: %w", err)
	}
	return json.Unmarshal(payload, v)
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
