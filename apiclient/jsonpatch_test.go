package apiclient_test

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/tabula-console/tabula/apiclient"
)

func TestMergeToJSONPatch(t *testing.T) {
	const base = `{"metadata":{"name":"web","resourceVersion":"7","labels":{"app":"web","old":"x"},"annotations":{"a/b":"1"}},
		"spec":{"replicas":3,"ports":[{"port":80}],"selector":"app=web","template":{"spec":{"paused":false}}}}`
	for _, tc := range []struct {
		name       string
		base       string // "" for a nil base
		mergePatch string
		want       string
		err        bool
	}{
		{name: "resourceVersion becomes a test, first", base: base,
			mergePatch: `{"metadata":{"resourceVersion":"7"},"spec":{"replicas":5}}`,
			want:       `[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"add","path":"/spec/replicas","value":5}]`},
		{name: "resourceVersion beside other metadata", base: base,
			mergePatch: `{"metadata":{"resourceVersion":"7","labels":{"tier":"front"}}}`,
			want:       `[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"add","path":"/metadata/labels/tier","value":"front"}]`},
		{name: "resourceVersion alone", base: base, mergePatch: `{"metadata":{"resourceVersion":"7"}}`,
			want: `[{"op":"test","path":"/metadata/resourceVersion","value":"7"}]`},
		{name: "a null resourceVersion is no precondition", base: base, mergePatch: `{"metadata":{"resourceVersion":null},"spec":{"replicas":1}}`,
			want: `[{"op":"add","path":"/spec/replicas","value":1}]`},
		{name: "null removes what is there, and only that", base: base,
			mergePatch: `{"metadata":{"labels":{"old":null,"never":null}},"spec":{"selector":null}}`,
			want:       `[{"op":"remove","path":"/metadata/labels/old"},{"op":"remove","path":"/spec/selector"}]`},
		{name: "an object onto nothing is added whole, without its nulls", base: base,
			mergePatch: `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null,"x":{"y":null,"z":[null]}}}}`,
			want:       `[{"op":"add","path":"/spec/strategy","value":{"type":"Recreate","x":{"z":[null]}}}]`},
		{name: "an object onto a scalar replaces it", base: base, mergePatch: `{"spec":{"selector":{"matchLabels":{"app":"web"}}}}`,
			want: `[{"op":"add","path":"/spec/selector","value":{"matchLabels":{"app":"web"}}}]`},
		{name: "arrays are replaced whole", base: base, mergePatch: `{"spec":{"ports":[{"port":8080}]}}`,
			want: `[{"op":"add","path":"/spec/ports","value":[{"port":8080}]}]`},
		{name: "keys are JSON Pointer escaped", base: base, mergePatch: `{"metadata":{"annotations":{"a/b":"2","c~d":"3"}}}`,
			want: `[{"op":"add","path":"/metadata/annotations/a~1b","value":"2"},{"op":"add","path":"/metadata/annotations/c~0d","value":"3"}]`},
		{name: "false, zero and empty values are added", base: base,
			mergePatch: `{"spec":{"template":{"spec":{"paused":true,"n":0,"s":"","o":{}}}}}`,
			want:       `[{"op":"add","path":"/spec/template/spec/n","value":0},{"op":"add","path":"/spec/template/spec/o","value":{}},{"op":"add","path":"/spec/template/spec/paused","value":true},{"op":"add","path":"/spec/template/spec/s","value":""}]`},
		{name: "large numbers are kept as written", base: base, mergePatch: `{"spec":{"big":12345678901234567890}}`,
			want: `[{"op":"add","path":"/spec/big","value":12345678901234567890}]`},
		{name: "nil base", mergePatch: `{"spec":{"replicas":2},"gone":null}`,
			want: `[{"op":"add","path":"/spec","value":{"replicas":2}}]`},
		{name: "empty merge patch", base: base, mergePatch: `{}`, want: `[]`},
		{name: "not JSON", base: base, mergePatch: `{"spec":`, err: true},
		{name: "not an object", base: base, mergePatch: `[1]`, err: true},
		{name: "null", base: base, mergePatch: `null`, err: true},
		{name: "trailing data", base: base, mergePatch: `{} {}`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if tc.base != "" {
				if err := json.Unmarshal([]byte(tc.base), &doc); err != nil {
					t.Fatal(err)
				}
			}
			got, err := apiclient.MergeToJSONPatch(doc, []byte(tc.mergePatch))
			if tc.err {
				if err == nil {
					t.Fatalf("no error, patch %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			// The JSON Patch must do what the merge patch does.
			raw := []byte(tc.base)
			if tc.base == "" {
				raw = []byte("{}")
			}
			p, err := jsonpatch.DecodePatch(got)
			if err != nil {
				t.Fatal(err)
			}
			viaJSONPatch, err := p.Apply(raw)
			if err != nil {
				t.Fatalf("applying %s: %v", got, err)
			}
			viaMergePatch, err := jsonpatch.MergePatch(raw, []byte(tc.mergePatch))
			if err != nil {
				t.Fatal(err)
			}
			var a, b map[string]any
			_ = json.Unmarshal(viaJSONPatch, &a)
			_ = json.Unmarshal(viaMergePatch, &b)
			if rv, ok := b["metadata"].(map[string]any); ok && rv["resourceVersion"] == nil {
				// A null resourceVersion removes it by merge; the JSON Patch leaves it.
				delete(a["metadata"].(map[string]any), "resourceVersion")
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("JSON Patch gives %s\nmerge patch gives %s", viaJSONPatch, viaMergePatch)
			}
		})
	}
}
