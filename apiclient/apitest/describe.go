package apitest

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// The describe representation as it goes on the wire. These types are the
// fake's own on purpose: the fake checks the wire format the client decodes
// (docs/describe-representation.md), not the client's Go types.
type description struct {
	APIVersion string               `json:"apiVersion"`
	Kind       string               `json:"kind"`
	Metadata   descriptionMetadata  `json:"metadata"`
	Sections   []descriptionSection `json:"sections"`
}

type descriptionMetadata struct {
	Name       string    `json:"name"`
	Namespace  string    `json:"namespace,omitempty"`
	UID        types.UID `json:"uid,omitempty"`
	Kind       string    `json:"kind"`
	APIVersion string    `json:"apiVersion,omitempty"`
}

type descriptionSection struct {
	Title  string             `json:"title"`
	Fields []descriptionField `json:"fields,omitempty"`
	Tables []descriptionTable `json:"tables,omitempty"`
}

type descriptionField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type descriptionTable struct {
	Title   string     `json:"title,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// describe builds a generic Description of obj: its metadata, the scalar
// fields of spec and status (dotted paths) and its status conditions.
func describe(obj *unstructured.Unstructured) description {
	d := description{
		APIVersion: "describe.tabula.dev/v1alpha1", Kind: "Description",
		Metadata: descriptionMetadata{
			Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			Kind: obj.GetKind(), APIVersion: obj.GetAPIVersion(),
		},
	}
	meta := descriptionSection{Title: "Metadata", Fields: []descriptionField{{Name: "Name", Value: obj.GetName()}}}
	if ns := obj.GetNamespace(); ns != "" {
		meta.Fields = append(meta.Fields, descriptionField{Name: "Namespace", Value: ns})
	}
	meta.Fields = append(meta.Fields,
		descriptionField{Name: "Labels", Value: joinMap(obj.GetLabels())},
		descriptionField{Name: "Annotations", Value: joinMap(obj.GetAnnotations())},
		descriptionField{Name: "Created", Value: obj.GetCreationTimestamp().UTC().Format("2006-01-02T15:04:05Z")},
	)
	for _, ref := range obj.GetOwnerReferences() {
		meta.Fields = append(meta.Fields, descriptionField{Name: "Controlled By", Value: ref.Kind + "/" + ref.Name})
	}
	d.Sections = append(d.Sections, meta)
	for _, part := range []string{"spec", "status"} {
		m, ok, _ := unstructured.NestedMap(obj.Object, part)
		if !ok {
			continue
		}
		delete(m, "conditions")
		sec := descriptionSection{Title: strings.ToUpper(part[:1]) + part[1:]}
		for _, kv := range leaves("", m) {
			sec.Fields = append(sec.Fields, descriptionField{Name: kv[0], Value: kv[1]})
		}
		if part == "status" {
			if conds := conditions(obj); len(conds) > 0 {
				t := descriptionTable{Title: "Conditions", Columns: []string{"Type", "Status", "Reason", "Message"}}
				for _, c := range conds {
					t.Rows = append(t.Rows, []string{c.Type, c.Status, c.Reason, c.Message})
				}
				sec.Tables = append(sec.Tables, t)
			}
		}
		d.Sections = append(d.Sections, sec)
	}
	return d
}

func joinMap(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// leaves flattens the scalar values of m into sorted path/value pairs.
func leaves(prefix string, m map[string]any) [][2]string {
	var out [][2]string
	for k, v := range m {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		switch v := v.(type) {
		case map[string]any:
			out = append(out, leaves(path, v)...)
		case []any:
			out = append(out, [2]string{path, fmt.Sprintf("%d items", len(v))})
		default:
			out = append(out, [2]string{path, fmt.Sprint(v)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
