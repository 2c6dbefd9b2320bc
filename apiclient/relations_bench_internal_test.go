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
		if _, err := readListPage(bytes.NewReader(page), nil, nil, func(obj *unstructured.Unstructured) error {
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
	p, err := readListPage(bytes.NewReader([]byte(page)), nil, nil, func(o *unstructured.Unstructured) error {
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
		if _, err := readListPage(bytes.NewReader([]byte(bad)), nil, nil, func(*unstructured.Unstructured) error { return nil }); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// A reader that omits fields gets objects without them, and the rest as
// it would be; omitting is cheaper than building (BenchmarkListPageOmitting).
func TestReadListPageOmits(t *testing.T) {
	page := `{"metadata":{"resourceVersion":"7"},"items":[
		{"metadata":{"name":"a","managedFields":[{"manager":"m"}],"labels":{"x":"y"},"generation":2},"spec":{"big":[1,2,3]},"status":{"phase":"Running","n":1}},
		{"metadata":null,"spec":"odd","status":{}},
		{"metadata":"text","status":{"ok":true,"none":null}}]}`
	var got []map[string]any
	p, err := readListPage(bytes.NewReader([]byte(page)), nil, omissionOf([]string{"spec", "metadata.managedFields"}), func(o *unstructured.Unstructured) error {
		got = append(got, o.Object)
		return nil
	})
	if err != nil || p.version != "7" || len(got) != 3 {
		t.Fatalf("page %+v, %d items, %v", p, len(got), err)
	}
	want := []string{
		`{"metadata":{"generation":2,"labels":{"x":"y"},"name":"a"},"status":{"n":1,"phase":"Running"}}`,
		`{"metadata":null,"status":{}}`,
		`{"metadata":"text","status":{"none":null,"ok":true}}`,
	}
	for i, w := range want {
		if b, _ := json.Marshal(got[i]); string(b) != w {
			t.Errorf("item %d = %s, want %s", i, b, w)
		}
	}
	if got[0]["metadata"].(map[string]any)["generation"] != int64(2) {
		t.Errorf("generation %#v", got[0]["metadata"])
	}
}

// BenchmarkListPageOmitting reads a page of 100 pods whole, and without
// what Problems does not read (managedFields, annotations, spec).
func BenchmarkListPageOmitting(b *testing.B) {
	pod := contentOf(b, podObject)
	unstructured.SetNestedSlice(pod, []any{
		map[string]any{"manager": "kubelet", "operation": "Update", "subresource": "status", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:status": map[string]any{"f:conditions": map[string]any{".": map[string]any{}, `k:{"type":"Ready"}`: map[string]any{".": map[string]any{}, "f:status": map[string]any{}}}}}},
		map[string]any{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:containers": map[string]any{`k:{"name":"app"}`: map[string]any{".": map[string]any{}, "f:image": map[string]any{}}}}}},
	}, "metadata", "managedFields")
	items := make([]any, 100)
	for i := range items {
		items[i] = pod
	}
	page, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{}, "items": items})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		omit omission
	}{{"whole", nil}, {"omitting", omissionOf([]string{"metadata.managedFields", "metadata.annotations", "spec"})}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readListPage(bytes.NewReader(page), nil, tc.omit, func(*unstructured.Unstructured) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
