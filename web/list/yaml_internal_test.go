package list

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// roundTrip writes obj as a List item, reads it back with
// sigs.k8s.io/yaml (go-yaml, as kubectl reads YAML) and compares it, as
// JSON, with obj.
func roundTrip(t testing.TB, obj map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	_, _ = w.WriteString("items:\n")
	if err := yamlItem(w, obj); err != nil {
		t.Fatal(err)
	}
	_ = w.Flush()
	var back struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := yaml.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("reading back:\n%s\n%v", b.String(), err)
	}
	if len(back.Items) != 1 {
		t.Fatalf("%d items read back from:\n%s", len(back.Items), b.String())
	}
	var got, want any
	wantJSON, _ := json.Marshal(obj)
	_ = json.Unmarshal(wantJSON, &want)
	_ = json.Unmarshal(back.Items[0], &got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back differs:\n%s\ngot  %s\nwant %s", b.String(), back.Items[0], wantJSON)
	}
	return b.String()
}

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestYAMLItemReadsBackAsTheObject(t *testing.T) {
	obj := decodeJSON(t, `{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": {"name": "web-1", "namespace": "demo", "labels": {"app": "web", "yes": "no", "on": "true", "version": "1.10", "empty": ""},
			"annotations": {"a.b/c": "line 1\nline 2\ttab \"q\" \\ ", "x": "key: value # not a comment", "n": "null", "y": "Y", "tilde": "~",
				"star": "*alias", "amp": "&anchor", "bang": "!tag", "pct": "%dir", "at": "@x", "tick": "`+"`x`"+`", "dash": "- item", "q": "?",
				"colon": "a:b", "lead": " space", "trail": "space ", "unicode": "héllo ✓", "ctrl": "\u0007bell", "octal": "0755", "hex": "0x1F",
				"float": "1e3", "sexa": "12:30", "date": "2026-11-27", "inf": ".inf", "merge": "<<", "eq": "=", "brace": "{a: 1}", "bracket": "[1]"}},
		"spec": {"containers": [{"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}], "args": []}],
			"nested": [[1, 2], [], [{"a": null}], [[]]], "emptyMap": {}, "float": 0.5, "big": 1e21, "neg": -3, "t": true, "f": false, "nil": null,
			"keys": {"1": "one", "true": "yes", "": "empty key", "a b": 1}}
	}`)
	out := roundTrip(t, obj)
	// kubectl's layout: sequences at their key's indentation.
	for _, want := range []string{"- apiVersion: v1\n  kind: Pod\n", "\n    containers:\n    - args: []\n      image: \"nginx:1.27\"\n", "      ports:\n      - containerPort: 80\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// A real pod, as kube-apiserver served one of the bench's kwok pods.
func TestYAMLItemOfARealPod(t *testing.T) {
	roundTrip(t, realPod(t))
}

func FuzzYAMLItem(f *testing.F) {
	for _, s := range []string{"plain", "yes", "1.5", "a: b", "", " x", "x\n", "0x10", "é", "\u2028", "\x00", "null", "- a", "a #b"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		if !utf8Valid(key) || !utf8Valid(value) {
			t.Skip("JSON decodes only valid UTF-8")
		}
		roundTrip(t, map[string]any{key: value, "list": []any{value, map[string]any{key: []any{value}}}})
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

// BenchmarkYAMLItem writes a real pod as the YAML export does;
// BenchmarkYAMLItemSigs as sigs.k8s.io/yaml would (the reason for
// yamlItem).
func BenchmarkYAMLItem(b *testing.B) {
	pod := realPod(b)
	w := bufio.NewWriter(io.Discard)
	for b.Loop() {
		_ = yamlItem(w, pod)
	}
}

func BenchmarkYAMLItemSigs(b *testing.B) {
	pod := realPod(b)
	w := bufio.NewWriter(io.Discard)
	for b.Loop() {
		out, _ := yaml.Marshal(pod)
		_, _ = w.Write(out)
	}
}

func realPod(t testing.TB) map[string]any {
	raw, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, string(raw))
}
