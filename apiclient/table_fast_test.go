package apiclient

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The fast decoder must give what encoding/json gives, or step aside.
func TestFastTableDecodingMatchesEncodingJSON(t *testing.T) {
	bodies := []string{
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7","continue":"c","remainingItemCount":3},
		  "columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"N","type":"integer","priority":1}],
		  "rows":[{"cells":["a\\u00e9\\n",1.5,true,null,{"k":[1,"x"]}],"conditions":[{"type":"Completed","status":"True"}],
		           "object":{"metadata":{"name":"a","namespace":"ns","uid":"u1","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"web"}}}}]}`,
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","metadata":{},"columnDefinitions":[],"rows":[{"cells":["lone \\ud800 surrogate"]}]}`,
		"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{},\"columnDefinitions\":[],\"rows\":[{\"cells\":[\"bad \xff utf8\"]}]}",
	}
	pools := newDecodePools()
	for i, body := range bodies {
		c := &Client{pools: pools}
		got, err := c.decodeTable([]byte(body), true)
		if err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		var in wireList
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		want, err := fromServerTable(&in)
		if err != nil {
			t.Fatal(err)
		}
		// encoding/json (metav1.Time) gives local times, fastjson UTC: the
		// same instants.
		for r := range got.Rows {
			if g, w := got.Rows[r].Object, want.Rows[r].Object; g != nil && w != nil {
				if !g.CreationTimestamp.Equal(w.CreationTimestamp) {
					t.Errorf("body %d row %d: created %v, want %v", i, r, g.CreationTimestamp, w.CreationTimestamp)
				}
				g.CreationTimestamp = w.CreationTimestamp
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("body %d:\n fast %+v\n json %+v", i, got, want)
		}
	}
	// Invalid numbers fail, as they do for encoding/json.
	if _, _, err := decodeTableFast(&pools.parsers, []byte(`{"kind":"Table","rows":[{"cells":[NaN]}]}`), true); err == nil {
		t.Error("NaN accepted")
	}
}
