package aggregated

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testNow is the fixed clock of test servers, so Age cells are stable.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// testCA stands in for devcluster's front-proxy CA.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-front-proxy-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return testCA{cert: cert, key: key, pool: pool}
}

// clientCert issues a client certificate with common name cn.
func (ca testCA) clientCert(t *testing.T, cn string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// testServer is a server under httptest, with the front-proxy CA that it
// trusts and a client presenting that proxy's certificate.
type testServer struct {
	url       string
	ca        testCA
	roots     *x509.CertPool
	proxy     *http.Client
	anonymous *http.Client
}

func startTestServer(t *testing.T) testServer {
	t.Helper()
	ca := newTestCA(t)
	serving, err := newServingCert([]string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(newServer(serverOptions{
		allowedNames: []string{frontProxyName},
		now:          func() time.Time { return testNow },
		log:          slog.New(slog.DiscardHandler),
	}))
	ts.TLS = tlsConfig(serving, ca.pool)
	// TestAuthentication fails a handshake on purpose; keep the log quiet.
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(serving.caPEM)
	s := testServer{url: ts.URL, ca: ca, roots: roots}
	s.proxy = s.client(ca.clientCert(t, frontProxyName))
	s.anonymous = s.client()
	return s
}

// client trusts the serving CA and presents certs.
func (s testServer) client(certs ...tls.Certificate) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: s.roots, Certificates: certs},
	}}
}

// get sends GET path through the front proxy as user "admin".
func (s testServer) get(t *testing.T, path, accept string) (*http.Response, []byte) {
	t.Helper()
	return s.do(t, s.proxy, path, accept, "admin")
}

func (s testServer) do(t *testing.T, c *http.Client, path, accept, user string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if user != "" {
		req.Header.Set("X-Remote-User", user)
		req.Header.Add("X-Remote-Group", "system:masters")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// decode unmarshals body into a new T, failing the test on error.
func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decoding %T from %s: %v", v, body, err)
	}
	return v
}

// wantStatus checks that the response is a metav1.Status with code and reason.
func wantStatus(t *testing.T, resp *http.Response, body []byte, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	if resp.StatusCode != code {
		t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, code, body)
	}
	st := decode[metav1.Status](t, body)
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || st.Code != int32(code) || st.Reason != reason {
		t.Fatalf("got %+v, want a v1 Status Failure %d %s", st, code, reason)
	}
	return st
}

const (
	basePath    = "/apis/" + Group + "/" + Version
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
)
