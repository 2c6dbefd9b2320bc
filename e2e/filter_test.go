//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// columnTexts are the texts of one column's cells on a list page, by the
// column's header.
func columnTexts(t *testing.T, page playwright.Page, column string) []string {
	t.Helper()
	out, err := page.Evaluate(`(column) => {
		const table = document.querySelector("[data-testid=list-table]");
		const i = [...table.querySelectorAll("thead th")].findIndex((th) => th.textContent.trim() === column);
		if (i < 0) return null;
		return [...table.querySelectorAll("tbody tr")].map((tr) => tr.children[i].textContent.trim());
	}`, column)
	must(t, err)
	list, ok := out.([]any)
	if !ok {
		t.Fatalf("no column %q on the page", column)
	}
	texts := make([]string, len(list))
	for i, v := range list {
		texts[i] = v.(string)
	}
	return texts
}

// Row filters, typed into the list's filter form: demo's pods that are not
// Running (the migrate Job's completed pod among them), with the page
// saying how many objects it read; then free text on top, then cleared.
func TestListRowFilters(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	must(t, page.GetByTestId("row-filter-new").Fill("Status!=Running"))
	must(t, page.GetByTestId("row-filter-new").Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]filter=Status%21%3DRunning(&|$)`)))
	must(t, expect.Locator(page.GetByTestId("filter-matches")).ToHaveText(regexp.MustCompile(`^\d+ match(es)? in the first \d+ objects, the end of the list$`)))
	must(t, expect.Locator(page.GetByTestId("row-filter")).ToHaveValue("Status!=Running"))
	statuses := columnTexts(t, page, "Status")
	if len(statuses) == 0 {
		t.Fatal("no pod of demo is shown as not Running; the migrate Job's pod should be")
	}
	for _, s := range statuses {
		if s == "Running" {
			t.Errorf("a Running pod is shown by Status!=Running: %v", statuses)
		}
	}
	names := columnTexts(t, page, "Name")
	if !strings.Contains(strings.Join(names, " "), "migrate-") {
		t.Errorf("rows %v lack the migrate Job's completed pod", names)
	}
	screenshotThemes(t, page, "list-filter-not-running")
	checkA11y(t, page, "list-filter-not-running")

	// A second filter narrows further: free text in any cell, any case.
	must(t, page.GetByTestId("row-filter-new").Fill("MIGRATE"))
	must(t, page.GetByTestId("row-filter-new").Press("Enter"))
	must(t, expect.Locator(page.GetByTestId("row-filter")).ToHaveCount(2))
	for _, n := range columnTexts(t, page, "Name") {
		if !strings.HasPrefix(n, "migrate-") {
			t.Errorf("free text MIGRATE kept %q", n)
		}
	}

	// A filter that matches nothing says so, in what it read.
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?filter=no-such-pod-anywhere")
	must(t, expect.Locator(page.GetByTestId("list-empty-reason")).ToHaveText(regexp.MustCompile(`^No row matched the filters in the first \d+ objects\.$`)))
	screenshotThemes(t, page, "list-filter-no-match")
	checkA11y(t, page, "list-filter-no-match")
	must(t, page.GetByTestId("list-empty-clear-filters").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/api/v1/namespaces/demo/pods$`)))
	if statuses := columnTexts(t, page, "Status"); !containsText(statuses, "Running") {
		t.Errorf("cleared page shows %v, want demo's Running pods too", statuses)
	}

	// A column the page does not show is a 400 naming those it does.
	goToRefused(t, page, "/c/admin/api/v1/namespaces/demo/pods?filter=Colour%3Dred", 400)
	must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText("Its columns are: Name, Ready, Status, Restarts, Age"))
}

func containsText(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A filtered page's live updates: a shown row that stops matching stays,
// marked; a new object that matches is counted behind the reload link, one
// that does not is not; the reload shows the matches now.
func TestListRowFiltersLive(t *testing.T) {
	cs, _ := clientset(t, "admin")
	// Its own namespace each run: a deleted one lingers while it terminates.
	ns := fmt.Sprintf("filter-live-%d", time.Now().UnixNano()%1_000_000)
	freshNamespace(t, cs, ns)
	withKeys := func(name string, n int) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{}}
		for i := range n {
			cm.Data[fmt.Sprintf("k%d", i)] = "v"
		}
		return cm
	}
	cms := cs.CoreV1().ConfigMaps(ns)
	_, err := cms.Create(t.Context(), withKeys("two", 2), metav1.CreateOptions{})
	must(t, err)

	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/"+ns+"/configmaps?filter=Data%3D2")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToContainText("Live"))
	if names := columnTexts(t, page, "Name"); len(names) != 1 || names[0] != "two" {
		t.Fatalf("rows %v, want [two]", names)
	}
	_, err = cms.Create(t.Context(), withKeys("late-two", 2), metav1.CreateOptions{})
	must(t, err)
	_, err = cms.Create(t.Context(), withKeys("late-one", 1), metav1.CreateOptions{})
	must(t, err)
	_, err = cms.Update(t.Context(), withKeys("two", 3), metav1.UpdateOptions{})
	must(t, err)
	must(t, expect.Locator(page.Locator(`tr[data-key="`+ns+`/two"].row-unmatched`)).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("live-new")).ToHaveText("1 more matching – reload"))
	if n, _ := page.Locator("[data-testid=list-table] tbody tr").Count(); n != 1 {
		t.Errorf("%d rows, want only the one shown before", n)
	}
	screenshotThemes(t, page, "list-filter-live")
	checkA11y(t, page, "list-filter-live")
	must(t, page.GetByTestId("live-new").Click())
	must(t, expect.Locator(page.GetByTestId("filter-matches")).ToHaveText(regexp.MustCompile(`^1 match in the first \d+ objects, the end of the list$`)))
	if names := columnTexts(t, page, "Name"); len(names) != 1 || names[0] != "late-two" {
		t.Errorf("after reload rows %v, want [late-two]", names)
	}
}

// On a phone the filter form, its fields and the matches line fit the
// window: nothing is wider than it, axe finds nothing.
func TestListRowFiltersOnAPhone(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?filter=Status%21%3DRunning&filter=migrate")
	must(t, expect.Locator(page.GetByTestId("filter-matches")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("row-filter")).ToHaveCount(2))
	overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
	must(t, err)
	if px := toFloat(overflow); px > 0 {
		t.Errorf("the filtered list is %.0fpx wider than a 390px window", px)
	}
	screenshotThemes(t, page, "list-filter-phone")
	checkA11y(t, page, "list-filter-phone")
}
