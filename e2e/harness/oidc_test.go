package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type idClaims struct {
	Iss           string   `json:"iss"`
	Aud           []string `json:"aud"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
	Groups        []string `json:"groups"`
	Iat           int64    `json:"iat"`
	Nbf           int64    `json:"nbf"`
	Exp           int64    `json:"exp"`
}

func startMock(t *testing.T, opts MockOIDCOptions) *MockOIDC {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	m, err := StartMockOIDC(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Stop() })
	return m
}

func claimsOf(t *testing.T, token string) idClaims {
	t.Helper()
	var c idClaims
	if err := DecodeJWTClaims(token, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func getJSON(t *testing.T, m *MockOIDC, path string, v any) {
	t.Helper()
	u, _ := url.Parse(m.Issuer())
	resp, err := m.HTTPClient().Get(u.Scheme + "://" + u.Host + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestMockOIDCLoginOverTLS(t *testing.T) {
	var seen atomic.Int32
	m := startMock(t, MockOIDCOptions{Middleware: []func(http.Handler) http.Handler{
		func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen.Add(1); next.ServeHTTP(w, r) })
		},
	}})
	if !strings.HasPrefix(m.Issuer(), "https://127.0.0.1:") || !strings.HasSuffix(m.Issuer(), "/oidc") {
		t.Fatalf("issuer %q, want https://127.0.0.1:PORT/oidc", m.Issuer())
	}
	var disc map[string]any
	getJSON(t, m, OIDCDiscoveryPath, &disc)
	if disc["issuer"] != m.Issuer() {
		t.Errorf("discovery issuer %v, want %s", disc["issuer"], m.Issuer())
	}
	if _, ok := disc["end_session_endpoint"]; ok {
		t.Error("end_session_endpoint advertised without EndSession")
	}

	toks, err := m.Login(t.Context(), "alice@example.com", "tabula:viewers")
	if err != nil {
		t.Fatal(err)
	}
	c := claimsOf(t, toks.IDToken)
	if c.Iss != m.Issuer() || len(c.Aud) != 1 || c.Aud[0] != "tabula" || c.Email != "alice@example.com" ||
		!c.EmailVerified || len(c.Groups) != 1 || c.Groups[0] != "tabula:viewers" {
		t.Errorf("ID token claims %+v", c)
	}
	if got := c.Exp - c.Iat; got != 600 {
		t.Errorf("default ID token lifetime %ds, want 600", got)
	}
	if toks.RefreshToken == "" || !toks.Expiry.Equal(time.Unix(c.Exp, 0)) {
		t.Errorf("tokens %+v", toks)
	}
	if m.Requests(OIDCAuthorizePath) != 1 || m.Requests(OIDCTokenPath) != 1 || m.Requests(OIDCDiscoveryPath) != 1 {
		t.Errorf("requests: authorize %d, token %d, discovery %d", m.Requests(OIDCAuthorizePath), m.Requests(OIDCTokenPath), m.Requests(OIDCDiscoveryPath))
	}
	if seen.Load() != 3 {
		t.Errorf("middleware saw %d requests, want 3", seen.Load())
	}
	ca, err := os.ReadFile(m.CAFile())
	if err != nil || !bytes.Contains(ca, []byte("BEGIN CERTIFICATE")) {
		t.Errorf("CA file %s: %v", m.CAFile(), err)
	}
}

func TestMockOIDCRefreshControls(t *testing.T) {
	m := startMock(t, MockOIDCOptions{})
	ctx := t.Context()
	toks, err := m.Login(ctx, "bob@example.com", "tabula:editors")
	if err != nil {
		t.Fatal(err)
	}
	refreshed, err := m.Refresh(ctx, toks.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if c := claimsOf(t, refreshed.IDToken); c.Email != "bob@example.com" || len(c.Groups) != 1 {
		t.Errorf("refreshed claims %+v", c)
	}
	if refreshed.RefreshToken != toks.RefreshToken {
		t.Error("mockoidc keeps the refresh token on refresh; it changed")
	}

	m.FailRefreshes(1)
	_, err = m.Refresh(ctx, toks.RefreshToken)
	var oerr *OIDCError
	if !errors.As(err, &oerr) || oerr.Status != http.StatusBadRequest || oerr.Code != "invalid_grant" {
		t.Fatalf("refresh after FailRefreshes(1): %v, want 400 invalid_grant", err)
	}
	if _, err := m.Refresh(ctx, toks.RefreshToken); err != nil {
		t.Fatalf("the refresh after the failed one: %v", err)
	}
	if got := m.RefreshGrants(); got != 3 {
		t.Errorf("RefreshGrants %d, want 3", got)
	}

	m.SetTokenTTL(30 * time.Second)
	short, err := m.Refresh(ctx, toks.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if c := claimsOf(t, short.IDToken); c.Exp-c.Iat != 30 {
		t.Errorf("lifetime after SetTokenTTL(30s): %ds", c.Exp-c.Iat)
	}

	m.FastForward(time.Hour + time.Minute)
	later, err := m.Refresh(ctx, toks.RefreshToken)
	var expired *OIDCError
	if !errors.As(err, &expired) {
		t.Fatalf("refresh with a refresh token older than its 60 min lifetime: %v, %+v", err, later)
	}
}

func TestMockOIDCFastForwardMovesIssuedTimes(t *testing.T) {
	m := startMock(t, MockOIDCOptions{})
	m.FastForward(5 * time.Minute)
	toks, err := m.Login(t.Context(), "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if c := claimsOf(t, toks.IDToken); c.Nbf < time.Now().Add(4*time.Minute).Unix() {
		t.Errorf("nbf %d is not about 5 min ahead of now", c.Nbf)
	}

	m.SetTokenTTL(time.Minute)
	m.FailRefreshes(3)
	m.QueueUser("bob@example.com", "tabula:editors")
	m.Reset()
	toks, err = m.Login(t.Context(), "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	c := claimsOf(t, toks.IDToken)
	if now := time.Now().Unix(); c.Nbf > now || c.Nbf < now-5 || c.Exp-c.Iat != 600 || c.Email != "alice@example.com" {
		t.Errorf("after Reset: claims %+v at %d", c, now)
	}
	if _, err := m.Refresh(t.Context(), toks.RefreshToken); err != nil {
		t.Errorf("after Reset a refresh failed: %v", err)
	}
}

func TestMockOIDCEndSession(t *testing.T) {
	m := startMock(t, MockOIDCOptions{EndSession: true})
	var disc map[string]any
	getJSON(t, m, OIDCDiscoveryPath, &disc)
	if disc["end_session_endpoint"] != m.Issuer()+"/logout" || disc["token_endpoint"] != m.Issuer()+"/token" {
		t.Fatalf("discovery %v", disc)
	}
	toks, err := m.Login(t.Context(), "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{
		"id_token_hint":            {toks.IDToken},
		"post_logout_redirect_uri": {"http://127.0.0.1:1/auth/signed-out"},
		"state":                    {"s1"},
		"client_id":                {m.ClientID},
	}
	resp, err := m.HTTPClient().Get(m.Issuer() + "/logout?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://127.0.0.1:1/auth/signed-out?state=s1" {
		t.Fatalf("logout: %s, Location %q", resp.Status, resp.Header.Get("Location"))
	}
	got := m.EndSessions()
	if len(got) != 1 || !got[0].IDTokenHint || got[0].State != "s1" || got[0].ClientID != m.ClientID {
		t.Errorf("end sessions %+v", got)
	}

	resp, err = m.HTTPClient().Get(m.Issuer() + "/logout?id_token_hint=forged.not.signed")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("logout without redirect: %s", resp.Status)
	}
	if got := m.EndSessions(); len(got) != 2 || got[1].IDTokenHint {
		t.Errorf("a forged hint was taken as valid: %+v", got)
	}
}

// A restarted mock on the same port and directory has the same issuer and
// CA, so an API server started earlier keeps trusting it.
func TestMockOIDCRestartKeepsIssuerAndCA(t *testing.T) {
	dir := t.TempDir()
	first, err := StartMockOIDC(context.Background(), MockOIDCOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := os.ReadFile(first.CAFile())
	issuer := first.Issuer()
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(issuer)
	port := 0
	for _, ch := range u.Port() {
		port = port*10 + int(ch-'0')
	}
	second := startMock(t, MockOIDCOptions{Dir: dir, Port: port})
	again, _ := os.ReadFile(second.CAFile())
	if second.Issuer() != issuer || !bytes.Equal(ca, again) {
		t.Fatalf("restart changed the issuer (%s, %s) or the CA", issuer, second.Issuer())
	}
	if _, err := second.Login(t.Context(), "alice@example.com"); err != nil {
		t.Fatal(err)
	}
}

// mockoidc's session store is an unlocked map; the harness serialises
// requests, which the race detector checks here.
func TestMockOIDCConcurrentLogins(t *testing.T) {
	m := startMock(t, MockOIDCOptions{})
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			toks, err := m.Login(t.Context(), "alice@example.com", "tabula:viewers")
			if err == nil {
				_, err = m.Refresh(t.Context(), toks.RefreshToken)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := m.RefreshGrants(); got != 20 {
		t.Errorf("RefreshGrants %d, want 20", got)
	}
}
