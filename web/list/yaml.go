package list

import (
	"bufio"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// yamlItem writes obj, as JSON decodes it (maps, slices, strings, int64,
// float64, bool, nil), as one item of a YAML sequence at column 0:
// "- " and its first key on the current line, its other keys indented by
// two, kubectl's layout (sequences at their key's indentation).
//
// It is written here rather than by sigs.k8s.io/yaml, which renders JSON
// and re-reads and re-renders it through go-yaml: about 1 ms a pod here,
// 20 s for 20,000. This writes block YAML straight from the object, keys
// sorted, every string that YAML 1.1 or 1.2 could read as anything else
// (a number, a bool, null, a date, a key, a comment) double-quoted, so
// every YAML reader reads back exactly the object (yaml_test.go checks
// that against sigs.k8s.io/yaml, with real objects and fuzzed ones).
func yamlItem(w *bufio.Writer, obj map[string]any) error {
	y := yamlWriter{w: w}
	_ = w.WriteByte('-')
	if len(obj) == 0 {
		_, _ = w.WriteString(" {}")
	} else {
		_ = w.WriteByte(' ')
		y.mapping(obj, 2, true)
	}
	_ = w.WriteByte('\n')
	return y.err()
}

type yamlWriter struct {
	w    *bufio.Writer
	keys []string // reused by mapping, per depth
}

func (y *yamlWriter) err() error {
	// A bufio.Writer keeps its first error and returns it from every
	// later call.
	_, err := y.w.Write(nil)
	return err
}

// newline starts a line indented by indent.
func (y *yamlWriter) newline(indent int) {
	_ = y.w.WriteByte('\n')
	for range indent {
		_ = y.w.WriteByte(' ')
	}
}

// mapping writes m's entries, sorted, at indent; the first continues the
// current line when inline (after "- ").
func (y *yamlWriter) mapping(m map[string]any, indent int, inline bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 || !inline {
			y.newline(indent)
		}
		y.str(k)
		_ = y.w.WriteByte(':')
		switch v := m[k].(type) {
		case map[string]any:
			if len(v) == 0 {
				_, _ = y.w.WriteString(" {}")
			} else {
				y.mapping(v, indent+2, false)
			}
		case []any:
			if len(v) == 0 {
				_, _ = y.w.WriteString(" []")
			} else {
				y.sequence(v, indent, false)
			}
		default:
			_ = y.w.WriteByte(' ')
			y.scalar(v)
		}
	}
}

// sequence writes s's items at indent; the first continues the current
// line when inline.
func (y *yamlWriter) sequence(s []any, indent int, inline bool) {
	for i, item := range s {
		if i > 0 || !inline {
			y.newline(indent)
		}
		_, _ = y.w.WriteString("- ")
		switch v := item.(type) {
		case map[string]any:
			if len(v) == 0 {
				_, _ = y.w.WriteString("{}")
			} else {
				y.mapping(v, indent+2, true)
			}
		case []any:
			if len(v) == 0 {
				_, _ = y.w.WriteString("[]")
			} else {
				y.sequence(v, indent+2, true)
			}
		default:
			y.scalar(v)
		}
	}
}

func (y *yamlWriter) scalar(v any) {
	var buf [32]byte
	switch v := v.(type) {
	case nil:
		_, _ = y.w.WriteString("null")
	case string:
		y.str(v)
	case bool:
		_, _ = y.w.Write(strconv.AppendBool(buf[:0], v))
	case int64:
		_, _ = y.w.Write(strconv.AppendInt(buf[:0], v, 10))
	case int:
		_, _ = y.w.Write(strconv.AppendInt(buf[:0], int64(v), 10))
	case float64:
		// JSON numbers are finite; 'g' writes what YAML's float reads
		// (1e+06, 0.5).
		_, _ = y.w.Write(strconv.AppendFloat(buf[:0], v, 'g', -1, 64))
	default:
		// Not what JSON decodes to (json.Number, say): as JSON, which is a
		// YAML flow scalar or collection.
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(strconv.Quote(err.Error()))
		}
		_, _ = y.w.Write(b)
	}
}

// str writes s plain when no YAML reader could take it for anything but
// that string, else double-quoted (Go's quoting is YAML's: \n, \t, \",
// \\, \uXXXX, \UXXXXXXXX).
func (y *yamlWriter) str(s string) {
	if plainSafe(s) {
		_, _ = y.w.WriteString(s)
		return
	}
	var buf [64]byte
	_, _ = y.w.Write(strconv.AppendQuote(buf[:0], s))
}

// plainSafe: letters, digits and . _ / - (and inner spaces), starting with
// a letter, and no YAML 1.1 bool or null ("yes", "off", "null", …).
// Anything that starts with a digit (numbers, dates, IPs, 1e3, 0x1f) or
// holds a character YAML gives a meaning (: # , [ ] { } & * ! | > ' " % @ `)
// is quoted.
func plainSafe(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i == 0:
			return false
		case c >= '0' && c <= '9', c == '.', c == '_', c == '/', c == '-':
		case c == ' ' && i < len(s)-1 && s[i+1] != ' ':
		default:
			return false
		}
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
			return false
		}
	}
	return true
}
