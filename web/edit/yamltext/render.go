package yamltext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// RenderValue renders one value as short YAML for conflict tables: a scalar
// on one line, a map or list as block YAML. Past about 2 KB it is cut at a
// line end and ends with an ellipsis.
func RenderValue(v any) string {
	const limit = 2048
	s, err := renderValue(v)
	if err != nil {
		s = fmt.Sprint(v)
	}
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(s[:cut], '\n'); nl > limit/2 {
		cut = nl + 1
	}
	return s[:cut] + "…"
}

// AbsentText stands for a value that is not there in a conflict table.
// RenderValue quotes a string that reads the same, so the two never look
// alike.
const AbsentText = "(absent)"

func renderValue(v any) (string, error) {
	v, err := Normalize(v)
	if err != nil {
		return "", err
	}
	n, err := yamlNode(v, nil)
	if err != nil {
		return "", err
	}
	if v == AbsentText {
		n.Style = yaml.DoubleQuotedStyle
	}
	s, err := encodeYAML(n)
	return strings.TrimSuffix(s, "\n"), err
}

func encodeYAML(n *yaml.Node) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent() // "containers:\n- name: x", as kubectl writes it
	if err := enc.Encode(n); err != nil {
		return "", fmt.Errorf("rendering YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("rendering YAML: %w", err)
	}
	return buf.String(), nil
}

// keyOrder orders the keys of one map; children gives the order for the map
// under a key (nil: sorted).
type keyOrder struct {
	first    []string
	last     []string
	children map[string]*keyOrder
}

var topOrder = &keyOrder{
	first: []string{"apiVersion", "kind", "metadata"},
	last:  []string{"status"},
	children: map[string]*keyOrder{
		"metadata": {first: []string{"name", "generateName", "namespace", "labels", "annotations"}},
	},
}

func (o *keyOrder) keys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if o == nil {
		return keys
	}
	rank := func(k string) int {
		for i, f := range o.first {
			if k == f {
				return i - len(o.first)
			}
		}
		for i, l := range o.last {
			if k == l {
				return i + 1
			}
		}
		return 0
	}
	sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	return keys
}

// yamlNode builds the YAML for a normalized value.
func yamlNode(v any, order *keyOrder) (*yaml.Node, error) {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, nil
	case json.Number:
		// Canonical text reads back as the same number under every YAML
		// reader; the tag stays implicit.
		return &yaml.Node{Kind: yaml.ScalarNode, Value: string(x)}, nil
	case string:
		return stringNode(x), nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: make([]*yaml.Node, 0, len(x))}
		for _, e := range x {
			c, err := yamlNode(e, nil)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: make([]*yaml.Node, 0, 2*len(x))}
		for _, k := range order.keys(x) {
			var sub *keyOrder
			if order != nil {
				sub = order.children[k]
			}
			c, err := yamlNode(x[k], sub)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, stringNode(k), c)
		}
		return n, nil
	}
	return nil, fmt.Errorf("rendering YAML: unexpected %T", v)
}

// stringNode is a string scalar: plain where every YAML reader reads it back
// as this string, quoted where some would not, a literal block when it has
// several lines (the emitter falls back to double quotes when a block could
// not hold it exactly).
func stringNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.ContainsAny(s, "\r\u0085\u2028\u2029"):
		// Line breaks a block scalar would turn into "\n".
		n.Style = yaml.DoubleQuotedStyle
	case strings.HasPrefix(strings.TrimLeft(s, "\n"), "\t"):
		// A block scalar's first line cannot start with a tab: the reader
		// takes it for indentation.
		n.Style = yaml.DoubleQuotedStyle
	case strings.Contains(s, "\n"):
		n.Style = yaml.LiteralStyle
	case readsAsOther(s):
		n.Style = yaml.DoubleQuotedStyle
	}
	// Otherwise the encoder quotes what YAML 1.2 would resolve to another
	// type (timestamps among them) and what cannot be plain.
	return n
}

// base60 is YAML 1.1's sexagesimal number (1:20 is 80 there).
var base60 = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)

// readsAsOther reports whether the plain scalar s would be read as
// something other than the string s: by Parse (YAML 1.1 as kubectl
// reads it), or by another reader (a number past 64 bits or float64,
// "=" and base 60 in strict YAML 1.1).
func readsAsOther(s string) bool {
	if s == "<<" || s == "=" || base60.MatchString(s) {
		return true
	}
	if plain := strings.ReplaceAll(s, "_", ""); yamlFloat.MatchString(plain) {
		return true
	} else if _, ok := new(big.Int).SetString(plain, 0); ok {
		return true
	}
	v, err := resolvePlain(s)
	return err != nil || v != s
}
