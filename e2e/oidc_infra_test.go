//go:build e2e

package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

// The mock provider's users of the issue 10 contract.
var (
	alice = oidcUser{email: "alice@example.com", group: "tabula:viewers"}
	bob   = oidcUser{email: "bob@example.com", group: "tabula:editors"}
)

type oidcUser struct{ email, group string }

// rbacGroup is the group as the API server sees it (--oidc-groups-prefix).
func (u oidcUser) rbacGroup() string { return "oidc:" + u.group }

// bearerClient acts with token and nothing else.
func bearerClient(t *testing.T, token string) kubernetes.Interface {
	t.Helper()
	_, admin := clientset(t, "admin")
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = token
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// impersonatorClient acts as the ServiceAccount tabula-impersonator,
// impersonating as when given.
func impersonatorClient(t *testing.T, as rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.cluster.ImpersonatorKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Impersonate = as
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// login signs u in at the mock provider and returns the ID token.
func login(t *testing.T, u oidcUser) string {
	t.Helper()
	toks, err := env.oidc.Login(t.Context(), u.email, u.group)
	if err != nil {
		t.Fatal(err)
	}
	return toks.IDToken
}

// whoAmI is the SelfSubjectReview. An ID token may be refused (401) for a
// short while after start-up, until kube-apiserver's OIDC authenticator has
// read the provider's discovery document, so 401 is retried until a deadline.
func whoAmI(t *testing.T, cs kubernetes.Interface) authenticationv1.UserInfo {
	t.Helper()
	var info authenticationv1.UserInfo
	start := time.Now()
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if apierrors.IsUnauthorized(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		info = r.Status.UserInfo
		return true, nil
	})
	if err != nil {
		t.Fatalf("SelfSubjectReview: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("the API server accepted the ID token after %s", d.Round(time.Millisecond))
	}
	return info
}

func wantIdentity(t *testing.T, info authenticationv1.UserInfo, u oidcUser) {
	t.Helper()
	if info.Username != u.email || !slices.Contains(info.Groups, u.rbacGroup()) || !slices.Contains(info.Groups, "system:authenticated") {
		t.Fatalf("the API server sees %q in %v, want %q in %s and system:authenticated", info.Username, info.Groups, u.email, u.rbacGroup())
	}
}

const probePatch = `{"metadata":{"annotations":{"tabula.dev/oidc-probe":"1"}}}`

// patchWeb patches Deployment demo/web without persisting anything: a
// dry run is authorized exactly as the real request.
func patchWeb(ctx context.Context, cs kubernetes.Interface) error {
	_, err := cs.AppsV1().Deployments("demo").Patch(ctx, "web", types.MergePatchType, []byte(probePatch),
		metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// checkViewer asserts what viewer u may do in demo: list Deployments, not
// Secrets, not patch.
func checkViewer(t *testing.T, cs kubernetes.Interface, u oidcUser, how string) {
	t.Helper()
	who := u.email + " (" + how + ")"
	ctx := t.Context()
	deps, err := cs.AppsV1().Deployments("demo").List(ctx, metav1.ListOptions{})
	if err != nil || len(deps.Items) == 0 {
		t.Fatalf("%s listing deployments in demo: %v (%d items)", who, err, len(deps.Items))
	}
	_, err = cs.CoreV1().Secrets("demo").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "`+u.email+`" cannot list resource "secrets"`) {
		t.Fatalf("%s listing secrets in demo: got %v, want 403 naming the user", who, err)
	}
	if err := patchWeb(ctx, cs); !apierrors.IsForbidden(err) {
		t.Fatalf("%s patching deployment demo/web: got %v, want 403", who, err)
	}
}

// The API server trusts the mock provider: an ID token from the
// authorization code flow is a bearer token for the user in its email claim,
// with the provider's groups prefixed "oidc:", and the demo RoleBindings
// apply to those groups.
func TestOIDCPassthroughRBAC(t *testing.T) {
	viewer := bearerClient(t, login(t, alice))
	wantIdentity(t, whoAmI(t, viewer), alice)
	checkViewer(t, viewer, alice, "ID token")

	editor := bearerClient(t, login(t, bob))
	wantIdentity(t, whoAmI(t, editor), bob)
	if err := patchWeb(t.Context(), editor); err != nil {
		t.Fatalf("bob patching deployment demo/web: %v", err)
	}
	_, err := editor.CoreV1().ConfigMaps("team-a").List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("bob listing configmaps in team-a: got %v, want 403", err)
	}
}

// The console's ServiceAccount in impersonation mode may impersonate and do
// nothing else; impersonating a user with the prefixed groups gives the same
// answers as that user's own ID token.
func TestOIDCImpersonationRBAC(t *testing.T) {
	ctx := t.Context()
	self := impersonatorClient(t, rest.ImpersonationConfig{})
	info := whoAmI(t, self)
	if info.Username != "system:serviceaccount:tabula-system:tabula-impersonator" {
		t.Fatalf("the impersonator kubeconfig acts as %q", info.Username)
	}
	for what, list := range map[string]func() error{
		"pods in demo":        func() error { _, err := self.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{}); return err },
		"deployments in demo": func() error { _, err := self.AppsV1().Deployments("demo").List(ctx, metav1.ListOptions{}); return err },
		"namespaces":          func() error { _, err := self.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); return err },
	} {
		if err := list(); !apierrors.IsForbidden(err) {
			t.Errorf("the impersonator itself listing %s: got %v, want 403", what, err)
		}
	}

	asAlice := impersonatorClient(t, rest.ImpersonationConfig{UserName: alice.email, Groups: []string{alice.rbacGroup()}})
	wantIdentity(t, whoAmI(t, asAlice), alice)
	checkViewer(t, asAlice, alice, "impersonated")

	asBob := impersonatorClient(t, rest.ImpersonationConfig{UserName: bob.email, Groups: []string{bob.rbacGroup()}})
	wantIdentity(t, whoAmI(t, asBob), bob)
	if err := patchWeb(ctx, asBob); err != nil {
		t.Fatalf("bob (impersonated) patching deployment demo/web: %v", err)
	}

	// Only users and groups: a ServiceAccount (or uid, or extra) is refused.
	asSA := impersonatorClient(t, rest.ImpersonationConfig{UserName: "system:serviceaccount:kube-system:default"})
	_, err := asSA.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "impersonate") {
		t.Fatalf("impersonating a ServiceAccount: got %v, want 403 on impersonate", err)
	}
}

// A refreshed ID token is accepted like the first; a refusal injected by the
// harness is the provider's invalid_grant.
func TestOIDCRefreshAtTheAPIServer(t *testing.T) {
	ctx := t.Context()
	toks, err := env.oidc.Login(ctx, alice.email, alice.group)
	if err != nil {
		t.Fatal(err)
	}
	before := env.oidc.RefreshGrants()
	refreshed, err := env.oidc.Refresh(ctx, toks.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	wantIdentity(t, whoAmI(t, bearerClient(t, refreshed.IDToken)), alice)

	env.oidc.FailRefreshes(1)
	_, err = env.oidc.Refresh(ctx, toks.RefreshToken)
	var oerr *harness.OIDCError
	if !errors.As(err, &oerr) || oerr.Code != "invalid_grant" {
		t.Fatalf("refresh after FailRefreshes(1): %v, want invalid_grant", err)
	}
	if got := env.oidc.RefreshGrants() - before; got != 2 {
		t.Fatalf("RefreshGrants grew by %d, want 2", got)
	}
}

// Chromium trusts the mock's certificate (--ignore-certificate-errors-spki-list
// in TestMain), so sign-in journeys can follow redirects to the provider.
func TestOIDCBrowserReachesTheProvider(t *testing.T) {
	bctx, err := env.browser.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer bctx.Close()
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := page.Goto(env.oidc.Issuer() + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatalf("the browser cannot load the provider's discovery document: %v", err)
	}
	if resp.Status() != 200 {
		t.Fatalf("discovery: %d", resp.Status())
	}
	body, err := resp.Text()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, `"issuer":"`+env.oidc.Issuer()+`"`) {
		t.Fatalf("discovery document %s", body)
	}
}
