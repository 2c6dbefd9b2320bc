package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) map[string]any {
	t.Helper()
	m, err := ParseYAML(text)
	if err != nil {
		t.Fatalf("ParseYAML(%q): %v", text, err)
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

func TestParseYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		yaml string // the value of key v
		want any
	}{
		// Numbers: exact, in canonical text.
		{"1", json.Number("1")},
		{"1.0", json.Number("1")},
		{"1.50", json.Number("1.5")},
		{"1e3", json.Number("1000")},
		{"1E3", json.Number("1000")},
		{"1.", json.Number("1")},
		{".5", json.Number("0.5")},
		{"0.5", json.Number("0.5")},
		{"-0", json.Number("0")},
		{"-0.0", json.Number("0")},
		{"+5", json.Number("5")},
		{"-12", json.Number("-12")},
		{"1_000", json.Number("1000")},
		{"0x1F", json.Number("31")},
		{"0o17", json.Number("15")},
		{"0777", json.Number("511")}, // YAML 1.1 octal, as kubectl reads it
		{"0789", json.Number("789")}, // not octal: decimal, as kubectl reads it
		{"0b101", json.Number("5")},
		{"9007199254740993", json.Number("9007199254740993")},
		{"12345678901234567890", json.Number("12345678901234567890")},
		{"123456789012345678901234567890", json.Number("123456789012345678901234567890")},
		{"-9223372036854775809", json.Number("-9223372036854775809")},
		{"0.1000000000000000055511151231257827", json.Number("0.1000000000000000055511151231257827")},
		{"1e-7", json.Number("1.0e-7")},
		{"0.000001", json.Number("0.000001")},
		{"1e25", json.Number("1.0e+25")},
		{"1e21", json.Number("1000000000000000000000")},
		{"2.5e-10", json.Number("2.5e-10")},
		{"1e999", "1e999"},                               // past float64: a string, as kubectl reads it
		{"0x1FFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFFF"}, // past 64 bits: a string, as kubectl reads it
		{"1:20", "1:20"},
		{"_1", "_1"},
		// Booleans and nulls, YAML 1.1.
		{"true", true}, {"True", true}, {"yes", true}, {"Yes", true}, {"on", true}, {"ON", true}, {"y", true}, {"Y", true},
		{"false", false}, {"no", false}, {"off", false}, {"n", false}, {"N", false},
		{"", nil}, {"~", nil}, {"null", nil}, {"Null", nil},
		// Strings stay strings.
		{`"yes"`, "yes"}, {`'on'`, "on"}, {`"no"`, "no"}, {`"y"`, "y"}, {`"1.0"`, "1.0"}, {`"0x1F"`, "0x1F"}, {`"~"`, "~"}, {`""`, ""},
		{"2024-01-01", "2024-01-01"},
		{"2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"},
		{`"2024-01-01"`, "2024-01-01"},
		{"nginx:1.27", "nginx:1.27"},
		{"500m", "500m"},
		{"héllo wörld 日本 🚀", "héllo wörld 日本 🚀"},
		{`"tab\there\u00e9"`, "tab\there\u00e9"},
		{"|\n  line one\n  line two\n", "line one\nline two\n"},
		{"|-\n  no newline\n", "no newline"},
		{"|+\n  kept\n", "kept\n\n"}, // the test adds a line end
		{">\n  folded\n  text\n", "folded text\n"},
		{"[]", []any{}},
		{"{}", map[string]any{}},
		{"[1, two, null]", []any{json.Number("1"), "two", nil}},
		// Explicit tags.
		{"!!str 12", "12"},
		{"!!str yes", "yes"},
		{`!!int "12"`, json.Number("12")},
		{"!!float 1", json.Number("1")},
		{"!!bool yes", true},
		{"!!null ~", nil},
		{"!!timestamp 2024-01-01", "2024-01-01"},
		{"!!map {a: 1}", map[string]any{"a": json.Number("1")}},
		{"!!seq [a]", []any{"a"}},
	} {
		got, err := ParseYAML("v: " + tc.yaml + "\n")
		if err != nil {
			t.Errorf("%q: %v", tc.yaml, err)
			continue
		}
		if !reflect.DeepEqual(got["v"], tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.yaml, got["v"], tc.want)
		}
	}
}

func TestParseYAMLStructure(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       map[string]any
	}{
		{"nested", "a:\n  b:\n    c: x\n", map[string]any{"a": map[string]any{"b": map[string]any{"c": "x"}}}},
		{"keys with dots and slashes", "labels:\n  app.kubernetes.io/name: web\n  \"on\": x\n", map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "web", "on": "x"}}},
		{"document markers", "---\na: 1\n...\n", map[string]any{"a": json.Number("1")}},
		{"empty documents around", "---\n---\na: 1\n---\n", map[string]any{"a": json.Number("1")}},
		{"comments", "# head\na: 1 # line\n# foot\n", map[string]any{"a": json.Number("1")}},
		{"flow", "{a: [1, {b: c}]}", map[string]any{"a": []any{json.Number("1"), map[string]any{"b": "c"}}}},
		{"anchors", "a: &x {p: 1}\nb: *x\n", map[string]any{"a": map[string]any{"p": json.Number("1")}, "b": map[string]any{"p": json.Number("1")}}},
		{"merge keys: written keys win, then earlier sources",
			"base: &b {p: 1, q: 1}\nother: &o {q: 2, r: 2}\nm:\n  q: 0\n  <<: [*b, *o]\n",
			map[string]any{
				"base":  map[string]any{"p": json.Number("1"), "q": json.Number("1")},
				"other": map[string]any{"q": json.Number("2"), "r": json.Number("2")},
				"m":     map[string]any{"p": json.Number("1"), "q": json.Number("0"), "r": json.Number("2")},
			}},
		{"quoted << is a key", "\"<<\": x\n", map[string]any{"<<": "x"}},
		{"BOM", "\uFEFFa: 1\n", map[string]any{"a": json.Number("1")}},
	} {
		got, err := ParseYAML(tc.yaml)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestParseYAMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml   string
		line, column int
		message      string
	}{
		{"empty", "", 0, 0, "the text is empty"},
		{"comments only", "# nothing\n", 0, 0, "the text is empty"},
		{"null document", "~\n", 1, 1, "not a single value"},
		{"list at the top", "- a\n- b\n", 1, 1, "not a list"},
		{"scalar at the top", "hello\n", 1, 1, "not a single value"},
		{"second document", "a: 1\n---\nb: 2\n", 3, 1, "one object per edit"},
		{"second document after markers", "---\na: 1\n---\n- x\n", 4, 1, "one object per edit"},
		{"duplicate key", "a: 1\nb:\n  c: 1\n  c: 2\n", 4, 3, `the key "c" is already defined on line 3`},
		{"integer key", "a:\n  80: http\n", 2, 3, `the key 80 is not a string: quote it ("80")`},
		{"boolean key", "on: push\n", 1, 1, `the key on is not a string`},
		{"null key", "? \n: x\n", 1, 2, "a key is missing"},
		{"empty key", ": x\n", 1, 0, "did not find expected key"},
		{"mapping key", "? {a: 1}\n: x\n", 1, 3, "a key must be a string, not this"},
		{"infinity", "a:\n  b: .inf\n", 2, 6, "JSON has no infinity or NaN"},
		{"NaN", "a: .NaN\n", 1, 4, "JSON has no infinity or NaN"},
		{"custom tag", "a: !Ref x\n", 1, 4, "the tag !Ref is not supported"},
		{"binary", "a: !!binary aGk=\n", 1, 4, "the tag !!binary is not supported"},
		{"bad int", "a: !!int x\n", 1, 4, `"x" is not a valid !!int`},
		{"alias cycle", "a: &x [1, *x]\n", 1, 11, "refers to a node that contains it"},
		{"merge of a scalar", "a: &x 1\nb:\n  <<: *x\n", 3, 7, "a merge key (<<) takes a mapping"},
		{"unknown anchor", "a: 1\nb: *nope\n", 2, 4, "unknown anchor 'nope' referenced"},
		// Syntax errors carry the problem's line, without a column.
		{"syntax on the first line", "a: b: c\n", 1, 0, "mapping values are not allowed"},
		{"tab indentation on the first line", "\tb: 1", 1, 0, "found character that cannot start any token"},
		{"bad indentation", "a:\n  b: 1\n c: 2\n", 3, 0, "did not find expected key"},
		{"sequence then mapping", "z:\n  - a\n  b: 1\n", 3, 0, "did not find expected '-' indicator"},
		{"stray list item", "a: 1\nb: 2\n- c\n", 3, 0, "did not find expected key"},
		{"bad escape", "x: 1\ny: \"\\q\"\n", 2, 0, "found unknown escape character"},
		{"tab", "key: value\n\tother: x\n", 2, 0, "tab character"},
		{"unclosed quote: where it opens", "x: 1\ny: 'abc\nz: 2\n", 2, 0, "found unexpected end of stream"},
		{"unclosed quote on the first line", "a: \"x\n", 1, 0, "found unexpected end of stream"},
		{"unclosed bracket: the last line", "a: 1\nb: [\n", 2, 0, "did not find expected node content"},
		{"control character: no line", "a: 1\nb: \x01\n", 0, 0, "control characters are not allowed"},
		{"an error in the second document", "a: 1\n---\nb: [\n", 3, 0, "did not find expected node content"},
	} {
		_, err := ParseYAML(tc.yaml)
		var ye *YAMLError
		if !errors.As(err, &ye) {
			t.Errorf("%s: got %v (%T), want a *YAMLError", tc.name, err, err)
			continue
		}
		if ye.Line != tc.line || ye.Column != tc.column || !strings.Contains(ye.Message, tc.message) {
			t.Errorf("%s: got line %d, column %d, %q; want line %d, column %d, %q", tc.name, ye.Line, ye.Column, ye.Message, tc.line, tc.column, tc.message)
		}
	}
}

func TestYAMLErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  YAMLError
		want string
	}{
		{YAMLError{Line: 3, Column: 5, Message: "m"}, "line 3, column 5: m"},
		{YAMLError{Line: 3, Message: "m"}, "line 3: m"},
		{YAMLError{Message: "m"}, "m"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestParseYAMLLimits(t *testing.T) {
	if _, err := ParseYAML("a: " + strings.Repeat("x", MaxText)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("text past MaxText: got %v, want ErrTooLarge", err)
	}
	if ErrTooLarge.Error() != "the text is larger than 3 MiB; nothing was sent" {
		t.Errorf("ErrTooLarge says %q", ErrTooLarge)
	}
	// A billion laughs: nine levels of ten aliases.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		name := "a" + string(rune('0'+i))
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString(name + ": &" + name + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	_, err := ParseYAML(b.String())
	var ye *YAMLError
	if !errors.As(err, &ye) || !strings.Contains(ye.Message, "aliases expand to more than") {
		t.Errorf("alias bomb: got %v", err)
	}
}

func TestEditableObject(t *testing.T) {
	secret := func() map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{
				"name": "creds", "managedFields": []any{map[string]any{"manager": "kubectl"}},
				"annotations": map[string]any{lastApplied: `{"data":{"password":"aHVudGVyMg=="}}`},
			},
			"data":       map[string]any{"password": "aHVudGVyMg=="},
			"stringData": map[string]any{"token": "plain"},
			"type":       "Opaque",
		}
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		opts ViewOptions
		want map[string]any
	}{
		{"secret: no values, no last-applied copy of them",
			secret(), ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds"}, "type": "Opaque"}},
		{"secret with SecretData",
			secret(), ViewOptions{SecretData: true},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
				"metadata":   map[string]any{"name": "creds", "annotations": map[string]any{lastApplied: `{"data":{"password":"aHVudGVyMg=="}}`}},
				"data":       map[string]any{"password": "aHVudGVyMg=="},
				"stringData": map[string]any{"token": "plain"}}},
		{"secret keeps its other annotations",
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"annotations": map[string]any{lastApplied: "{}", "team": "a"}}},
			ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"annotations": map[string]any{"team": "a"}}}},
		{"a ConfigMap's data is kept",
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}, "status": map[string]any{"x": "y"}},
			ViewOptions{},
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}},
		{"a Secret of another group is not core/v1's",
			map[string]any{"apiVersion": "example.com/v1", "kind": "Secret", "data": map[string]any{"k": "v"}},
			ViewOptions{},
			map[string]any{"apiVersion": "example.com/v1", "kind": "Secret", "data": map[string]any{"k": "v"}}},
		{"status kept when asked",
			map[string]any{"kind": "Pod", "status": map[string]any{"phase": "Running"}, "metadata": map[string]any{"managedFields": []any{}}},
			ViewOptions{Status: true},
			map[string]any{"kind": "Pod", "status": map[string]any{"phase": "Running"}, "metadata": map[string]any{}}},
		{"metadata not a map", map[string]any{"metadata": "odd"}, ViewOptions{}, map[string]any{"metadata": "odd"}},
		{"nil", nil, ViewOptions{}, map[string]any{}},
	} {
		got := EditableObject(tc.obj, tc.opts)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}

	// A deep copy: changing it leaves the object alone.
	obj := secret()
	got := EditableObject(obj, ViewOptions{SecretData: true})
	got["data"].(map[string]any)["password"] = "changed"
	got["metadata"].(map[string]any)["annotations"].(map[string]any)["x"] = "y"
	if !reflect.DeepEqual(obj, secret()) {
		t.Errorf("EditableObject changed its argument: %#v", obj)
	}
}

func TestEditableYAMLOrder(t *testing.T) {
	obj := map[string]any{
		"status": map[string]any{"replicas": int64(2)},
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "web", "image": "nginx:1.27", "args": []any{"--port", "8080"}, "ports": []any{map[string]any{"containerPort": int64(8080)}},
			}}}}},
		"metadata": map[string]any{
			"uid": "u1", "resourceVersion": "41", "generation": int64(3), "creationTimestamp": "2024-01-01T00:00:00Z",
			"annotations": map[string]any{"deployment.kubernetes.io/revision": "2"},
			"labels":      map[string]any{"tier": "front", "app.kubernetes.io/name": "web"},
			"namespace":   "demo", "name": "web",
			"managedFields": []any{map[string]any{"manager": "kubectl"}},
		},
		"kind": "Deployment", "apiVersion": "apps/v1",
		"data": map[string]any{}, "aaa": nil, "zzz": []any{},
	}
	want := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
  labels:
    app.kubernetes.io/name: web
    tier: front
  annotations:
    deployment.kubernetes.io/revision: "2"
  creationTimestamp: "2024-01-01T00:00:00Z"
  generation: 3
  resourceVersion: "41"
  uid: u1
aaa: null
data: {}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
      - args:
        - --port
        - "8080"
        image: nginx:1.27
        name: web
        ports:
        - containerPort: 8080
zzz: []
`
	got, err := EditableYAML(obj, ViewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	withStatus, _ := EditableYAML(obj, ViewOptions{Status: true})
	if !strings.HasSuffix(withStatus, "zzz: []\nstatus:\n  replicas: 2\n") {
		t.Errorf("status is not last:\n%s", withStatus)
	}
}

func TestEditableYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  string // the rendering of "v: value"
	}{
		{"yes", `v: "yes"`},
		{"on", `v: "on"`},
		{"no", `v: "no"`},
		{"y", `v: "y"`},
		{"N", `v: "N"`},
		{"true", `v: "true"`},
		{"1.0", `v: "1.0"`},
		{"1e3", `v: "1e3"`},
		{"0x1F", `v: "0x1F"`},
		{"0o17", `v: "0o17"`},
		{"1_000", `v: "1_000"`},
		{"+1", `v: "+1"`},
		{".5", `v: ".5"`},
		{"~", `v: "~"`},
		{"null", `v: "null"`},
		{"", `v: ""`},
		{".inf", `v: ".inf"`},
		{"<<", `v: "<<"`},
		{"=", `v: "="`},
		{"1:20", `v: "1:20"`},
		{"2024-01-01", `v: "2024-01-01"`},
		{"2024-01-01T10:00:00Z", `v: "2024-01-01T10:00:00Z"`},
		{"1e999", `v: "1e999"`},
		{"0x1FFFFFFFFFFFFFFFFF", `v: "0x1FFFFFFFFFFFFFFFFF"`},
		{"plain text", `v: plain text`},
		{"nginx:1.27", `v: nginx:1.27`},
		{"500m", `v: 500m`},
		{"héllo 日本", `v: héllo 日本`},
		{"- x", `v: '- x'`},
		{" lead", `v: ' lead'`},
		{"a: b", `v: 'a: b'`},
		{"#c", `v: '#c'`},
		{"line one\nline two\n", "v: |\n  line one\n  line two"},
		{"no final newline\nx", "v: |-\n  no final newline\n  x"},
		{"kept\n\n", "v: |+\n  kept\n"},
		{"  indented\nfirst\n", "v: |2\n    indented\n  first"},
		{"\ttab first\n", `v: "\ttab first\n"`},
		{"crlf\r\nline", `v: "crlf\r\nline"`},
		{"trailing space \nx", `v: "trailing space \nx"`},
		{int64(3), "v: 3"},
		{1.0, "v: 1"},
		{0.5, "v: 0.5"},
		{1e3, "v: 1000"},
		{json.Number("1.0"), "v: 1"},
		{json.Number("12345678901234567890"), "v: 12345678901234567890"},
		{uint64(18446744073709551615), "v: 18446744073709551615"},
		{true, "v: true"},
		{nil, "v: null"},
		{map[string]any{}, "v: {}"},
		{[]any{}, "v: []"},
	} {
		got, err := EditableYAML(map[string]any{"v": tc.value}, ViewOptions{})
		if err != nil {
			t.Errorf("%#v: %v", tc.value, err)
			continue
		}
		if got != tc.want+"\n" {
			t.Errorf("%#v: got %q, want %q", tc.value, got, tc.want+"\n")
		}
		back, err := ParseYAML(got)
		if err != nil {
			t.Errorf("%#v: reading back %q: %v", tc.value, got, err)
			continue
		}
		want, _ := normalize(tc.value)
		if !reflect.DeepEqual(back["v"], want) {
			t.Errorf("%#v: reads back as %#v", tc.value, back["v"])
		}
	}
	for _, key := range []string{"on", "y", "80", "1.0", "", "app.kubernetes.io/name", "a: b", "multi\nline", "<<"} {
		got, err := EditableYAML(map[string]any{key: "x"}, ViewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseYAML(got)
		if err != nil || back[key] != "x" || len(back) != 1 {
			t.Errorf("key %q: %q reads back as %#v, %v", key, got, back, err)
		}
	}
	if _, err := EditableYAML(map[string]any{"v": func() {}}, ViewOptions{}); err == nil {
		t.Error("a func rendered")
	}
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
	text, err := EditableYAML(obj, ViewOptions{})
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
	big := strings.Repeat("x", MaxText)
	if _, err := MergePatch(map[string]any{}, map[string]any{"a": big}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
	if _, err := WithResourceVersion([]byte(`{"a":"`+big[:MaxText-20]+`"}`), "12345678901234567890"); !errors.Is(err, ErrTooLarge) {
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

func TestToJSON(t *testing.T) {
	got, err := ToJSON(map[string]any{
		"z": "<&>", "a": []any{int64(1), 1.0, 1e21, 1e22, json.Number("1.0"), json.Number("-0"), uint64(18446744073709551615), float32(0.1)},
		"m": map[string]string{"k": "v"}, "n": nil,
	})
	want := `{"a":[1,1,1000000000000000000000,1.0e+22,1,0,18446744073709551615,0.1],"m":{"k":"v"},"n":null,"z":"<&>"}`
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	for _, bad := range []any{json.Number("x"), func() {}, map[string]any{"f": 1.0 / zero()}} {
		if got, err := ToJSON(bad); err == nil {
			t.Errorf("%#v: got %s", bad, got)
		}
	}
}

func zero() float64 { return 0 }

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "+0.000": "0", "0e10": "0", "00012": "12", "12.000": "12",
		"1": "1", "-1": "-1", "1.5": "1.5", "-1.25e2": "-125", "1e2": "100", "10e-1": "1",
		"1e21": "1000000000000000000000", "1e22": "1.0e+22", "123e20": "12300000000000000000000", "123e30": "1.23e+32",
		"12345678901234567890123456789": "12345678901234567890123456789",
		"0.1":                           "0.1", "0.00001": "0.00001", "0.000001": "0.000001", "0.0000001": "1.0e-7", "1.5e-7": "1.5e-7",
		".5": "0.5", "5.": "5", "1E+3": "1000",
	} {
		got, ok := canonicalNumber(in)
		if !ok || got != want {
			t.Errorf("canonicalNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if json.Valid([]byte(got)) != true {
			t.Errorf("canonicalNumber(%q) = %q is not JSON", in, got)
		}
		if again, _ := canonicalNumber(got); again != got {
			t.Errorf("canonicalNumber(%q) = %q, not stable", got, again)
		}
	}
	for _, bad := range []string{"", "-", ".", "e5", "1e", "1e+", "0x10", "1_0", "1.2.3", "1e99999999999", "Infinity", " 1"} {
		if got, ok := canonicalNumber(bad); ok {
			t.Errorf("canonicalNumber(%q) = %q", bad, got)
		}
	}
}

func TestRenderValue(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"plain", "plain"},
		{"yes", `"yes"`},
		{absentText, `"(absent)"`},
		{"two\nlines\n", "|\n  two\n  lines"},
		{json.Number("1.0"), "1"},
		{int64(3), "3"},
		{true, "true"},
		{nil, "null"},
		{map[string]any{}, "{}"},
		{[]any{}, "[]"},
		{map[string]any{"b": 1, "a": []any{"x", "on"}}, "a:\n- x\n- \"on\"\nb: 1"},
	} {
		if got := RenderValue(tc.v); got != tc.want {
			t.Errorf("RenderValue(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	long := make([]any, 1000)
	for i := range long {
		long[i] = "item ünïcödé"
	}
	got := RenderValue(long)
	if len(got) > 2100 || !strings.HasSuffix(got, "\n…") || !strings.HasPrefix(got, "- item ünïcödé\n") {
		t.Errorf("a long value renders as %d bytes: %q", len(got), got[max(0, len(got)-40):])
	}
	if got := RenderValue(strings.Repeat("é", 2000)); len(got) > 2100 || !strings.HasSuffix(got, "é…") {
		t.Errorf("a long line renders as %d bytes ending %q", len(got), got[len(got)-10:])
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
	out := deepCopy(base).(map[string]any)
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
				m[keys[pick%len(keys)]] = deepCopy(values[pick%len(values)])
			}
		case 2:
			m[fmt.Sprintf("k%d.x/y", pick)] = deepCopy(values[pick%len(values)])
		case 3:
			if len(keys) > 0 {
				m[keys[pick%len(keys)]] = map[string]any{"nested": deepCopy(values[pick%len(values)])}
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
	for _, opts := range []ViewOptions{{Status: true, SecretData: true}, {}} {
		text, err := EditableYAML(obj, opts)
		if err != nil {
			t.Fatalf("EditableYAML(%#v): %v", obj, err)
		}
		back, err := ParseYAML(text)
		if errors.Is(err, ErrTooLarge) {
			return
		}
		if err != nil {
			t.Fatalf("the editor's text does not parse: %v\n%s", err, text)
		}
		want, _ := normalize(EditableObject(obj, opts))
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("round trip:\n%s\nreads back as %#v\nwant %#v", text, back, want)
		}
		again, err := EditableYAML(back, opts)
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
		base, err := ParseYAML(a)
		if err != nil {
			var ye *YAMLError
			if !errors.As(err, &ye) {
				t.Fatalf("ParseYAML: %v is not a *YAMLError", err)
			}
			return
		}
		checkRoundTrip(t, base)
		edited, err := ParseYAML(b)
		if err != nil {
			edited = mutate(base, b)
		} else {
			checkRoundTrip(t, edited)
		}

		patch, err := MergePatch(base, edited)
		if errors.Is(err, ErrTooLarge) {
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

		ya, _ := EditableYAML(base, ViewOptions{})
		yb, _ := EditableYAML(edited, ViewOptions{})
		checkDiff(t, ya, yb, 3)
	})
}
