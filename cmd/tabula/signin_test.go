package main

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
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// TestRunSignsInWithOIDC starts the console as main does, from flags and
// environment, in oidc mode against mockoidc (over TLS) and the apitest
// fake, and signs in through it.
func TestRunSignsInWithOIDC(t *testing.T) {
	idp, caFile := startMockOIDC(t)
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", nil))
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(fake.Kubeconfig("dev"), kubeconfig); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "session.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mc := idp.Config()
	cfg, err := parseConfig([]string{
		"--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0",
		"--auth", "oidc", "--oidc-issuer-url", mc.Issuer, "--oidc-client-id", mc.ClientID,
		"--oidc-ca-file", caFile, "--session-key-file", keyFile,
	}, env(map[string]string{"TABULA_OIDC_CLIENT_SECRET": mc.ClientSecret}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, logs) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	base := waitForURL(t, logs)

	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(caFile)
	pool.AppendCertsFromPEM(pem)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	idp.QueueUser(&mockoidc.MockUser{Subject: "u-alice", Email: "alice@example.com", EmailVerified: true, Groups: []string{"tabula:viewers"}})
	resp, err := client.Get(base + "c/dev/api/v1/namespaces/demo/pods")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/c/dev/api/v1/namespaces/demo/pods" ||
		!strings.Contains(string(body), `data-testid="user-name">alice@example.com<`) {
		t.Fatalf("after signing in: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	out := logs.String()
	if !strings.Contains(out, "msg=sign-in mode=oidc") || strings.Contains(out, "random one") {
		t.Errorf("start-up log:\n%s", out)
	}
	if strings.Contains(out, mc.ClientSecret) {
		t.Error("the client secret was logged")
	}
}

func waitForURL(t *testing.T, logs *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`msg=serving url=(http://\S+/)`)
	var url string
	apitest.WaitFor(t, 10*time.Second, func() error {
		m := re.FindStringSubmatch(logs.String())
		if m == nil {
			return fmt.Errorf("the console did not start:\n%s", logs.String())
		}
		url = m[1]
		return nil
	})
	return url
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startMockOIDC serves mockoidc over TLS (its RunTLS does not) with a
// self-signed certificate for 127.0.0.1, written as a CA file.
func startMockOIDC(t *testing.T) (*mockoidc.MockOIDC, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mockoidc"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	if err := m.Start(tls.NewListener(ln, cfg), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m, caFile
}
