package edit

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/views"
)

// secretForm lists a Secret's keys with masked values: sizes only, a value
// only for the keys in reveal. The user's new values and removals are kept
// from st; keys they added show too.
func secretForm(live *unstructured.Unstructured, st views.EditState, reveal map[string]bool) *views.SecretForm {
	data, _, _ := unstructured.NestedStringMap(live.Object, "data")
	set := map[string]string{}
	for _, v := range st.SecretSet {
		set[v.Key] = v.Value
	}
	keys := make([]string, 0, len(data)+len(set))
	for k := range data {
		keys = append(keys, k)
	}
	for k := range set {
		if _, ok := data[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	f := &views.SecretForm{}
	for _, k := range keys {
		sk := views.SecretKey{Key: k, NewValue: set[k], Remove: slices.Contains(st.SecretRemove, k)}
		if raw, ok := data[k]; ok {
			value, err := base64.StdEncoding.DecodeString(raw)
			sk.Size = len(value)
			sk.Binary = err != nil || !utf8.Valid(value)
			if reveal[k] && !sk.Binary {
				sk.Revealed, sk.Value = true, string(value)
			}
		}
		f.Keys = append(f.Keys, sk)
	}
	return f
}
