package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/util/jsonpath"
)

// Column is one server-side Table column of a resource.
type Column struct {
	metav1.TableColumnDefinition
	// JSONPath is evaluated against the object for the cell, as CRD
	// additionalPrinterColumns are (for example ".status.phase").
	JSONPath string
	// Value computes the cell when set; it wins over JSONPath.
	Value func(obj *unstructured.Unstructured) any
}

// NameColumn is the Name column every Table starts with.
func NameColumn() Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."},
		Value:                 func(o *unstructured.Unstructured) any { return o.GetName() },
	}
}

// AgeColumn is the Age column: the time since creationTimestamp, as kubectl prints it.
func AgeColumn() Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{Name: "Age", Type: "date", Description: "CreationTimestamp is a timestamp representing the server time when this object was created."},
		Value:                 func(o *unstructured.Unstructured) any { return age(o) },
	}
}

// PathColumn is a column whose cells come from a JSONPath.
func PathColumn(name, typ, path string, priority int32) Column {
	return Column{TableColumnDefinition: metav1.TableColumnDefinition{Name: name, Type: typ, Priority: priority}, JSONPath: path}
}

func age(o *unstructured.Unstructured) string {
	ts := o.GetCreationTimestamp()
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}

func tableMediaType(r representation) string {
	if r == reprTableV1Beta1 {
		return TableV1Beta1MediaType
	}
	return TableV1MediaType
}

// table renders objs as a meta.k8s.io Table of the negotiated version.
func (s *Server) table(req resourceRequest, repr representation, objs []*unstructured.Unstructured, includeObject string) (*metav1.Table, error) {
	version := "meta.k8s.io/v1"
	if repr == reprTableV1Beta1 {
		version = "meta.k8s.io/v1beta1"
	}
	switch includeObject {
	case "", "Metadata", "None", "Object":
	default:
		return nil, fmt.Errorf("includeObject: unsupported value %q: must be None, Metadata or Object", includeObject)
	}
	cols := req.gv.Columns[req.res.Name]
	if len(cols) == 0 {
		cols = []Column{NameColumn(), AgeColumn()}
	}
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: version}, Rows: []metav1.TableRow{}}
	for _, c := range cols {
		t.ColumnDefinitions = append(t.ColumnDefinitions, c.TableColumnDefinition)
	}
	for _, o := range objs {
		row := metav1.TableRow{}
		for _, c := range cols {
			row.Cells = append(row.Cells, cell(c, o))
		}
		var embedded any
		switch includeObject {
		case "", "Metadata":
			embedded = partialObject(o, version)
		case "Object":
			embedded = o.Object
		}
		if embedded != nil {
			raw, err := json.Marshal(embedded)
			if err != nil {
				return nil, err
			}
			row.Object = runtime.RawExtension{Raw: raw}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func cell(c Column, o *unstructured.Unstructured) any {
	if c.Value != nil {
		return c.Value(o)
	}
	if c.JSONPath == "" {
		return nil
	}
	jp := jsonpath.New(c.Name).AllowMissingKeys(true)
	if err := jp.Parse("{" + c.JSONPath + "}"); err != nil {
		return nil
	}
	results, err := jp.FindResults(o.Object)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	v := results[0][0].Interface()
	switch c.Type {
	case "date":
		if s, ok := v.(string); ok {
			if ts, err := time.Parse(time.RFC3339, s); err == nil {
				return duration.HumanDuration(time.Since(ts))
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			var buf bytes.Buffer
			if err := jp.Execute(&buf, o.Object); err == nil {
				return strings.TrimSpace(buf.String())
			}
		}
	}
	return v
}

type condition struct{ Type, Status, Reason, Message string }

func conditions(o *unstructured.Unstructured) []condition {
	raw, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	var out []condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	return out
}
