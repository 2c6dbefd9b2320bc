//go:build e2e

package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
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
