//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/e2e/harness"
)

// The fences around the deployed console's credential (deploy/), checked
// against the objects the API server stored and through the API server
// itself: the pod's projected token, what that token may do, the network
// policy's intent and the console working as the ServiceAccount.

// deployedConsole is deploy/ as the API server holds it once applied.
type deployedConsole struct {
	dep  *appsv1.Deployment
	pods []corev1.Pod
}

func loadDeployed(t *testing.T, cs kubernetes.Interface) deployedConsole {
	t.Helper()
	ctx := t.Context()
	dep, err := cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	selector, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := cs.CoreV1().Pods(deployNamespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		t.Fatal(err)
	}
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		t.Fatal("the Deployment has no pods")
	}
	return deployedConsole{dep: dep, pods: live}
}

// tokenVolume is the volume mounted where the console reads its
// credentials (apiclient.DefaultServiceAccountDir, as client-go's
// rest.InClusterConfig), and its service account token projection.
func tokenVolume(t *testing.T, spec corev1.PodSpec) (corev1.Volume, *corev1.ServiceAccountTokenProjection) {
	t.Helper()
	var name string
	for _, m := range spec.Containers[0].VolumeMounts {
		if m.MountPath == apiclient.DefaultServiceAccountDir {
			if !m.ReadOnly || m.SubPath != "" {
				t.Errorf("mount %+v: want read-only and no subPath (which never sees a rotated token)", m)
			}
			name = m.Name
		}
	}
	for _, v := range spec.Volumes {
		if v.Name != name || v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				return v, src.ServiceAccountToken
			}
		}
	}
	t.Fatalf("no projected service account token is mounted at %s", apiclient.DefaultServiceAccountDir)
	return corev1.Volume{}, nil
}

// checkPodsGetOnlyTheProjectedToken: the pods the API server admitted
// carry no automatic token (the ServiceAccount admission adds a
// kube-api-access-* volume unless told not to), only the projected one,
// with an audience the API server accepts and an expiry.
func checkPodsGetOnlyTheProjectedToken(t *testing.T, cs kubernetes.Interface, d deployedConsole) {
	sa, err := cs.CoreV1().ServiceAccounts(deployNamespace).Get(t.Context(), "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if automounts(sa.AutomountServiceAccountToken) {
		t.Error("ServiceAccount tabula gives its token to any pod that does not refuse it: automountServiceAccountToken is not false")
	}
	_, want := tokenVolume(t, d.dep.Spec.Template.Spec)
	if want.Audience == "" || want.ExpirationSeconds == nil {
		t.Fatalf("the Deployment's token projection %+v has no audience or no expiry", *want)
	}
	for _, pod := range d.pods {
		spec := pod.Spec
		if spec.ServiceAccountName != "tabula" || automounts(spec.AutomountServiceAccountToken) {
			t.Errorf("pod %s: serviceAccountName %q, automountServiceAccountToken %v; want tabula, false", pod.Name, spec.ServiceAccountName, automounts(spec.AutomountServiceAccountToken))
		}
		var tokens int
		for _, v := range spec.Volumes {
			if strings.HasPrefix(v.Name, "kube-api-access-") {
				t.Errorf("pod %s has the automatic token volume %s", pod.Name, v.Name)
			}
			if v.Projected != nil {
				for _, src := range v.Projected.Sources {
					if src.ServiceAccountToken != nil {
						tokens++
					}
				}
			}
		}
		_, got := tokenVolume(t, spec)
		if tokens != 1 || got.Audience != want.Audience || *got.ExpirationSeconds != *want.ExpirationSeconds {
			t.Errorf("pod %s: %d token projections, the mounted one %+v, want only %+v", pod.Name, tokens, *got, *want)
		}
	}

	// A TokenRequest without audiences is given the API server's own: the
	// Deployment's must be one of them, or every call would be a 401.
	tr, err := cs.CoreV1().ServiceAccounts(deployNamespace).CreateToken(t.Context(), "tabula", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: want.ExpirationSeconds},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tr.Spec.Audiences, want.Audience) {
		t.Errorf("the Deployment's token audience %q is not one the API server accepts, %q", want.Audience, tr.Spec.Audiences)
	}
}

// automounts is whether an automountServiceAccountToken field, unset by
// default, lets the token be mounted.
func automounts(field *bool) bool { return field == nil || *field }

// projectedFiles writes into dir what the kubelet would put into the
// pod's credential volume: each projected source in turn, the token from a
// TokenRequest with the projection's audience and expiry, bound to pod (as
// the kubelet binds it) or to bound when given. It returns the token.
func projectedFiles(t *testing.T, cs kubernetes.Interface, d deployedConsole, pod corev1.Pod, bound *authenticationv1.BoundObjectReference, dir string) string {
	t.Helper()
	ctx := t.Context()
	vol, _ := tokenVolume(t, d.dep.Spec.Template.Spec)
	if bound == nil {
		bound = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	}
	write := func(name string, data []byte) {
		t.Helper()
		// Written aside and renamed, as the kubelet swaps the volume's
		// contents: a reader sees the old file or the new, never half.
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var token string
	for _, src := range vol.Projected.Sources {
		switch {
		case src.ServiceAccountToken != nil:
			p := src.ServiceAccountToken
			tr, err := cs.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
				Spec: authenticationv1.TokenRequestSpec{Audiences: []string{p.Audience}, ExpirationSeconds: p.ExpirationSeconds, BoundObjectRef: bound},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			token = tr.Status.Token
			write(p.Path, []byte(token))
		case src.ConfigMap != nil:
			cm, err := cs.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, src.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range src.ConfigMap.Items {
				write(item.Path, []byte(cm.Data[item.Key]))
			}
		case src.DownwardAPI != nil:
			for _, item := range src.DownwardAPI.Items {
				if item.FieldRef == nil || item.FieldRef.FieldPath != "metadata.namespace" {
					t.Fatalf("the test does not project %+v", item)
				}
				write(item.Path, []byte(pod.Namespace))
			}
		default:
			t.Fatalf("the test does not project %+v", src)
		}
	}
	return token
}

// jwtClaims decodes a JWT's payload, unverified: what the API server
// signed, to read its lifetime and audience.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

// checkTheTokenIsShortLivedAndBound: the token the pod gets lives as long
// as the Deployment says (kube-apiserver extends only the automatic
// token's 3607 s, to a year), names the API server's audience alone, is
// bound to its pod, and a token for another audience is refused.
func checkTheTokenIsShortLivedAndBound(t *testing.T, cs kubernetes.Interface, d deployedConsole) {
	_, proj := tokenVolume(t, d.dep.Spec.Template.Spec)
	pod := d.pods[0]
	token := projectedFiles(t, cs, d, pod, nil, t.TempDir())
	claims := jwtClaims(t, token)
	iat, _ := claims["iat"].(float64)
	exp, _ := claims["exp"].(float64)
	if life := int64(exp - iat); life != *proj.ExpirationSeconds {
		t.Errorf("the token lives %d s, want %d s", life, *proj.ExpirationSeconds)
	}
	if aud, _ := claims["aud"].([]any); len(aud) != 1 || aud[0] != proj.Audience {
		t.Errorf("the token's audience %v, want [%s] alone", claims["aud"], proj.Audience)
	}
	info := whoAmI(t, bearerClient(t, token))
	if want := "system:serviceaccount:" + deployNamespace + ":tabula"; info.Username != want {
		t.Errorf("the token is %q, want %q", info.Username, want)
	}
	if got := info.Extra["authentication.kubernetes.io/pod-name"]; !slices.Equal(got, []string{pod.Name}) {
		t.Errorf("the token is bound to pod %v, want %s", got, pod.Name)
	}

	seconds := *proj.ExpirationSeconds
	elsewhere, err := cs.CoreV1().ServiceAccounts(deployNamespace).CreateToken(t.Context(), "tabula", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"https://tabula.example.com"}, ExpirationSeconds: &seconds},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bearerClient(t, elsewhere.Status.Token).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("a token of the ServiceAccount for another audience: %v, want 401", err)
	}
}

// startDeployedConsole runs bin/tabula as a pod of the Deployment would:
// no kubeconfig, credentials in the files of its projected volume (dir),
// KUBERNETES_SERVICE_HOST/PORT, and the Deployment's sign-in arguments
// against the test's provider (whose issuer and client differ). Its log is
// deployed-console-<name>/tabula.log among the artifacts.
func startDeployedConsole(t *testing.T, d deployedConsole, dir, name string) *harness.Console {
	t.Helper()
	args := d.dep.Spec.Template.Spec.Containers[0].Args
	for _, a := range []string{"--auth=oidc", "--oidc-identity=impersonate", "--oidc-groups-prefix=oidc:"} {
		if !slices.Contains(args, a) {
			t.Fatalf("the Deployment's arguments %q lack %s, which the test runs with", args, a)
		}
	}
	server, err := url.Parse(env.cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "session.key")
	must(t, harness.WriteSessionKey(key))
	logDir := filepath.Join(env.artifacts, "deployed-console-"+name)
	must(t, os.MkdirAll(logDir, 0o755))
	console, err := harness.StartConsoleWith(context.Background(), harness.ConsoleOptions{
		LogDir: logDir,
		Args:   harness.OIDCConsoleArgs(env.oidc, harness.OIDCImpersonate, key),
		Env: []string{
			"HOME=" + t.TempDir(),
			"KUBECONFIG=",
			"KUBERNETES_SERVICE_HOST=" + server.Hostname(),
			"KUBERNETES_SERVICE_PORT=" + server.Port(),
			"TABULA_SERVICE_ACCOUNT_DIR=" + dir,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = console.Stop(10 * time.Second) })
	return console
}

// browserless is a user signed in to a console over plain HTTP: a cookie
// jar, and redirects followed through the provider and back.
type browserless struct {
	client *http.Client
	base   string
}

func signInOverHTTP(t *testing.T, base string, u oidcUser) browserless {
	t.Helper()
	jar, err := cookiejar.New(nil)
	must(t, err)
	client := env.oidc.HTTPClient() // trusts the provider's CA
	client.CheckRedirect, client.Jar = nil, jar
	b := browserless{client: client, base: base}
	// The provider signs in whoever heads its queue.
	env.oidc.QueueUser(u.email, u.group)
	home := b.get(t, "/", http.StatusOK)
	if got := strings.TrimSpace(home.Find("[data-testid=user-name]").Text()); got != u.email {
		t.Fatalf("signed in as %q, want %s", got, u.email)
	}
	return b
}

// fetch loads path and returns its status and document.
func (b browserless) fetch(t *testing.T, path string) (int, *goquery.Document) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, b.base+path, nil)
	must(t, err)
	resp, err := b.client.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&body)
	must(t, err)
	return resp.StatusCode, doc
}

func (b browserless) get(t *testing.T, path string, want int) *goquery.Document {
	t.Helper()
	code, doc := b.fetch(t, path)
	if code != want {
		t.Fatalf("GET %s: %d, want %d: %s", path, code, want, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	return doc
}

// checkActsAsTheUser: the console, with the ServiceAccount's token alone,
// shows alice what her groups allow (demo's Deployments, and one in
// detail) and refuses what they do not, the API server's 403 naming her:
// every request went as alice, by impersonation.
func checkActsAsTheUser(t *testing.T, b browserless) {
	t.Helper()
	const ctx = "/c/in-cluster"
	list := b.get(t, ctx+"/apis/apps/v1/namespaces/demo/deployments", http.StatusOK)
	var rows []string
	list.Find("tr[data-key]").Each(func(_ int, s *goquery.Selection) { rows = append(rows, s.AttrOr("data-key", "")) })
	if !slices.Contains(rows, "demo/web") {
		t.Errorf("demo's Deployments as alice: rows %q, want demo/web", rows)
	}
	b.get(t, ctx+"/apis/apps/v1/namespaces/demo/deployments/web", http.StatusOK)
	refused := b.get(t, ctx+"/api/v1/namespaces/demo/secrets", http.StatusForbidden)
	if msg := refused.Find("[data-testid=error-message]").Text(); !strings.Contains(msg, `User "`+alice.email+`" cannot list resource "secrets"`) {
		t.Errorf("the 403 does not name alice: %q", msg)
	}
}

// checkConsoleWithRotatingToken runs the console on the files of the
// projected volume, signs alice in and checks it acts as her; then rotates
// the token as the kubelet does (a new file in its place) and revokes the
// first one (its bound object goes), and waits for the console to act as
// her again: only the new token can do that, so the console re-read it.
// client-go re-reads a token file every minute: this waits up to two.
func checkConsoleWithRotatingToken(t *testing.T, cs kubernetes.Interface, d deployedConsole) {
	ctx := t.Context()
	secrets := cs.CoreV1().Secrets(deployNamespace)
	holder, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tabula-e2e-first-token"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := secrets.Delete(context.Background(), holder.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})
	dir := t.TempDir()
	first := projectedFiles(t, cs, d, d.pods[0], &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: holder.Name, UID: holder.UID}, dir)
	console := startDeployedConsole(t, d, dir, "rotation")
	probe := &http.Client{Timeout: 30 * time.Second}
	if resp, err := probe.Get(console.URL + "/readyz"); err != nil {
		t.Fatalf("/readyz: %v", err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz: %d, want 200", resp.StatusCode)
	}
	b := signInOverHTTP(t, console.URL, alice)
	checkActsAsTheUser(t, b)

	projectedFiles(t, cs, d, d.pods[0], nil, dir)
	rotated := time.Now()
	if err := secrets.Delete(ctx, holder.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The API server caches a token's authentication for a few seconds.
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := bearerClient(t, first).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		return apierrors.IsUnauthorized(err), nil
	})
	if err != nil {
		t.Fatalf("the first token is still accepted after its Secret went: %v", err)
	}
	revoked := time.Now()
	seen := map[int]int{}
	err = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		code, _ := b.fetch(t, "/c/in-cluster/apis/apps/v1/namespaces/demo/deployments")
		seen[code]++
		return code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("the console never used the rotated token: %v (statuses seen %v)", err, seen)
	}
	t.Logf("the first token was refused %s after the rotation; the console then answered with the new one within %s (statuses %v)",
		revoked.Sub(rotated).Round(time.Millisecond), time.Since(revoked).Round(time.Millisecond), seen)
	checkActsAsTheUser(t, b)
}

// rule is one (API group, resource, verb) a review allows.
type rule struct{ group, resource, verb string }

// The rules every authenticated identity has from the API server's
// default bindings (system:basic-user): deploy/ cannot take them away.
var defaultRules = []rule{
	{"authorization.k8s.io", "selfsubjectaccessreviews", "create"},
	{"authorization.k8s.io", "selfsubjectrulesreviews", "create"},
	{"authentication.k8s.io", "selfsubjectreviews", "create"},
}

// The paths every authenticated identity may GET (system:discovery,
// system:public-info-viewer): discovery, OpenAPI, version and health; and
// every service account (system:service-account-issuer-discovery): the
// token issuer's discovery document and keys.
var defaultPaths = []string{
	"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/",
	"/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/",
}

// legacyImpersonation is what rbac.yaml grants.
var legacyImpersonation = []rule{{"", "users", "impersonate"}, {"", "groups", "impersonate"}}

// checkServiceAccountRights checks, with the ServiceAccount's token, its
// rules (in namespace demo: tabula-system may also grant the console rights
// on its own objects there), the things it must not do, and the one call
// the console makes as itself: the readiness probe's GET /version.
func checkServiceAccountRights(t *testing.T, token string, legacy bool) {
	t.Helper()
	sa := bearerClient(t, token)
	if legacy {
		checkRights(t, sa, "demo", legacyImpersonation, nil)
	} else {
		checkRights(t, sa, "demo", constrainedImpersonation, map[string][]string{"impersonate-on:user-info:get": constrainedPaths})
	}
	checkAccess(t, sa, legacy)
	if _, err := sa.Discovery().ServerVersion(); err != nil {
		t.Errorf("GET /version, the readiness probe's call: %v", err)
	}
}

// checkRights asks the API server, as the ServiceAccount's own token, what
// it may do in namespace ns (a SelfSubjectRulesReview): exactly want and
// the default rules, GET on the default paths, and nothing else.
func checkRights(t *testing.T, sa kubernetes.Interface, ns string, want []rule, wantPaths map[string][]string) {
	t.Helper()
	review, err := sa.AuthorizationV1().SelfSubjectRulesReviews().Create(t.Context(), &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if review.Status.Incomplete {
		t.Errorf("the rules review is incomplete: %s", review.Status.EvaluationError)
	}
	var got []rule
	for _, r := range review.Status.ResourceRules {
		if len(r.ResourceNames) > 0 {
			t.Errorf("unexpected rule on named objects: %+v", r)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					got = append(got, rule{g, res, v})
				}
			}
		}
	}
	wantAll := append(slices.Clone(want), defaultRules...)
	less := func(a, b rule) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
	slices.SortFunc(got, less)
	slices.SortFunc(wantAll, less)
	got = slices.Compact(got)
	if !slices.Equal(got, wantAll) {
		t.Errorf("in namespace %s the ServiceAccount may\n  %v\nwant exactly\n  %v", ns, got, wantAll)
	}
	paths := map[string][]string{}
	for _, r := range review.Status.NonResourceRules {
		for _, v := range r.Verbs {
			for _, u := range r.NonResourceURLs {
				if v != "get" && !slices.Contains(wantPaths[v], u) {
					t.Errorf("non-resource rule %s %s is not a default one nor wanted", v, u)
				}
				paths[v] = append(paths[v], u)
			}
		}
	}
	for _, u := range paths["get"] {
		if !slices.Contains(defaultPaths, u) {
			t.Errorf("GET %s is allowed beyond the defaults %v", u, defaultPaths)
		}
	}
	for v, urls := range wantPaths {
		for _, u := range urls {
			if !slices.Contains(paths[v], u) {
				t.Errorf("%s %s is not allowed; allowed: %v", v, u, paths)
			}
		}
	}
}

// may asks the API server, as the ServiceAccount's own token, whether it
// may do one thing (a SelfSubjectAccessReview).
func may(t *testing.T, sa kubernetes.Interface, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	r, err := sa.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status.Allowed
}

// checkAccess asks about the things an attacker holding the token would
// try first. The API server's base rights allow impersonating users and
// groups with the "impersonate" verb (legacy), the constrained component
// with "impersonate:user-info".
func checkAccess(t *testing.T, sa kubernetes.Interface, legacy bool) {
	t.Helper()
	for _, c := range []struct {
		what  string
		attrs authorizationv1.ResourceAttributes
		want  bool
	}{
		{"impersonate users", authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "users", Name: "alice@example.com"}, legacy},
		{"impersonate groups", authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "groups", Name: "oidc:tabula:viewers"}, legacy},
		{"impersonate users (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate:user-info", Group: "authentication.k8s.io", Resource: "users", Name: "alice@example.com"}, !legacy},
		{"impersonate groups (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate:user-info", Group: "authentication.k8s.io", Resource: "groups", Name: "oidc:tabula:viewers"}, !legacy},
		{"impersonate to list pods (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate-on:user-info:list", Resource: "pods", Namespace: "demo"}, !legacy},
		{"impersonate to update (PUT) a Deployment (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate-on:user-info:update", Group: "apps", Resource: "deployments", Namespace: "demo", Name: "web"}, false},
		{"impersonate service accounts", authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "serviceaccounts", Namespace: "kube-system", Name: "default"}, false},
		{"impersonate service accounts (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate:serviceaccount", Group: "authentication.k8s.io", Resource: "serviceaccounts", Namespace: "kube-system", Name: "default"}, false},
		{"impersonate nodes (constrained)", authorizationv1.ResourceAttributes{Verb: "impersonate:arbitrary-node", Group: "authentication.k8s.io", Resource: "nodes", Name: "kwok-node-0"}, false},
		{"impersonate uids", authorizationv1.ResourceAttributes{Verb: "impersonate", Group: "authentication.k8s.io", Resource: "uids", Name: "1001"}, false},
		{"impersonate user extras", authorizationv1.ResourceAttributes{Verb: "impersonate", Group: "authentication.k8s.io", Resource: "userextras", Subresource: "scopes", Name: "x"}, false},
		{"read its own Secret", authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: deployNamespace, Name: "tabula"}, false},
		{"list Secrets anywhere", authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets"}, false},
		{"list pods anywhere", authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"}, false},
		{"mint tokens", authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: deployNamespace, Name: "tabula"}, false},
		{"exec into pods", authorizationv1.ResourceAttributes{Verb: "create", Resource: "pods", Subresource: "exec", Namespace: "demo"}, false},
		{"bind roles", authorizationv1.ResourceAttributes{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"}, false},
	} {
		if got := may(t, sa, c.attrs); got != c.want {
			t.Errorf("may the ServiceAccount %s? %v, want %v", c.what, got, c.want)
		}
	}
}

// impersonating acts with token, impersonating user and groups.
func impersonating(t *testing.T, token, user string, groups ...string) kubernetes.Interface {
	t.Helper()
	_, admin := clientset(t, "admin")
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = token
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// patchAsEditor patches ConfigMap demo/kube-root-ca.crt as bob, as
// updateAsEditor replaces it.
func patchAsEditor(t *testing.T, token string) error {
	t.Helper()
	_, err := impersonating(t, token, bob.email, bob.rbacGroup()).CoreV1().ConfigMaps("demo").Patch(t.Context(), "kube-root-ca.crt",
		types.MergePatchType, []byte(`{"metadata":{"annotations":{"tabula.dev/e2e":"1"}}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// updateAsEditor replaces (PUT) ConfigMap demo/kube-root-ca.crt as bob,
// whose group may edit demo, impersonated with token: a dry run, so
// nothing changes, authorized exactly as the real request.
func updateAsEditor(t *testing.T, token string) error {
	t.Helper()
	cms := impersonating(t, token, bob.email, bob.rbacGroup()).CoreV1().ConfigMaps("demo")
	cm, err := cms.Get(t.Context(), "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil {
		return err
	}
	_, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// checkNetworkPolicy checks the policy's intent against the objects it
// fences: it selects the Deployment's pods and no others; every port the
// pod serves (the Service's targets) is open to one named namespace and to
// nothing else; egress is DNS to the cluster's resolver and HTTPS to the
// API server's Service port and the OIDC issuer's port, never to anything
// on any port, and never to the cloud metadata address.
func checkNetworkPolicy(t *testing.T, cs kubernetes.Interface, d deployedConsole) {
	ctx := t.Context()
	np, err := cs.NetworkingV1().NetworkPolicies(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := np.Spec
	if !slices.Contains(spec.PolicyTypes, "Ingress") || !slices.Contains(spec.PolicyTypes, "Egress") {
		t.Errorf("policy types %v, want Ingress and Egress", spec.PolicyTypes)
	}
	selector, err := metav1.LabelSelectorAsSelector(&spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	if selector.Empty() || !selector.Matches(labels.Set(d.dep.Spec.Template.Labels)) {
		t.Errorf("the policy's pod selector %q does not select the Deployment's pods (labels %v)", selector, d.dep.Spec.Template.Labels)
	}
	all, err := cs.CoreV1().Pods(deployNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all.Items {
		ours := slices.ContainsFunc(d.pods, func(q corev1.Pod) bool { return q.UID == p.UID })
		if selector.Matches(labels.Set(p.Labels)) != ours && p.DeletionTimestamp == nil {
			t.Errorf("pod %s: selected %v, a console pod %v", p.Name, !ours, ours)
		}
	}

	// Ingress: the ports the Service sends to, each from one namespace.
	svc, err := cs.CoreV1().Services(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]int32{}
	for _, p := range d.dep.Spec.Template.Spec.Containers[0].Ports {
		served[p.Name] = p.ContainerPort
	}
	var targets []string
	for _, p := range svc.Spec.Ports {
		targets = append(targets, p.TargetPort.String())
	}
	from := map[string]string{}
	for _, r := range spec.Ingress {
		if len(r.From) == 0 || len(r.Ports) == 0 {
			t.Errorf("ingress rule %+v lets in any source or on any port", r)
			continue
		}
		for _, peer := range r.From {
			if peer.IPBlock != nil || peer.PodSelector != nil || peer.NamespaceSelector == nil || len(peer.NamespaceSelector.MatchLabels) != 1 {
				t.Errorf("ingress peer %+v: want one namespace, by name", peer)
				continue
			}
			for _, port := range r.Ports {
				if port.Port == nil || port.Port.Type != intstr.String {
					t.Errorf("ingress port %+v: want a port of the pod, by name", port)
					continue
				}
				if _, ok := served[port.Port.StrVal]; !ok {
					t.Errorf("ingress port %q is not a port the console serves (%v)", port.Port.StrVal, served)
				}
				from[port.Port.StrVal] = peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"]
			}
		}
	}
	for _, target := range targets {
		if from[target] == "" {
			t.Errorf("the Service's target port %q is reachable from no namespace", target)
		}
	}
	// The defaults the manifest marks ADAPT: the example Ingress's
	// controller (ingress-nginx) and a monitoring namespace.
	if from["http"] != "ingress-nginx" || from["metrics"] != "monitoring" {
		t.Errorf("ingress: http from %q, metrics from %q; want ingress-nginx and monitoring", from["http"], from["metrics"])
	}

	// Egress.
	kubernetesSvc, err := cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var issuerPort int32
	for _, a := range d.dep.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--oidc-issuer-url="); ok {
			u, err := url.Parse(v)
			if err != nil || u.Scheme != "https" || u.Port() != "" {
				t.Fatalf("--oidc-issuer-url %q: the test knows https on its default port only", v)
			}
			issuerPort = 443
		}
	}
	var dns, https bool
	var httpsPorts []int32
	var blocks []netip.Prefix
	var excepted []netip.Prefix
	for _, r := range spec.Egress {
		if len(r.To) == 0 || len(r.Ports) == 0 {
			t.Errorf("egress rule %+v lets out to anywhere or on any port", r)
			continue
		}
		var ports []string
		for _, p := range r.Ports {
			proto := "TCP"
			if p.Protocol != nil {
				proto = string(*p.Protocol)
			}
			ports = append(ports, fmt.Sprintf("%s/%s", proto, p.Port))
		}
		switch peer := r.To[0]; {
		case peer.NamespaceSelector != nil:
			dns = len(r.To) == 1 && peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] == "kube-system" &&
				peer.PodSelector != nil && peer.PodSelector.MatchLabels["k8s-app"] == "kube-dns" &&
				slices.Equal(ports, []string{"UDP/53", "TCP/53"})
			if !dns {
				t.Errorf("egress rule %+v (ports %v): want DNS to kube-system's kube-dns pods only", r, ports)
			}
		default:
			https = true
			for _, p := range r.Ports {
				if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP || p.Port == nil || p.Port.Type != intstr.Int {
					t.Errorf("egress port %+v: want TCP, by number", p)
					continue
				}
				httpsPorts = append(httpsPorts, p.Port.IntVal)
			}
			for _, peer := range r.To {
				if peer.IPBlock == nil {
					t.Errorf("egress peer %+v: want address blocks", peer)
					continue
				}
				blocks = append(blocks, netip.MustParsePrefix(peer.IPBlock.CIDR))
				for _, e := range peer.IPBlock.Except {
					excepted = append(excepted, netip.MustParsePrefix(e))
				}
			}
		}
	}
	if !dns || !https {
		t.Errorf("egress: DNS rule %v, HTTPS rule %v; want both", dns, https)
	}
	allowed := func(addr netip.Addr) bool {
		in := func(ps []netip.Prefix) bool {
			return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(addr) })
		}
		return in(blocks) && !in(excepted)
	}
	for _, want := range []struct {
		what string
		port int32
	}{
		{"the API server's Service port (KUBERNETES_SERVICE_PORT)", kubernetesSvc.Spec.Ports[0].Port},
		{"kube-apiserver's usual endpoint port", 6443},
		{"the OIDC issuer's port", issuerPort},
	} {
		if !slices.Contains(httpsPorts, want.port) {
			t.Errorf("egress to %s, %d, is not allowed (%v)", want.what, want.port, httpsPorts)
		}
	}
	// The API server's own addresses, as the endpoints of the kubernetes
	// Service name them, are allowed; metadata services are not.
	eps, err := cs.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	var endpoints int
	for _, s := range eps.Items {
		for _, e := range s.Endpoints {
			for _, a := range e.Addresses {
				endpoints++
				if addr, err := netip.ParseAddr(a); err != nil || !allowed(addr) {
					t.Errorf("the API server's endpoint %s is not allowed (%v)", a, err)
				}
			}
		}
	}
	if endpoints == 0 {
		t.Error("the kubernetes Service has no endpoints to check")
	}
	for _, a := range []string{"169.254.169.254", "fd00:ec2::254", "fe80::1"} {
		if allowed(netip.MustParseAddr(a)) {
			t.Errorf("egress to %s, a metadata or link-local address, is allowed", a)
		}
	}
	for _, a := range []string{"203.0.113.10", "2001:db8::10"} {
		if !allowed(netip.MustParseAddr(a)) {
			t.Errorf("egress to %s, an address an OIDC provider may have, is not allowed", a)
		}
	}
}

// checkDisruptionBudget: the disruption controller, from the real pods,
// counts both replicas healthy and allows one of them to go.
func checkDisruptionBudget(t *testing.T, cs kubernetes.Interface, d deployedConsole) {
	replicas := *d.dep.Spec.Replicas
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pdb, err := cs.PolicyV1().PodDisruptionBudgets(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := pdb.Status
		last = fmt.Sprintf("%+v", st)
		return st.ObservedGeneration == pdb.Generation && st.ExpectedPods == replicas && st.CurrentHealthy == replicas &&
			st.DesiredHealthy == 1 && st.DisruptionsAllowed == replicas-1, nil
	})
	if err != nil {
		t.Errorf("PodDisruptionBudget tabula: %v; last status %s; want %d pods healthy, 1 desired, %d disruption allowed", err, last, replicas, replicas-1)
	}
}

// constrainedImpersonation is what examples/constrained-impersonation
// grants instead: impersonating users and groups only for the verbs the
// console sends (no update, no deletecollection), and for the paths of
// discovery, OpenAPI and version.
var constrainedImpersonation = []rule{
	{"authentication.k8s.io", "users", "impersonate:user-info"},
	{"authentication.k8s.io", "groups", "impersonate:user-info"},
	{"*", "*", "impersonate-on:user-info:get"},
	{"*", "*", "impersonate-on:user-info:list"},
	{"*", "*", "impersonate-on:user-info:watch"},
	{"*", "*", "impersonate-on:user-info:create"},
	{"*", "*", "impersonate-on:user-info:patch"},
	{"*", "*", "impersonate-on:user-info:delete"},
}

var constrainedPaths = []string{"/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*", "/version", "/version/"}

// checkConstrainedImpersonation runs with the constrained-impersonation
// component applied (Kubernetes 1.36+): the token's rules are the
// constrained ones; the API server refuses it system:masters and service
// accounts, and a PUT (a verb the console never sends) even for a user
// who may; and the console still acts as the signed-in user.
func checkConstrainedImpersonation(t *testing.T, cs kubernetes.Interface) {
	d := loadDeployed(t, cs)
	dir := t.TempDir()
	token := projectedFiles(t, cs, d, d.pods[0], nil, dir)
	checkServiceAccountRights(t, token, false)

	// The same request as a user of some group, then with system:masters
	// or as a service account. (Which mode's refusal the API server quotes
	// depends on the mode that last succeeded for this token: only the
	// status is checked.)
	whoAmI(t, impersonating(t, token, "mallory", "oidc:tabula:viewers"))
	for _, as := range []struct{ user, group string }{{"mallory", "system:masters"}, {"system:serviceaccount:kube-system:default", ""}} {
		var groups []string
		if as.group != "" {
			groups = append(groups, as.group)
		}
		_, err := impersonating(t, token, as.user, groups...).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("impersonating %+v: %v, want 403", as, err)
		}
	}
	// The paths the console reads as the user: discovery, OpenAPI, version.
	asAlice := impersonating(t, token, alice.email, alice.rbacGroup())
	for _, path := range []string{"/api", "/apis", "/apis/apps/v1", "/openapi/v3", "/version"} {
		if err := asAlice.Discovery().RESTClient().Get().AbsPath(path).Do(t.Context()).Error(); err != nil {
			t.Errorf("GET %s as alice, impersonated: %v", path, err)
		}
	}
	// bob may edit demo: a PATCH as him goes through, a PUT does not.
	if err := patchAsEditor(t, token); err != nil {
		t.Errorf("a PATCH as an editor, impersonated: %v", err)
	}
	if err := updateAsEditor(t, token); !apierrors.IsForbidden(err) {
		t.Errorf("a PUT as an editor, impersonated: %v, want 403", err)
	}

	console := startDeployedConsole(t, d, dir, "constrained")
	checkActsAsTheUser(t, signInOverHTTP(t, console.URL, alice))
}
