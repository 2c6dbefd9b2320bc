package object

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// Blame shows, beside each field of an object's YAML, who owns it, from
// the object's own metadata.managedFields: the server's record of every
// writer (manager), how it wrote (Apply or Update), through which
// subresource, when last, and the exact set of fields (FieldsV1). Nothing
// is asked of the server beyond the object itself.

// maxBlameLines bounds the lines of a blame view: an object is at most
// about 1.5 MiB, but a view of a hundred thousand lines helps no one.
const maxBlameLines = 5000

// elementKey is the path element of a list's element in a FieldsV1 set:
// among the set's children of the list, the "k:" whose key fields all
// match the element, the "v:" equal to it, or "i:" its index.
func elementKey(children kube.FieldSet, elem any, index int) (string, bool) {
	for k := range children {
		switch k[0] {
		case 'k':
			var key map[string]any
			m, ok := elem.(map[string]any)
			if !ok || json.Unmarshal([]byte(k[2:]), &key) != nil {
				continue
			}
			if matchesKey(m, key) {
				return k, true
			}
		case 'v':
			var value any
			if json.Unmarshal([]byte(k[2:]), &value) == nil && jsonEqual(value, elem) {
				return k, true
			}
		case 'i':
			if k[2:] == strconv.Itoa(index) {
				return k, true
			}
		}
	}
	return "", false
}

func matchesKey(elem, key map[string]any) bool {
	for f, want := range key {
		if !jsonEqual(want, elem[f]) {
			return false
		}
	}
	return len(key) > 0
}

// jsonEqual compares a value decoded by encoding/json (float64 numbers)
// with one of an unstructured object (int64 numbers).
func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb) || reflect.DeepEqual(a, b)
}

// blamer walks an object's fields along each owner's field set.
type blamer struct {
	owners []kube.ManagedEntry
	now    time.Time
	lines  []views.BlameLine
	// counts are the lines each manager owns, for the legend.
	counts map[string]int
	cut    bool
}

// cursor is where one owner's set is, at the node being rendered: nil
// once the node is outside the set.
type cursor []kube.FieldSet

func (c cursor) field(name string) cursor {
	out := make(cursor, len(c))
	for i, s := range c {
		if s != nil {
			out[i] = s["f:"+name]
		}
	}
	return out
}

func (c cursor) element(elem any, index int) cursor {
	out := make(cursor, len(c))
	for i, s := range c {
		if s == nil {
			continue
		}
		if k, ok := elementKey(s, elem, index); ok {
			out[i] = s[k]
		}
	}
	return out
}

// owned are the owners of the node: those whose set has it as a leaf
// (no children) or marks it with ".".
func (b *blamer) owned(c cursor) []views.BlameOwner {
	var out []views.BlameOwner
	for i, s := range c {
		if s == nil {
			continue
		}
		if _, self := s["."]; self || len(s) == 0 {
			o := b.owners[i]
			bo := views.BlameOwner{Manager: o.Manager, Operation: o.Operation, Subresource: o.Subresource}
			if !o.Time.IsZero() {
				bo.Age = duration.HumanDuration(b.now.Sub(o.Time))
				bo.Time = o.Time.UTC().Format(time.RFC3339)
			}
			out = append(out, bo)
			b.counts[o.Manager]++
		}
	}
	return out
}

func (b *blamer) emit(l views.BlameLine) {
	if len(b.lines) >= maxBlameLines {
		b.cut = true
		return
	}
	b.lines = append(b.lines, l)
}

// value renders v, the value of a field or element, at depth; head is the
// line's text up to the value ("image:", "-").
func (b *blamer) value(depth int, head string, v any, c cursor) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.emit(views.BlameLine{Depth: depth, Text: head + " {}", Owners: b.owned(c)})
			return
		}
		b.emit(views.BlameLine{Depth: depth, Text: head, Owners: b.owned(c)})
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b.value(depth+1, yamlKey(k)+":", v[k], c.field(k))
		}
	case []any:
		if len(v) == 0 {
			b.emit(views.BlameLine{Depth: depth, Text: head + " []", Owners: b.owned(c)})
			return
		}
		b.emit(views.BlameLine{Depth: depth, Text: head, Owners: b.owned(c)})
		for i, elem := range v {
			b.value(depth+1, "-", elem, c.element(elem, i))
		}
	default:
		b.emit(views.BlameLine{Depth: depth, Text: head + " " + yamlScalar(v), Owners: b.owned(c)})
	}
}

// yamlKey is a map key as YAML writes it (quoted when it must be).
func yamlKey(k string) string { return yamlScalar(k) }

// yamlScalar is a scalar as YAML writes it on one line: a multi-line
// string is written as a JSON string, which YAML reads the same.
func yamlScalar(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	case string:
		if plainYAML(v) {
			return v
		}
	}
	b, err := yaml.Marshal(v)
	text := strings.TrimSuffix(string(b), "\n")
	if err != nil || strings.Contains(text, "\n") {
		j, _ := json.Marshal(v)
		return string(j)
	}
	return text
}

// plainYAML says s reads back as the same string without quotes: names,
// images, paths and the like, which are most values (the rest go through
// the YAML encoder).
func plainYAML(s string) bool {
	if s == "" || !isAlnum(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '-' && c != '_' && c != '/' {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil && !strings.ContainsAny(s[:1], "0123456789")
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// blameView builds the YAML view with field owners: obj is already masked
// (a Secret's values hidden), and its managedFields are read before they
// are left out of the text. manager, when set, keeps the lines owned by
// that manager bright and dims the others.
func blameView(obj *unstructured.Unstructured, base templ.SafeURL, manager string, now time.Time) *views.BlameView {
	all, notes := kube.ManagedEntries(obj)
	v := &views.BlameView{Notes: notes, Manager: manager, AllHref: base + "?view=yaml&blame=1", YAMLHref: base + "?view=yaml"}
	if len(all) == 0 && len(notes) == 0 {
		v.Notes = append(v.Notes, "This object has no managedFields: the server keeps no record of who wrote which field (or it was removed).")
	}
	o := obj.DeepCopy()
	unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	b := &blamer{owners: all, now: now, counts: map[string]int{}}
	c := make(cursor, len(all))
	for i, ow := range all {
		c[i] = ow.Fields
	}
	for _, k := range slices.Sorted(maps.Keys(o.Object)) {
		b.value(0, yamlKey(k)+":", o.Object[k], c.field(k))
	}
	v.Lines = b.lines
	if b.cut {
		v.Notes = append(v.Notes, fmt.Sprintf("Only the first %d lines are shown.", maxBlameLines))
	}
	v.Managers = legend(all, b.counts, base, manager, now)
	color := map[string]int{}
	for _, m := range v.Managers {
		color[m.Name] = m.Color
	}
	for i := range v.Lines {
		for j := range v.Lines[i].Owners {
			v.Lines[i].Owners[j].Color = color[v.Lines[i].Owners[j].Manager]
		}
	}
	if manager != "" {
		for i := range v.Lines {
			v.Lines[i].Dim = !slices.ContainsFunc(v.Lines[i].Owners, func(o views.BlameOwner) bool { return o.Manager == manager })
		}
	}
	return v
}

// legend is each manager once, newest write first, with its operations,
// subresources and the lines it owns.
func legend(all []kube.ManagedEntry, counts map[string]int, base templ.SafeURL, current string, now time.Time) []views.BlameManager {
	byName := map[string]*views.BlameManager{}
	last := map[string]time.Time{}
	var order []string
	for _, o := range all {
		m, ok := byName[o.Manager]
		if !ok {
			m = &views.BlameManager{Name: o.Manager, Lines: counts[o.Manager], Current: o.Manager == current,
				Href: base + templ.SafeURL("?"+url.Values{"view": {"yaml"}, "blame": {"1"}, "manager": {o.Manager}}.Encode())}
			byName[o.Manager] = m
			order = append(order, o.Manager)
		}
		what := o.Operation
		if o.Subresource != "" {
			what += " (" + o.Subresource + ")"
		}
		if what != "" && !slices.Contains(m.Writes, what) {
			m.Writes = append(m.Writes, what)
		}
		if o.Time.After(last[o.Manager]) {
			last[o.Manager] = o.Time
			m.Age = duration.HumanDuration(now.Sub(o.Time))
			m.Time = o.Time.UTC().Format(time.RFC3339)
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return last[b].Compare(last[a]) })
	out := make([]views.BlameManager, 0, len(order))
	for i, name := range order {
		m := *byName[name]
		m.Color = i % blameColors
		out = append(out, m)
	}
	return out
}

// blameColors is how many manager colours the stylesheet has.
const blameColors = 6
