package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Patch types, as Content-Type values.
const (
	// MergePatchType is a JSON merge patch (RFC 7386), which every server
	// following the conventions should take.
	MergePatchType = "application/merge-patch+json"
	// JSONPatchType is a JSON Patch (RFC 6902): what Patch falls back to on
	// servers that answer 415 to merge patches.
	JSONPatchType = "application/json-patch+json"
)

// jsonPatchOp is one RFC 6902 operation. Value is nil, and left out, for
// remove only: MergeToJSONPatch never adds or tests a null.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// MergeToJSONPatch derives RFC 6902 operations from a merge patch and the
// document it applies to (base; nil is an empty object), so that servers
// taking only JSON Patch get the same change: null removes a member (only
// if base has it, as remove fails otherwise), an object onto an object
// recurses, anything else is added whole (add replaces an existing member;
// an object added whole loses its null members, as RFC 7386 merging onto
// nothing does). Arrays are replaced whole. Keys are JSON Pointer escaped
// (~0, ~1); members come in key order, so the result is stable.
//
// A merge patch setting metadata.resourceVersion makes it a precondition:
// the first operation tests /metadata/resourceVersion against that value,
// and the resourceVersion is not otherwise written. (A null one, which
// asks for no precondition, is dropped.)
func MergeToJSONPatch(base map[string]any, mergePatch []byte) ([]byte, error) {
	patch, err := decodeMergePatch(mergePatch)
	if err != nil {
		return nil, err
	}
	var ops []jsonPatchOp
	if meta, ok := patch["metadata"].(map[string]any); ok {
		if rv, ok := meta["resourceVersion"]; ok {
			meta = maps.Clone(meta)
			delete(meta, "resourceVersion")
			patch = maps.Clone(patch)
			if len(meta) == 0 {
				delete(patch, "metadata")
			} else {
				patch["metadata"] = meta
			}
			if rv != nil {
				ops = append(ops, jsonPatchOp{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
			}
		}
	}
	ops = mergeOps(ops, "", base, patch)
	if ops == nil {
		ops = []jsonPatchOp{} // "[]": a patch that changes nothing
	}
	return json.Marshal(ops)
}

// decodeMergePatch decodes a merge patch that must be one JSON object,
// numbers kept as written.
func decodeMergePatch(mergePatch []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(mergePatch))
	dec.UseNumber()
	var patch map[string]any
	if err := dec.Decode(&patch); err != nil {
		return nil, fmt.Errorf("decoding the merge patch: %w", err)
	}
	if patch == nil {
		return nil, errors.New("decoding the merge patch: not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decoding the merge patch: data after the JSON object")
	}
	return patch, nil
}

// mergeOps appends the operations merging patch into base at prefix.
func mergeOps(ops []jsonPatchOp, prefix string, base, patch map[string]any) []jsonPatchOp {
	for _, key := range slices.Sorted(maps.Keys(patch)) {
		path := prefix + "/" + escapePointer(key)
		old, exists := base[key]
		switch v := patch[key].(type) {
		case nil:
			if exists {
				ops = append(ops, jsonPatchOp{Op: "remove", Path: path})
			}
		case map[string]any:
			if oldMap, ok := old.(map[string]any); ok {
				ops = mergeOps(ops, path, oldMap, v)
			} else {
				ops = append(ops, jsonPatchOp{Op: "add", Path: path, Value: withoutNulls(v)})
			}
		default:
			ops = append(ops, jsonPatchOp{Op: "add", Path: path, Value: v})
		}
	}
	return ops
}

// escapePointer escapes a key as a JSON Pointer reference token (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// withoutNulls is m without its null members, at any depth of objects
// (arrays are values: kept as they are).
func withoutNulls(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(v)
		default:
			out[k] = v
		}
	}
	return out
}
