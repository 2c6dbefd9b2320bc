package yamltext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRenderValue(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"plain", "plain"},
		{"yes", `"yes"`},
		{AbsentText, `"(absent)"`},
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
