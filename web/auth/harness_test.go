package auth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/oauth2-proxy/mockoidc"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/auth"
)

// testKeys are the session keys of every test console.
var testKeys = [][]byte{bytes.Repeat([]byte("k"), 32)}

// clock is the console's clock: real time moved on by what a test skips.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// idp is mockoidc served over TLS (its RunTLS does not: NOTES §3), with
// hooks to watch and doctor what it answers.
type idp struct {
	m      *mockoidc.MockOIDC
	caFile string
	cert   *x509.Certificate

	mu sync.Mutex
	// grants counts token requests by grant_type.
	grants map[string]int
	// issued is every token the provider handed out.
	issued []string
	// endSession, when set, is advertised as end_session_endpoint.
	endSession string
	// rewrite, when set, replaces the ID token of token responses.
	rewrite func(idToken string) string
	// refuse answers token requests with this status and OAuth error.
	refuseStatus int
	// authMethods, when set, replaces the token_endpoint_auth_methods_supported
	// of discovery (mockoidc lists client_secret_basic and _post).
	authMethods []string
	// noBasic refuses client authentication by HTTP Basic (invalid_client),
	// as a provider does for a client registered for client_secret_post;
	// otherwise Basic credentials are accepted, as discovery says.
	noBasic bool
	// styles is how each token request authenticated: "basic" or "post".
	styles []string
	// offlineAccess makes the provider Dex-like: discovery lists the
	// offline_access scope, and only a login that asked for it gets a
	// refresh token. Otherwise every login gets one, as from mockoidc.
	offlineAccess bool
	// offline are the codes of logins that asked for offline_access.
	offline map[string]bool
	// scopes are the scopes each authorization request asked for.
	scopes [][]string
	// userinfoSub is the sub of userinfo answers: "" none, as mockoidc
	// (NOTES §3); "token" the access token's subject, as a provider that
	// follows the spec; anything else, itself.
	userinfoSub string
	// userinfoCalls counts userinfo requests.
	userinfoCalls int
	// rotate makes refresh tokens single-use, as zitadel, Dex and other
	// certified providers do: each token response carries a new one, and
	// a refresh token used before is refused (invalid_grant).
	rotate bool
	// rotated maps the refresh tokens handed out to mockoidc's own, which
	// it keeps the same; used marks those redeemed.
	rotated, used map[string]bool
	real          map[string]string
	// refreshed counts the refresh grants that succeeded.
	refreshed int
}

func newIDP(t *testing.T) *idp {
	t.Helper()
	p := &idp{grants: map[string]int{}, offline: map[string]bool{}, used: map[string]bool{}, real: map[string]string{}}
	certPEM, keyPEM, cert := selfSigned(t)
	p.cert = cert
	p.caFile = filepath.Join(t.TempDir(), "idp-ca.pem")
	if err := os.WriteFile(p.caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddMiddleware(p.middleware); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if err := m.Start(tls.NewListener(ln, cfg), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	p.m = m
	return p
}

// selfSigned is a CA certificate for 127.0.0.1 and its key, PEM encoded.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mockoidc test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), cert
}

func (p *idp) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case mockoidc.UserinfoEndpoint:
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var info map[string]any
			p.mu.Lock()
			p.userinfoCalls++
			sub := p.userinfoSub
			p.mu.Unlock()
			if rec.Code == http.StatusOK && sub != "" && json.Unmarshal(rec.Body.Bytes(), &info) == nil {
				if sub == "token" {
					parts := strings.Split(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), ".")
					var claims struct {
						Sub string `json:"sub"`
					}
					if len(parts) == 3 {
						payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
						_ = json.Unmarshal(payload, &claims)
					}
					sub = claims.Sub
				}
				info["sub"] = sub
				out, _ := json.Marshal(info)
				rec.Body = bytes.NewBuffer(out)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		case mockoidc.AuthorizationEndpoint:
			// mockoidc refuses scopes it does not know: offline_access is
			// taken out, and remembered with the code it answers.
			q := r.URL.Query()
			scopes := strings.Fields(q.Get("scope"))
			asked := slices.Contains(scopes, "offline_access")
			q.Set("scope", strings.Join(slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == "offline_access" }), " "))
			r.URL.RawQuery = q.Encode()
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			p.mu.Lock()
			p.scopes = append(p.scopes, scopes)
			if loc, err := url.Parse(rec.Header().Get("Location")); err == nil && asked {
				p.offline[loc.Query().Get("code")] = true
			}
			p.mu.Unlock()
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		case mockoidc.TokenEndpoint:
			body, _ := io.ReadAll(r.Body)
			form, _ := url.ParseQuery(string(body))
			// mockoidc reads the client's credentials from the form only:
			// Basic ones (RFC 6749 2.3.1: form-encoded, then base64) are
			// moved there, as a provider that accepts both would read them.
			style := "post"
			if id, secret, ok := r.BasicAuth(); ok {
				style = "basic"
				id, _ = url.QueryUnescape(id)
				secret, _ = url.QueryUnescape(secret)
				form.Set("client_id", id)
				form.Set("client_secret", secret)
				r.Header.Del("Authorization")
				body = []byte(form.Encode())
				r.ContentLength = int64(len(body))
			}
			p.mu.Lock()
			if p.rotate && form.Get("grant_type") == "refresh_token" {
				handed := form.Get("refresh_token")
				real, known := p.real[handed]
				if !known || p.used[handed] {
					p.grants["refresh_token"]++
					p.mu.Unlock()
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"refresh token already used"}`)
					return
				}
				p.used[handed] = true
				form.Set("refresh_token", real)
				body = []byte(form.Encode())
				r.ContentLength = int64(len(body))
			}
			p.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.mu.Lock()
			p.grants[form.Get("grant_type")]++
			p.styles = append(p.styles, style)
			refuse, noBasic := p.refuseStatus, p.noBasic
			p.mu.Unlock()
			if style == "basic" && noBasic {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":"invalid_client","error_description":"client_secret_basic is not this client's method"}`)
				return
			}
			if refuse != 0 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(refuse)
				_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"refused by the test"}`)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			out := rec.Body.Bytes()
			if rec.Code == http.StatusOK {
				var tr map[string]any
				if json.Unmarshal(out, &tr) == nil {
					p.mu.Lock()
					for _, k := range []string{"access_token", "id_token", "refresh_token"} {
						if s, _ := tr[k].(string); s != "" {
							p.issued = append(p.issued, s)
						}
					}
					if p.offlineAccess && form.Get("grant_type") == "authorization_code" && !p.offline[form.Get("code")] {
						delete(tr, "refresh_token")
					}
					if form.Get("grant_type") == "refresh_token" {
						p.refreshed++
					}
					if rt, _ := tr["refresh_token"].(string); p.rotate {
						if rt == "" {
							rt = form.Get("refresh_token") // mockoidc sends none back on a refresh
						}
						handed := fmt.Sprintf("rotated-%d", len(p.real)+1)
						p.real[handed] = rt
						tr["refresh_token"] = handed
					}
					if id, _ := tr["id_token"].(string); id != "" && p.rewrite != nil {
						tr["id_token"] = p.rewrite(id)
						if tr["id_token"] == "" {
							delete(tr, "id_token")
						}
					}
					p.mu.Unlock()
					out, _ = json.Marshal(tr)
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(out)
		case mockoidc.DiscoveryEndpoint:
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var doc map[string]any
			_ = json.Unmarshal(rec.Body.Bytes(), &doc)
			p.mu.Lock()
			if p.endSession != "" {
				doc["end_session_endpoint"] = p.endSession
			}
			if p.authMethods != nil {
				doc["token_endpoint_auth_methods_supported"] = p.authMethods
			}
			if p.offlineAccess {
				doc["scopes_supported"] = append(slices.Clone(mockoidc.ScopesSupported), "offline_access")
			}
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (p *idp) grantCount(grant string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.grants[grant]
}

// refreshes are the refresh grants the provider saw, and those it granted.
func (p *idp) refreshes() (seen, granted int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.grants["refresh_token"], p.refreshed
}

// askedScopes are the scopes of each authorization request so far.
func (p *idp) askedScopes() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.scopes)
}

// authStyles is how each token request so far authenticated.
func (p *idp) authStyles() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.styles)
}

func (p *idp) tokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.issued...)
}

func (p *idp) set(f func(p *idp)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

// users of the tests, as the contract names them.
var (
	alice = &mockoidc.MockUser{Subject: "u-alice", Email: "alice@example.com", EmailVerified: true, PreferredUsername: "alice", Groups: []string{"tabula:viewers"}}
	bob   = &mockoidc.MockUser{Subject: "u-bob", Email: "bob@example.com", EmailVerified: true, PreferredUsername: "bob", Groups: []string{"tabula:editors"}}
)

// options of a test console.
type options struct {
	mode     string // "" is oidc
	tls      bool
	identity string
	idle     time.Duration
	maxAge   time.Duration
	// consoleToken is the kubeconfig's own token, which the fake then
	// demands (impersonation); "" lets any token through.
	consoleToken string
	// basePath serves the console under a prefix (--base-path).
	basePath string
	// keys are the session keys (default testKeys).
	keys [][]byte
	// trustedProxies and proxyHeader are Config.TrustedProxies (CIDRs) and
	// Config.ProxyHeader.
	trustedProxies []string
	proxyHeader    string
	// shared makes the console share its session state through a Secret
	// of the fake API server (Config.StateNamespace and StateSecret), as
	// replicas in a cluster do; the first console of a fake creates it.
	shared bool
	// sharedMissing configures shared state whose Secret does not exist.
	sharedMissing bool
	// contexts are the kubeconfig's contexts, all of the same API server
	// (default just "dev"); the first is the current one.
	contexts []string
	// oidcContexts is OIDC.Contexts.
	oidcContexts []string
	// noOfflineAccess never asks for offline_access.
	noOfflineAccess bool
	// usernamePrefix and groupsPrefix are the impersonation prefixes
	// ("": the default).
	usernamePrefix, groupsPrefix string
	// peer, when set, makes this console another replica of peer: the same
	// API server, provider and clock (and the same keys unless set).
	peer *console
}

// console is Tabula over the apitest fake, signing in with idp.
type console struct {
	t     *testing.T
	srv   *httptest.Server
	web   *web.Server
	fake  *apitest.Server
	idp   *idp
	clock *clock
	logs  *syncBuffer
	// pool trusts the console's and the provider's certificates.
	pool *x509.CertPool
}

// tokens every test's token-mode fake knows.
var tokenUsers = map[string]authenticationv1.UserInfo{
	"alice-token": {Username: "alice", Groups: []string{"team-a", "system:authenticated"}},
}

func newConsole(t *testing.T, o options) *console {
	t.Helper()
	if o.mode == "" {
		o.mode = web.ModeOIDC
	}
	c := &console{t: t, logs: &syncBuffer{}, pool: x509.NewCertPool()}
	if o.peer != nil {
		c.fake, c.idp, c.clock = o.peer.fake, o.peer.idp, o.peer.clock
	} else {
		c.fake = apitest.NewServer(t, apitest.CoreV1())
		c.fake.Token = o.consoleToken
		c.fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
		c.fake.Override(apitest.SelfSubjectReviewPath, apitest.SelfSubjectReviews(tokenUsers))
		c.clock = &clock{}
	}
	fake := c.fake
	if o.keys == nil {
		o.keys = testKeys
	}
	cfg := web.AuthConfig{Mode: o.mode, Keys: o.keys, IdleTimeout: o.idle, MaxAge: o.maxAge, Now: c.clock.now, ProxyHeader: o.proxyHeader}
	if o.sharedMissing {
		cfg.StateNamespace, cfg.StateSecret = stateNamespace, "missing"
	}
	if o.shared {
		cfg.StateNamespace, cfg.StateSecret = stateNamespace, stateSecret
		if o.peer == nil {
			fake.Add(apitest.Object("v1", "Secret", stateNamespace, stateSecret, nil))
		}
	}
	for _, p := range o.trustedProxies {
		cfg.TrustedProxies = append(cfg.TrustedProxies, netip.MustParsePrefix(p))
	}
	if o.mode == web.ModeOIDC {
		if c.idp == nil {
			c.idp = newIDP(t)
		}
		c.pool.AddCert(c.idp.cert)
		mc := c.idp.m.Config()
		cfg.OIDC = web.OIDCConfig{
			IssuerURL: mc.Issuer, ClientID: mc.ClientID, ClientSecret: mc.ClientSecret, CAFile: c.idp.caFile,
			Scopes: []string{"openid", "email", "profile", "groups"}, UsernameClaim: "email", GroupsClaim: "groups",
			Identity: o.identity, UsernamePrefix: o.usernamePrefix, GroupsPrefix: o.groupsPrefix, NoOfflineAccess: o.noOfflineAccess,
			Contexts: o.oidcContexts,
		}
	}
	if o.contexts == nil {
		o.contexts = []string{"dev"}
	}
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig(o.contexts...), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(c.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS, Log: log, Auth: cfg, BasePath: o.basePath})
	if err != nil {
		t.Fatal(err)
	}
	// Each sharing console holds one watch of the Secret, opened once it
	// has read it; no other watch is open while consoles start.
	sharing := fake.OpenWatches() + 1
	if o.shared || o.sharedMissing {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); srv.SyncSessions(ctx) }()
		t.Cleanup(func() { stop(); <-done })
	}
	if o.shared {
		if !fake.AwaitOpenWatches(sharing, 10*time.Second) {
			t.Fatalf("the console did not start watching the shared Secret; log:\n%s", c.logs.String())
		}
	}
	c.web = srv
	c.srv = httptest.NewUnstartedServer(srv.Handler())
	if o.tls {
		c.srv.StartTLS()
		c.pool.AddCert(c.srv.Certificate())
	} else {
		c.srv.Start()
	}
	t.Cleanup(c.srv.Close)
	return c
}

// Where sharing consoles keep their state.
const (
	stateNamespace = "tabula-system"
	stateSecret    = "tabula-session-state"
)

// url is a console URL.
func (c *console) url(path string) string { return c.srv.URL + path }

// syncBuffer is the console's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// browser is one browser: a cookie jar, redirects followed one at a time,
// every response kept (to look for tokens in them).
type browser struct {
	t      *testing.T
	c      *console
	client *http.Client

	mu   sync.Mutex
	seen []string
}

func (c *console) browser() *browser {
	c.t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		c.t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: c.pool, MinVersion: tls.VersionTLS12}}
	c.t.Cleanup(tr.CloseIdleConnections)
	return &browser{t: c.t, c: c, client: &http.Client{
		Jar: jar, Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is one response, its body read.
type page struct {
	resp *http.Response
	body string
}

func (p page) code() int        { return p.resp.StatusCode }
func (p page) location() string { return p.resp.Header.Get("Location") }

func (p page) doc(t *testing.T) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testid is the text of the first element with that data-testid.
func (p page) testid(t *testing.T, id string) string {
	t.Helper()
	return strings.TrimSpace(p.doc(t).Find("[data-testid=" + id + "]").First().Text())
}

func (p page) has(t *testing.T, id string) bool {
	t.Helper()
	return p.doc(t).Find("[data-testid="+id+"]").Length() > 0
}

// do sends req (one hop) and records the response.
func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	var dump strings.Builder
	fmt.Fprintf(&dump, "%s %s → %d\n", req.Method, req.URL, resp.StatusCode)
	_ = resp.Header.Write(&dump)
	dump.Write(body)
	b.mu.Lock()
	b.seen = append(b.seen, dump.String())
	b.mu.Unlock()
	return page{resp: resp, body: string(body)}
}

// get fetches an absolute URL or a console path, one hop.
func (b *browser) get(u string, hdr ...string) page {
	b.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = b.c.url(u)
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return b.do(req)
}

// post sends a form to a console path as a same-origin browser does.
func (b *browser) post(path string, v url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.c.url(path), strings.NewReader(v.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.c.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// follow fetches u and follows redirects (across the console and the
// provider), returning every hop.
func (b *browser) follow(u string) []page {
	b.t.Helper()
	var hops []page
	for range 10 {
		p := b.get(u)
		hops = append(hops, p)
		if p.code() < 300 || p.code() >= 400 {
			return hops
		}
		next, err := p.resp.Request.URL.Parse(p.location())
		if err != nil {
			b.t.Fatal(err)
		}
		u = next.String()
	}
	b.t.Fatalf("more than 10 redirects from %s", u)
	return nil
}

// login signs user in through the provider, starting at the sign-in page
// with return ret, and returns the page it lands on.
func (b *browser) login(user mockoidc.User, ret string) page {
	b.t.Helper()
	b.c.idp.m.QueueUser(user)
	hops := b.follow("/auth/login?" + url.Values{"return": {ret}}.Encode())
	last := hops[len(hops)-1]
	if last.code() != http.StatusOK {
		b.t.Fatalf("login ended with %d at %s:\n%s", last.code(), last.resp.Request.URL, last.body)
	}
	return last
}

// startLogin begins a login and stops at the provider's redirect back to
// the console: the callback URL, not yet visited.
func (b *browser) startLogin(user mockoidc.User, ret string) *url.URL {
	b.t.Helper()
	b.c.idp.m.QueueUser(user)
	toIDP := b.get("/auth/login?" + url.Values{"return": {ret}}.Encode())
	if toIDP.code() != http.StatusFound {
		b.t.Fatalf("/auth/login: %d, want 302 to the provider; body:\n%s", toIDP.code(), toIDP.body)
	}
	back := b.get(toIDP.location())
	if back.code() != http.StatusFound {
		b.t.Fatalf("the provider answered %d: %s", back.code(), back.body)
	}
	u, err := url.Parse(back.location())
	if err != nil {
		b.t.Fatal(err)
	}
	return u
}

// at is a browser of console to that holds this browser's console
// cookies: the same user reaching another replica (or a copy of the
// cookies, taken now).
func (b *browser) at(to *console) *browser {
	other := to.browser()
	u, _ := url.Parse(to.srv.URL)
	other.client.Jar.SetCookies(u, b.cookies())
	return other
}

// cookies are the browser's cookies for the console.
func (b *browser) cookies() []*http.Cookie {
	u, _ := url.Parse(b.c.srv.URL)
	return b.client.Jar.Cookies(u)
}

// cookie is the value of the named console cookie, or "".
func (b *browser) cookie(name string) string {
	for _, ck := range b.cookies() {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// session opens the browser's session cookie.
func (b *browser) session(name string) auth.Session {
	b.t.Helper()
	var v strings.Builder
	v.WriteString(b.cookie(name))
	for i := 1; ; i++ {
		part := b.cookie(fmt.Sprintf("%s.%d", name, i))
		if part == "" {
			break
		}
		v.WriteString(part)
	}
	s, err := auth.OpenSessionCookie(testKeys, v.String())
	if err != nil {
		b.t.Fatalf("session cookie %s: %v", name, err)
	}
	return s
}

// signOutToken is the CSRF token of the sign-out form on p.
func signOutToken(t *testing.T, p page) string {
	t.Helper()
	v, ok := p.doc(t).Find("form.sign-out-form input[name=_csrf]").Attr("value")
	if !ok || v == "" {
		t.Fatalf("no sign-out form with a CSRF token on the page:\n%s", p.body)
	}
	return v
}

// bearers are the bearer tokens the fake API server received.
func (c *console) bearers() []string {
	var out []string
	for _, r := range c.fake.Requests() {
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			out = append(out, strings.TrimPrefix(a, "Bearer "))
		}
	}
	return out
}
