package harness

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
)

// Paths the mock OIDC provider serves, for MockOIDC.Requests.
const (
	OIDCDiscoveryPath = mockoidc.DiscoveryEndpoint
	OIDCAuthorizePath = mockoidc.AuthorizationEndpoint
	OIDCTokenPath     = mockoidc.TokenEndpoint
	OIDCUserinfoPath  = mockoidc.UserinfoEndpoint
	OIDCJWKSPath      = mockoidc.JWKSEndpoint
	// OIDCEndSessionPath is not mockoidc's: the harness adds it when
	// MockOIDCOptions.EndSession is set.
	OIDCEndSessionPath = mockoidc.IssuerBase + "/logout"
)

// MockOIDCOptions configure StartMockOIDC.
type MockOIDCOptions struct {
	// Dir receives the CA certificate (oidc-ca.crt) and key. A CA already
	// there is reused, so an API server given --oidc-ca-file keeps trusting a
	// restarted mock.
	Dir string
	// Port on 127.0.0.1; 0 picks a free one. The port is held from the start,
	// so the issuer can be handed to the API server before anything logs in.
	Port int
	// ClientID defaults to "tabula"; the client secret is random.
	ClientID string
	// TokenTTL is the lifetime of ID and access tokens (mockoidc's default:
	// 10 min); RefreshTTL that of refresh tokens (default 60 min).
	TokenTTL, RefreshTTL time.Duration
	// EndSession makes discovery advertise end_session_endpoint
	// (OIDCEndSessionPath), which records the request and redirects to
	// post_logout_redirect_uri, as RP-initiated logout expects.
	EndSession bool
	// Middleware wraps every request, outermost first, before the harness's
	// own accounting.
	Middleware []func(http.Handler) http.Handler
}

// MockOIDC is github.com/oauth2-proxy/mockoidc served over real TLS, with
// the controls the journeys need: queued users, token lifetimes, a clock to
// fast-forward, refresh failures and request counts.
//
// mockoidc keeps its sessions in an unlocked map and reads its settings
// without locks, so every request and every setter runs under mu: requests
// to the mock are serialised.
type MockOIDC struct {
	ClientID     string
	ClientSecret string

	issuer string
	caFile string
	caPEM  []byte
	spki   string
	srv    *http.Server
	served chan struct{}

	mu            sync.Mutex
	mock          *mockoidc.MockOIDC
	initial       struct{ tokenTTL, refreshTTL time.Duration }
	fastForward   time.Duration
	failRefreshes int
	refreshGrants int
	requests      map[string]int
	logouts       []EndSessionRequest
}

// EndSessionRequest is what the RP sent to the end_session_endpoint.
type EndSessionRequest struct {
	// IDTokenHint is whether id_token_hint was a token this mock signed
	// (the token itself is not kept).
	IDTokenHint           bool
	PostLogoutRedirectURI string
	State                 string
	ClientID              string
}

// StartMockOIDC starts the provider and returns once it accepts connections.
func StartMockOIDC(ctx context.Context, opts MockOIDCOptions) (*MockOIDC, error) {
	if opts.Dir == "" {
		return nil, errors.New("MockOIDCOptions.Dir is required")
	}
	if opts.ClientID == "" {
		opts.ClientID = "tabula"
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	ca, caKey, caPEM, err := loadOrCreateCA(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("mock OIDC CA: %w", err)
	}
	leaf, err := serverCert(ca, caKey)
	if err != nil {
		return nil, fmt.Errorf("mock OIDC serving certificate: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("mock OIDC listener: %w", err)
	}

	mock, err := mockoidc.NewServer(nil)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mock.ClientID = opts.ClientID
	if opts.TokenTTL > 0 {
		mock.AccessTTL = opts.TokenTTL
	}
	if opts.RefreshTTL > 0 {
		mock.RefreshTTL = opts.RefreshTTL
	}
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	// mockoidc derives its issuer (https://…) from Start's listener and TLS
	// config and serves its mux there. It is given a listener that never
	// accepts, with the real address, so the harness can put its own handler
	// (locking, counting, end_session) in front of mockoidc's mux on the real
	// listener.
	if err := mock.Start(&idleListener{addr: ln.Addr(), closed: make(chan struct{})}, tlsCfg); err != nil {
		ln.Close()
		return nil, err
	}

	sum := sha256.Sum256(leaf.Leaf.RawSubjectPublicKeyInfo)
	m := &MockOIDC{
		ClientID:     mock.ClientID,
		ClientSecret: mock.ClientSecret,
		issuer:       mock.Issuer(),
		caFile:       filepath.Join(opts.Dir, "oidc-ca.crt"),
		caPEM:        caPEM,
		spki:         base64.StdEncoding.EncodeToString(sum[:]),
		served:       make(chan struct{}),
		mock:         mock,
		requests:     map[string]int{},
	}
	m.initial.tokenTTL, m.initial.refreshTTL = mock.AccessTTL, mock.RefreshTTL
	var handler http.Handler = m.handler(mock.Server.Handler, opts.EndSession)
	for i := len(opts.Middleware) - 1; i >= 0; i-- {
		handler = opts.Middleware[i](handler)
	}
	m.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(m.served)
		_ = m.srv.Serve(tls.NewListener(ln, tlsCfg))
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = m.Stop()
		case <-m.served:
		}
	}()
	return m, nil
}

// Issuer is https://127.0.0.1:PORT/oidc, without a trailing slash: the
// API server and the console must be given exactly this.
func (m *MockOIDC) Issuer() string { return m.issuer }

// CAFile is the PEM file of the CA that signed the serving certificate.
func (m *MockOIDC) CAFile() string { return m.caFile }

// SPKIHash is the base64 SHA-256 of the serving certificate's public key,
// for Chromium's --ignore-certificate-errors-spki-list.
func (m *MockOIDC) SPKIHash() string { return m.spki }

// HTTPClient returns a new client that trusts the mock's CA and does not
// follow redirects.
func (m *MockOIDC) HTTPClient() *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(m.caPEM)
	return &http.Client{
		Timeout:       30 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// QueueUser makes email (with the given groups, email verified) the identity
// of the next authorization request. Each authorization takes one queued
// user, first in first out; with none queued mockoidc signs in its default
// jane.doe@example.com (groups engineering, design).
func (m *MockOIDC) QueueUser(email string, groups ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mock.QueueUser(&mockoidc.MockUser{
		Subject:           email,
		Email:             email,
		EmailVerified:     true,
		PreferredUsername: email,
		Groups:            append([]string(nil), groups...),
	})
}

// FastForward moves the mock's clock, and only its clock, forward: tokens
// it issues afterwards carry iat/nbf/exp in the future, and refresh tokens
// it issued earlier expire sooner by its reckoning.
func (m *MockOIDC) FastForward(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fastForward += d
	m.mock.FastForward(d)
}

// Reset undoes the controls: the clock, the token lifetimes, pending
// refresh failures and queued users are back to how the mock started.
// Journeys that use a control on the shared mock reset it in t.Cleanup;
// counters and recorded end-session requests are kept.
func (m *MockOIDC) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mock.FastForward(-m.fastForward)
	m.fastForward = 0
	m.mock.AccessTTL, m.mock.RefreshTTL = m.initial.tokenTTL, m.initial.refreshTTL
	m.failRefreshes = 0
	m.mock.UserQueue.Lock()
	m.mock.UserQueue.Queue = nil
	m.mock.UserQueue.Unlock()
}

// SetTokenTTL sets the lifetime of ID and access tokens issued from now on.
func (m *MockOIDC) SetTokenTTL(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mock.AccessTTL = d
}

// SetRefreshTTL sets the lifetime of refresh tokens issued from now on.
func (m *MockOIDC) SetRefreshTTL(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mock.RefreshTTL = d
}

// FailRefreshes makes the next n refresh_token grants fail with 400
// invalid_grant, as a provider does for a revoked refresh token.
func (m *MockOIDC) FailRefreshes(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failRefreshes = n
}

// RefreshGrants counts refresh_token grants received, failed ones included.
func (m *MockOIDC) RefreshGrants() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refreshGrants
}

// Requests counts requests to one path (OIDCTokenPath, …), any outcome.
func (m *MockOIDC) Requests(path string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[path]
}

// EndSessions returns the end_session_endpoint requests so far.
func (m *MockOIDC) EndSessions() []EndSessionRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]EndSessionRequest(nil), m.logouts...)
}

// Stop closes the listener and waits for the server to finish.
func (m *MockOIDC) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := m.srv.Shutdown(ctx)
	<-m.served
	// Ends mockoidc's own Serve on the idle listener.
	if e := m.mock.Shutdown(); err == nil {
		err = e
	}
	return err
}

// handler serialises requests into mockoidc and does the harness's
// accounting: request counts, refresh grants (and refusals), and the
// end_session_endpoint.
func (m *MockOIDC) handler(mock http.Handler, endSession bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.requests[r.URL.Path]++
		switch {
		case r.URL.Path == OIDCTokenPath:
			// ParseForm here leaves r.PostForm set, which mockoidc's own
			// ParseForm then keeps.
			if err := r.ParseForm(); err == nil && r.PostForm.Get("grant_type") == "refresh_token" {
				m.refreshGrants++
				if m.failRefreshes > 0 {
					m.failRefreshes--
					writeOAuthError(w, http.StatusBadRequest, "invalid_grant", "refresh refused by the test harness")
					return
				}
			}
		case r.URL.Path == OIDCDiscoveryPath && endSession:
			rec := httptest.NewRecorder()
			mock.ServeHTTP(rec, r)
			var doc map[string]any
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &doc) != nil {
				http.Error(w, "mock discovery failed", http.StatusInternalServerError)
				return
			}
			doc["end_session_endpoint"] = m.issuer + "/logout"
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
			return
		case r.URL.Path == OIDCEndSessionPath && endSession:
			m.endSession(w, r)
			return
		}
		mock.ServeHTTP(w, r)
	})
}

// endSession implements OpenID Connect RP-Initiated Logout 1.0 as far as a
// test needs: mockoidc keeps no login state, so there is nothing to end.
func (m *MockOIDC) endSession(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	req := EndSessionRequest{
		PostLogoutRedirectURI: r.Form.Get("post_logout_redirect_uri"),
		State:                 r.Form.Get("state"),
		ClientID:              r.Form.Get("client_id"),
	}
	if hint := r.Form.Get("id_token_hint"); hint != "" {
		// An expired hint is still a valid hint: only the signature counts.
		_, err := jwt.Parse(hint, func(*jwt.Token) (any, error) { return m.mock.Keypair.PublicKey, nil },
			jwt.WithValidMethods([]string{"RS256"}), jwt.WithoutClaimsValidation())
		req.IDTokenHint = err == nil
	}
	m.logouts = append(m.logouts, req)
	if req.PostLogoutRedirectURI == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Signed out</title><p>Signed out of the mock provider.</p>")
		return
	}
	target, err := url.Parse(req.PostLogoutRedirectURI)
	if err != nil || !target.IsAbs() {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "post_logout_redirect_uri must be an absolute URL")
		return
	}
	if req.State != "" {
		q := target.Query()
		q.Set("state", req.State)
		target.RawQuery = q.Encode()
	}
	http.Redirect(w, r, target.String(), http.StatusFound)
}

func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

// idleListener never accepts; Close (from mockoidc's Shutdown) ends Accept.
type idleListener struct {
	addr   net.Addr
	closed chan struct{}
	once   sync.Once
}

func (l *idleListener) Accept() (net.Conn, error) {
	<-l.closed
	return nil, net.ErrClosed
}

func (l *idleListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *idleListener) Addr() net.Addr { return l.addr }

// loadOrCreateCA returns the CA in dir, creating it on first use.
func loadOrCreateCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, []byte, error) {
	certPath, keyPath := filepath.Join(dir, "oidc-ca.crt"), filepath.Join(dir, "oidc-ca.key")
	certPEM, errC := os.ReadFile(certPath)
	keyPEM, errK := os.ReadFile(keyPath)
	if errC == nil && errK == nil {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", certPath, err)
		}
		key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
		if !ok {
			return nil, nil, nil, fmt.Errorf("%s: not an ECDSA key", keyPath)
		}
		return pair.Leaf, key, certPEM, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "tabula e2e mock OIDC CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, nil, nil, err
	}
	if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
		return nil, nil, nil, err
	}
	return cert, key, certPEM, nil
}

// serverCert issues a certificate for 127.0.0.1 and localhost.
func serverCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

// Trust is what StartDevCluster needs so kube-apiserver accepts this mock's
// ID tokens.
func (m *MockOIDC) Trust() *OIDCTrust {
	return &OIDCTrust{IssuerURL: m.issuer, CAFile: m.caFile, ClientID: m.ClientID}
}
