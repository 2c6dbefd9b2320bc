package object

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestObjectYAMLMasksSecretsOnly(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "creds", "annotations": map[string]any{
			corev1.LastAppliedConfigAnnotation: `{"data":{"password":"aHVudGVyMg=="}}`, "team": "payments",
		}},
		"data":       map[string]any{"password": "aHVudGVyMg=="},
		"stringData": map[string]any{"token": "plain"},
	}}
	out, err := objectYAML(secret, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"aHVudGVyMg==", "plain\n"} {
		if strings.Contains(out, leak) {
			t.Errorf("YAML shows %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{"password: hidden (7 bytes)", "token: hidden (5 bytes)", "team: payments"} {
		if !strings.Contains(out, want) {
			t.Errorf("YAML lacks %q:\n%s", want, out)
		}
	}
	if secret.Object["data"].(map[string]any)["password"] != "aHVudGVyMg==" {
		t.Error("masking changed the fetched object")
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "visible"}}}
	if out, _ := objectYAML(cm, false); !strings.Contains(out, "k: visible") {
		t.Errorf("a ConfigMap's data is masked:\n%s", out)
	}
}
