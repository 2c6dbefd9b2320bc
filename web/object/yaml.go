package object

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// objectYAML renders an object as YAML, without managedFields unless asked.
// A Secret's values, and the copy of them kubectl apply keeps in an
// annotation, are masked here as everywhere a Secret is shown.
func objectYAML(obj *unstructured.Unstructured, managedFields bool) (string, error) {
	o := obj.DeepCopy()
	if !managedFields {
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	}
	if isSecret(o) {
		maskSecret(o)
	}
	b, err := yaml.Marshal(o.Object)
	if err != nil {
		return "", fmt.Errorf("rendering YAML: %w", err)
	}
	return string(b), nil
}

// maskedIfSecret is obj as every view shows it: a copy with a Secret's
// values masked, or obj itself.
func maskedIfSecret(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if !isSecret(obj) {
		return obj
	}
	o := obj.DeepCopy()
	maskSecret(o)
	return o
}

// maskSecret replaces every value of data and stringData, keeping the keys
// and their sizes, and the last-applied annotation.
func maskSecret(o *unstructured.Unstructured) {
	for _, field := range []string{"data", "stringData"} {
		values, ok := o.Object[field].(map[string]any)
		if !ok {
			continue
		}
		masked := make(map[string]any, len(values))
		for k, v := range values {
			s, _ := v.(string)
			size := len(s)
			if field == "data" {
				size = secretSize(s)
			}
			masked[k] = hidden(size)
		}
		o.Object[field] = masked
	}
	if ann := o.GetAnnotations(); ann[corev1.LastAppliedConfigAnnotation] != "" {
		ann[corev1.LastAppliedConfigAnnotation] = hidden(len(ann[corev1.LastAppliedConfigAnnotation]))
		o.SetAnnotations(ann)
	}
}
