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

// Items come out as unstructured expects them: integers int64, other
// numbers float64, at any depth; a malformed page is an error.
func TestReadListPageNumbers(t *testing.T) {
	page := `{"kind":"List","metadata":{"continue":"next"},"items":[{"spec":{"replicas":3,"ratio":1.5,"big":1e30,"list":[1,[2.5]]}}]}`
	var got []*unstructured.Unstructured
	p, err := readListPage(bytes.NewReader([]byte(page)), func(o *unstructured.Unstructured) error {
		got = append(got, o)
		return nil
	})
	if err != nil || p.cont != "next" || p.items != 1 || len(got) != 1 {
		t.Fatalf("page %+v, %d items, %v", p, len(got), err)
	}
	spec := got[0].Object["spec"].(map[string]any)
	if spec["replicas"] != int64(3) || spec["ratio"] != 1.5 || spec["big"] != 1e30 {
		t.Errorf("numbers %#v", spec)
	}
	list := spec["list"].([]any)
	if list[0] != int64(1) || list[1].([]any)[0] != 2.5 {
		t.Errorf("numbers in arrays %#v", list)
	}
	for _, bad := range []string{`[]`, `{"items":[{"a":}]}`, `{"items":[1]}`} {
		if _, err := readListPage(bytes.NewReader([]byte(bad)), func(*unstructured.Unstructured) error { return nil }); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
