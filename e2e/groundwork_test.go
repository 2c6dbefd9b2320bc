//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
)

// darkPage opens a page in dark mode, as the theme cookie makes it.
func darkPage(t *testing.T) playwright.Page {
	return newPage(t, playwright.BrowserNewContextOptions{
		Viewport:    &playwright.Size{Width: 1360, Height: 900},
		ColorScheme: playwright.ColorSchemeDark,
	})
}

// A pod's Status tab shows its status subresource, in both themes.
func TestStatusTabShowsTheStatusSubresource(t *testing.T) {
	for theme, open := range map[string]func(*testing.T) playwright.Page{"light": func(t *testing.T) playwright.Page { return newPage(t) }, "dark": darkPage} {
		t.Run(theme, func(t *testing.T) {
			page := open(t)
			goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb")
			must(t, page.Locator("[data-testid=list-table] tbody tr").First().Locator("a").First().Click())
			must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Status", Exact: playwright.Bool(true)}).Click())
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/pods/[^/]+/status$`)))
			must(t, expect.Locator(page.GetByTestId("describe-source")).ToHaveText("Status subresource"))
			text, err := page.Locator("#yaml-text").TextContent()
			must(t, err)
			if !strings.HasPrefix(text, "status:") || !strings.Contains(text, "phase: Running") {
				t.Errorf("status YAML = %.200q", text)
			}
			screenshot(t, page, "pod-status-"+theme+".png")
			checkA11y(t, page, "pod-status-"+theme)
		})
	}
}

// A Secret's YAML masks its values, as its overview does.
func TestSecretYAMLIsMasked(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "masked-creds", Namespace: "demo"},
		StringData: map[string]string{"password": "correct-horse-battery"},
	}
	if _, err := cs.CoreV1().Secrets("demo").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Secrets("demo").Delete(context.Background(), "masked-creds", metav1.DeleteOptions{})
	})
	page := darkPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/secrets/masked-creds?view=yaml")
	must(t, expect.Locator(page.Locator("#yaml-text")).ToContainText("password: hidden (21 bytes)"))
	body, err := page.Content()
	must(t, err)
	for _, leak := range []string{"correct-horse-battery", "Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5"} {
		if strings.Contains(body, leak) {
			t.Errorf("the YAML page shows the secret value (%s)", leak)
		}
	}
	screenshot(t, page, "secret-yaml-dark.png")
	checkA11y(t, page, "secret-yaml")
}

// A CRD version marked deprecated makes kube-apiserver send a Warning
// header; the list page shows it as kubectl prints it.
func TestDeprecationWarningsReachThePage(t *testing.T) {
	dyn, _ := adminDynamic(t)
	ctx := t.Context()
	crds := dyn.Resource(crdGVR)
	const warning = "relics.v1beta1.fresh.tabula.dev is deprecated; use v1"
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "relics.fresh.tabula.dev"},
		"spec": map[string]any{
			"group": "fresh.tabula.dev", "scope": "Namespaced",
			"names": map[string]any{"plural": "relics", "singular": "relic", "kind": "Relic"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": openSchema()},
				map[string]any{"name": "v1beta1", "served": true, "storage": false, "schema": openSchema(),
					"deprecated": true, "deprecationWarning": warning},
			},
		},
	}}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = crds.Delete(context.Background(), "relics.fresh.tabula.dev", metav1.DeleteOptions{}) })
	const path = "/c/admin/apis/fresh.tabula.dev/v1beta1/namespaces/demo/relics"
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		code, _ := consoleGet(t, path)
		return code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("the deprecated version was never listable: %v", err)
	}
	for theme, open := range map[string]func(*testing.T) playwright.Page{"light": func(t *testing.T) playwright.Page { return newPage(t) }, "dark": darkPage} {
		page := open(t)
		goTo(t, page, path)
		must(t, expect.Locator(page.GetByTestId("server-warnings")).ToContainText("Warning: "+warning))
		screenshot(t, page, "warning-"+theme+".png")
		checkA11y(t, page, "warning-"+theme)
	}
	// The preferred version warns of nothing.
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/fresh.tabula.dev/v1/namespaces/demo/relics")
	must(t, expect.Locator(page.GetByTestId("server-warnings")).ToHaveCount(0))
}

func openSchema() map[string]any {
	return map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
}
