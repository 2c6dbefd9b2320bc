package aggregated

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// parseIncludeObject reads ?includeObject=; kube-apiserver's default is Metadata.
func parseIncludeObject(v string) (metav1.IncludeObjectPolicy, error) {
	switch p := metav1.IncludeObjectPolicy(v); p {
	case "":
		return metav1.IncludeMetadata, nil
	case metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
		return p, nil
	default:
		return "", fmt.Errorf("includeObject must be one of None, Metadata, Object, not %q", v)
	}
}

// probeColumns are the Table columns, in the order of the row cells.
// Interval has priority 1, so clients show it only in a wide view.
func probeColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Target", Type: "string", Description: "What the probe checks."},
		{Name: "Healthy", Type: "boolean", Description: "Whether the last check succeeded."},
		{Name: "Latency", Type: "integer", Description: "Latency of the last check, in milliseconds."},
		{Name: "Interval", Type: "integer", Priority: 1, Description: "Seconds between checks."},
		{Name: "Age", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	}
}

// tableOf renders probes as a meta.k8s.io Table of the given version.
func tableOf(probes []Probe, list metav1.ListMeta, version string, include metav1.IncludeObjectPolicy, now time.Time) (*metav1.Table, error) {
	t := &metav1.Table{
		TypeMeta:          metav1.TypeMeta{APIVersion: "meta.k8s.io/" + version, Kind: "Table"},
		ListMeta:          list,
		ColumnDefinitions: probeColumns(),
		Rows:              make([]metav1.TableRow, 0, len(probes)),
	}
	for i := range probes {
		p := &probes[i]
		row := metav1.TableRow{Cells: []any{
			p.Name,
			p.Spec.Target,
			p.Status.Healthy,
			p.Status.LatencyMillis,
			p.Spec.IntervalSeconds,
			duration.HumanDuration(now.Sub(p.CreationTimestamp.Time)),
		}}
		obj, err := rowObject(p, version, include)
		if err != nil {
			return nil, err
		}
		row.Object = obj
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// rowObject is the object a row carries. RawExtension marshals only Raw, so
// the object is encoded here.
func rowObject(p *Probe, version string, include metav1.IncludeObjectPolicy) (runtime.RawExtension, error) {
	var obj any
	switch include {
	case metav1.IncludeNone:
		return runtime.RawExtension{}, nil
	case metav1.IncludeObject:
		obj = p
	default:
		obj = &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/" + version, Kind: "PartialObjectMetadata"},
			ObjectMeta: p.ObjectMeta,
		}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return runtime.RawExtension{}, err
	}
	return runtime.RawExtension{Raw: raw}, nil
}
