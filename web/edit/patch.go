package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/tabula-console/tabula/web/edit/yamltext"
)

// The merge patches the edit pages send, between objects as yamltext reads
// them (numbers exact, as json.Number in canonical text).
//
// jsonpatch.CreateMergePatch decodes numbers into float64, where
// 9007199254740993 == 9007199254740992, and writes a changed
// 12345678901234567890 back as 1.2345678901234567e+19. MergePatch therefore
// never shows it a number (see tagLeaves).

// MergePatch is the RFC 7386 merge patch from base to edited ("{}" when
// equal), computed with evanphx/json-patch. Numbers are compared exactly
// (see tagLeaves). Removed keys are null; arrays are replaced whole. A null
// that would remove what base does not have is left out, so writing "key:"
// for an absent key is no change. A patch larger than yamltext.MaxText is
// yamltext.ErrTooLarge.
//
// RFC 7386 cannot set a value to null: where edited holds null the patch
// removes the key.
func MergePatch(base, edited map[string]any) ([]byte, error) {
	p, err := mergePatch(base, edited)
	if err != nil {
		return nil, err
	}
	out, err := yamltext.ToJSON(p)
	if err != nil {
		return nil, err
	}
	if len(out) > yamltext.MaxText {
		return nil, yamltext.ErrTooLarge
	}
	return out, nil
}

func mergePatch(base, edited map[string]any) (map[string]any, error) {
	b, err := yamltext.Normalize(base)
	if err != nil {
		return nil, fmt.Errorf("the loaded object: %w", err)
	}
	e, err := yamltext.Normalize(edited)
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
	p, err := yamltext.DecodeObject(patch, "the patch")
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
	out, err := yamltext.ToJSON(p)
	if err != nil {
		return nil, err
	}
	if len(out) > yamltext.MaxText {
		return nil, yamltext.ErrTooLarge
	}
	return out, nil
}

// Apply applies a merge patch to doc (evanphx MergePatch) and returns the
// result as a JSON object, numbers canonical.
func Apply(doc map[string]any, patch []byte) (map[string]any, error) {
	if _, err := yamltext.DecodeObject(patch, "the patch"); err != nil {
		return nil, err
	}
	d, err := yamltext.ToJSON(doc)
	if err != nil {
		return nil, err
	}
	out, err := jsonpatch.MergePatch(d, patch)
	if err != nil {
		return nil, fmt.Errorf("applying the patch: %w", err)
	}
	return yamltext.DecodeObject(out, "applying the patch")
}

// IsEmptyPatch reports whether a merge patch changes nothing (is "{}" or
// only sets metadata.resourceVersion). Text that is not a JSON object is
// not empty.
func IsEmptyPatch(patch []byte) bool {
	p, err := yamltext.DecodeObject(patch, "the patch")
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
