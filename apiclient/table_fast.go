package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// decodeTableFast decodes a meta.k8s.io Table. Tables are the one large body
// on the console's hot path: decoding them with reflection into []any cost
// more than the API server took to serve them, so fastjson parses them
// without reflection, into pooled memory. Nothing returned refers to body.
// ok is false when the body is not a Table, so the caller decodes a list.
func decodeTableFast(parsers *fastjson.ParserPool, body []byte, wide bool) (t *Table, ok bool, err error) {
	if !plainJSON(body) {
		// fastjson passes invalid UTF-8 and lone surrogates through where
		// encoding/json replaces them; leave such bodies to encoding/json.
		return nil, false, nil
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return nil, false, fmt.Errorf("decoding response: %w", err)
	}
	if string(v.GetStringBytes("kind")) != "Table" {
		return nil, false, nil
	}
	t = &Table{
		Served:          TableV1,
		ResourceVersion: string(v.GetStringBytes("metadata", "resourceVersion")),
		Continue:        string(v.GetStringBytes("metadata", "continue")),
	}
	if string(v.GetStringBytes("apiVersion")) == "meta.k8s.io/v1beta1" {
		t.Served = TableV1Beta1
	}
	if n := v.Get("metadata", "remainingItemCount"); n != nil && n.Type() == fastjson.TypeNumber {
		count := n.GetInt64()
		t.RemainingItemCount = &count
	}
	for _, c := range v.GetArray("columnDefinitions") {
		t.Columns = append(t.Columns, Column{
			Name:        string(c.GetStringBytes("name")),
			Type:        string(c.GetStringBytes("type")),
			Format:      string(c.GetStringBytes("format")),
			Description: string(c.GetStringBytes("description")),
			Priority:    int32(c.GetInt("priority")),
		})
	}
	rows := v.GetArray("rows")
	t.Rows = make([]Row, len(rows))
	// Columns repeat their values down the rows ("Running", "1/1",
	// "<none>"): each column reuses its previous boxed string when equal.
	prev := make([]any, len(t.Columns))
	for i, r := range rows {
		cells := r.GetArray("cells")
		row := Row{Cells: make([]any, len(cells))}
		for j, c := range cells {
			if !wide && j < len(t.Columns) && t.Columns[j].Priority > 0 {
				continue // hidden unless wide: not worth converting
			}
			var last *any
			if j < len(prev) {
				last = &prev[j]
			}
			if row.Cells[j], err = cellValue(c, last); err != nil {
				return nil, true, fmt.Errorf("decoding row %d cell %d: %w", i, j, err)
			}
		}
		for _, c := range r.GetArray("conditions") {
			row.Conditions = append(row.Conditions, metav1.TableRowCondition{
				Type:    metav1.RowConditionType(c.GetStringBytes("type")),
				Status:  metav1.ConditionStatus(c.GetStringBytes("status")),
				Reason:  string(c.GetStringBytes("reason")),
				Message: string(c.GetStringBytes("message")),
			})
		}
		if m := r.Get("object", "metadata"); m != nil {
			row.Object = metaOf(m)
		}
		t.Rows[i] = row
	}
	return t, true, nil
}

// cellValue converts a cell to what encoding/json would have produced.
// last, when set, holds the column's previous value, reused if equal.
func cellValue(c *fastjson.Value, last *any) (any, error) {
	switch c.Type() {
	case fastjson.TypeString:
		b := c.GetStringBytes()
		if last != nil {
			if s, ok := (*last).(string); ok && s == string(b) {
				return *last, nil
			}
		}
		var v any = string(b)
		if last != nil {
			*last = v
		}
		return v, nil
	case fastjson.TypeNumber:
		f := c.GetFloat64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("invalid number %s", c.String())
		}
		return f, nil
	case fastjson.TypeTrue:
		return true, nil
	case fastjson.TypeFalse:
		return false, nil
	case fastjson.TypeNull:
		return nil, nil
	}
	// Objects and arrays are rare in cells; the reflective decoder is fine.
	var out any
	err := json.Unmarshal(c.MarshalTo(nil), &out)
	return out, err
}

func metaOf(m *fastjson.Value) *ObjectMeta {
	meta := &ObjectMeta{
		Name:      string(m.GetStringBytes("name")),
		Namespace: string(m.GetStringBytes("namespace")),
		UID:       types.UID(m.GetStringBytes("uid")),
	}
	if ts := m.GetStringBytes("creationTimestamp"); len(ts) > 0 {
		if created, err := time.Parse(time.RFC3339, string(ts)); err == nil {
			meta.CreationTimestamp = created
		}
	}
	if labels := m.GetObject("labels"); labels != nil && labels.Len() > 0 {
		meta.Labels = make(map[string]string, labels.Len())
		labels.Visit(func(k []byte, v *fastjson.Value) {
			meta.Labels[string(k)] = string(v.GetStringBytes())
		})
	}
	return meta
}

// plainJSON reports whether body is valid UTF-8 without surrogate escapes,
// the only inputs on which fastjson and encoding/json decode strings alike.
func plainJSON(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	for rest := body; ; {
		i := bytes.Index(rest, []byte(`\u`))
		if i < 0 || i+3 >= len(rest) {
			return true
		}
		if d := rest[i+2]; (d == 'd' || d == 'D') && strings.IndexByte("89abcdefABCDEF", rest[i+3]) >= 0 {
			return false
		}
		rest = rest[i+2:]
	}
}
