package apiclient

import (
	"bytes"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkRecordsOfAPodPage is the console's part of a relation scan's
// list: a page of 100 pods decoded an item at a time, each kept as a
// record (kstatus health, schema links evaluated).
func BenchmarkRecordsOfAPodPage(b *testing.B) {
	c := clientOf(b, openAPIClusters(b, linksServer(b)), Identity{})
	links := kindLinks(b, c, podRes)
	pod := contentOf(b, podObject)
	items := make([]any, 100)
	for i := range items {
		items[i] = pod
	}
	page, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{}, "items": items})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := readListPage(bytes.NewReader(page), func(obj *unstructured.Unstructured) error {
			if rec := newRecord(podRes, obj, links); rec.name != "" {
				n++
			}
			return nil
		}); err != nil || n != len(items) {
			b.Fatalf("%d records, %v", n, err)
		}
	}
}
