package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// devKubeconfig writes a kubeconfig shaped like devcluster's: one cluster
// "tabula-dev", and a user and context per name, each with its own token.
func devKubeconfig(t *testing.T, dir, server string, users ...string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["tabula-dev"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: []byte("ca of " + server)}
	for _, u := range users {
		cfg.AuthInfos[u] = &clientcmdapi.AuthInfo{Token: u + "-token-of-" + server}
		cfg.Contexts[u] = &clientcmdapi.Context{Cluster: "tabula-dev", AuthInfo: u}
	}
	cfg.CurrentContext = users[0]
	path := filepath.Join(dir, "kubeconfig")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWriteMergedKubeconfigRenamesTheSecondCluster(t *testing.T) {
	dir := t.TempDir()
	first := devKubeconfig(t, filepath.Join(dir, "one"), "https://127.0.0.1:1001", "admin", "viewer")
	second := devKubeconfig(t, filepath.Join(dir, "two"), "https://127.0.0.1:1002", "admin", "viewer")
	out := filepath.Join(dir, "merged")
	err := WriteMergedKubeconfig(out,
		KubeconfigContext{Kubeconfig: first, Context: "admin"},
		KubeconfigContext{Kubeconfig: first, Context: "viewer"},
		KubeconfigContext{Kubeconfig: second, Context: "admin", As: "second", Cluster: "tabula-dev-2"},
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := clientcmd.LoadFromFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.CurrentContext != "admin" {
		t.Errorf("current context %q, want admin", got.CurrentContext)
	}
	if len(got.Contexts) != 3 || len(got.Clusters) != 2 || len(got.AuthInfos) != 3 {
		t.Fatalf("%d contexts, %d clusters, %d users; want 3, 2, 3", len(got.Contexts), len(got.Clusters), len(got.AuthInfos))
	}
	for name, want := range map[string]struct{ cluster, server, token string }{
		"admin":  {"tabula-dev", "https://127.0.0.1:1001", "admin-token-of-https://127.0.0.1:1001"},
		"viewer": {"tabula-dev", "https://127.0.0.1:1001", "viewer-token-of-https://127.0.0.1:1001"},
		"second": {"tabula-dev-2", "https://127.0.0.1:1002", "admin-token-of-https://127.0.0.1:1002"},
	} {
		c := got.Contexts[name]
		if c == nil {
			t.Errorf("no context %q", name)
			continue
		}
		if c.Cluster != want.cluster || c.AuthInfo != name {
			t.Errorf("context %q: cluster %q user %q, want %q and %q", name, c.Cluster, c.AuthInfo, want.cluster, name)
		}
		if s := got.Clusters[c.Cluster].Server; s != want.server {
			t.Errorf("context %q: server %q, want %q", name, s, want.server)
		}
		if ca := string(got.Clusters[c.Cluster].CertificateAuthorityData); ca != "ca of "+want.server {
			t.Errorf("context %q: CA %q, want the CA of %s", name, ca, want.server)
		}
		if tok := got.AuthInfos[c.AuthInfo].Token; tok != want.token {
			t.Errorf("context %q: token %q, want %q", name, tok, want.token)
		}
	}
}

// A file a kubeconfig names relative to itself is still found from the
// merged copy, which lives elsewhere.
func TestWriteMergedKubeconfigKeepsRelativeFilesReachable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "token"), []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{TokenFile: "token"}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	in := filepath.Join(src, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, in); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "elsewhere", "merged")
	if err := WriteMergedKubeconfig(out, KubeconfigContext{Kubeconfig: in, Context: "x"}); err != nil {
		t.Fatal(err)
	}
	got, err := clientcmd.LoadFromFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if tf := got.AuthInfos["x"].TokenFile; tf != filepath.Join(src, "token") {
		t.Errorf("token file %q, want %q", tf, filepath.Join(src, "token"))
	}
}

func TestWriteMergedKubeconfigRefusesAmbiguity(t *testing.T) {
	dir := t.TempDir()
	first := devKubeconfig(t, filepath.Join(dir, "one"), "https://127.0.0.1:1001", "admin", "viewer")
	second := devKubeconfig(t, filepath.Join(dir, "two"), "https://127.0.0.1:1002", "admin")
	for _, tc := range []struct {
		name     string
		contexts []KubeconfigContext
		want     string
	}{
		{"none", nil, "no contexts"},
		{"missing context", []KubeconfigContext{{Kubeconfig: first, Context: "editor"}}, `no context "editor"`},
		{"same context name", []KubeconfigContext{
			{Kubeconfig: first, Context: "admin"},
			{Kubeconfig: second, Context: "admin", Cluster: "tabula-dev-2"},
		}, `two contexts named "admin"`},
		{"same cluster name, other cluster", []KubeconfigContext{
			{Kubeconfig: first, Context: "admin"},
			{Kubeconfig: second, Context: "admin", As: "second"},
		}, `two clusters named "tabula-dev"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			err := WriteMergedKubeconfig(out, tc.contexts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
				t.Errorf("a kubeconfig was written despite the error (%v)", statErr)
			}
		})
	}
}
