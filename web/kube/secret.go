package kube

import (
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MaskSecret replaces every value of a Secret's data and stringData,
// keeping the keys and their sizes, and the copy of them kubectl apply
// keeps in the last-applied annotation. It changes o: mask a copy.
func MaskSecret(o *unstructured.Unstructured) {
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
				size = SecretSize(s)
			}
			masked[k] = Hidden(size)
		}
		o.Object[field] = masked
	}
	if ann := o.GetAnnotations(); ann[corev1.LastAppliedConfigAnnotation] != "" {
		ann[corev1.LastAppliedConfigAnnotation] = Hidden(len(ann[corev1.LastAppliedConfigAnnotation]))
		o.SetAnnotations(ann)
	}
}

// Hidden is what a masked value shows instead of itself.
func Hidden(size int) string { return fmt.Sprintf("hidden (%d bytes)", size) }

// SecretSize is the decoded size of a Secret's base64 value.
func SecretSize(b64 string) int {
	if n, err := base64.StdEncoding.DecodeString(b64); err == nil {
		return len(n)
	}
	return len(b64)
}
