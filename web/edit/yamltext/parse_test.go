package yamltext

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseScalars(t *testing.T) {
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
		got, err := Parse("v: " + tc.yaml + "\n")
		if err != nil {
			t.Errorf("%q: %v", tc.yaml, err)
			continue
		}
		if !reflect.DeepEqual(got["v"], tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.yaml, got["v"], tc.want)
		}
	}
}

func TestParseStructure(t *testing.T) {
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
		got, err := Parse(tc.yaml)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
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
		_, err := Parse(tc.yaml)
		var ye *ParseError
		if !errors.As(err, &ye) {
			t.Errorf("%s: got %v (%T), want a *ParseError", tc.name, err, err)
			continue
		}
		if ye.Line != tc.line || ye.Column != tc.column || !strings.Contains(ye.Message, tc.message) {
			t.Errorf("%s: got line %d, column %d, %q; want line %d, column %d, %q", tc.name, ye.Line, ye.Column, ye.Message, tc.line, tc.column, tc.message)
		}
	}
}

func TestParseErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  ParseError
		want string
	}{
		{ParseError{Line: 3, Column: 5, Message: "m"}, "line 3, column 5: m"},
		{ParseError{Line: 3, Message: "m"}, "line 3: m"},
		{ParseError{Message: "m"}, "m"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestParseLimits(t *testing.T) {
	if _, err := Parse("a: " + strings.Repeat("x", MaxText)); !errors.Is(err, ErrTooLarge) {
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
	_, err := Parse(b.String())
	var ye *ParseError
	if !errors.As(err, &ye) || !strings.Contains(ye.Message, "aliases expand to more than") {
		t.Errorf("alias bomb: got %v", err)
	}
}
