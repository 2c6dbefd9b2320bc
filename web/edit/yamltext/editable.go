package yamltext

// lastApplied is the annotation kubectl apply keeps a copy of the object
// in (k8s.io/api/core/v1's LastAppliedConfigAnnotation, which this leaf
// does not import).
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// ViewOptions say what the editor shows of an object.
type ViewOptions struct {
	Status     bool // keep .status (read-only views); the editor drops it by default
	SecretData bool // keep a Secret's data and stringData; the editor drops them (values are never pre-filled)
}

// EditableObject returns a deep copy of obj without metadata.managedFields,
// without status unless opts.Status, and, when obj is a core/v1 Secret
// (apiVersion "v1", kind "Secret"), without data and stringData unless
// opts.SecretData. Without SecretData a Secret also loses the
// kubectl.kubernetes.io/last-applied-configuration annotation, which holds
// a copy of its values, and its annotations if that leaves them empty.
//
// What is dropped is dropped from the loaded object and the edited text
// alike, so a merge patch between them leaves it as it is on the server.
func EditableObject(obj map[string]any, opts ViewOptions) map[string]any {
	out, _ := deepCopy(obj).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	meta, _ := out["metadata"].(map[string]any)
	delete(meta, "managedFields")
	if !opts.Status {
		delete(out, "status")
	}
	if !opts.SecretData && out["apiVersion"] == "v1" && out["kind"] == "Secret" {
		delete(out, "data")
		delete(out, "stringData")
		if ann, ok := meta["annotations"].(map[string]any); ok {
			delete(ann, lastApplied)
			if len(ann) == 0 {
				delete(meta, "annotations")
			}
		}
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// Editable renders EditableObject as YAML for the editor, keys in a
// reader's order: apiVersion, kind, metadata (name, generateName, namespace,
// labels, annotations first, then the rest sorted), then the other top-level
// keys sorted with status last; nested maps sorted. Strings that YAML 1.1 or
// 1.2 would read as something else ("yes", "on", "1.0", "0x1F", "~", "",
// "2024-01-01", "1:20") are quoted; multi-line strings are block scalars
// where YAML can hold them exactly, double-quoted otherwise. Numbers are
// written in their canonical form.
//
// Parse reads the result back to EditableObject(obj, opts) with numbers
// canonical: rendering and parsing round-trip.
func Editable(obj map[string]any, opts ViewOptions) (string, error) {
	v, err := Normalize(EditableObject(obj, opts))
	if err != nil {
		return "", err
	}
	n, err := yamlNode(v, topOrder)
	if err != nil {
		return "", err
	}
	return encodeYAML(n)
}
