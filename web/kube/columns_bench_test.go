package kube

import (
	"encoding/json"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// BenchmarkCustomColumns200 builds 200 rows with two custom columns from
// whole pod objects: the decoding and JSONPath a custom-column page adds.
func BenchmarkCustomColumns200(b *testing.B) {
	// A pod with the metadata kwok's pods have (managedFields above all).
	pod := apitest.Pod("bulk", "bulk-00001", nil)
	var meta struct{ Metadata map[string]any }
	if err := json.Unmarshal(apitest.KwokPodTableMetadata(1).Rows[0].Object.Raw, &meta); err != nil {
		b.Fatal(err)
	}
	pod.Object["metadata"] = meta.Metadata
	raw, err := json.Marshal(pod.Object)
	if err != nil {
		b.Fatal(err)
	}
	table := &apiclient.Table{Served: apiclient.TableV1, Columns: []apiclient.Column{{Name: "Name", Type: "string", Format: "name"}}}
	for range 200 {
		table.Rows = append(table.Rows, apiclient.Row{Cells: []any{"bulk-00001"}, Raw: raw})
	}
	cols, err := ParseCustomColumns("IMAGE:.spec.containers[*].image,NODE:.spec.nodeName")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		view := NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: "bulk", Table: table, CustomColumns: cols})
		if rows := view.Rows(table.Rows); rows[0].Cells[1].Text != "registry.example.com/app:1" {
			b.Fatalf("cells %+v", rows[0].Cells)
		}
	}
	b.ReportMetric(float64(len(raw)), "bytes/object")
}
