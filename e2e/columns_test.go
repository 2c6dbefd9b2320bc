//go:build e2e

package e2e

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// columnHeaders are the list table's header texts.
func columnHeaders(t *testing.T, page playwright.Page) []string {
	t.Helper()
	texts, err := page.Locator("[data-testid=list-table] thead th").AllInnerTexts()
	must(t, err)
	for i := range texts {
		texts[i] = strings.TrimSpace(texts[i])
	}
	return texts
}

// chooseColumns opens the toolbar's Columns panel, lets change fill it,
// and applies it: the page comes back at the URL that keeps the choice.
func chooseColumns(t *testing.T, page playwright.Page, change func(panel playwright.Locator)) {
	t.Helper()
	chooser := page.GetByTestId("column-chooser")
	must(t, chooser.Locator("summary").Click())
	panel := page.GetByTestId("column-form")
	must(t, expect.Locator(panel).ToBeVisible())
	change(panel)
	must(t, page.GetByTestId("column-apply").Click())
	must(t, page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad}))
	must(t, expect.Page(page).Not().ToHaveURL(regexp.MustCompile(`chooser=1`)))
}

// The journey of issue 27: on the pods of demo, add label columns, then a
// custom column, hide a column, and reload the URL: the same view. "Save
// view" copies that URL; a label chip's menu adds its label as a column.
func TestColumnChooserJourney(t *testing.T) {
	page := newPage(t)
	must(t, page.Context().GrantPermissions([]string{"clipboard-read", "clipboard-write"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(env.console.URL)}))
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody tr").First()).ToBeVisible())

	chooseColumns(t, page, func(panel playwright.Locator) {
		must(t, page.GetByTestId("label-columns-input").Fill("app,tier"))
	})
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`labelColumns=app%2Ctier`)))
	if h := columnHeaders(t, page); !slices.Contains(h, "app") || !slices.Contains(h, "tier") {
		t.Fatalf("headers %v, want app and tier", h)
	}
	must(t, expect.Locator(page.GetByTestId("column-note")).ToContainText("includeObject=Metadata"))
	must(t, expect.Locator(page.GetByTestId("kubectl-command")).ToContainText("-L app,tier"))

	chooseColumns(t, page, func(panel playwright.Locator) {
		must(t, page.GetByTestId("custom-columns-input").Fill("IMAGE:.spec.containers[*].image"))
	})
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`columns=IMAGE`)))
	must(t, expect.Locator(page.GetByTestId("column-note")).ToContainText("at most 200 rows"))
	// Added after the server's columns (and before usage, where the
	// cluster serves metrics): label columns, then custom ones.
	if h := columnHeaders(t, page); slices.Index(h, "IMAGE") != slices.Index(h, "tier")+1 || slices.Index(h, "app") < slices.Index(h, "Age") {
		t.Fatalf("headers %v, want app, tier, IMAGE after the server's", h)
	}

	chooseColumns(t, page, func(panel playwright.Locator) {
		must(t, panel.Locator(`[data-testid=column-choice][value="Restarts"]`).Uncheck())
	})
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`hide=Restarts`)))
	headers := columnHeaders(t, page)
	if slices.Contains(headers, "Restarts") || !slices.Contains(headers, "app") || !slices.Contains(headers, "IMAGE") {
		t.Fatalf("headers %v after hiding Restarts", headers)
	}
	rows := page.Locator("[data-testid=list-table] tbody tr")
	before, err := rows.First().Locator("td").AllInnerTexts()
	must(t, err)
	if image := before[slices.Index(headers, "IMAGE")]; image == "" || image == "<none>" {
		t.Errorf("the first row's IMAGE is %q", image)
	}
	view := page.URL()

	// The view is the URL: a reload shows the same columns and cells.
	_, err = page.Reload()
	must(t, err)
	must(t, expect.Page(page).ToHaveURL(view))
	if again := columnHeaders(t, page); !slices.Equal(again, headers) {
		t.Fatalf("after reload: headers %v, want %v", again, headers)
	}
	after, err := rows.First().Locator("td").AllInnerTexts()
	must(t, err)
	for i := range after {
		// An age may tick over between the loads, usage may move (CPU,
		// Memory where the cluster serves metrics); the rest is equal.
		if !slices.Contains([]string{"Age", "CPU", "Memory"}, headers[i]) && after[i] != before[i] {
			t.Errorf("after reload: %s is %q, was %q", headers[i], after[i], before[i])
		}
	}

	// Save view copies the view's URL.
	save := page.GetByTestId("save-view")
	href, err := save.GetAttribute("href")
	must(t, err)
	must(t, save.Click())
	must(t, expect.Locator(page.GetByTestId("save-view-status")).ToHaveText("Copied"))
	copied, err := page.Evaluate(`() => navigator.clipboard.readText()`)
	must(t, err)
	if want, _ := url.JoinPath(env.console.URL, ""); copied != strings.TrimSuffix(want, "/")+href {
		t.Errorf("copied %q, want the view's URL %q", copied, href)
	}
	must(t, expect.Page(page).ToHaveURL(view))

	checkA11y(t, page, "pods-columns")
	must(t, page.GetByTestId("column-chooser").Locator("summary").Click())
	screenshotThemes(t, page, "pods-columns-chooser")
}

// A Labels column's chips open a menu from the keyboard; "Show as column"
// adds the label as a column, "Filter by this" filters the list by it.
func TestLabelChipMenu(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?showLabels=1")
	chip := page.Locator("[data-testid=list-table] tbody tr").First().GetByTestId("label-chip").Filter(playwright.LocatorFilterOptions{HasText: "tier="})
	must(t, chip.Focus())
	must(t, page.Keyboard().Press("Enter"))
	menu := page.Locator("details.chip-menu[open]")
	must(t, expect.Locator(menu.GetByTestId("chip-column")).ToBeVisible())
	checkA11y(t, page, "pods-label-menu")
	screenshotThemes(t, page, "pods-label-menu")
	// Escape closes it, focus back on the chip, from where Enter reopens it.
	must(t, page.Keyboard().Press("Escape"))
	must(t, expect.Locator(menu).ToHaveCount(0))
	must(t, expect.Locator(chip).ToBeFocused())
	must(t, page.Keyboard().Press("Enter"))
	must(t, menu.GetByTestId("chip-column").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`labelColumns=tier&showLabels=1$`)))
	if h := columnHeaders(t, page); slices.Index(h, "Labels") != slices.Index(h, "tier")+1 {
		t.Fatalf("headers %v", h)
	}
}

// A bad custom column is a 400 that quotes it.
func TestBadCustomColumnIsRefused(t *testing.T) {
	page := newPage(t)
	goToRefused(t, page, "/c/admin/api/v1/namespaces/demo/pods?columns="+url.QueryEscape("IMAGE:.spec.containers[*.image"), 400)
	must(t, expect.Locator(page.Locator("main")).ToContainText("IMAGE:.spec.containers[*.image"))
}
