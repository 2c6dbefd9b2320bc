package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// The resource metrics API (metrics.k8s.io, served by metrics-server
// through an APIService). Its v1beta1 PodMetrics and NodeMetrics are read
// into the small typed structs below rather than through k8s.io/metrics,
// which the console would import for two structs.
const (
	MetricsGroup   = "metrics.k8s.io"
	MetricsVersion = "v1beta1"
)

// Usage is what a container, pod or node uses: CPU in millicores (rounded
// up, as kubectl top does) and memory (the working set) in bytes.
type Usage struct {
	CPUMilli    int64
	MemoryBytes int64
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{CPUMilli: u.CPUMilli + o.CPUMilli, MemoryBytes: u.MemoryBytes + o.MemoryBytes}
}

// UsageOf reads the cpu and memory of a resource list (usage, requests,
// limits); absent resources count as zero.
func UsageOf(l corev1.ResourceList) Usage {
	var u Usage
	if q, ok := l[corev1.ResourceCPU]; ok {
		u.CPUMilli = q.MilliValue()
	}
	if q, ok := l[corev1.ResourceMemory]; ok {
		u.MemoryBytes = q.Value()
	}
	return u
}

// UsageSample is one metrics-server sample of a pod (its containers
// summed) or a node.
type UsageSample struct {
	Namespace, Name string
	// Timestamp is when the sample was taken; the CPU rate is the average
	// over Window before it. Two reads with the same Timestamp are the
	// same sample.
	Timestamp time.Time
	Window    time.Duration
	Usage     Usage
	// Containers is how many containers a pod's sample sums (0 for nodes).
	Containers int
}

// metricsItem is a v1beta1 PodMetrics or NodeMetrics: pods carry
// containers, nodes a usage.
type metricsItem struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Timestamp  metav1.Time         `json:"timestamp"`
	Window     metav1.Duration     `json:"window"`
	Usage      corev1.ResourceList `json:"usage"`
	Containers []struct {
		Name  string              `json:"name"`
		Usage corev1.ResourceList `json:"usage"`
	} `json:"containers"`
}

func (m *metricsItem) sample() UsageSample {
	s := UsageSample{
		Namespace: m.Metadata.Namespace, Name: m.Metadata.Name,
		Timestamp: m.Timestamp.UTC(), Window: m.Window.Duration,
		Usage: UsageOf(m.Usage), Containers: len(m.Containers),
	}
	for _, c := range m.Containers {
		s.Usage = s.Usage.Add(UsageOf(c.Usage))
	}
	return s
}

// UsageResource is Discovery.UsageResource as c's identity discovers the
// server. Discovery is cached, so asking costs no request, and a server
// whose discovery fails gets none for usage either.
func (c *Client) UsageResource(ctx context.Context, r Resource) (Resource, bool) {
	d, err := c.Discovery(ctx)
	if err != nil {
		return Resource{}, false
	}
	return d.UsageResource(r)
}

// UsageResource returns where the server serves the usage of r's objects:
// pods.metrics.k8s.io for core pods, nodes.metrics.k8s.io for nodes; false
// for any other resource, or when discovery does not list the metrics
// API (no metrics-server, or its APIService is unavailable, which
// discovery reports as a failed group). Pages ask this first, so a server
// without metrics gets no request for them.
func (d *Discovery) UsageResource(r Resource) (Resource, bool) {
	if d == nil || r.Group != "" || (r.Name != "pods" && r.Name != "nodes") {
		return Resource{}, false
	}
	m, ok := d.Lookup(MetricsGroup, MetricsVersion, r.Name)
	if !ok || !m.Can("list") {
		return Resource{}, false
	}
	return m, true
}

// Bounds on metrics-server's answers: a list of about 20,000 pods'
// samples of one container each (ten times what a list page asks for), and
// one pod of many containers.
const (
	maxUsageListBytes   = 8 << 20
	maxUsageSampleBytes = 1 << 20
)

// ListUsage lists the samples of m (a resource UsageResource returned) in
// namespace ("" for all namespaces, and for nodes) matching labelSelector.
// metrics-server answers from memory and does not page, so neither does
// this. Errors are the server's Status (403, or 503 from an unavailable
// APIService), wrapped.
func (c *Client) ListUsage(ctx context.Context, m Resource, namespace, labelSelector string) ([]UsageSample, error) {
	if err := checkNames(namespace); err != nil {
		return nil, err
	}
	req := c.get(m, namespace, "", MediaTypeJSON).MaxRetries(0)
	setParam(req, "labelSelector", labelSelector)
	body, err := readBounded(ctx, req, maxUsageListBytes)
	if err != nil {
		return nil, fmt.Errorf("listing %s.%s: %w", m.Name, m.Group, err)
	}
	var list struct {
		Items []metricsItem `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decoding %s.%s: %w", m.Name, m.Group, err)
	}
	out := make([]UsageSample, len(list.Items))
	for i := range list.Items {
		out[i] = list.Items[i].sample()
	}
	return out, nil
}

// GetUsage reads the current sample of one pod or node. A pod or node
// metrics-server has not scraped yet (or no longer knows) is a NotFound
// Status.
func (c *Client) GetUsage(ctx context.Context, m Resource, namespace, name string) (UsageSample, error) {
	if err := requireNames(name); err != nil {
		return UsageSample{}, err
	}
	if err := checkNames(namespace); err != nil {
		return UsageSample{}, err
	}
	body, err := readBounded(ctx, c.get(m, namespace, name, MediaTypeJSON).MaxRetries(0), maxUsageSampleBytes)
	if err != nil {
		return UsageSample{}, fmt.Errorf("getting %s.%s %q: %w", m.Name, m.Group, name, err)
	}
	var item metricsItem
	if err := json.Unmarshal(body, &item); err != nil {
		return UsageSample{}, fmt.Errorf("decoding %s.%s %q: %w", m.Name, m.Group, name, err)
	}
	return item.sample(), nil
}

// WorkloadSelector is the label selector of a workload's pods
// (spec.selector, matchLabels and matchExpressions), for the kinds whose
// pods are found by it: Deployment, ReplicaSet, StatefulSet,
// DaemonSet and Job. ok is false for other kinds, and for a selector that
// is missing or selects everything: summing a whole namespace is not a
// workload's usage.
func WorkloadSelector(obj *unstructured.Unstructured) (sel labels.Selector, ok bool, err error) {
	switch obj.GroupVersionKind().GroupKind() {
	case gkDeployment, gkReplicaSet, gkStatefulSet, gkDaemonSet, gkJob:
	default:
		return nil, false, nil
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "selector"); !found {
		return nil, false, nil
	}
	sel, err = workloadSelector(obj)
	if err != nil || sel.Empty() {
		return nil, false, err
	}
	return sel, true, nil
}
