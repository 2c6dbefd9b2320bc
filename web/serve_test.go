package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// serving is a console started with Serve on 127.0.0.1:0, as cmd/tabula
// starts it: no httptest.
type serving struct {
	web.Serving
	stop func() error
}

func serve(t *testing.T, deps func(*web.Deps), l web.Listen) serving {
	t.Helper()
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	metrics := web.NewMetrics()
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	d := web.Deps{Clusters: clusters, Metrics: metrics, Static: static.FS}
	if deps != nil {
		deps(&d)
	}
	srv, err := web.New(d)
	if err != nil {
		t.Fatal(err)
	}
	if l.Addr == "" {
		l.Addr = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan web.Serving, 1)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l, func(s web.Serving) { ready <- s }) }()
	var s web.Serving
	select {
	case s = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Serve returned before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Serve was not ready within 10 s")
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			return errors.New("Serve did not return within 15 s of its context ending")
		}
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return serving{Serving: s, stop: stop}
}

// writeCert writes a self-signed certificate for 127.0.0.1 named cn.
func writeCert(t *testing.T, certFile, keyFile, cn string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// writeFile replaces path in one step, as a Secret volume does.
func writeFile(t *testing.T, path string, body []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// httpsClient trusts only roots and opens a new connection per request, so
// each request sees the certificate served at that moment.
func httpsClient(roots ...*x509.Certificate) *http.Client {
	pool := x509.NewCertPool()
	for _, c := range roots {
		pool.AddCert(c)
	}
	return &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true, ForceAttemptHTTP2: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

func TestServeHTTPSWithSecureHostCookies(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	cert := writeCert(t, certFile, keyFile, "first")
	s := serve(t, nil, web.Listen{CertFile: certFile, KeyFile: keyFile})
	if !strings.HasPrefix(s.URL, "https://127.0.0.1:") {
		t.Fatalf("URL = %q, want https", s.URL)
	}
	client := httpsClient(cert)
	resp, err := client.Get(s.URL + "c/dev/api/v1/namespaces/demo/pods")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "web-1") {
		t.Fatalf("GET over TLS: %d\n%s", resp.StatusCode, body)
	}
	if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
		t.Fatalf("connection state %+v", resp.TLS)
	}
	// Direct TLS is a secure origin: the CSRF cookie is __Host- and Secure.
	var csrf *http.Cookie
	for _, c := range resp.Cookies() {
		if strings.Contains(c.Name, "csrf") {
			csrf = c
		}
	}
	if csrf == nil || csrf.Name != "__Host-tabula_csrf" || !csrf.Secure || csrf.Path != "/" || csrf.Domain != "" {
		t.Errorf("CSRF cookie over TLS = %+v, want __Host-tabula_csrf, Secure, Path=/, no Domain", csrf)
	}
	if hsts := resp.Header.Get("Strict-Transport-Security"); hsts != "max-age=31536000" {
		t.Errorf("Strict-Transport-Security over TLS = %q", hsts)
	}

	// Below TLS 1.2 there is no handshake.
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: client.Transport.(*http.Transport).TLSClientConfig.RootCAs, MaxVersion: tls.VersionTLS11,
	}}}
	if resp, err := old.Get(s.URL + "healthz"); err == nil {
		resp.Body.Close()
		t.Error("a TLS 1.1 client was served")
	}
	// Plain HTTP on the TLS port is not served either.
	if resp, err := http.Get(strings.Replace(s.URL, "https://", "http://", 1) + "healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP was served on the TLS listener")
		}
	}

	// Live streams upgrade over TLS too (HTTP/1.1; HTTP/2 serves the pages).
	d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: client.Transport.(*http.Transport).TLSClientConfig.RootCAs}, Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	origin := strings.TrimSuffix(s.URL, "/")
	ws, wsResp, err := d.Dial("wss"+strings.TrimPrefix(s.URL, "https")+"c/dev/api/v1/namespaces/demo/pods", http.Header{"Origin": {origin}})
	if err != nil {
		t.Fatalf("WebSocket over TLS: %v (response %s)", err, webtest.StatusText(wsResp))
	}
	ws.Close()
}

// A renewed certificate is served without a restart; a broken pair keeps
// the one in use.
func TestServeHTTPSPicksUpARenewedCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := writeCert(t, certFile, keyFile, "first")
	s := serve(t, nil, web.Listen{CertFile: certFile, KeyFile: keyFile})
	servedName := func(client *http.Client) string {
		t.Helper()
		resp, err := client.Get(s.URL + "healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.TLS.PeerCertificates[0].Subject.CommonName
	}
	if got := servedName(httpsClient(first)); got != "first" {
		t.Fatalf("served %q, want first", got)
	}

	second := writeCert(t, certFile, keyFile, "second")
	if got := servedName(httpsClient(first, second)); got != "second" {
		t.Fatalf("after renewal served %q, want second", got)
	}

	// A half-written pair: the key no longer matches the certificate.
	writeFile(t, keyFile, []byte("-----BEGIN EC PRIVATE KEY-----\nnot a key\n-----END EC PRIVATE KEY-----\n"))
	if got := servedName(httpsClient(first, second)); got != "second" {
		t.Fatalf("with a broken pair served %q, want second still", got)
	}
	// A missing file too.
	if err := os.Remove(certFile); err != nil {
		t.Fatal(err)
	}
	if got := servedName(httpsClient(first, second)); got != "second" {
		t.Fatalf("with a missing certificate served %q, want second still", got)
	}
}

func TestServeRefusesUnusableCertificateFiles(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writeCert(t, certFile, keyFile, "x")
	other := filepath.Join(dir, "other.key")
	writeCert(t, filepath.Join(dir, "other.crt"), other, "y")
	fake := apitest.NewServer(t, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]web.Listen{
		"missing key":    {CertFile: certFile, KeyFile: filepath.Join(dir, "absent")},
		"mismatched key": {CertFile: certFile, KeyFile: other},
	} {
		srv, err := web.New(web.Deps{Clusters: clusters, Metrics: web.NewMetrics(), Static: static.FS})
		if err != nil {
			t.Fatal(err)
		}
		l.Addr = "127.0.0.1:0"
		err = srv.Serve(t.Context(), l, func(web.Serving) { t.Errorf("%s: Serve became ready", name) })
		if err == nil || !strings.Contains(err.Error(), "TLS certificate") {
			t.Errorf("%s: err = %v, want a TLS certificate error", name, err)
		}
	}
}

func TestMetricsAreServedOnlyOnTheMetricsListener(t *testing.T) {
	s := serve(t, func(d *web.Deps) { d.MetricsListen = "127.0.0.1:0" }, web.Listen{})
	if s.MetricsURL == "" || !strings.HasSuffix(s.MetricsURL, "/metrics") {
		t.Fatalf("MetricsURL = %q", s.MetricsURL)
	}
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// A page first, so there is a request to count.
	if code, _ := get(s.URL + "c/dev/api/v1/namespaces/demo/pods"); code != http.StatusOK {
		t.Fatalf("pods page: %d", code)
	}
	code, body := get(s.MetricsURL)
	if code != http.StatusOK || !strings.Contains(body, "tabula_http_requests_total") || !strings.Contains(body, "tabula_upstream_requests_total") {
		t.Fatalf("GET %s: %d\n%s", s.MetricsURL, code, body)
	}
	if code, _ := get(s.URL + "metrics"); code != http.StatusNotFound {
		t.Errorf("the console's listener serves /metrics: %d, want 404", code)
	}
	metricsRoot := strings.TrimSuffix(s.MetricsURL, "metrics")
	for _, path := range []string{"", "healthz", "c/dev/", "static/app.css"} {
		if code, _ := get(metricsRoot + path); code != http.StatusNotFound {
			t.Errorf("the metrics listener serves /%s: %d, want 404", path, code)
		}
	}
	if code, _ := get(s.URL + "healthz"); code != http.StatusOK {
		t.Errorf("healthz on the console's listener: %d", code)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("Serve after its context ended: %v", err)
	}
	// Both listeners are closed.
	for _, u := range []string{s.URL + "healthz", s.MetricsURL} {
		if resp, err := http.Get(u); err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers after shutdown", u)
		}
	}
}

// Without a metrics listener, /metrics stays on the console's own (under
// the base path, with one).
func TestServeReportsTheBasePathInItsURL(t *testing.T) {
	s := serve(t, func(d *web.Deps) { d.BasePath = "/tabula" }, web.Listen{})
	if !strings.HasSuffix(s.URL, "/tabula/") || s.MetricsURL != "" {
		t.Fatalf("Serving = %+v", s.Serving)
	}
	resp, err := http.Get(s.URL + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %smetrics: %d", s.URL, resp.StatusCode)
	}
}
