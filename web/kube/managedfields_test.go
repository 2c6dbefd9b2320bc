package kube

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestManagedEntries(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"managedFields": []any{
		map[string]any{"manager": "kubectl", "operation": "Apply", "time": "2026-11-26T10:00:00Z", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:replicas": map[string]any{}}, "f:metadata": map[string]any{}}},
		map[string]any{"operation": "Update", "subresource": "status", "time": "bad", "fieldsV1": map[string]any{"f:status": map[string]any{}}},
		"nonsense",
		map[string]any{"manager": "odd", "fieldsType": "FieldsV2"},
		map[string]any{"manager": "broken", "fieldsV1": map[string]any{"z:x": map[string]any{}}},
		map[string]any{"manager": "deep", "fieldsV1": map[string]any{"f:spec": "not an object"}},
	}}}}
	entries, notes := ManagedEntries(obj)
	if len(entries) != 2 || len(notes) != 4 {
		t.Fatalf("%d entries, notes %q", len(entries), notes)
	}
	first := entries[0]
	if first.Manager != "kubectl" || first.Operation != "Apply" || !first.Time.Equal(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)) || !slices.Equal(first.TopLevel(), []string{"metadata", "spec"}) {
		t.Errorf("first entry %+v, top level %q", first, first.TopLevel())
	}
	if second := entries[1]; second.Manager != "(no manager)" || !second.Time.IsZero() || second.Subresource != "status" || second.Index != 1 {
		t.Errorf("second entry %+v", second)
	}
	if entries, notes := ManagedEntries(&unstructured.Unstructured{Object: map[string]any{}}); entries != nil || notes != nil {
		t.Errorf("no managedFields: %v, %q", entries, notes)
	}
}
