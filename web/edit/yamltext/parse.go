package yamltext

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxText bounds the editor text and patch bodies: larger are refused before
// anything is sent.
const MaxText = 3 << 20

// ErrTooLarge refuses a text or patch larger than MaxText.
var ErrTooLarge = errors.New("the text is larger than 3 MiB; nothing was sent")

// aliasBudget bounds the nodes produced by expanding aliases, and MaxText
// the bytes of their scalars, against alias bombs (a billion laughs fits in
// a few hundred bytes).
const aliasBudget = 100_000

// Parse parses the editor text into a JSON object.
//
// Scalars are read as kubectl reads them (sigs.k8s.io/yaml, YAML 1.1):
// yes/no/on/off/y/n are booleans, 0x1F and 0777 integers, ~ null, and
// timestamps stay strings. Numbers are exact: they come back as json.Number
// in canonical form (see the package comment), never through
// float64. Anchors, aliases and merge keys (<<) are expanded.
//
// Values are map[string]any, []any, string, bool, nil and json.Number.
// Errors: ErrTooLarge; otherwise a *ParseError: a syntax error (line only,
// as the parser gives it), empty text, more than one document, a top level
// that is not a mapping, duplicate keys, keys that are not strings, values
// JSON cannot hold (.inf, .nan, !!binary, custom tags).
func Parse(text string) (map[string]any, error) {
	if len(text) > MaxText {
		return nil, ErrTooLarge
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc *yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, syntaxError(text, err)
		}
		if len(n.Content) == 0 || emptyDocument(n.Content[0]) {
			continue
		}
		if doc != nil {
			return nil, nodeError(n.Content[0], "one object per edit: this is a second YAML document")
		}
		doc = n.Content[0]
	}
	if doc == nil {
		return nil, &ParseError{Message: "the text is empty: there is no object"}
	}
	if doc.Kind != yaml.MappingNode {
		return nil, nodeError(doc, "the object must be a YAML mapping (key: value lines), not %s", kindName(doc))
	}
	c := &converter{budget: aliasBudget, active: map[*yaml.Node]bool{}}
	return c.mapping(doc)
}

func emptyDocument(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Style == 0
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "this"
}

// converter turns YAML nodes into JSON values.
type converter struct {
	budget  int                 // nodes aliases may still produce
	bytes   int                 // bytes of scalars aliases produced
	aliased int                 // depth of alias expansion
	active  map[*yaml.Node]bool // collections being converted: an alias to one is a cycle
}

func (c *converter) value(n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || c.active[n.Alias] {
			return nil, nodeError(n, "the alias *%s refers to a node that contains it", n.Value)
		}
		c.aliased++
		defer func() { c.aliased-- }()
		return c.value(n.Alias)
	}
	if c.aliased > 0 {
		c.budget--
		c.bytes += len(n.Value)
		if c.budget < 0 || c.bytes > MaxText {
			return nil, nodeError(n, "aliases expand to more than %d values or 3 MiB", aliasBudget)
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!!seq" {
			return nil, nodeError(n, "the tag %s is not supported", n.Tag)
		}
		c.active[n] = true
		defer delete(c.active, n)
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n)
	}
	return nil, nodeError(n, "unexpected YAML node")
}

func (c *converter) mapping(n *yaml.Node) (map[string]any, error) {
	if n.Style&yaml.TaggedStyle != 0 && n.Tag != "!!map" {
		return nil, nodeError(n, "the tag %s is not supported", n.Tag)
	}
	c.active[n] = true
	defer delete(c.active, n)
	out := make(map[string]any, len(n.Content)/2)
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := c.key(k)
		if err != nil {
			return nil, err
		}
		if c.aliased > 0 {
			c.bytes += len(key)
		}
		if first, dup := seen[key]; dup {
			return nil, nodeError(k, "the key %q is already defined on line %d", key, first.Line)
		}
		seen[key] = k
		if out[key], err = c.value(v); err != nil {
			return nil, err
		}
	}
	// Merge keys: keys written in the mapping win, then earlier sources.
	for _, m := range merges {
		sources := []*yaml.Node{m}
		if t := deref(m); t.Kind == yaml.SequenceNode {
			sources = t.Content
		}
		for _, s := range sources {
			if deref(s).Kind != yaml.MappingNode {
				return nil, nodeError(s, "a merge key (<<) takes a mapping or a list of mappings")
			}
			v, err := c.value(s)
			if err != nil {
				return nil, err
			}
			for k, e := range v.(map[string]any) {
				if _, ok := out[k]; !ok {
					out[k] = e
				}
			}
		}
	}
	return out, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func (c *converter) key(k *yaml.Node) (string, error) {
	n := deref(k)
	if n.Kind != yaml.ScalarNode {
		return "", nodeError(k, "a key must be a string, not %s", kindName(n))
	}
	v, err := scalar(n)
	if err != nil {
		return "", err
	}
	if v == nil && n.Value == "" {
		return "", nodeError(k, "a key is missing")
	}
	s, ok := v.(string)
	if !ok {
		return "", nodeError(k, "the key %s is not a string: quote it (%q) to make it one", n.Value, n.Value)
	}
	return s, nil
}

// scalar reads one scalar: quoted and block scalars are strings, explicit
// tags are honoured where JSON can hold them, plain scalars are resolved as
// YAML 1.1 (resolvePlain).
func scalar(n *yaml.Node) (any, error) {
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "!!timestamp":
			return n.Value, nil
		case "!!int":
			if s, ok := yamlInt(strings.ReplaceAll(n.Value, "_", "")); ok {
				return json.Number(s), nil
			}
		case "!!float":
			if s, ok := yamlInt(strings.ReplaceAll(n.Value, "_", "")); ok {
				return json.Number(s), nil
			}
			if s, ok := yamlDecimal(strings.ReplaceAll(n.Value, "_", "")); ok {
				return json.Number(s), nil
			}
		case "!!bool":
			if v, err := resolvePlain(n.Value); err == nil {
				if b, ok := v.(bool); ok {
					return b, nil
				}
			}
		case "!!null":
			if v, err := resolvePlain(n.Value); err == nil && v == nil {
				return nil, nil
			}
		default:
			return nil, nodeError(n, "the tag %s is not supported: JSON cannot hold it", n.Tag)
		}
		return nil, nodeError(n, "%q is not a valid %s", n.Value, n.Tag)
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, nil
	}
	v, err := resolvePlain(n.Value)
	if err != nil {
		return nil, nodeError(n, "%s", err)
	}
	return v, nil
}

var errNotJSON = errors.New("JSON has no infinity or NaN: quote the value to make it a string")

// resolvePlain reads a plain scalar as sigs.k8s.io/yaml (go-yaml v2, YAML
// 1.1), so the editor means what kubectl means, except that numbers are
// exact (go-yaml v2 goes through float64 past 64 bits).
func resolvePlain(s string) (any, error) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, nil
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, nil
	case "", "~", "null", "Null", "NULL":
		return nil, nil
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return nil, errNotJSON
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			if d, ok := yamlDecimal(s); ok {
				return json.Number(d), nil
			}
		}
	case c == '+' || c == '-' || '0' <= c && c <= '9':
		plain := strings.ReplaceAll(s, "_", "")
		if d, ok := yamlInt(plain); ok {
			return json.Number(d), nil
		}
		if yamlFloat.MatchString(plain) {
			// go-yaml keeps what float64 cannot hold (1e999) a string.
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				if d, ok := yamlDecimal(plain); ok {
					return json.Number(d), nil
				}
			}
		}
	}
	return s, nil
}

var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// yamlInt reads an integer the way Go's strconv.ParseInt(s, 0, 64) and
// ParseUint do (0x, 0o, 0b and 0 prefixes, a sign), within 64 bits as
// go-yaml v2 does, and returns its canonical text.
func yamlInt(s string) (string, bool) {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok || !v.IsInt64() && !v.IsUint64() {
		return "", false
	}
	return canonicalNumber(v.String())
}

// yamlDecimal returns the canonical text of a decimal number.
func yamlDecimal(s string) (string, bool) {
	if !yamlFloat.MatchString(s) {
		return "", false
	}
	return canonicalNumber(s)
}
