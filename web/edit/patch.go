package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	jsonpatch "github.com/evanphx/json-patch/v5"
	yamlv2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// Numbers. Every value this file hands out (ParseYAML, Apply, the patches)
// holds numbers as json.Number in one canonical text, a function of the
// exact decimal value only: 1.0, 1e3 and 1_000 read as "1", "1000" and
// "1000"; -0 reads as "0"; 9007199254740993 and 12345678901234567890 stay
// as written. Equal numbers therefore have equal text and unequal numbers
// unequal text, so a comparison by text can neither report a change of
// format as an edit nor hide a real edit. float64 could do neither:
// jsonpatch.CreateMergePatch decodes numbers into float64, where
// 9007199254740993 == 9007199254740992, and writes a changed
// 12345678901234567890 back as 1.2345678901234567e+19. MergePatch therefore
// never shows it a number (see tagLeaves).

// MaxText bounds the editor text and patch bodies: larger are refused before
// anything is sent.
const MaxText = 3 << 20

// ErrTooLarge refuses a text or patch larger than MaxText.
var ErrTooLarge = errors.New("the text is larger than 3 MiB; nothing was sent")

// ViewOptions say what the editor shows of an object.
type ViewOptions struct {
	Status     bool // keep .status (read-only views); the editor drops it by default
	SecretData bool // keep a Secret's data and stringData; the editor drops them (values are never pre-filled)
}

// lastApplied is the annotation kubectl apply keeps a copy of the object in:
// for a Secret it holds the values too.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// EditableObject returns a deep copy of obj without metadata.managedFields,
// without status unless opts.Status, and, when obj is a core/v1 Secret
// (apiVersion "v1", kind "Secret"), without data and stringData unless
// opts.SecretData. Without SecretData a Secret also loses the
// kubectl.kubernetes.io/last-applied-configuration annotation, which holds
// a copy of its values, and its annotations if that leaves them empty.
//
// What is dropped is dropped from the loaded object and the edited text
// alike, so a merge patch between them leaves it as it is on the server.
func EditableObject(obj map[string]any, opts ViewOptions) map[string]any {
	out, _ := deepCopy(obj).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	meta, _ := out["metadata"].(map[string]any)
	delete(meta, "managedFields")
	if !opts.Status {
		delete(out, "status")
	}
	if !opts.SecretData && out["apiVersion"] == "v1" && out["kind"] == "Secret" {
		delete(out, "data")
		delete(out, "stringData")
		if ann, ok := meta["annotations"].(map[string]any); ok {
			delete(ann, lastApplied)
			if len(ann) == 0 {
				delete(meta, "annotations")
			}
		}
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// EditableYAML renders EditableObject as YAML for the editor, keys in a
// reader's order: apiVersion, kind, metadata (name, generateName, namespace,
// labels, annotations first, then the rest sorted), then the other top-level
// keys sorted with status last; nested maps sorted. Strings that YAML 1.1 or
// 1.2 would read as something else ("yes", "on", "1.0", "0x1F", "~", "",
// "2024-01-01", "1:20") are quoted; multi-line strings are block scalars
// where YAML can hold them exactly, double-quoted otherwise. Numbers are
// written in their canonical form.
//
// ParseYAML reads the result back to EditableObject(obj, opts) with numbers
// canonical: rendering and parsing round-trip.
func EditableYAML(obj map[string]any, opts ViewOptions) (string, error) {
	v, err := normalize(EditableObject(obj, opts))
	if err != nil {
		return "", err
	}
	n, err := yamlNode(v, topOrder)
	if err != nil {
		return "", err
	}
	return encodeYAML(n)
}

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

// absentText stands for a value that is not there in a Conflict.
const absentText = "(absent)"

func renderValue(v any) (string, error) {
	v, err := normalize(v)
	if err != nil {
		return "", err
	}
	n, err := yamlNode(v, nil)
	if err != nil {
		return "", err
	}
	if v == absentText {
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
// something other than the string s: by ParseYAML (YAML 1.1 as kubectl
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

// YAMLError is a parse error with a 1-based position. Line is 0 when the
// parser gave none; Column is 0 when it gave a line only.
type YAMLError struct {
	Line, Column int
	Message      string
}

func (e *YAMLError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

func nodeError(n *yaml.Node, format string, args ...any) *YAMLError {
	return &YAMLError{Line: n.Line, Column: n.Column, Message: fmt.Sprintf(format, args...)}
}

// syntaxError locates a syntax error the parser reported. go-yaml gives a
// line without a column, and an inexact one: v3 names the line where the
// enclosing construct starts (a mapping that began 100 lines up), v2 the
// line of the problem, and both give none when that is the first line. So
// both parse the text again behind an empty line (which makes the first line
// 2) and the error is placed on v2's problem line, or on v3's line when the
// problem is past the end of the text (an unclosed quote or bracket, found
// at the end, is reported where it opened).
func syntaxError(text string, err error) *YAMLError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		e := &YAMLError{Message: msg}
		if loc := regexp.MustCompile(`\*` + regexp.QuoteMeta(m[1]) + `(\s|[,\]}]|$)`).FindStringIndex(text); loc != nil {
			e.Line = strings.Count(text[:loc[0]], "\n") + 1
			e.Column = utf8.RuneCountInString(text[strings.LastIndexByte(text[:loc[0]], '\n')+1:loc[0]]) + 1
		}
		return e
	}
	padded := "\n" + strings.TrimPrefix(text, "\uFEFF")
	v3Line, v3Msg := errorLine(decodeAllV3(padded))
	v2Line, v2Msg := errorLine(decodeAllV2(padded))
	e := &YAMLError{Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Message = m[2]
	}
	switch {
	case v2Line > 0 && v2Line <= len(lines(text)):
		e.Line = v2Line
		if v2Msg != "" {
			e.Message = v2Msg
		}
	case v3Line > 0:
		e.Line = min(v3Line, max(1, len(lines(text)))) // the end of the text, not the empty line after it
		if v3Msg != "" {
			e.Message = v3Msg
		}
	}
	return e
}

var (
	yamlLine      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// parserProblems are the problems go-yaml's parser (not its scanner)
// reports: it gives their 0-based line, the scanner a 1-based one.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// errorLine returns the 1-based line of the text behind the empty line that
// a go-yaml error names, and its problem; 0 when there is none.
func errorLine(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, ""
	}
	line, _ := strconv.Atoi(m[1])
	if !parserProblems[m[2]] {
		line--
	}
	return line, m[2]
}

func decodeAllV3(text string) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func decodeAllV2(text string) error {
	dec := yamlv2.NewDecoder(strings.NewReader(text))
	for {
		var v parsedOnly
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// parsedOnly takes a go-yaml v2 document without decoding it (aliases
// unexpanded): the parse is all syntaxError needs.
type parsedOnly struct{}

func (*parsedOnly) UnmarshalYAML(func(any) error) error { return nil }

// aliasBudget bounds the nodes produced by expanding aliases, and MaxText
// the bytes of their scalars, against alias bombs (a billion laughs fits in
// a few hundred bytes).
const aliasBudget = 100_000

// ParseYAML parses the editor text into a JSON object.
//
// Scalars are read as kubectl reads them (sigs.k8s.io/yaml, YAML 1.1):
// yes/no/on/off/y/n are booleans, 0x1F and 0777 integers, ~ null, and
// timestamps stay strings. Numbers are exact: they come back as json.Number
// in canonical form (see the comment at the top of this file), never through
// float64. Anchors, aliases and merge keys (<<) are expanded.
//
// Values are map[string]any, []any, string, bool, nil and json.Number.
// Errors: ErrTooLarge; otherwise a *YAMLError: a syntax error (line only,
// as the parser gives it), empty text, more than one document, a top level
// that is not a mapping, duplicate keys, keys that are not strings, values
// JSON cannot hold (.inf, .nan, !!binary, custom tags).
func ParseYAML(text string) (map[string]any, error) {
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
		return nil, &YAMLError{Message: "the text is empty: there is no object"}
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

// maxExponent bounds exponents: 1e1000000000 is no one's object.
const maxExponent = 1_000_000_000

// canonicalNumber returns the canonical text of a decimal number written as
// [-+]digits[.digits][e[-+]digits] (a superset of JSON's syntax), a function
// of its exact value: without leading or trailing zeros and without -0;
// integers up to 21 trailing zeros in full, fractions with up to 5 leading
// zeros after the point as decimals, other numbers as d.ddde±x. The text is
// valid JSON and reads back as the same number in YAML 1.1 and 1.2.
func canonicalNumber(s string) (string, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	if intPart == "" && frac == "" {
		return "", false
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if ds == i {
			return "", false
		}
		e, err := strconv.ParseInt(s[es:i], 10, 64)
		if err != nil || e > maxExponent || e < -maxExponent {
			return "", false
		}
		exp = e
	}
	if i != len(s) {
		return "", false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0", true
	}
	exp -= int64(len(frac))
	coef := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(coef))

	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	n := int64(len(coef))
	point := n + exp // digits before the decimal point
	switch {
	case exp >= 0 && exp <= 21:
		b.WriteString(coef)
		b.WriteString(strings.Repeat("0", int(exp)))
	case exp < 0 && point > 0:
		b.WriteString(coef[:point])
		b.WriteByte('.')
		b.WriteString(coef[point:])
	case exp < 0 && point > -6:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-point)))
		b.WriteString(coef)
	default:
		b.WriteString(coef[:1])
		b.WriteByte('.')
		if n > 1 {
			b.WriteString(coef[1:])
		} else {
			b.WriteByte('0')
		}
		adj := point - 1
		if adj < 0 {
			b.WriteString("e-")
			adj = -adj
		} else {
			b.WriteString("e+")
		}
		b.WriteString(strconv.FormatInt(adj, 10))
	}
	return b.String(), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// normalize returns v as a JSON value with canonical numbers: map[string]any,
// []any (never nil), string (valid UTF-8), bool, nil, json.Number. It
// accepts Go numbers of any kind (int64 and float64 as unstructured holds
// them), json.Number, and anything else encoding/json can marshal.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.ToValidUTF8(x, "\uFFFD"), nil
	case bool:
		return x, nil
	case json.Number:
		if s, ok := canonicalNumber(string(x)); ok {
			return json.Number(s), nil
		}
		return nil, fmt.Errorf("%q is not a number", string(x))
	case float64:
		return floatNumber(x, 64)
	case float32:
		return floatNumber(float64(x), 32)
	case int:
		return intNumber(int64(x)), nil
	case int8:
		return intNumber(int64(x)), nil
	case int16:
		return intNumber(int64(x)), nil
	case int32:
		return intNumber(int64(x)), nil
	case int64:
		return intNumber(x), nil
	case uint:
		return uintNumber(uint64(x)), nil
	case uint8:
		return uintNumber(uint64(x)), nil
	case uint16:
		return uintNumber(uint64(x)), nil
	case uint32:
		return uintNumber(uint64(x)), nil
	case uint64:
		return uintNumber(x), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[strings.ToValidUTF8(k, "\uFFFD")] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	return normalize(d)
}

func floatNumber(f float64, bits int) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotJSON
	}
	s, _ := canonicalNumber(strconv.FormatFloat(f, 'g', -1, bits))
	return json.Number(s), nil
}

func intNumber(i int64) json.Number {
	s, _ := canonicalNumber(strconv.FormatInt(i, 10))
	return json.Number(s)
}

func uintNumber(u uint64) json.Number {
	s, _ := canonicalNumber(strconv.FormatUint(u, 10))
	return json.Number(s)
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: more than one value")
	}
	return v, nil
}

// decodeObject decodes a JSON object and normalizes it.
func decodeObject(b []byte, what string) (map[string]any, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if v, err = normalize(v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return nil, fmt.Errorf("%s: not a JSON object", what)
	}
	return m, nil
}

// ToJSON marshals a value the way the patches do: numbers canonical, map
// keys sorted, no HTML escaping, no trailing newline.
func ToJSON(v any) ([]byte, error) {
	n, err := normalize(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MergePatch is the RFC 7386 merge patch from base to edited ("{}" when
// equal), computed with evanphx/json-patch. Numbers are compared exactly
// (see tagLeaves). Removed keys are null; arrays are replaced whole. A null
// that would remove what base does not have is left out, so writing "key:"
// for an absent key is no change. A patch larger than MaxText is
// ErrTooLarge.
//
// RFC 7386 cannot set a value to null: where edited holds null the patch
// removes the key.
func MergePatch(base, edited map[string]any) ([]byte, error) {
	p, err := mergePatch(base, edited)
	if err != nil {
		return nil, err
	}
	out, err := ToJSON(p)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxText {
		return nil, ErrTooLarge
	}
	return out, nil
}

func mergePatch(base, edited map[string]any) (map[string]any, error) {
	b, err := normalize(base)
	if err != nil {
		return nil, fmt.Errorf("the loaded object: %w", err)
	}
	e, err := normalize(edited)
	if err != nil {
		return nil, fmt.Errorf("the edited object: %w", err)
	}
	bm, _ := b.(map[string]any)
	em, _ := e.(map[string]any)
	bj, err := json.Marshal(tagLeaves(bm))
	if err != nil {
		return nil, err
	}
	ej, err := json.Marshal(tagLeaves(em))
	if err != nil {
		return nil, err
	}
	raw, err := jsonpatch.CreateMergePatch(bj, ej)
	if err != nil {
		return nil, fmt.Errorf("computing the merge patch: %w", err)
	}
	var tagged map[string]any
	if err := json.Unmarshal(raw, &tagged); err != nil {
		return nil, fmt.Errorf("computing the merge patch: %w", err)
	}
	p, _ := untagLeaves(tagged).(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	dropNoopNulls(p, bm)
	return p, nil
}

// tagLeaves turns every string s into "s"+s and every number n into
// "n"+n (canonical text), so that CreateMergePatch, which decodes numbers
// into float64, compares numbers as exactly as strings: equal canonical
// text is equal value. The prefixes keep a number and a string apart.
// Keys, booleans and nulls are left alone.
func tagLeaves(v any) any {
	switch x := v.(type) {
	case string:
		return "s" + x
	case json.Number:
		return "n" + string(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = tagLeaves(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = tagLeaves(e)
		}
		return out
	}
	return v
}

func untagLeaves(v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "n") {
			return json.Number(x[1:])
		}
		return strings.TrimPrefix(x, "s")
	case map[string]any:
		for k, e := range x {
			x[k] = untagLeaves(e)
		}
		return x
	case []any:
		if x == nil {
			return []any{}
		}
		for i, e := range x {
			x[i] = untagLeaves(e)
		}
		return x
	}
	return v
}

// dropNoopNulls removes from patch the nulls that remove nothing from base
// (the key is absent there, or null), and the maps left empty by that that
// merge into a map of base.
func dropNoopNulls(patch, base map[string]any) {
	for k, v := range patch {
		bv, inBase := base[k]
		switch x := v.(type) {
		case nil:
			if !inBase || bv == nil {
				delete(patch, k)
			}
		case map[string]any:
			bm, isMap := bv.(map[string]any)
			dropNoopNulls(x, bm) // bm nil: the map replaces bv, its nulls are pruned anyway
			if isMap && len(x) == 0 {
				delete(patch, k)
			}
		}
	}
}

// WithResourceVersion sets metadata.resourceVersion in a merge patch (the
// optimistic-concurrency precondition).
func WithResourceVersion(patch []byte, rv string) ([]byte, error) {
	p, err := decodeObject(patch, "the patch")
	if err != nil {
		return nil, err
	}
	switch meta := p["metadata"].(type) {
	case map[string]any:
		meta["resourceVersion"] = rv
	case nil:
		if _, ok := p["metadata"]; ok {
			return nil, errors.New("the patch removes metadata")
		}
		p["metadata"] = map[string]any{"resourceVersion": rv}
	default:
		return nil, errors.New("the patch sets metadata to something that is not a mapping")
	}
	out, err := ToJSON(p)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxText {
		return nil, ErrTooLarge
	}
	return out, nil
}

// Apply applies a merge patch to doc (evanphx MergePatch) and returns the
// result as a JSON object, numbers canonical.
func Apply(doc map[string]any, patch []byte) (map[string]any, error) {
	if _, err := decodeObject(patch, "the patch"); err != nil {
		return nil, err
	}
	d, err := ToJSON(doc)
	if err != nil {
		return nil, err
	}
	out, err := jsonpatch.MergePatch(d, patch)
	if err != nil {
		return nil, fmt.Errorf("applying the patch: %w", err)
	}
	return decodeObject(out, "applying the patch")
}

// IsEmptyPatch reports whether a merge patch changes nothing (is "{}" or
// only sets metadata.resourceVersion). Text that is not a JSON object is
// not empty.
func IsEmptyPatch(patch []byte) bool {
	p, err := decodeObject(patch, "the patch")
	if err != nil {
		return false
	}
	for k, v := range p {
		meta, ok := v.(map[string]any)
		if k != "metadata" || !ok {
			return false
		}
		for mk := range meta {
			if mk != "resourceVersion" {
				return false
			}
		}
	}
	return true
}

// sameValue reports whether two normalized values are equal, a null in a map
// being the same as no key (as after a merge patch).
func sameValue(a, b any) bool {
	return reflect.DeepEqual(pruneNulls(a), pruneNulls(b))
}

// pruneNulls returns v without the null members of its maps, at any depth
// (lists keep their null elements), as RFC 7386 leaves a document.
func pruneNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = pruneNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pruneNulls(e)
		}
		return out
	}
	return v
}
