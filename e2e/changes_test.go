//go:build e2e

package e2e

import (
	"context"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What changed in the last minutes: a ConfigMap just written by kubectl
// edit comes first on demo's recent changes, with its manager and fields,
// reached from the context's home through the page's form.
func TestRecentChangesShowTheLatestWrite(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-changed-now"
	cms := cs.CoreV1().ConfigMaps(editNS)
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{FieldManager: "kubectl-create"})
	must(t, err)
	t.Cleanup(func() { _ = cms.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	cm.Data["b"] = "2"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	must(t, err)

	page := newPage(t)
	goTo(t, page, "/c/admin/")
	must(t, page.GetByTestId("changes-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/changes$`)))
	must(t, page.GetByTestId("changes-namespace").Fill("demo"))
	_, err = page.GetByTestId("changes-since").SelectOption(playwright.SelectOptionValues{Values: &[]string{"15m"}})
	must(t, err)
	must(t, page.GetByTestId("changes-namespace").Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/changes\?namespace=demo&since=15m$`)))
	row := page.Locator(`[data-testid=change-row][data-kind=ConfigMap][data-name="` + name + `"]`)
	must(t, expect.Locator(row).ToBeVisible())
	must(t, expect.Locator(row.Locator(`[data-testid=change-write][data-manager=kubectl-edit]`)).ToContainText("data"))
	must(t, expect.Locator(row.Locator(`[data-testid=change-write][data-manager=kubectl-create]`)).ToContainText("Update"))
	must(t, expect.Locator(page.GetByTestId("changes-cost")).ToContainText("requests"))
	screenshotThemes(t, page, "changes-demo")
	checkA11y(t, page, "changes-demo")
}
