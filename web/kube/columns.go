package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/jsonpath"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// Bounds of the columns a list may add. Each comes from the URL, so each
// is checked where the URL is parsed, before anything is fetched.
const (
	// MaxColumnsSpec bounds the text of one column parameter (labelColumns,
	// columns, hide, show).
	MaxColumnsSpec = 4 << 10
	// MaxLabelColumns and MaxCustomColumns bound how many columns a list
	// adds: a table wider than this is no longer read by anyone.
	MaxLabelColumns  = 20
	MaxCustomColumns = 32
	// MaxObjectRows bounds the page of a list with custom columns: they
	// need each row's whole object (includeObject=Object), many times the
	// bytes of its metadata.
	MaxObjectRows = 200
	// maxColumnHeader bounds a custom column's header.
	maxColumnHeader = 63
	// maxCustomCell bounds the text of one custom cell: an expression that
	// selects a whole spec prints it, as kubectl does, but not without end.
	maxCustomCell = 1 << 10
	// maxChipLinks bounds the label chip links a view remembers, so a page
	// of rows with unique labels does not hold one per row.
	maxChipLinks = 1 << 10
)

// CustomColumn is one column of kubectl's custom-columns dialect,
// HEADER:JSONPATH.
type CustomColumn struct {
	Name string
	// Path is the expression as it was given (".spec.nodeName"), for the
	// URL and the form; Expr is it as client-go's jsonpath parses it.
	Path string
	Expr string
}

// relaxedPath is kubectl's RelaxedJSONPathExpression (k8s.io/kubectl
// pkg/cmd/get/customcolumn.go): "metadata.name", ".metadata.name",
// "{metadata.name}" and "{.metadata.name}" all mean "{.metadata.name}".
var relaxedPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// ParseCustomColumns reads kubectl's -o custom-columns spec, as kubectl
// does: columns split at commas, each header and path split at the first
// colon, the path relaxed and parsed by k8s.io/client-go/util/jsonpath.
// Its errors say which column is wrong and why.
func ParseCustomColumns(spec string) ([]CustomColumn, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, nil
	}
	if n := strings.Count(spec, ",") + 1; n > MaxCustomColumns {
		return nil, fmt.Errorf("%d custom columns; a list adds %d at most", n, MaxCustomColumns)
	}
	if len(spec) > MaxColumnsSpec {
		return nil, fmt.Errorf("the custom columns are %d bytes long; they may be %d at most", len(spec), MaxColumnsSpec)
	}
	parts := strings.Split(spec, ",")
	cols := make([]CustomColumn, 0, len(parts))
	for i, part := range parts {
		header, path, ok := strings.Cut(strings.TrimSpace(part), ":")
		header = strings.TrimSpace(header)
		where := fmt.Sprintf("custom column %d (%q)", i+1, part)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: expected HEADER:JSONPATH, as in NAME:.metadata.name", where)
		case header == "":
			return nil, fmt.Errorf("%s: the header is empty", where)
		case len(header) > maxColumnHeader:
			return nil, fmt.Errorf("%s: the header is longer than %d bytes", where, maxColumnHeader)
		case !printable(header):
			return nil, fmt.Errorf("%s: the header has characters that cannot be shown", where)
		}
		m := relaxedPath.FindStringSubmatch(path)
		if m == nil {
			return nil, fmt.Errorf("%s: expected a path such as .spec.nodeName or {.spec.containers[*].image}", where)
		}
		field := m[1]
		if field == "" {
			field = m[2]
		}
		expr := "{." + field + "}"
		if _, err := newPath(expr); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		cols = append(cols, CustomColumn{Name: header, Path: path, Expr: expr})
	}
	return cols, nil
}

// CustomColumnsSpec writes columns back in the dialect ParseCustomColumns reads.
func CustomColumnsSpec(cols []CustomColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + ":" + c.Path
	}
	return strings.Join(parts, ",")
}

// ParseLabelColumns reads kubectl -L's comma-separated label keys; each
// must be a valid label key (a qualified name, optionally prefixed).
func ParseLabelColumns(spec string) ([]string, error) {
	keys, err := SplitNames(spec, "label columns", MaxLabelColumns)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("label column %q is not a label key: %s", k, strings.Join(errs, "; "))
		}
	}
	return keys, nil
}

// SplitNames reads a comma-separated list of names (label keys, column
// names), bounded in length and count (repeats count); empty names and
// repeats are then dropped.
func SplitNames(spec, what string, limit int) ([]string, error) {
	if len(spec) > MaxColumnsSpec {
		return nil, fmt.Errorf("the %s are %d bytes long; they may be %d at most", what, len(spec), MaxColumnsSpec)
	}
	var names []string
	given := 0
	for n := range strings.SplitSeq(spec, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if given++; given > limit {
			return nil, fmt.Errorf("%d %s or more; a list takes %d at most", given, what, limit)
		}
		if !containsFold(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

func printable(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

func containsFold(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func newPath(expr string) (*jsonpath.JSONPath, error) {
	p := jsonpath.New("column").AllowMissingKeys(true)
	if err := p.Parse(expr); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "column: "))
	}
	return p, nil
}

// extraKind is what an added column shows.
type extraKind uint8

const (
	labelColumn  extraKind = iota // one label's value (kubectl -L)
	customColumn                  // a JSONPath over the object (custom-columns)
	labelsColumn                  // every label, as chips (--show-labels)
)

// extraColumn is a column the console computes from each row's object.
type extraColumn struct {
	kind  extraKind
	name  string
	shown bool
	key   string             // labelColumn: the label; customColumn: the path as given
	path  *jsonpath.JSONPath // customColumn; one per view, as it keeps state while it runs
	// top is the object's member a custom column starts at ("spec"), ""
	// when its expression may read any.
	top string
}

// extraColumns are the added columns of t, in their order: label columns,
// custom columns, and the Labels column last, as kubectl prints LABELS.
// Custom expressions were checked when the URL was parsed; one that fails
// to parse here shows empty cells.
func extraColumns(t ListTable) []extraColumn {
	var out []extraColumn
	for _, k := range t.LabelColumns {
		out = append(out, extraColumn{kind: labelColumn, name: k, key: k})
	}
	for _, c := range t.CustomColumns {
		p, _ := newPath(c.Expr)
		out = append(out, extraColumn{kind: customColumn, name: c.Name, key: c.Path, path: p, top: topMember(c.Expr)})
	}
	if t.ShowLabels {
		out = append(out, extraColumn{kind: labelsColumn, name: "Labels"})
	}
	return out
}

func (c extraColumn) header() views.ListColumn {
	switch c.kind {
	case labelColumn:
		return views.ListColumn{Name: c.name, Description: "Label " + c.key + " (label column)"}
	case customColumn:
		return views.ListColumn{Name: c.name, Description: "Custom column " + c.key}
	}
	return views.ListColumn{Name: c.name, Description: "The object's labels"}
}

func (c extraColumn) choiceKind() string {
	switch c.kind {
	case labelColumn:
		return "label"
	case customColumn:
		return "custom"
	}
	return "labels"
}

// extraCells appends a row's added cells; obj is the row's decoded
// object, decoded only when a custom column needs it.
func (v *ListView) extraCells(row *apiclient.Row, cells []views.Cell) []views.Cell {
	var labels map[string]string
	if row.Object != nil {
		labels = row.Object.Labels
	}
	var obj any
	decoded := false
	if v.tops == nil {
		v.tops = customTops(v.extras)
	}
	for _, c := range v.extras {
		if !c.shown {
			continue
		}
		switch c.kind {
		case labelColumn:
			// kubectl -L prints nothing for a missing label.
			cells = append(cells, views.Cell{Text: labels[c.key]})
		case customColumn:
			if !decoded {
				decoded, obj = true, decodeObject(row.Raw, v.tops)
				// A column of .data never prints a Secret's values: they are
				// masked here as on the object page, in every row, export
				// and filter built from it.
				if m, isMap := obj.(map[string]any); isMap && v.t.Resource.Kind == "Secret" {
					MaskSecret(&unstructured.Unstructured{Object: m})
				}
			}
			cells = append(cells, customCell(c.path, obj))
		case labelsColumn:
			cells = append(cells, v.labelsCell(labels))
		}
	}
	return cells
}

// customTops are the members of an object the shown custom columns read;
// one "" means any (the whole object is decoded).
func customTops(extras []extraColumn) []string {
	tops := []string{}
	for _, c := range extras {
		if c.kind == customColumn && c.shown && !slices.Contains(tops, c.top) {
			tops = append(tops, c.top)
		}
	}
	return tops
}

// topMember is the member of the object an expression starts at, when it
// starts with a plain field ({.spec.…}); "" when it may read any.
func topMember(expr string) string {
	p, err := jsonpath.Parse("column", expr)
	if err != nil || len(p.Root.Nodes) != 1 {
		return ""
	}
	list, ok := p.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok || len(list.Nodes) == 0 {
		return ""
	}
	if f, ok := list.Nodes[0].(*jsonpath.FieldNode); ok && f.Value != "" && f.Value != "*" {
		return f.Value
	}
	return ""
}

// decodeObject decodes a row's object as kubectl's unstructured objects
// hold it (numbers as int64 or float64), only the members tops name when
// they name some: a pod's metadata.managedFields and status cost most of
// its decoding and a column of .spec reads neither. Nil when there is
// no object, or it is not JSON.
func decodeObject(raw []byte, tops []string) any {
	if raw == nil {
		return nil
	}
	if slices.Contains(tops, "") {
		var obj any
		if utiljson.Unmarshal(raw, &obj) != nil {
			return nil
		}
		return obj
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil
	}
	obj := make(map[string]any, len(tops))
	for _, name := range tops {
		if m, ok := members[name]; ok {
			var v any
			if utiljson.Unmarshal(m, &v) != nil {
				return nil
			}
			obj[name] = v
		}
	}
	return obj
}

// customCell evaluates a custom column on one object as kubectl prints it:
// every result, comma-separated; <none> when nothing matches. A failing
// evaluation fails this cell only, with the reason as its title.
func customCell(p *jsonpath.JSONPath, obj any) views.Cell {
	none := views.Cell{Text: "<none>", Muted: true}
	if p == nil || obj == nil {
		return none
	}
	results, err := p.FindResults(obj)
	if err != nil {
		return views.Cell{Title: "JSONPath: " + err.Error()}
	}
	var b strings.Builder
	n := 0
	for _, vals := range results {
		for _, val := range vals {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			writeValue(&b, val)
			if b.Len() > maxCustomCell {
				break
			}
		}
	}
	if n == 0 {
		return none
	}
	text := b.String()
	if len(text) > maxCustomCell {
		text = strings.ToValidUTF8(text[:maxCustomCell], "") + "…"
	}
	return views.Cell{Text: text}
}

func writeValue(b *strings.Builder, val reflect.Value) {
	if !val.IsValid() || !val.CanInterface() {
		return
	}
	switch x := val.Interface().(type) {
	case string:
		b.WriteString(x)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case nil:
		b.WriteString("<nil>")
	default:
		fmt.Fprint(b, x)
	}
}

// labelsCell shows labels as chips, sorted by key; its text is kubectl
// --show-labels' k=v,k=v (what filters and exports read).
func (v *ListView) labelsCell(labels map[string]string) views.Cell {
	if len(labels) == 0 {
		return views.Cell{Text: "<none>", Muted: true}
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	chips := make([]views.Chip, len(keys))
	var text strings.Builder
	for i, k := range keys {
		chips[i] = v.chip(k, labels[k])
		if i > 0 {
			text.WriteByte(',')
		}
		text.WriteString(chips[i].Text)
	}
	return views.Cell{Text: text.String(), Labels: chips}
}

// chip is a label's chip, its links remembered: rows share their labels.
func (v *ListView) chip(key, value string) views.Chip {
	id := key + "=" + value
	if c, ok := v.chips[id]; ok {
		return c
	}
	c := views.Chip{Text: id}
	if v.t.LabelFilterHref != nil {
		c.Href = v.t.LabelFilterHref(key, value)
	}
	if v.t.LabelColumnHref != nil && !containsFold(v.t.LabelColumns, key) && len(v.t.LabelColumns) < MaxLabelColumns {
		c.ColumnHref = v.t.LabelColumnHref(key)
	}
	if len(v.chips) < maxChipLinks {
		if v.chips == nil {
			v.chips = map[string]views.Chip{}
		}
		v.chips[id] = c
	}
	return c
}
