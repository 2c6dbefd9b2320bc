//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tabula-console/tabula/e2e/harness"
)

const deployNamespace = "tabula-system"

// kubectl runs bin/kubectl (built by `make devcluster` from the control
// plane's own module) as the admin context, with a HOME of its own so no
// cache or config of the machine is read or written.
func kubectl(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	bin, err := harness.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(bin, "kubectl")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing (run `make build`): %v", path, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"--context", "admin"}, args...)...)
	cmd.Env = []string{"KUBECONFIG=" + env.cluster.Kubeconfig, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.String(), stderr.String(), err
}

// mustKubectl runs kubectl and fails on an error or any warning (a Pod
// Security violation, say, is a warning on a Deployment).
func mustKubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := kubectl(t, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	if w := warnings(errOut); w != "" {
		t.Fatalf("kubectl %s warned:\n%s", strings.Join(args, " "), w)
	}
	return out
}

// adoptionNotice is what client-side apply says when it first applies an
// object that was created otherwise (the dev control plane makes
// tabula-system for its own impersonator): it adopts it, harmlessly.
const adoptionNotice = "is missing the kubectl.kubernetes.io/last-applied-configuration annotation"

// warnings are the Warning lines of kubectl's stderr but the adoption notice.
func warnings(errOut string) string {
	var w []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.Contains(line, "Warning:") && !strings.Contains(line, adoptionNotice) {
			w = append(w, line)
		}
	}
	return strings.Join(w, "\n")
}

// withComponents copies deploy/ and enables its optional components, as
// an operator does by uncommenting them.
func withComponents(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "deploy")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "deploy"))); err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(dir, "kustomization.yaml")
	b, err := os.ReadFile(k)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "# components:", "components:", 1)
	s = strings.ReplaceAll(s, "#   - examples/", "  - examples/")
	if s == string(b) || !strings.Contains(s, "  - examples/ingress") || !strings.Contains(s, "  - examples/base-path") {
		t.Fatalf("deploy/kustomization.yaml no longer offers the components as commented lines:\n%s", b)
	}
	if err := os.WriteFile(k, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The manifests apply to the dev control plane, dry run on the server first,
// then for real; the objects are there and the pods pass the namespace's
// restricted Pod Security admission. Then the fences around the console's
// credential (deploy_fence_test.go): the pods carry only the projected
// token; that token may impersonate users and groups and nothing else, as
// the API server tells it; the network policy fences the pods' traffic;
// the disruption budget counts the pods; and the console works with the
// token alone, acting as the signed-in user, and follows its rotation.
// With the components, impersonation is the constrained kind.
func TestDeployManifestsApplyToTheControlPlane(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	_, err := cs.CoreV1().Namespaces().Get(ctx, deployNamespace, metav1.GetOptions{})
	existed := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeDeployment(t, existed) })

	deploy := filepath.Join("..", "deploy")
	// On a fresh cluster the server cannot dry-run objects into a namespace
	// it only pretended to create: the namespace goes first, for real, so
	// the dry run also meets its Pod Security labels.
	mustKubectl(t, "apply", "-f", filepath.Join(deploy, "namespace.yaml"))
	dry := mustKubectl(t, "apply", "-k", deploy, "--dry-run=server")
	for _, obj := range []string{"serviceaccount/tabula", "clusterrole.rbac.authorization.k8s.io/tabula", "clusterrolebinding.rbac.authorization.k8s.io/tabula", "service/tabula", "deployment.apps/tabula", "networkpolicy.networking.k8s.io/tabula", "poddisruptionbudget.policy/tabula"} {
		if !strings.Contains(dry, obj+" created (server dry run)") {
			t.Errorf("server dry run did not create %s:\n%s", obj, dry)
		}
	}
	if _, err := cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after the dry run the Deployment exists (err %v)", err)
	}
	components := withComponents(t)
	mustKubectl(t, "apply", "-k", components, "--dry-run=server")
	mustKubectl(t, "apply", "-f", filepath.Join(deploy, "examples", "secret.yaml"), "--dry-run=server")

	mustKubectl(t, "apply", "-k", deploy)

	ns, err := cs.CoreV1().Namespaces().Get(ctx, deployNamespace, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace labels %v, want Pod Security enforce=restricted", ns.Labels)
	}
	if _, err := cs.CoreV1().ServiceAccounts(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{}); err != nil {
		t.Error(err)
	}
	role, err := cs.RbacV1().ClusterRoles().Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"users", "groups"}, Verbs: []string{"impersonate"}}}
	if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].Resources, want[0].Resources) || !slices.Equal(role.Rules[0].Verbs, want[0].Verbs) || !slices.Equal(role.Rules[0].APIGroups, want[0].APIGroups) {
		t.Errorf("ClusterRole tabula rules %+v, want %+v", role.Rules, want)
	}
	svc, err := cs.CoreV1().Services(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].TargetPort.StrVal != "http" {
		t.Errorf("Service %+v", svc.Spec)
	}
	dep, err := cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probes: readiness %s, liveness %s", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	for _, arg := range []string{"--auth=oidc", "--oidc-identity=impersonate", "--listen=0.0.0.0:8080"} {
		if !slices.Contains(c.Args, arg) {
			t.Errorf("container args %q lack %s", c.Args, arg)
		}
	}

	// The ReplicaSet's pods were admitted under enforce=restricted (kwok
	// then runs them: nothing executes the image here).
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		dep, err = cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
		return err == nil && dep.Status.ReadyReplicas == *dep.Spec.Replicas, err
	})
	if err != nil {
		events, _ := cs.CoreV1().Events(deployNamespace).List(ctx, metav1.ListOptions{})
		var msgs []string
		for _, e := range events.Items {
			msgs = append(msgs, e.Reason+": "+e.Message)
		}
		t.Fatalf("Deployment not ready: %v; status %+v; events:\n%s", err, dep.Status, strings.Join(msgs, "\n"))
	}

	d := loadDeployed(t, cs)
	t.Run("the pods get only the projected token", func(t *testing.T) { checkPodsGetOnlyTheProjectedToken(t, cs, d) })
	t.Run("the token is short-lived, bound to its pod, good at the API server alone", func(t *testing.T) {
		checkTheTokenIsShortLivedAndBound(t, cs, d)
	})
	t.Run("the token may impersonate users and groups and nothing else", func(t *testing.T) {
		token := projectedFiles(t, cs, d, d.pods[0], nil, t.TempDir())
		checkServiceAccountRights(t, token, true)
		// What the constrained-impersonation component takes away: with
		// "impersonate" on groups, the token can claim system:masters.
		masters := whoAmI(t, impersonating(t, token, "mallory", "system:masters"))
		if !slices.Contains(masters.Groups, "system:masters") {
			t.Errorf("legacy impersonation of system:masters: %+v", masters)
		}
		for what, write := range map[string]func(*testing.T, string) error{"PATCH": patchAsEditor, "PUT": updateAsEditor} {
			if err := write(t, token); err != nil {
				t.Errorf("a %s as an editor, impersonated: %v", what, err)
			}
		}
	})
	t.Run("the network policy admits the ingress controller and the scraper, and lets out DNS and HTTPS", func(t *testing.T) {
		checkNetworkPolicy(t, cs, d)
	})
	t.Run("the disruption budget lets one replica go at a time", func(t *testing.T) { checkDisruptionBudget(t, cs, d) })
	t.Run("the console acts as the signed-in user with that token alone, and follows its rotation", func(t *testing.T) {
		checkConsoleWithRotatingToken(t, cs, d)
	})

	// The components and the example Secret apply for real too: an Ingress
	// needs no controller to be accepted.
	mustKubectl(t, "apply", "-k", components)
	mustKubectl(t, "apply", "-f", filepath.Join(deploy, "examples", "secret.yaml"))
	ing, err := cs.NetworkingV1().Ingresses(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := ing.Spec.Rules[0].HTTP.Paths[0].Path; p != "/tabula" {
		t.Errorf("Ingress path %q, want /tabula from the base-path component", p)
	}
	dep, err = cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := dep.Spec.Template.Spec.Containers[0]; !slices.Contains(c.Args, "--base-path=/tabula") || c.ReadinessProbe.HTTPGet.Path != "/tabula/readyz" {
		t.Errorf("with the base-path component: args %q, readiness %s", c.Args, c.ReadinessProbe.HTTPGet.Path)
	}
	if _, err := cs.CoreV1().Secrets(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{}); err != nil {
		t.Error(err)
	}
	// The base-path component changed the pod template: the new pods get
	// tokens of their own.
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		dep, err = cs.AppsV1().Deployments(deployNamespace).Get(ctx, "tabula", metav1.GetOptions{})
		st := dep.Status
		return err == nil && st.ObservedGeneration == dep.Generation && st.UpdatedReplicas == *dep.Spec.Replicas &&
			st.ReadyReplicas == *dep.Spec.Replicas && st.Replicas == *dep.Spec.Replicas, err
	})
	if err != nil {
		t.Fatalf("the Deployment did not roll out with the components: %v; status %+v", err, dep.Status)
	}
	t.Run("constrained impersonation: no system:masters, only the console's verbs", func(t *testing.T) {
		checkConstrainedImpersonation(t, cs)
	})
}

// removeDeployment deletes what the test applied, and the namespace only if
// the test created it: other tests' objects may live there.
func removeDeployment(t *testing.T, namespaceExisted bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := clientset(t, "admin")
	bg := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &bg}
	ignore := func(err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleanup: %v", err)
		}
	}
	ignore(cs.AppsV1().Deployments(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.CoreV1().Services(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.CoreV1().Secrets(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.NetworkingV1().Ingresses(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.NetworkingV1().NetworkPolicies(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.PolicyV1().PodDisruptionBudgets(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.CoreV1().ServiceAccounts(deployNamespace).Delete(ctx, "tabula", opts))
	ignore(cs.RbacV1().ClusterRoleBindings().Delete(ctx, "tabula", opts))
	ignore(cs.RbacV1().ClusterRoles().Delete(ctx, "tabula", opts))
	if !namespaceExisted {
		ignore(cs.CoreV1().Namespaces().Delete(ctx, deployNamespace, opts))
	}
}

// The console in a pod's shoes: no kubeconfig anywhere, only a service
// account's token and CA (from a TokenRequest) and KUBERNETES_SERVICE_*.
// It lists pods as that service account and gets its 403s.
func TestConsoleRunsInClusterModeWithAServiceAccount(t *testing.T) {
	cs, adminCfg := clientset(t, "admin")
	ctx := t.Context()
	const ns, name = "tabula-incluster-e2e", "console"
	cleanupCtx := context.WithoutCancel(ctx)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(cleanupCtx, ns, metav1.DeleteOptions{}) })
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Test-only: the service account may view namespace demo.
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-view", Namespace: "demo"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
	}
	if _, err := cs.RbacV1().RoleBindings("demo").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.RbacV1().RoleBindings("demo").Delete(cleanupCtx, binding.Name, metav1.DeleteOptions{}) })
	expiry := int64(3600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	saDir := t.TempDir()
	for file, body := range map[string][]byte{"token": []byte(tr.Status.Token), "ca.crt": adminCfg.CAData, "namespace": []byte(ns)} {
		if len(body) == 0 {
			t.Fatalf("nothing to write to %s", file)
		}
		if err := os.WriteFile(filepath.Join(saDir, file), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	server, err := url.Parse(env.cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	// The console's whole environment: the test's KUBECONFIG, HOME (and
	// ~/.kube/config) and TABULA_* stay out.
	console, err := harness.StartConsoleWith(ctx, harness.ConsoleOptions{
		LogDir: t.TempDir(),
		Env: []string{
			"HOME=" + t.TempDir(),
			"KUBECONFIG=",
			"KUBERNETES_SERVICE_HOST=" + server.Hostname(),
			"KUBERNETES_SERVICE_PORT=" + server.Port(),
			"TABULA_SERVICE_ACCOUNT_DIR=" + saDir,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = console.Stop(10 * time.Second) })

	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string, want int) *goquery.Document {
		t.Helper()
		resp, err := client.Get(console.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d\n%s", path, resp.StatusCode, want, body)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}

	// / leads to the one context there is.
	home := get("/", http.StatusOK)
	if got := strings.TrimSpace(home.Find("[data-testid=current-context]").Text()); got != "in-cluster" {
		t.Errorf("current context %q, want in-cluster", got)
	}
	get("/readyz", http.StatusOK)

	pods := get("/c/in-cluster/api/v1/namespaces/demo/pods", http.StatusOK)
	var rows []string
	pods.Find("tr[data-key]").Each(func(_ int, s *goquery.Selection) { rows = append(rows, s.AttrOr("data-key", "")) })
	if !slices.ContainsFunc(rows, func(k string) bool { return strings.HasPrefix(k, "demo/web-") }) {
		t.Errorf("demo's pods as the service account: rows %q, want the web pods", rows)
	}

	// view allows no Secrets, and nothing outside demo; the API server's
	// refusal names the service account, so that is who asked.
	for _, path := range []string{"/c/in-cluster/api/v1/namespaces/demo/secrets", "/c/in-cluster/api/v1/namespaces/team-a/pods"} {
		page := get(path, http.StatusForbidden)
		if code := strings.TrimSpace(page.Find("[data-testid=error-code]").Text()); code != "403" {
			t.Errorf("%s: error code %q", path, code)
		}
		if msg := page.Find("[data-testid=error-message]").Text(); !strings.Contains(msg, "system:serviceaccount:"+ns+":"+name) {
			t.Errorf("%s: the 403 does not name the service account: %q", path, msg)
		}
	}
}
