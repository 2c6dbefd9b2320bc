package aggregated

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API this server owns.
const (
	Group    = "ops.tabula.dev"
	Version  = "v1alpha1"
	Resource = "probes"
	Kind     = "Probe"
	ListKind = "ProbeList"
	singular = "probe"
)

// groupVersion is ops.tabula.dev/v1alpha1, the apiVersion of every Probe.
var groupVersion = schema.GroupVersion{Group: Group, Version: Version}

// groupResource names probes in Status details (e.g. `probes.ops.tabula.dev "x" not found`).
var groupResource = schema.GroupResource{Group: Group, Resource: Resource}

// Probe is a synthetic health check: where it points and how it last went.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProbeSpec   `json:"spec"`
	Status ProbeStatus `json:"status"`
}

// ProbeSpec is what a probe checks.
type ProbeSpec struct {
	Target          string `json:"target"`
	IntervalSeconds int64  `json:"intervalSeconds"`
}

// ProbeStatus is the outcome of the last check.
type ProbeStatus struct {
	Healthy       bool        `json:"healthy"`
	LatencyMillis int64       `json:"latencyMillis"`
	LastProbeTime metav1.Time `json:"lastProbeTime"`
}

// ProbeList is the plain (non-Table) list response.
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Probe `json:"items"`
}
