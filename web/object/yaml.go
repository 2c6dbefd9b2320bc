package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/web/kube"
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
		kube.MaskSecret(o)
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
	kube.MaskSecret(o)
	return o
}
