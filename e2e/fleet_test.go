//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/e2e/harness"
)

// The fleet: besides the seeded dev control plane (contexts admin, editor,
// viewer and outsider of cluster tabula-dev), the suite's console serves a
// second, unseeded one as the context "second" (its admin, cluster
// tabula-dev-2), for the views of several contexts at once (/c/_all/…,
// /c/a,b/…). The console's kubeconfig, env.kubeconfig, merges the two.
const (
	secondContext = "second"
	secondCluster = "tabula-dev-2"
)

// The one workload of the second cluster, for fleet tests to find and scale:
// a Deployment of secondReplicas pods, Available when the suite starts. A
// test that scales it scales it back. It lives in default, not demo:
// devcluster waits for the metrics of every pod of demo and team-a before
// it is ready, which would make a restart take 20 s rather than 3.
const (
	secondNamespace  = "default"
	secondDeployment = "hello"
	secondReplicas   = 1
)

// consoleContexts are the contexts of the console's kubeconfig: the first
// cluster's as devcluster names them, then the second cluster's admin.
func consoleContexts(first, second string) []harness.KubeconfigContext {
	var cs []harness.KubeconfigContext
	for _, name := range []string{"admin", "editor", "viewer", "outsider"} {
		cs = append(cs, harness.KubeconfigContext{Kubeconfig: first, Context: name})
	}
	return append(cs, harness.KubeconfigContext{Kubeconfig: second, Context: "admin", As: secondContext, Cluster: secondCluster})
}

// startSecond starts the second dev control plane in dataDir and creates
// its workload. Without --seed it is ready in about 5 s, against 17 s with
// (which waits for the demo workloads and their metrics), and the
// Deployment is Available about 1 s later.
func startSecond(ctx context.Context, dataDir string) (*harness.DevCluster, error) {
	dc, err := harness.StartDevCluster(ctx, harness.DevClusterOptions{DataDir: dataDir})
	if err != nil {
		return nil, fmt.Errorf("starting the second dev control plane: %w", err)
	}
	if err := seedSecond(ctx, dc.Kubeconfig); err != nil {
		return dc, fmt.Errorf("seeding the second dev control plane: %w", err)
	}
	return dc, nil
}

// seedSecond creates the second cluster's Deployment, as devcluster's admin,
// and waits until it is Available.
func seedSecond(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// The ServiceAccount admission plugin refuses pods until the namespace
	// has its default ServiceAccount, and the ReplicaSet controller would
	// then back off.
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(secondNamespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s's default ServiceAccount: %w", secondNamespace, err)
	}
	labels := map[string]string{"app": secondDeployment}
	_, err = cs.AppsV1().Deployments(secondNamespace).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: secondDeployment, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(secondReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{{Name: "hello", Image: "nginx:1.27"}},
					TerminationGracePeriodSeconds: new(int64(0)),
				},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	var last string
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(secondNamespace).Get(ctx, secondDeployment, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := d.Status
		last = fmt.Sprintf("generation %d observed %d, %d updated, %d available", d.Generation, s.ObservedGeneration, s.UpdatedReplicas, s.AvailableReplicas)
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == secondReplicas && s.AvailableReplicas == secondReplicas, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s/%s to be Available (%s): %w", secondNamespace, secondDeployment, last, err)
	}
	return nil
}

// restConfig is the client configuration of a context of the console's
// kubeconfig: any of the first cluster's, or "second".
func restConfig(t *testing.T, contextName string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: env.kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: contextName},
	).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// dynamicClient is a dynamic client acting as the context's user, and its
// config.
func dynamicClient(t *testing.T, contextName string) (dynamic.Interface, *rest.Config) {
	t.Helper()
	cfg := restConfig(t, contextName)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, cfg
}

// stopSecond stops the second dev control plane, as a cluster of a fleet
// goes away: its API server refuses connections. It comes back, with its
// data, by startSecondAgain or at the end of the test. Tests run one at a
// time (none calls t.Parallel), so no other test sees it down.
func stopSecond(t *testing.T) {
	t.Helper()
	// Registered first: a stop that fails still leaves it to be started.
	t.Cleanup(func() { startSecondAgain(t) })
	if err := env.second.Stop(30 * time.Second); err != nil {
		t.Fatalf("stopping the second dev control plane: %v", err)
	}
}

// startSecondAgain restarts the second dev control plane if it is stopped,
// on the same data, port, certificates and tokens, so the console's
// kubeconfig reaches it unchanged (4–9 s), and returns once the console
// lists its namespaces again. It does nothing while it runs, so a test may
// also call it in a cleanup of its own.
func startSecondAgain(t *testing.T) {
	t.Helper()
	select {
	case <-env.second.Done():
	default:
		return
	}
	start := time.Now()
	// What restarts outlives the test: tearDown stops it.
	if err := env.second.Restart(context.WithoutCancel(t.Context())); err != nil {
		t.Fatalf("restarting the second dev control plane: %v", err)
	}
	t.Logf("second dev control plane back in %s", time.Since(start).Round(time.Millisecond))
	apitest.WaitFor(t, 30*time.Second, func() error {
		if code, _ := consoleGet(t, "/c/"+secondContext+"/api/v1/namespaces"); code != http.StatusOK {
			return fmt.Errorf("the console answers %d for the second cluster's namespaces", code)
		}
		return nil
	})
}

// consoleDoc gets a console page, fails unless it answers want, and parses
// it.
func consoleDoc(t *testing.T, path string, want int) *goquery.Document {
	t.Helper()
	code, body := consoleGet(t, path)
	if code != want {
		t.Fatalf("GET %s: %d, want %d", path, code, want)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	must(t, err)
	return doc
}

// rowKeys are the keys of a list page's rows: namespace/name, or /name for
// what is cluster-scoped.
func rowKeys(doc *goquery.Document) []string {
	var keys []string
	doc.Find("[data-testid=list-table] tr[data-key]").Each(func(_ int, s *goquery.Selection) {
		keys = append(keys, s.AttrOr("data-key", ""))
	})
	return keys
}

// The console serves the second cluster as the context "second", beside
// the first cluster's contexts, and what it lists there is the second
// cluster's: a namespace made there is listed there and not in admin.
func TestSecondContextServesTheSecondCluster(t *testing.T) {
	cs, _ := clientset(t, secondContext)
	ns := "fleet-" + randomWord(t)
	freshNamespace(t, cs, ns)

	home := consoleDoc(t, "/c/"+secondContext+"/", http.StatusOK)
	bar := home.Find("[data-testid=context-switcher]")
	if got := strings.TrimSpace(bar.Find("[data-testid=current-context]").Text()); got != secondContext {
		t.Errorf("current context %q, want %q", got, secondContext)
	}
	if got := strings.TrimSpace(bar.Find("summary .ctx-cluster").Text()); got != secondCluster {
		t.Errorf("cluster %q, want %q", got, secondCluster)
	}
	if got := strings.TrimSpace(bar.Find(".ctx-server").Text()); got != env.second.Server {
		t.Errorf("server %q, want the second dev control plane's, %s", got, env.second.Server)
	}
	// Every context, each with its cluster (other entries, such as the
	// whole fleet's, may come beside them).
	offered := map[string]string{}
	bar.Find(".ctx-menu li a").Each(func(_ int, s *goquery.Selection) {
		offered[strings.TrimSpace(s.Contents().First().Text())] = strings.TrimSpace(s.Find(".ctx-cluster").Text())
	})
	for name, cluster := range map[string]string{
		"admin": "tabula-dev", "editor": "tabula-dev", "viewer": "tabula-dev", "outsider": "tabula-dev",
		secondContext: secondCluster,
	} {
		if got, ok := offered[name]; !ok || got != cluster {
			t.Errorf("the switcher offers %q, want context %s of cluster %s among them", offered, name, cluster)
		}
	}

	second := rowKeys(consoleDoc(t, "/c/"+secondContext+"/api/v1/namespaces", http.StatusOK))
	for _, want := range []string{"/" + ns, "/default", "/demo", "/kube-system"} {
		if !slices.Contains(second, want) {
			t.Errorf("namespaces of %s: %q, want %s among them", secondContext, second, want)
		}
	}
	if first := rowKeys(consoleDoc(t, "/c/admin/api/v1/namespaces", http.StatusOK)); slices.Contains(first, "/"+ns) {
		t.Errorf("namespace %s of the second cluster is listed in admin: %q", ns, first)
	}
	deployments := rowKeys(consoleDoc(t, "/c/"+secondContext+"/apis/apps/v1/namespaces/"+secondNamespace+"/deployments", http.StatusOK))
	if want := []string{secondNamespace + "/" + secondDeployment}; !slices.Equal(deployments, want) {
		t.Errorf("deployments of %s in %s: %q, want %q", secondContext, secondNamespace, deployments, want)
	}
}

// The second cluster can go away mid-test and come back with its data: the
// console says it is unreachable meanwhile, and the other contexts carry on.
func TestSecondClusterStopsAndComesBack(t *testing.T) {
	cs, _ := clientset(t, secondContext)
	ns := "fleet-" + randomWord(t)
	freshNamespace(t, cs, ns)

	stopSecond(t)
	if code, body := consoleGet(t, "/c/"+secondContext+"/api/v1/namespaces"); code != http.StatusBadGateway {
		t.Errorf("namespaces of a stopped cluster: %d, want 502: %s", code, body)
	}
	if code, _ := consoleGet(t, "/c/admin/api/v1/namespaces"); code != http.StatusOK {
		t.Errorf("namespaces of admin while the second cluster is down: %d, want 200", code)
	}

	startSecondAgain(t)
	pid := env.second.Pid()
	startSecondAgain(t) // running: nothing to do
	if env.second.Pid() != pid {
		t.Errorf("startSecondAgain on a running cluster restarted it (pid %d, then %d)", pid, env.second.Pid())
	}
	if keys := rowKeys(consoleDoc(t, "/c/"+secondContext+"/api/v1/namespaces", http.StatusOK)); !slices.Contains(keys, "/"+ns) {
		t.Errorf("namespace %s is gone after the restart: %q", ns, keys)
	}
	_, err := cs.AppsV1().Deployments(secondNamespace).Get(t.Context(), secondDeployment, metav1.GetOptions{})
	must(t, err)
}
