package apitest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MetricsV1Beta1 is the resource metrics API as metrics-server serves it
// through its APIService: metrics.k8s.io/v1beta1 pods (PodMetrics,
// namespaced) and nodes (NodeMetrics), get and list only. Seed it with
// PodMetrics and NodeMetrics; lists take label selectors, as
// metrics-server's do (a PodMetrics carries its pod's labels).
//
// Its failures are injected like any resource's:
//
//	FailResource("metrics.k8s.io", "pods", Forbidden(…))   a user RBAC does not let read metrics
//	FailResource("metrics.k8s.io", "pods", st503)          the APIService is unavailable (503 ServiceUnavailable)
//	Override("/apis/metrics.k8s.io/v1beta1/…", slow)        a metrics-server too slow to answer
//
// Leave it out to model a server without metrics-server: discovery then
// lists no metrics.k8s.io, and a client that asks discovery first sends no
// request for it (Requests shows what was asked).
func MetricsV1Beta1() GroupVersion {
	return GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1",
		Resources: []metav1.APIResource{
			{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: []string{"get", "list"}},
			{Name: "nodes", Kind: "NodeMetrics", Verbs: []string{"get", "list"}},
		},
	}
}

// ContainerUsage is one container of a PodMetrics, its quantities written
// as metrics-server writes them: CPU in nanocores ("12345678n"), memory in
// kibibytes ("65536Ki").
type ContainerUsage struct {
	Name   string
	CPU    string
	Memory string
}

// PodMetrics is a metrics.k8s.io/v1beta1 PodMetrics sample taken at at over
// window, with the pod's labels.
func PodMetrics(namespace, name string, labels map[string]string, at time.Time, window time.Duration, containers ...ContainerUsage) *unstructured.Unstructured {
	cs := make([]any, 0, len(containers))
	for _, c := range containers {
		cs = append(cs, map[string]any{"name": c.Name, "usage": map[string]any{"cpu": c.CPU, "memory": c.Memory}})
	}
	o := Object("metrics.k8s.io/v1beta1", "PodMetrics", namespace, name, map[string]any{
		"timestamp":  at.UTC().Format(time.RFC3339),
		"window":     window.String(),
		"containers": cs,
	})
	o.SetLabels(labels)
	return o
}

// NodeMetrics is a metrics.k8s.io/v1beta1 NodeMetrics sample taken at at
// over window.
func NodeMetrics(name string, at time.Time, window time.Duration, cpu, memory string) *unstructured.Unstructured {
	return Object("metrics.k8s.io/v1beta1", "NodeMetrics", "", name, map[string]any{
		"timestamp": at.UTC().Format(time.RFC3339),
		"window":    window.String(),
		"usage":     map[string]any{"cpu": cpu, "memory": memory},
	})
}

// Node is a Ready node with allocatable cpu and memory (quantities such as
// "4" and "8Gi").
func Node(name string, cpu, memory string) *unstructured.Unstructured {
	return Object("v1", "Node", "", name, map[string]any{
		"status": map[string]any{
			"allocatable": map[string]any{"cpu": cpu, "memory": memory, "pods": "110"},
			"capacity":    map[string]any{"cpu": cpu, "memory": memory, "pods": "110"},
			"conditions":  []any{map[string]any{"type": "Ready", "status": "True"}},
			"nodeInfo":    map[string]any{"kubeletVersion": "v1.36.0-fake"},
		},
	})
}
