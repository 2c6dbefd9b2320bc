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
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// A CRD created while the console runs is listable at once: the console
// refreshes discovery when a URL names a resource it does not know yet, so
// the first request after the API server serves it succeeds, even when the
// console's discovery was fetched a moment before.
func TestACRDCreatedNowIsListableWithoutRestart(t *testing.T) {
	dyn, cfg := adminDynamic(t)
	ctx := t.Context()
	// Warm the console's discovery cache before the CRD exists.
	if code, _ := consoleGet(t, "/c/admin/"); code != http.StatusOK {
		t.Fatalf("home: %d", code)
	}

	crds := dyn.Resource(crdGVR)
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
	// The console looks for the resource before the API server serves it:
	// its discovery is now fresh, and without the group.
	if code, _ := consoleGet(t, "/c/admin/apis/fresh.tabula.dev/v1/namespaces/demo/gadgets"); code != http.StatusNotFound {
		t.Logf("the gadgets list was already served (status %d): the race this test looks for did not arise", code)
	}
	t.Cleanup(func() {
		_ = crds.Delete(context.Background(), "gadgets.fresh.tabula.dev", metav1.DeleteOptions{})
	})
	gadgets := dyn.Resource(schema.GroupVersionResource{Group: "fresh.tabula.dev", Version: "v1", Resource: "gadgets"}).Namespace("demo")
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := gadgets.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "fresh.tabula.dev/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "sprocket"}, "spec": map[string]any{"colour": "teal"},
		}}, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("the CRD never served: %v", err)
	}

	// Once the API server's own discovery lists the group (as kubectl
	// sees it), the console's very next request must list it too.
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		// Aggregated discovery, as kubectl and the console ask for it.
		_, lists, err := disco.ServerGroupsAndResources()
		if err != nil {
			return false, nil
		}
		for _, l := range lists {
			if l.GroupVersion == "fresh.tabula.dev/v1" && len(l.APIResources) > 0 {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the API server's discovery never listed the CRD: %v", err)
	}
	code, body := consoleGet(t, "/c/admin/apis/fresh.tabula.dev/v1/namespaces/demo/gadgets")
	if code != http.StatusOK {
		t.Fatalf("the first request after the API server served the CRD: status %d, want 200; page:\n%.500s", code, body)
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

// adminDynamic is a dynamic client of the admin context, and its config.
func adminDynamic(t *testing.T) (dynamic.Interface, *rest.Config) {
	t.Helper()
	_, cfg := clientset(t, "admin")
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, cfg
}

// crdGVR is where CustomResourceDefinitions are served.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

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
