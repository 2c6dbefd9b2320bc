//go:build e2e

package e2e

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/playwright-community/playwright-go"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sectionOf is a fleet list's section of one context.
func sectionOf(page playwright.Page, context string) playwright.Locator {
	return page.Locator(`[data-testid=fleet-list-section][data-context="` + context + `"]`)
}

// The fleet's home, reached from the context switcher: a row per cluster,
// both answering; then a chosen set through the switcher's form.
func TestFleetHomeFromTheSwitcher(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/")
	switcher := page.GetByTestId("context-switcher")
	must(t, switcher.Locator("summary").Click())
	must(t, switcher.GetByRole("link", playwright.LocatorGetByRoleOptions{Name: regexp.MustCompile(`^All contexts`)}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/_all/$`)))
	for _, name := range []string{"admin", "second"} {
		row := page.Locator(`[data-testid=fleet-row][data-context="` + name + `"]`)
		must(t, expect.Locator(row).ToHaveAttribute("data-reachable", "true"))
		must(t, expect.Locator(row.GetByTestId("fleet-version")).ToHaveText(regexp.MustCompile(`^v1\.`)))
		must(t, expect.Locator(row.GetByTestId("fleet-identity")).Not().ToBeEmpty())
	}
	must(t, expect.Locator(page.Locator(`[data-testid=fleet-live] [data-testid=live-status]`)).ToHaveText("Live"))
	screenshotThemes(t, page, "fleet-home")
	checkA11y(t, page, "fleet-home")

	// Two of the contexts, chosen in the switcher.
	must(t, switcher.Locator("summary").Click())
	form := page.GetByTestId("fleet-form")
	must(t, form.Locator(`input[value=admin]`).Check())
	must(t, form.Locator(`input[value=second]`).Check())
	must(t, form.GetByTestId("fleet-open").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin,second/$`)))
	must(t, expect.Locator(page.GetByTestId("fleet-row")).ToHaveCount(2))
	checkA11y(t, page, "fleet-home-chosen")
}

// A fleet list with live rows from two clusters: scaling a Deployment in
// one changes its row in that cluster's section only.
func TestFleetListFollowsEachCluster(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin,second/apis/apps/v1/deployments")
	admin, second := sectionOf(page, "admin"), sectionOf(page, "second")
	for _, s := range []playwright.Locator{admin, second} {
		must(t, expect.Locator(s.GetByTestId("live-status")).ToHaveText("Live"))
	}
	hello := second.Locator(`[data-testid=list-table] tbody tr`, playwright.LocatorLocatorOptions{HasText: "hello"})
	must(t, expect.Locator(hello).ToHaveCount(1))
	must(t, expect.Locator(admin.Locator(`[data-testid=list-table] tbody tr`, playwright.LocatorLocatorOptions{HasText: "hello"})).ToHaveCount(0))
	screenshotThemes(t, page, "fleet-list")
	checkA11y(t, page, "fleet-list")

	cs, _ := clientset(t, "second")
	scale, err := cs.AppsV1().Deployments("default").GetScale(t.Context(), "hello", metav1.GetOptions{})
	must(t, err)
	want := scale.Spec.Replicas + 2
	_, err = cs.AppsV1().Deployments("default").UpdateScale(t.Context(), "hello", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default", ResourceVersion: scale.ResourceVersion},
		Spec:       autoscalingv1.ScaleSpec{Replicas: want},
	}, metav1.UpdateOptions{})
	must(t, err)
	t.Cleanup(func() {
		s, err := cs.AppsV1().Deployments("default").GetScale(context.Background(), "hello", metav1.GetOptions{})
		if err == nil {
			s.Spec.Replicas = scale.Spec.Replicas
			_, _ = cs.AppsV1().Deployments("default").UpdateScale(context.Background(), "hello", s, metav1.UpdateOptions{})
		}
	})
	// The row changes where it lives, without a reload.
	must(t, expect.Locator(hello).ToContainText("/"+strconv.Itoa(int(want))))
	must(t, expect.Locator(admin.Locator(".row-changed, .row-added")).ToHaveCount(0))
}

// One cluster stopped mid-page: its section says it is reconnecting and
// its row on the home says why; the other carries on.
func TestFleetWithAClusterStopped(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin,second/apis/apps/v1/deployments")
	admin, second := sectionOf(page, "admin"), sectionOf(page, "second")
	must(t, expect.Locator(second.GetByTestId("live-status")).ToHaveText("Live"))
	stopSecond(t)
	t.Cleanup(func() { startSecondAgain(t) })
	must(t, expect.Locator(second.GetByTestId("live-status")).Not().ToHaveText("Live"))
	must(t, expect.Locator(admin.GetByTestId("live-status")).ToHaveText("Live"))

	goTo(t, page, "/c/admin,second/apis/apps/v1/deployments")
	must(t, expect.Locator(sectionOf(page, "second").GetByTestId("fleet-list-error")).Not().ToBeEmpty())
	must(t, expect.Locator(sectionOf(page, "admin").Locator(`[data-testid=list-table] tbody tr`)).Not().ToHaveCount(0))
	goTo(t, page, "/c/admin,second/")
	row := page.Locator(`[data-testid=fleet-row][data-context=second]`)
	must(t, expect.Locator(row).ToHaveAttribute("data-reachable", "false"))
	must(t, expect.Locator(row.GetByTestId("fleet-error")).Not().ToBeEmpty())
	screenshotThemes(t, page, "fleet-home-stopped")
	checkA11y(t, page, "fleet-home-stopped")
}
