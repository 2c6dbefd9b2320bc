//go:build e2e

package e2e

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

// bin/devcluster without --seed becomes ready, with metrics.k8s.io served.
// It used to wait for the metrics of every node, which kwok never reports
// for a node that runs no pod, and gave up at its ready timeout.
func TestDevClusterWithoutSeedBecomesReady(t *testing.T) {
	start := time.Now()
	dc, err := harness.StartDevCluster(t.Context(), harness.DevClusterOptions{
		DataDir: t.TempDir(),
		// Ready in about 5 s here, beside the suite's seeded cluster;
		// before the fix it waited for node metrics until this deadline,
		// then gave up, and the harness shows its log.
		ReadyTimeout: 2 * time.Minute,
		Timeout:      3 * time.Minute,
	})
	if err != nil {
		t.Fatalf("devcluster without --seed: %v", err)
	}
	t.Cleanup(func() {
		if err := dc.Stop(30 * time.Second); err != nil {
			t.Errorf("stopping it: %v", err)
		}
	})
	t.Logf("ready in %s", time.Since(start).Round(time.Second))

	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: dc.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: "admin"},
	).ClientConfig()
	must(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	must(t, err)
	// Ready means metrics.k8s.io answers now (its idle nodes have no usage).
	raw, err := cs.RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("metrics.k8s.io at the ready line: %v %s", err, raw)
	}
	var list struct{ Kind string }
	if err := json.Unmarshal(raw, &list); err != nil || list.Kind != "NodeMetricsList" {
		t.Fatalf("node metrics: %v %s", err, raw)
	}
	// And nothing was seeded.
	pods, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{})
	must(t, err)
	if len(pods.Items) != 0 {
		t.Errorf("%d pods in demo without --seed", len(pods.Items))
	}
}
