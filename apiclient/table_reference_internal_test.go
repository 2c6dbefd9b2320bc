package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reference decoder: what ListTable did before it streamed, a whole
// body through encoding/json. The stream must give what it gives.

// wireList is every list shape a server may answer with (Table, metadata
// list, plain list).
type wireList struct {
	Kind              string                         `json:"kind"`
	APIVersion        string                         `json:"apiVersion"`
	Metadata          metav1.ListMeta                `json:"metadata"`
	ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
	Rows              []wireRow                      `json:"rows"`
	Items             []json.RawMessage              `json:"items"`
}

type wireRow struct {
	Cells      []any                      `json:"cells"`
	Conditions []metav1.TableRowCondition `json:"conditions"`
	Object     json.RawMessage            `json:"object"`
}

// referenceTable decodes body as the reference does, with the cells of
// priority > 0 columns left out unless wide, as the stream leaves them.
func referenceTable(body []byte, wide bool) (*Table, error) {
	var in wireList
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	if in.Kind != "Table" {
		return fromList(&in)
	}
	t, err := fromServerTable(&in)
	if err != nil || wide {
		return t, err
	}
	for _, r := range t.Rows {
		for j := range r.Cells {
			if j < len(t.Columns) && t.Columns[j].Priority > 0 {
				r.Cells[j] = nil
			}
		}
	}
	return t, nil
}

func fromServerTable(in *wireList) (*Table, error) {
	out := &Table{
		Served:             TableV1,
		ResourceVersion:    in.Metadata.ResourceVersion,
		Continue:           in.Metadata.Continue,
		RemainingItemCount: in.Metadata.RemainingItemCount,
		Columns:            make([]Column, len(in.ColumnDefinitions)),
		Rows:               make([]Row, len(in.Rows)),
	}
	if in.APIVersion == "meta.k8s.io/v1beta1" {
		out.Served = TableV1Beta1
	}
	for i, c := range in.ColumnDefinitions {
		out.Columns[i] = Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority}
	}
	for i, r := range in.Rows {
		out.Rows[i] = Row{Cells: r.Cells, Conditions: r.Conditions}
		if len(r.Object) > 0 && string(r.Object) != "null" {
			meta, err := decodeMeta(r.Object)
			if err != nil {
				return nil, fmt.Errorf("decoding row %d object: %w", i, err)
			}
			out.Rows[i].Object = meta
		}
	}
	return out, nil
}

func decodeMeta(raw []byte) (*ObjectMeta, error) {
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	m := obj.Metadata
	return &ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, CreationTimestamp: m.CreationTimestamp.Time, Labels: m.Labels}, nil
}

func fromList(in *wireList) (*Table, error) {
	out := &Table{
		Served:             JSONFallback,
		Columns:            slices.Clone(genericColumns),
		ResourceVersion:    in.Metadata.ResourceVersion,
		Continue:           in.Metadata.Continue,
		RemainingItemCount: in.Metadata.RemainingItemCount,
		Rows:               make([]Row, len(in.Items)),
	}
	if in.Kind == "PartialObjectMetadataList" {
		out.Served = MetadataList
	}
	for i, raw := range in.Items {
		meta, err := decodeMeta(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding %s item %d: %w", in.Kind, i, err)
		}
		var age any
		if !meta.CreationTimestamp.IsZero() {
			age = meta.CreationTimestamp.UTC().Format(time.RFC3339)
		}
		out.Rows[i] = Row{Cells: []any{meta.Name, meta.Namespace, age}, Object: meta}
	}
	return out, nil
}

// streamTable decodes body with the stream, keeping every row.
func streamTable(body []byte, wide bool) (*Table, error) {
	return streamTableWith(newDecodePools(), body, wide)
}

func streamTableWith(pools *decodePools, body []byte, wide bool) (*Table, error) {
	s, err := newTableStream(context.Background(), io.NopCloser(bytes.NewReader(body)), maxListBytes, wide, pools)
	if err != nil {
		return nil, err
	}
	return s.collect()
}

// sameTable reports whether two decodings say the same: nil and empty
// slices and maps are alike (Row.Clone does not keep the difference, no
// page sees it), times are instants (metav1.Time decodes to local time).
func sameTable(a, b *Table) bool {
	return reflect.DeepEqual(canonical(a), canonical(b))
}

func canonical(t *Table) *Table {
	c := *t
	if len(c.Columns) == 0 {
		c.Columns = nil
	}
	c.Rows = nil
	for _, r := range t.Rows {
		r = r.Clone()
		if len(r.Cells) == 0 {
			r.Cells = nil
		}
		if len(r.Conditions) == 0 {
			r.Conditions = nil
		}
		if r.Object != nil {
			if len(r.Object.Labels) == 0 {
				r.Object.Labels = nil
			} else {
				r.Object.Labels = maps.Clone(r.Object.Labels)
			}
			r.Object.CreationTimestamp = r.Object.CreationTimestamp.UTC()
		}
		c.Rows = append(c.Rows, r)
	}
	return &c
}
