//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// A CRD created while the console runs is listable at once: the console
// refreshes discovery when a URL names a resource it does not know yet.
func TestACRDCreatedNowIsListableWithoutRestart(t *testing.T) {
	_, cfg := clientset(t, "admin")
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	// Warm the console's discovery cache before the CRD exists.
	if code, _ := consoleGet(t, "/c/admin/"); code != http.StatusOK {
		t.Fatalf("home: %d", code)
	}

	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.fresh.tabula.dev"},
		"spec": map[string]any{
			"group": "fresh.tabula.dev", "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "shortNames": []any{"gd"}},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
				"additionalPrinterColumns": []any{map[string]any{"name": "Colour", "type": "string", "jsonPath": ".spec.colour"}},
			}},
		},
	}}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = crds.Delete(context.Background(), "gadgets.fresh.tabula.dev", metav1.DeleteOptions{})
	})
	gadgets := dyn.Resource(schema.GroupVersionResource{Group: "fresh.tabula.dev", Version: "v1", Resource: "gadgets"}).Namespace("demo")
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := gadgets.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "fresh.tabula.dev/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "sprocket"}, "spec": map[string]any{"colour": "teal"},
		}}, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("the CRD never served: %v", err)
	}

	// The API server's own discovery takes a moment to include the group;
	// from then on the console must list it, without a restart.
	var body string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		var code int
		code, body = consoleGet(t, "/c/admin/apis/fresh.tabula.dev/v1/namespaces/demo/gadgets")
		return code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("the console never listed the new CRD: %v; last page:\n%.500s", err, body)
	}
	for _, want := range []string{"sprocket", "Colour", "teal"} {
		if !strings.Contains(body, want) {
			t.Errorf("the gadgets list lacks %q", want)
		}
	}
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/fresh.tabula.dev/v1/namespaces/demo/gadgets")
	checkA11y(t, page, "fresh-crd-list")
}

func consoleGet(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(env.console.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
