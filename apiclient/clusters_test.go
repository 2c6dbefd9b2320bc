package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func writeKubeconfig(t *testing.T, fake *apitest.Server, contexts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(fake.Kubeconfig(contexts...), path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadReadsEveryContextAndHonoursTheOverride(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	path := writeKubeconfig(t, fake, "b-context", "a-context")

	cs, err := apiclient.Load(apiclient.LoadOptions{Kubeconfig: path})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Current() != "b-context" {
		t.Errorf("Current = %q, want the kubeconfig's current-context", cs.Current())
	}
	var names []string
	for _, c := range cs.Contexts() {
		names = append(names, c.Name)
		if c.Server != fake.URL {
			t.Errorf("context %s server = %q", c.Name, c.Server)
		}
	}
	if !reflect.DeepEqual(names, []string{"a-context", "b-context"}) {
		t.Errorf("contexts = %v", names)
	}

	cs, err = apiclient.Load(apiclient.LoadOptions{Kubeconfig: path, Context: "a-context"})
	if err != nil || cs.Current() != "a-context" {
		t.Fatalf("--context override: current %q, err %v", cs.Current(), err)
	}
	if _, err := apiclient.Load(apiclient.LoadOptions{Kubeconfig: path, Context: "missing"}); !errors.Is(err, apiclient.ErrUnknownContext) {
		t.Errorf("unknown --context: err = %v", err)
	}
	if _, err := cs.Client("missing", apiclient.Identity{}); !errors.Is(err, apiclient.ErrUnknownContext) {
		t.Errorf("client for unknown context: err = %v", err)
	}
}

func TestLoadFollowsKUBECONFIG(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	t.Setenv("KUBECONFIG", writeKubeconfig(t, fake, "from-env"))
	cs, err := apiclient.Load(apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Current() != "from-env" {
		t.Errorf("Current = %q", cs.Current())
	}
}

func TestLoadWithoutAnyConfigFailsClearly(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err := apiclient.Load(apiclient.LoadOptions{})
	if err == nil {
		t.Fatal("Load succeeded with no kubeconfig and no in-cluster config")
	}
}

func TestIdentityChangesTheCredentialsSent(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Token = "context-token"
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// The user's own token replaces the context's credentials entirely.
	userClient, err := cs.Client("dev", apiclient.Identity{BearerToken: "user-token"})
	if err != nil {
		t.Fatal(err)
	}
	if err := userClient.Ping(ctx, false); err != nil {
		t.Fatal(err)
	}
	last := fake.Requests()[len(fake.Requests())-1]
	if got := last.Header.Get("Authorization"); got != "Bearer user-token" {
		t.Errorf("Authorization = %q, want the user's token", got)
	}

	// Impersonation keeps the context's credentials and names the user.
	imp, err := cs.Client("dev", apiclient.Identity{Impersonate: apiclient.Impersonation{UserName: "alice", Groups: []string{"ops"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := imp.Ping(ctx, false); err != nil {
		t.Fatal(err)
	}
	last = fake.Requests()[len(fake.Requests())-1]
	if got := last.Header.Get("Impersonate-User"); got != "alice" {
		t.Errorf("Impersonate-User = %q", got)
	}
	if got := last.Header.Get("Impersonate-Group"); got != "ops" {
		t.Errorf("Impersonate-Group = %q", got)
	}
	if got := last.Header.Get("Authorization"); got != "Bearer context-token" {
		t.Errorf("impersonating client sent Authorization %q, want the context's token", got)
	}
}

func TestDiscoverModelsResourcesAndOrdersGroups(t *testing.T) {
	c := clientFor(t, apitest.NewServer(t, apitest.AppsV1(), apitest.CoreV1()))
	d, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 2 || d.Groups[0].Name != "" || d.Groups[1].Name != "apps" {
		t.Fatalf("groups = %+v, want core then apps", d.Groups)
	}
	var pods apiclient.Resource
	for _, r := range d.Groups[0].Resources {
		if r.Name == "pods" {
			pods = r
		}
		if r.Name == "pods/log" {
			t.Error("subresource listed as a resource")
		}
	}
	want := apiclient.Resource{
		Group: "", Version: "v1", Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true,
		Verbs:      []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		ShortNames: []string{"po"}, Categories: []string{"all"}, Subresources: []string{"log", "status", "exec", "attach", "ephemeralcontainers"},
	}
	if !reflect.DeepEqual(pods, want) {
		t.Errorf("pods = %+v\nwant   %+v", pods, want)
	}
	if !pods.Can("watch") || pods.Can("deletecollection") {
		t.Error("Can() disagrees with the verbs")
	}
}

func TestDiscoverKeepsTheServersStatus(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api", func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no discovery for you"})
	})
	_, err := clientFor(t, fake).Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no discovery for you") {
		t.Fatalf("err = %v, want the server's message", err)
	}
}

// serviceAccountDir writes what a pod finds in its service account
// directory, for fake, and points the in-cluster variables at it.
func serviceAccountDir(t *testing.T, fake *apitest.Server, token string) string {
	t.Helper()
	dir := t.TempDir()
	u, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "absent"))
	t.Setenv("HOME", t.TempDir())
	ca := fake.Kubeconfig().Clusters["fake"].CertificateAuthorityData
	for name, body := range map[string][]byte{"token": []byte(token), "ca.crt": ca, "namespace": []byte("tabula-system")} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadInClusterFromAServiceAccountDirectory(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Token = "service-account-token"
	dir := serviceAccountDir(t, fake, "service-account-token")

	cs, err := apiclient.Load(apiclient.LoadOptions{ServiceAccountDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if cs.Current() != apiclient.InClusterContext {
		t.Fatalf("Current = %q, want %q", cs.Current(), apiclient.InClusterContext)
	}
	ictx, err := cs.Context(apiclient.InClusterContext)
	if err != nil {
		t.Fatal(err)
	}
	if ictx.Server != fake.URL || ictx.PlainHTTP {
		t.Errorf("context = %+v, want https server %s", ictx, fake.URL)
	}
	client, err := cs.Client(apiclient.InClusterContext, apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	// The fake answers only its token, over TLS verified with ca.crt.
	if _, err := client.ServerVersion(t.Context()); err != nil {
		t.Fatalf("ping with the service account's token: %v", err)
	}
}

func TestLoadInClusterSendsTheTokenItRead(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Token = "the-right-token"
	dir := serviceAccountDir(t, fake, "another-token")
	cs, err := apiclient.Load(apiclient.LoadOptions{ServiceAccountDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	client, err := cs.Client(apiclient.InClusterContext, apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.ServerVersion(t.Context()); !apierrors.IsUnauthorized(err) {
		t.Fatalf("a request with a token the server does not know: err = %v, want 401", err)
	}
}

func TestLoadInClusterFailsClearlyOnUnusableFiles(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	for name, tc := range map[string]struct {
		remove string
		host   string
		want   string
	}{
		"no token":       {remove: "token", want: "service account token"},
		"no CA":          {remove: "ca.crt", want: "CA certificate"},
		"no API address": {host: "-", want: "KUBERNETES_SERVICE_HOST"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := serviceAccountDir(t, fake, "t")
			if tc.remove != "" {
				if err := os.Remove(filepath.Join(dir, tc.remove)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.host == "-" {
				t.Setenv("KUBERNETES_SERVICE_HOST", "")
			}
			_, err := apiclient.Load(apiclient.LoadOptions{ServiceAccountDir: dir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// A console whose users sign in offers only the contexts it is configured
// for: the others of the kubeconfig are neither listed nor reachable.
func TestLoadOffersOnlyTheContextsAsked(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	raw := fake.Kubeconfig("dev", "prod", "staging", "admin@prod")
	names := func(cs *apiclient.Clusters) []string {
		var out []string
		for _, c := range cs.Contexts() {
			out = append(out, c.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		opts        apiclient.LoadOptions
		want        []string
		wantCurrent string
	}{
		{"all by default", apiclient.LoadOptions{}, []string{"admin@prod", "dev", "prod", "staging"}, "dev"},
		{"only the current-context", apiclient.LoadOptions{OnlyCurrent: true}, []string{"dev"}, "dev"},
		{"only --context", apiclient.LoadOptions{OnlyCurrent: true, Context: "prod"}, []string{"prod"}, "prod"},
		{"a list with the current-context", apiclient.LoadOptions{Contexts: []string{"staging", "dev"}, OnlyCurrent: true}, []string{"dev", "staging"}, "dev"},
		{"a list without it: its first", apiclient.LoadOptions{Contexts: []string{"staging", "prod"}}, []string{"prod", "staging"}, "staging"},
		{"a list and --context", apiclient.LoadOptions{Contexts: []string{"staging", "prod"}, Context: "prod"}, []string{"prod", "staging"}, "prod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := apiclient.FromKubeconfig(raw, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(cs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("contexts %v, want %v", got, tc.want)
			}
			if cs.Current() != tc.wantCurrent {
				t.Errorf("current %q, want %q", cs.Current(), tc.wantCurrent)
			}
			for _, name := range []string{"dev", "prod", "staging", "admin@prod"} {
				_, err := cs.Client(name, apiclient.Identity{})
				if offered := slices.Contains(tc.want, name); offered != (err == nil) {
					t.Errorf("client for %s: %v (offered %v)", name, err, offered)
				}
			}
		})
	}
	if _, err := apiclient.FromKubeconfig(raw, apiclient.LoadOptions{Contexts: []string{"dev", "nosuch"}}); !errors.Is(err, apiclient.ErrUnknownContext) {
		t.Errorf("an unknown context in the list: %v", err)
	}
	if _, err := apiclient.FromKubeconfig(raw, apiclient.LoadOptions{Contexts: []string{"dev"}, Context: "prod"}); err == nil || !strings.Contains(err.Error(), "not among the contexts offered") {
		t.Errorf("--context outside the list: %v", err)
	}
}

// A context named "_all", or with a comma, would read as a set of contexts
// in the console's URLs: the console refuses to serve it, and says why; left
// out with --contexts, it is no obstacle.
func TestLoadRefusesContextNamesFleetURLsCannotTell(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	for _, bad := range []string{"_all", "prod,eu"} {
		raw := fake.Kubeconfig("dev", bad)
		_, err := apiclient.FromKubeconfig(raw, apiclient.LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "--contexts") {
			t.Errorf("%q: %v", bad, err)
		}
		if _, err := apiclient.FromKubeconfig(raw, apiclient.LoadOptions{Contexts: []string{"dev"}}); err != nil {
			t.Errorf("%q left out: %v", bad, err)
		}
	}
}
