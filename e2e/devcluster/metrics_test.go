package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kwok/pkg/apis/v1alpha1"
	"sigs.k8s.io/kwok/pkg/kwok/metrics"
	"sigs.k8s.io/yaml"
)

// celEnv is the CEL environment kwok evaluates usage and metric
// expressions in (pkg/kwok/server/metrics.go), with fixed figures standing
// in for kwok's own bookkeeping.
func celEnv(t *testing.T) *metrics.Environment {
	t.Helper()
	env, err := metrics.NewEnvironment(metrics.EnvironmentConfig{
		StartedContainersTotal:           func(string) int64 { return 1 },
		ContainerResourceUsage:           func(string, string, string, string) float64 { return 1 },
		PodResourceUsage:                 func(string, string, string) float64 { return 1 },
		NodeResourceUsage:                func(string, string) float64 { return 1 },
		ContainerResourceCumulativeUsage: func(string, string, string, string) float64 { return 0 },
		PodResourceCumulativeUsage:       func(string, string, string) float64 { return 0 },
		NodeResourceCumulativeUsage:      func(string, string) float64 { return 0 },
	})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func readKwokObject(t *testing.T, name string, into any) {
	t.Helper()
	data, err := metricsFiles.ReadFile("kwokmetrics/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The usage expressions stay within their documented ranges and move from
// one evaluation to the next; a typo would make kwok report 0 at run time.
func TestResourceUsageExpressions(t *testing.T) {
	var usage v1alpha1.ClusterResourceUsage
	readKwokObject(t, "resource-usage.yaml", &usage)
	if len(usage.Spec.Usages) != 1 {
		t.Fatalf("usages: %+v", usage.Spec.Usages)
	}
	env := celEnv(t)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0"}}
	requests := corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
	}}
	annotated := map[string]string{"kwok.x-k8s.io/usage-cpu": "1", "kwok.x-k8s.io/usage-memory": "1Gi"}
	const mi = 1 << 20
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		resources   corev1.ResourceRequirements
		cpu, memory [2]float64 // [min, max]
	}{
		{"requests", nil, requests, [2]float64{0.02, 0.06}, [2]float64{32 * mi, 38.4 * mi}},
		{"no requests", nil, corev1.ResourceRequirements{}, [2]float64{0.0025, 0.0075}, [2]float64{16 * mi, 19.2 * mi}},
		{"annotations", annotated, requests, [2]float64{0.5, 1.5}, [2]float64{0.9 * 1024 * mi, 1.08 * 1024 * mi}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			container := corev1.Container{Name: "app", Resources: tc.resources}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo", Annotations: tc.annotations},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{container}},
			}
			data := metrics.Data{Node: node, Pod: pod, Container: &container}
			for resourceName, want := range map[string][2]float64{"cpu": tc.cpu, "memory": tc.memory} {
				expr := usage.Spec.Usages[0].Usage[resourceName].Expression
				if expr == nil {
					t.Fatalf("no %s expression", resourceName)
				}
				seen := map[float64]bool{}
				for range 200 {
					eval, err := env.Compile(*expr)
					if err != nil {
						t.Fatal(err)
					}
					got, err := eval.EvaluateFloat64(context.Background(), data)
					if err != nil {
						t.Fatal(err)
					}
					// kwok's quantity arithmetic truncates to thousandths.
					if got < want[0]-0.001 || got > want[1]+0.001 {
						t.Fatalf("%s = %v, want within %v", resourceName, got, want)
					}
					seen[got] = true
				}
				// At least a few: 2.5m-7.5m of CPU truncates to 2m-7m.
				if len(seen) < 4 {
					t.Errorf("%s took only %d values in 200 evaluations", resourceName, len(seen))
				}
			}
		})
	}
}

// Every expression of the Metric kwok serves compiles, and the CPU counters
// never read 0 (see the comment in metrics-resource.yaml).
func TestMetricExpressionsCompile(t *testing.T) {
	var metric v1alpha1.Metric
	readKwokObject(t, "metrics-resource.yaml", &metric)
	if metric.Spec.Path != "/metrics/nodes/{nodeName}/metrics/resource" || kwokMetricsPath("n") != "/metrics/nodes/n/metrics/resource" {
		t.Errorf("path %q does not match kwokMetricsPath", metric.Spec.Path)
	}
	env := celEnv(t)
	container := corev1.Container{Name: "app"}
	data := metrics.Data{
		Node:      &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0"}},
		Pod:       &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}, Spec: corev1.PodSpec{Containers: []corev1.Container{container}}},
		Container: &container,
	}
	for _, m := range metric.Spec.Metrics {
		for _, expr := range append([]string{m.Value}, labelValues(m.Labels)...) {
			if _, err := env.Compile(expr); err != nil {
				t.Errorf("%s: %q: %v", m.Name, expr, err)
			}
		}
		if strings.HasSuffix(m.Name, "_cpu_usage_seconds_total") {
			eval, err := env.Compile(m.Value)
			if err != nil {
				continue
			}
			if got, err := eval.EvaluateFloat64(context.Background(), data); err != nil || got <= 0 {
				t.Errorf("%s with no usage yet = %v, %v; want > 0", m.Name, got, err)
			}
		}
	}
}

func labelValues(labels []v1alpha1.MetricLabel) []string {
	var out []string
	for _, l := range labels {
		out = append(out, l.Value)
	}
	return out
}

// kwok's --config carries the Metric and the ClusterResourceUsage.
func TestKwokConfigHasMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kwok.yaml")
	if err := writeKwokConfig(path, "/tmp/demo.log", ""); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		kinds[meta.Kind]++
	}
	if kinds["Metric"] != 1 || kinds["ClusterResourceUsage"] != 1 || kinds["Stage"] == 0 || kinds["ClusterLogs"] != 1 {
		t.Errorf("kinds in kwok's config: %v", kinds)
	}
}

// Ready means metrics.k8s.io serves the pods waited for and the nodes they
// run on. An idle node never has metrics (metrics-server drops a node whose
// memory reads 0), so without pods, as without --seed, serving is enough.
func TestMetricsReadyWaitsOnlyForNodesThatRunPods(t *testing.T) {
	pod := func(name, node string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	}
	for _, tc := range []struct {
		name       string
		snapshot   metricsSnapshot
		wantReady  bool
		wantReason string
	}{
		{"no pods, as without --seed: no node metrics needed",
			metricsSnapshot{discovered: true}, true, ""},
		{"no pods, not in discovery yet",
			metricsSnapshot{}, false, "aggregated discovery does not list metrics.k8s.io yet"},
		{"a pod without metrics",
			metricsSnapshot{runningPods: []corev1.Pod{pod("web-1", "kwok-node-0")}, nodeMetrics: map[string]bool{"kwok-node-0": true}, discovered: true},
			false, "no metrics yet for pod demo/web-1"},
		{"the node of a pod without metrics",
			metricsSnapshot{runningPods: []corev1.Pod{pod("web-1", "kwok-node-1")}, podMetrics: map[string]bool{"demo/web-1": true}, discovered: true},
			false, "no metrics yet for node kwok-node-1, which runs pod demo/web-1"},
		{"pods and their node served; the idle node kwok-node-0 is not waited for",
			metricsSnapshot{runningPods: []corev1.Pod{pod("web-1", "kwok-node-1"), pod("web-2", "kwok-node-1")},
				podMetrics: map[string]bool{"demo/web-1": true, "demo/web-2": true}, nodeMetrics: map[string]bool{"kwok-node-1": true}, discovered: true},
			true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ready, reason := tc.snapshot.ready()
			if ready != tc.wantReady || reason != tc.wantReason {
				t.Errorf("ready() = %v %q, want %v %q", ready, reason, tc.wantReady, tc.wantReason)
			}
		})
	}
}
