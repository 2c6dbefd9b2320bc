package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tabula-console/tabula/web/edit/yamltext"
	"github.com/tabula-console/tabula/web/textdiff"
)

func mustParse(t *testing.T, text string) map[string]any {
	t.Helper()
	m, err := yamltext.Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return m
}

func mustPatch(t *testing.T, base, edited map[string]any) string {
	t.Helper()
	p, err := MergePatch(base, edited)
	if err != nil {
		t.Fatalf("MergePatch: %v", err)
	}
	return string(p)
}

// The editor's path: an object as the API client decodes it (int64,
// float64, json.Number) is rendered, and the text parsed twice, as loaded
// and as edited. Untouched, nothing changes; each real edit is exactly one
// change.
func TestNoChurn(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "labels": map[string]any{"app.kubernetes.io/name": "t", "enabled": "yes"}},
		"spec": map[string]any{
			"one": 1.0, "thousand": 1e3, "half": 0.5, "negZero": json.Number("-0"), "int": int64(3),
			"maxSafePlusOne": json.Number("9007199254740993"), "big": json.Number("12345678901234567890"),
			"strings":  []any{"yes", "on", "no", "y", "1.0", "0x1F", "~", "", "2024-01-01", "1:20", "true"},
			"when":     "2024-01-01",
			"script":   "#!/bin/sh\necho hi\n",
			"unicode":  "日本語 ✓",
			"empty":    map[string]any{},
			"none":     []any{},
			"nothing":  nil,
			"nested":   map[string]any{"a": map[string]any{"b": map[string]any{"c": json.Number("1e3")}}},
			"weird":    "crlf\r\nand\ttab",
			"trailing": "x \n",
		},
	}
	text, err := yamltext.Editable(obj, yamltext.ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	base := mustParse(t, text)
	if p := mustPatch(t, base, mustParse(t, text)); p != "{}" {
		t.Fatalf("untouched text gives %s\n%s", p, text)
	}
	for _, tc := range []struct{ from, to, patch string }{
		{"maxSafePlusOne: 9007199254740993", "maxSafePlusOne: 9007199254740992", `{"spec":{"maxSafePlusOne":9007199254740992}}`},
		{"big: 12345678901234567890", "big: 12345678901234567891", `{"spec":{"big":12345678901234567891}}`},
		{"one: 1", "one: 1.0", `{}`}, // the same number
		{"one: 1", "one: 1.5", `{"spec":{"one":1.5}}`},
		{"half: 0.5", "half: 0.50000000000000000001", `{"spec":{"half":0.50000000000000000001}}`},
		{"thousand: 1000", "thousand: 1e3", `{}`},
		{"negZero: 0", "negZero: -0", `{}`},
		{"when: \"2024-01-01\"", "when: 2024-01-01", `{}`}, // a timestamp stays a string
		{"- \"yes\"", "- yes", `{"spec":{"strings":[true,"on","no","y","1.0","0x1F","~","","2024-01-01","1:20","true"]}}`},
		{"enabled: \"yes\"", "enabled: \"no\"", `{"metadata":{"labels":{"enabled":"no"}}}`},
		{"c: 1000", "c: \"1000\"", `{"spec":{"nested":{"a":{"b":{"c":"1000"}}}}}`},
	} {
		if !strings.Contains(text, tc.from) {
			t.Fatalf("the text lacks %q:\n%s", tc.from, text)
		}
		edited := mustParse(t, strings.Replace(text, tc.from, tc.to, 1))
		if p := mustPatch(t, base, edited); p != tc.patch {
			t.Errorf("%q → %q: got %s, want %s", tc.from, tc.to, p, tc.patch)
		}
	}
}

func TestMergePatch(t *testing.T) {
	for _, tc := range []struct {
		name, base, edited, want string
	}{
		{"equal", "a: 1\n", "a: 1\n", `{}`},
		{"set", "a: 1\n", "a: 2\n", `{"a":2}`},
		{"add", "a: 1\n", "a: 1\nb: x\n", `{"b":"x"}`},
		{"nested", "spec:\n  a:\n    b: 1\n    c: 2\n", "spec:\n  a:\n    b: 1\n    c: 3\n", `{"spec":{"a":{"c":3}}}`},
		{"deletion → null", "a: 1\nb:\n  c: 1\n  d: 2\n", "a: 1\nb:\n  c: 1\n", `{"b":{"d":null}}`},
		{"deleting a map", "a: 1\nb:\n  c: 1\n", "a: 1\n", `{"b":null}`},
		{"emptying a map", "b:\n  c: 1\n  d: 1\n", "b: {}\n", `{"b":{"c":null,"d":null}}`},
		{"arrays whole", "l: [a, b, c]\n", "l: [a, x, c]\n", `{"l":["a","x","c"]}`},
		{"array of maps whole", "l:\n- name: a\n  v: 1\n- name: b\n", "l:\n- name: a\n  v: 2\n- name: b\n", `{"l":[{"name":"a","v":2},{"name":"b"}]}`},
		{"array emptied", "l: [a]\n", "l: []\n", `{"l":[]}`},
		{"empty map vs null", "a: {}\n", "a:\n", `{"a":null}`},
		{"null vs empty map", "a:\n", "a: {}\n", `{"a":{}}`},
		{"null for an absent key is no change", "a: 1\n", "a: 1\nb:\nc: {x: null}\n", `{"c":{}}`},
		{"null for a null key is no change", "a:\n", "a: ~\n", `{}`},
		{"null removes a key", "a: 1\nb: 2\n", "a: 1\nb: null\n", `{"b":null}`},
		{"type change number → string", "a: 1\n", "a: \"1\"\n", `{"a":"1"}`},
		{"type change string → number", "a: \"1\"\n", "a: 1\n", `{"a":1}`},
		{"type change map → list", "a: {b: 1}\n", "a: [b]\n", `{"a":["b"]}`},
		{"keys with dots and slashes", "labels:\n  app.kubernetes.io/name: a\n", "labels:\n  app.kubernetes.io/name: b\n  example.com/x: \"on\"\n", `{"labels":{"app.kubernetes.io/name":"b","example.com/x":"on"}}`},
		{"unicode", "a: é\n", "a: 日本\n", `{"a":"日本"}`},
		{"no HTML escaping", "a: x\n", "a: <b>&</b>\n", `{"a":"<b>&</b>"}`},
		{"strings that look tagged", "a: n1\nb: s1\n", "a: s1\nb: n1\n", `{"a":"s1","b":"n1"}`},
		{"big integers exact", "a: 9007199254740993\n", "a: 9007199254740992\n", `{"a":9007199254740992}`},
		{"big integer kept as written", "a: 1\n", "a: 12345678901234567890\n", `{"a":12345678901234567890}`},
		{"fraction past float64", "a: 0.1\n", "a: 0.1000000000000000055511151231257827\n", `{"a":0.1000000000000000055511151231257827}`},
	} {
		got := mustPatch(t, mustParse(t, tc.base), mustParse(t, tc.edited))
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestMergePatchApply(t *testing.T) {
	// Apply(base, MergePatch(base, edited)) is edited, but for the nulls a
	// merge patch cannot set.
	for _, pair := range [][2]string{
		{"a: 1\nb: {c: [1, 2]}\n", "a: 2\nb: {d: x}\n"},
		{"spec:\n  big: 12345678901234567890\n", "spec:\n  big: 12345678901234567891\n  f: 0.1000000000000000055511151231257827\n"},
		{"a: {b: {c: 1}}\n", "a: {b: {}}\n"},
		{"a: [1, null, {x: null}]\n", "a: [1, null, {x: null, z: 1}]\n"},
		{"a: x\n", "a: {b: null, c: 1}\n"},
	} {
		base, edited := mustParse(t, pair[0]), mustParse(t, pair[1])
		p := mustPatch(t, base, edited)
		got, err := Apply(base, []byte(p))
		if err != nil {
			t.Fatal(err)
		}
		if !sameValue(got, edited) {
			t.Errorf("%q → %q: patch %s gives %#v", pair[0], pair[1], p, got)
		}
	}
}

func TestMergePatchTooLarge(t *testing.T) {
	big := strings.Repeat("x", yamltext.MaxText)
	if _, err := MergePatch(map[string]any{}, map[string]any{"a": big}); !errors.Is(err, yamltext.ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
	if _, err := WithResourceVersion([]byte(`{"a":"`+big[:yamltext.MaxText-20]+`"}`), "12345678901234567890"); !errors.Is(err, yamltext.ErrTooLarge) {
		t.Errorf("WithResourceVersion: got %v, want ErrTooLarge", err)
	}
}

func TestApply(t *testing.T) {
	doc := map[string]any{
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"a": "1"}},
		"spec":     map[string]any{"replicas": int64(2), "big": json.Number("12345678901234567890"), "f": 1.5},
	}
	got, err := Apply(doc, []byte(`{"metadata":{"labels":{"a":null,"b":"2"}},"spec":{"replicas":3.0,"l":[1,null]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"b": "2"}},
		"spec":     map[string]any{"replicas": json.Number("3"), "big": json.Number("12345678901234567890"), "f": json.Number("1.5"), "l": []any{json.Number("1"), nil}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	if doc["spec"].(map[string]any)["replicas"] != int64(2) {
		t.Error("Apply changed its argument")
	}
	for _, bad := range []string{`[1]`, `"x"`, `null`, `{`, ``} {
		if _, err := Apply(doc, []byte(bad)); err == nil {
			t.Errorf("patch %q applied", bad)
		}
	}
	if got, err := Apply(nil, []byte(`{"a":1}`)); err != nil || !reflect.DeepEqual(got, map[string]any{"a": json.Number("1")}) {
		t.Errorf("onto nil: %#v, %v", got, err)
	}
}

func TestWithResourceVersion(t *testing.T) {
	for _, tc := range []struct{ patch, want string }{
		{`{}`, `{"metadata":{"resourceVersion":"42"}}`},
		{`{"spec":{"x":1}}`, `{"metadata":{"resourceVersion":"42"},"spec":{"x":1}}`},
		{`{"metadata":{"labels":{"a":null}}}`, `{"metadata":{"labels":{"a":null},"resourceVersion":"42"}}`},
		{`{"metadata":{"resourceVersion":"7"}}`, `{"metadata":{"resourceVersion":"42"}}`},
		{`{"a":12345678901234567890}`, `{"a":12345678901234567890,"metadata":{"resourceVersion":"42"}}`},
	} {
		got, err := WithResourceVersion([]byte(tc.patch), "42")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.patch, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{"metadata":null}`, `{"metadata":"x"}`, `[]`, `nope`} {
		if got, err := WithResourceVersion([]byte(bad), "42"); err == nil {
			t.Errorf("%s: got %s", bad, got)
		}
	}
}

func TestIsEmptyPatch(t *testing.T) {
	for patch, want := range map[string]bool{
		`{}`:                                    true,
		` { } `:                                 true,
		`{"metadata":{"resourceVersion":"42"}}`: true,
		`{"metadata":{}}`:                       true,
		`{"metadata":{"resourceVersion":"42","labels":{"a":"b"}}}`: false,
		`{"metadata":null}`: false,
		`{"spec":{}}`:       false,
		`{"a":null}`:        false,
		`[]`:                false,
		`null`:              false,
		``:                  false,
	} {
		if got := IsEmptyPatch([]byte(patch)); got != want {
			t.Errorf("IsEmptyPatch(%s) = %v", patch, got)
		}
	}
}

// fuzzSeeds are documents FuzzPatch starts from.
var fuzzSeeds = []string{
	"a: 1\n",
	loaded,
	"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{}'\ndata:\n  k: dg==\nstatus: {x: 1}\n",
	"n:\n  one: 1.0\n  thousand: 1e3\n  half: 0.5\n  negzero: -0\n  safe: 9007199254740993\n  big: 12345678901234567890\n  huge: 1e400\n  hex: 0x1F\n  oct: 0777\n",
	"s: [\"yes\", \"on\", \"no\", \"y\", \"1.0\", \"0x1F\", \"~\", \"\", \"2024-01-01\", 2024-01-01, \"1:20\", \"=\", \"<<\"]\n",
	"b: [yes, on, no, y, n, off, ~, null, true]\n",
	"text:\n  lit: |\n    one\n    two\n  keep: |+\n    x\n\n  fold: >\n    a\n    b\n  quoted: \"tab\\there\\r\\nnel\\u0085\"\n",
	"unicode: {日本: 語, é: \"ü\", emoji: \"🚀\"}\n",
	"empty: {}\nnone: []\nnothing:\nnull2: ~\n",
	"labels:\n  app.kubernetes.io/name: x\n  example.com/a.b: \"on\"\n  \"80\": http\n",
	"base: &b {p: 1, q: [1, 2]}\nm:\n  <<: *b\n  q: 3\nl: [*b, *b]\n",
	"deep: {a: {b: {c: {d: {e: [1, [2, [3, {f: g}]]]}}}}}\n",
	"k: \" lead\"\nt: \"trail \"\nh: \"#c\"\nd: \"- x\"\nc: \"a: b\"\nm: \"x\\n\\ty\"\n",
}

// mutate derives an edited object from base, steered by the bytes of how.
func mutate(base map[string]any, how string) map[string]any {
	out := runtime.DeepCopyJSONValue(base).(map[string]any)
	values := []any{"yes", "1.0", "", "x\ny", json.Number("9007199254740993"), json.Number("9007199254740992"),
		json.Number("1"), nil, true, map[string]any{}, []any{}, []any{"a", json.Number("2")}, map[string]any{"n": "v"}}
	for i := 0; i+1 < len(how); i += 2 {
		op, pick := how[i], int(how[i+1])
		// Walk down to a map.
		m := out
		for depth := 0; depth < int(op>>4); depth++ {
			keys := sortedKeys(m)
			if len(keys) == 0 {
				break
			}
			next, ok := m[keys[pick%len(keys)]].(map[string]any)
			if !ok {
				break
			}
			m = next
		}
		keys := sortedKeys(m)
		switch op % 4 {
		case 0:
			if len(keys) > 0 {
				delete(m, keys[pick%len(keys)])
			}
		case 1:
			if len(keys) > 0 {
				m[keys[pick%len(keys)]] = runtime.DeepCopyJSONValue(values[pick%len(values)])
			}
		case 2:
			m[fmt.Sprintf("k%d.x/y", pick)] = runtime.DeepCopyJSONValue(values[pick%len(values)])
		case 3:
			if len(keys) > 0 {
				m[keys[pick%len(keys)]] = map[string]any{"nested": runtime.DeepCopyJSONValue(values[pick%len(values)])}
			}
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkRoundTrip: the editor's text of obj reads back as obj, and renders
// again to the same text.
func checkRoundTrip(t *testing.T, obj map[string]any) {
	for _, opts := range []yamltext.ViewOptions{{Status: true, SecretData: true}, {}} {
		text, err := yamltext.Editable(obj, opts)
		if err != nil {
			t.Fatalf("Editable(%#v): %v", obj, err)
		}
		back, err := yamltext.Parse(text)
		if errors.Is(err, yamltext.ErrTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("the editor's text does not parse: %v\n%s", err, text)
		}
		want, _ := yamltext.Normalize(yamltext.EditableObject(obj, opts))
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("round trip:\n%s\nreads back as %#v\nwant %#v", text, back, want)
		}
		again, err := yamltext.Editable(back, opts)
		if err != nil || again != text {
			t.Fatalf("rendered again:\n%s\nfirst:\n%s", again, text)
		}
	}
}

// FuzzPatch parses two YAML texts (or one and a mutation of it), and checks
// that the editor's text round-trips and that the merge patch between them
// applies to the second, as far as RFC 7386 can say it.
func FuzzPatch(f *testing.F) {
	for i, a := range fuzzSeeds {
		f.Add(a, fuzzSeeds[(i+1)%len(fuzzSeeds)])
		f.Add(a, "\x01\x03\x12\x07\x20\x05\x33\x09")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1<<14 || len(b) > 1<<14 {
			return
		}
		base, err := yamltext.Parse(a)
		if err != nil {
			var ye *yamltext.ParseError
			if !errors.As(err, &ye) {
				t.Fatalf("Parse: %v is not a *ParseError", err)
			}
			return
		}
		checkRoundTrip(t, base)
		edited, err := yamltext.Parse(b)
		if err != nil {
			edited = mutate(base, b)
		} else {
			checkRoundTrip(t, edited)
		}

		patch, err := MergePatch(base, edited)
		if errors.Is(err, yamltext.ErrTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("MergePatch: %v", err)
		}
		got, err := Apply(base, patch)
		if err != nil {
			t.Fatalf("Apply(%s): %v", patch, err)
		}
		if !sameValue(got, edited) {
			t.Fatalf("patch %s\nturns %#v\ninto  %#v\nnot   %#v", patch, base, got, edited)
		}
		if (string(patch) == "{}") != sameValue(base, edited) {
			t.Fatalf("patch %s between %#v and %#v", patch, base, edited)
		}
		if _, err := Changes(patch); err != nil {
			t.Fatalf("Changes(%s): %v", patch, err)
		}
		if same, err := MergePatch(edited, edited); err != nil || string(same) != "{}" {
			t.Fatalf("MergePatch(x, x) = %s, %v", same, err)
		}
		an, err := Analyze(base, edited, edited)
		if err != nil || len(an.Conflicts) != 0 || len(an.Lost()) != 0 {
			t.Fatalf("the same change on both sides: %#v, %v", an, err)
		}

		ya, _ := yamltext.Editable(base, yamltext.ViewOptions{})
		yb, _ := yamltext.Editable(edited, yamltext.ViewOptions{})
		// The diff's own tests check that hunks rebuild the text; here,
		// only that a change of text is a change of diff.
		if hunks := textdiff.Diff(ya, yb, 3); (ya != yb) != (len(hunks) > 0) {
			t.Fatalf("texts differ: %v, hunks: %d", ya != yb, len(hunks))
		}
	})
}
