//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
)

// Who changed which field, against the real API server's managedFields: a
// ConfigMap written by kubectl's server-side apply, by kubectl edit (an
// Update as "kubectl-edit") and by Tabula's editor, each field attributed
// to its writer; and a Secret whose values the view keeps masked.
func TestBlameAttributesFieldsToTheirWriters(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-blame"
	cms := cs.CoreV1().ConfigMaps(editNS)
	t.Cleanup(func() { _ = cms.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	// kubectl apply --server-side: the manager "kubectl", operation Apply.
	_, err := cms.Apply(ctx, applycorev1.ConfigMap(name, editNS).WithLabels(map[string]string{"owner": "apply"}).WithData(map[string]string{"applied": "1"}),
		metav1.ApplyOptions{FieldManager: "kubectl", Force: true})
	must(t, err)
	// kubectl edit: an Update as "kubectl-edit".
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	cm.Data["edited"] = "2"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	must(t, err)
	// Tabula's editor, as a browser without JavaScript posts it.
	s := newFormSession(t)
	editPage := s.get("/c/admin/api/v1/namespaces/demo/configmaps/" + name + "/edit")
	editPage.want(t, http.StatusOK, "edit-form")
	review := s.submit(editPage, "[data-testid=edit-form]", "review", func(v url.Values) {
		v.Set("yaml", replaceOnce(t, v.Get("yaml"), `edited: "2"`, "edited: \"2\"\n  tabula: \"3\""))
	})
	review.want(t, http.StatusOK, "dry-run-diff")
	s.submit(review, "[data-testid=review-form]", "apply", nil).want(t, http.StatusOK, "notice")

	page := newPage(t)
	path := "/c/admin/api/v1/namespaces/demo/configmaps/" + name
	goTo(t, page, path+"?view=yaml")
	must(t, page.GetByTestId("blame-toggle").Click())
	must(t, expect.Locator(page.GetByTestId("blame-table")).ToBeVisible())
	owners := map[string]string{}
	rows, err := page.GetByTestId("blame-line").All()
	must(t, err)
	for _, r := range rows {
		text, err := r.Locator("code").TextContent()
		must(t, err)
		managers, err := r.Locator("[data-testid=blame-owner]").EvaluateAll(`els => els.map(e => e.dataset.manager + "/" + e.dataset.operation).join(",")`)
		must(t, err)
		owners[strings.TrimSpace(text)] = managers.(string)
	}
	for line, want := range map[string]string{
		`applied: "1"`: "kubectl/Apply",
		"owner: apply": "kubectl/Apply",
		`edited: "2"`:  "kubectl-edit/Update",
		`tabula: "3"`:  "tabula/Update",
	} {
		if owners[line] != want {
			t.Errorf("%q is owned by %q, want %q (all: %v)", line, owners[line], want, owners)
		}
	}
	legend := page.GetByTestId("blame-legend")
	for _, m := range []string{"kubectl", "kubectl-edit", "tabula"} {
		must(t, expect.Locator(legend.Locator(`[data-manager="`+m+`"]`)).ToBeVisible())
	}
	screenshotThemes(t, page, "blame-configmap")
	checkA11y(t, page, "blame-configmap")

	// The filter: only kubectl-edit's line stays bright.
	must(t, legend.Locator(`[data-manager="kubectl-edit"] a`).Click())
	bright := page.Locator(`[data-testid=blame-line][data-dim=false] code`)
	must(t, expect.Locator(bright).ToHaveText([]string{`edited: "2"`}))
	checkA11y(t, page, "blame-filtered")

	// A Secret's values stay masked beside their owners.
	secrets := cs.CoreV1().Secrets(editNS)
	_, err = secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"token": "blame-s3cr3t"}},
		metav1.CreateOptions{FieldManager: "kubectl-create"})
	must(t, err)
	t.Cleanup(func() { _ = secrets.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/secrets/"+name+"?view=yaml&blame=1")
	line := page.Locator(`[data-testid=blame-line]`, playwright.PageLocatorOptions{HasText: "token:"})
	must(t, expect.Locator(line.Locator("code")).ToHaveText("  token: hidden (12 bytes)"))
	must(t, expect.Locator(line.Locator("[data-testid=blame-owner]")).ToHaveAttribute("data-manager", "kubectl-create"))
	if body, err := page.Content(); err != nil || strings.Contains(body, "blame-s3cr3t") || strings.Contains(body, "YmxhbWUtczNjcjN0") {
		t.Errorf("the Secret's value is on the page (%v)", err)
	}
}
