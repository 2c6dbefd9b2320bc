package kube

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FieldSet is a managedFields entry's FieldsV1 as a tree: "f:<field>",
// "k:<key JSON>", "v:<value JSON>" and "i:<index>" children, and "." when
// the node itself is owned (a list element, a map added whole).
type FieldSet map[string]FieldSet

// ManagedEntry is one entry of an object's metadata.managedFields: who
// wrote (Manager), how (Apply or Update), through which subresource, when
// last, and the fields it owns.
type ManagedEntry struct {
	// Index is the entry's place in managedFields.
	Index       int
	Manager     string
	Operation   string
	Subresource string
	// Time is zero when the entry has none, or one that does not parse.
	Time   time.Time
	Fields FieldSet
}

// TopLevel are the top-level fields the entry owns ("spec", "metadata",
// "data"), sorted.
func (e ManagedEntry) TopLevel() []string {
	var out []string
	for k := range e.Fields {
		if name, ok := strings.CutPrefix(k, "f:"); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ManagedEntries reads obj's managedFields as the API server writes them.
// Entries that cannot be read (not an object, not FieldsV1, a path element
// FieldsV1 does not have) are left out, each with a note saying why; so is
// a managedFields that is not a list.
func ManagedEntries(obj *unstructured.Unstructured) ([]ManagedEntry, []string) {
	raw, found, err := unstructured.NestedSlice(obj.Object, "metadata", "managedFields")
	if err != nil {
		return nil, []string{"metadata.managedFields is not a list: " + err.Error()}
	}
	if !found {
		return nil, nil
	}
	var out []ManagedEntry
	var notes []string
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			notes = append(notes, fmt.Sprintf("managedFields[%d] is not an object: skipped.", i))
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		e := ManagedEntry{Index: i, Manager: cmp.Or(str("manager"), "(no manager)"), Operation: str("operation"), Subresource: str("subresource")}
		if t, err := time.Parse(time.RFC3339, str("time")); err == nil {
			e.Time = t
		}
		if ft := str("fieldsType"); ft != "" && ft != "FieldsV1" {
			notes = append(notes, fmt.Sprintf("managedFields[%d] (%s) is %s, not FieldsV1: skipped.", i, e.Manager, ft))
			continue
		}
		fields, err := fieldSetOf(m["fieldsV1"])
		if err != nil {
			notes = append(notes, fmt.Sprintf("managedFields[%d] (%s) could not be read: %v.", i, e.Manager, err))
			continue
		}
		e.Fields = fields
		out = append(out, e)
	}
	return out, notes
}

// fieldSetOf reads a FieldsV1 value, as decoded from JSON.
func fieldSetOf(v any) (FieldSet, error) {
	if v == nil {
		return FieldSet{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("fieldsV1 is a %T, not an object", v)
	}
	out := make(FieldSet, len(m))
	for k, child := range m {
		if k != "." && (len(k) < 2 || k[1] != ':' || !strings.ContainsRune("fkvi", rune(k[0]))) {
			return nil, fmt.Errorf("%q is not a FieldsV1 path element", k)
		}
		sub, err := fieldSetOf(child)
		if err != nil {
			return nil, err
		}
		out[k] = sub
	}
	return out, nil
}
