package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/apiclient"
)

func TestContextsSayWhenPlainHTTPDropsTheirCredentials(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.0"}`))
	}))
	t.Cleanup(plain.Close)

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["plain"] = &clientcmdapi.Cluster{Server: plain.URL}
	cfg.Clusters["tls"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", InsecureSkipTLSVerify: true}
	cfg.AuthInfos["token"] = &clientcmdapi.AuthInfo{Token: "secret"}
	cfg.AuthInfos["certs"] = &clientcmdapi.AuthInfo{ClientCertificateData: []byte("x"), ClientKeyData: []byte("y")}
	cfg.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["plain-token"] = &clientcmdapi.Context{Cluster: "plain", AuthInfo: "token"}
	cfg.Contexts["plain-certs"] = &clientcmdapi.Context{Cluster: "plain", AuthInfo: "certs"}
	cfg.Contexts["plain-anonymous"] = &clientcmdapi.Context{Cluster: "plain", AuthInfo: "nobody"}
	cfg.Contexts["tls-token"] = &clientcmdapi.Context{Cluster: "tls", AuthInfo: "token"}
	cfg.CurrentContext = "plain-token"
	cs, err := apiclient.FromKubeconfig(*cfg, apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]bool{ // PlainHTTP, CredentialsDropped
		"plain-token":     {true, true},
		"plain-certs":     {true, true},
		"plain-anonymous": {true, false},
		"tls-token":       {false, false},
	}
	for _, c := range cs.Contexts() {
		if got := [2]bool{c.PlainHTTP, c.CredentialsDropped}; got != want[c.Name] {
			t.Errorf("%s: PlainHTTP, CredentialsDropped = %v, want %v", c.Name, got, want[c.Name])
		}
	}

	// What the flag claims: the token of the kubeconfig is not sent.
	c, err := cs.Client("plain-token", apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ServerVersion(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 1 || auth[0] != "" {
		t.Errorf("Authorization sent over plain HTTP: %q", auth)
	}
}

// A user's token never goes to a plain-HTTP server: client-go would send
// it (only kubeconfig credentials are dropped there), so the client is
// refused before any request.
func TestAUsersTokenIsNeverSentOverPlainHTTP(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"36","gitVersion":"v1.36.0"}`))
	}))
	t.Cleanup(plain.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["plain"] = &clientcmdapi.Cluster{Server: plain.URL}
	cfg.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["plain"] = &clientcmdapi.Context{Cluster: "plain", AuthInfo: "nobody"}
	cfg.CurrentContext = "plain"
	cs, err := apiclient.FromKubeconfig(*cfg, apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.Client("plain", apiclient.Identity{BearerToken: "users-token"})
	var perr *apiclient.PlainHTTPError
	if !errors.Is(err, apiclient.ErrPlainHTTP) || !errors.As(err, &perr) || perr.Context != "plain" || perr.Server != plain.URL {
		t.Fatalf("a token client for a plain-HTTP server: %v", err)
	}
	if strings.Contains(err.Error(), "users-token") {
		t.Errorf("the error shows the token: %v", err)
	}
	// The console's own (anonymous here) identity and impersonation carry
	// no user's secret.
	for _, id := range []apiclient.Identity{{}, {Impersonate: apiclient.Impersonation{UserName: "alice"}}} {
		c, err := cs.Client("plain", id)
		if err != nil {
			t.Fatalf("%+v: %v", id, err)
		}
		if _, err := c.ServerVersion(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range auth {
		if a != "" {
			t.Errorf("Authorization %q sent over plain HTTP", a)
		}
	}
}
