//go:build e2e

package e2e

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

var expect = playwright.NewPlaywrightAssertions(15000)

// newPage opens a fresh browser context, so tests share no cookies.
func newPage(t *testing.T, opts ...playwright.BrowserNewContextOptions) playwright.Page {
	t.Helper()
	o := playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1360, Height: 900}}
	if len(opts) > 0 {
		o = opts[0]
	}
	bctx, err := env.browser.NewContext(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func screenshot(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	path := filepath.Join(env.artifacts, name)
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: &path, FullPage: playwright.Bool(true)}); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	t.Logf("screenshot: %s", path)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestHomeShowsDiscoveredGroups(t *testing.T) {
	page := newPage(t)
	resp, err := page.Goto(env.console.URL + "/")
	must(t, err)
	if resp.Status() != 200 {
		t.Fatalf("home: status %d", resp.Status())
	}
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/$`)))
	for _, group := range []string{"core", "apps", "maritime.tabula.dev"} {
		section := page.Locator(`[data-testid=api-group][data-group="` + group + `"]`)
		must(t, expect.Locator(section).ToBeVisible())
	}
	lighthouses := page.Locator(`[data-group="maritime.tabula.dev"] a.resource-name`, playwright.PageLocatorOptions{HasText: "lighthouses"})
	must(t, expect.Locator(lighthouses).ToHaveAttribute("href", "/c/admin/apis/maritime.tabula.dev/v1alpha1/lighthouses"))
	must(t, expect.Locator(page.GetByTestId("current-context")).ToHaveText("admin"))
	screenshot(t, page, "home-light.png")
	checkA11y(t, page, "home")
}

func TestHomeInDarkMode(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:    &playwright.Size{Width: 1360, Height: 900},
		ColorScheme: playwright.ColorSchemeDark,
	})
	_, err := page.Goto(env.console.URL + "/c/admin/")
	must(t, err)
	must(t, expect.Locator(page.Locator(`[data-group="apps"]`)).ToBeVisible())
	bg, err := page.Evaluate(`getComputedStyle(document.body).backgroundColor`)
	must(t, err)
	if bg != "rgb(15, 18, 23)" {
		t.Errorf("dark mode body background = %v, want the dark palette", bg)
	}
	screenshot(t, page, "home-dark.png")
}

func TestHomeFilterNarrowsTheResources(t *testing.T) {
	page := newPage(t)
	_, err := page.Goto(env.console.URL + "/c/admin/")
	must(t, err)
	filter := page.GetByTestId("resource-filter")
	must(t, filter.Fill("lighth"))
	visible := page.Locator(`[data-testid=api-resource]:visible`)
	must(t, expect.Locator(visible).ToHaveCount(1))
	must(t, expect.Locator(visible).ToContainText("lighthouses"))
	must(t, expect.Locator(page.Locator(`[data-group="apps"]`)).ToBeHidden())
	checkA11y(t, page, "home-filtered")
}

func TestContextSwitcherReachesEveryContext(t *testing.T) {
	page := newPage(t)
	_, err := page.Goto(env.console.URL + "/c/admin/")
	must(t, err)
	must(t, page.GetByTestId("context-switcher").Locator("summary").Click())
	checkA11y(t, page, "context-menu-open")
	must(t, page.GetByTestId("context-switcher").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: regexp.MustCompile(`^viewer`)}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/viewer/$`)))
	must(t, expect.Locator(page.GetByTestId("current-context")).ToHaveText("viewer"))
	must(t, expect.Locator(page.Locator(`[data-group="maritime.tabula.dev"]`)).ToBeVisible())
}

func TestUnknownContextShowsA404Page(t *testing.T) {
	page := newPage(t)
	resp, err := page.Goto(env.console.URL + "/c/no-such-context/")
	must(t, err)
	if resp.Status() != 404 {
		t.Errorf("status %d, want 404", resp.Status())
	}
	must(t, expect.Locator(page.GetByTestId("error-code")).ToHaveText("404"))
	must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText("no-such-context"))
	screenshot(t, page, "error-404.png")
	checkA11y(t, page, "error-404")
}

func TestThemeToggleIsRememberedAcrossPages(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:    &playwright.Size{Width: 1360, Height: 900},
		ColorScheme: playwright.ColorSchemeLight,
	})
	_, err := page.Goto(env.console.URL + "/c/admin/")
	must(t, err)
	background := func() string {
		t.Helper()
		bg, err := page.Evaluate(`getComputedStyle(document.body).backgroundColor`)
		must(t, err)
		return bg.(string)
	}
	if bg := background(); bg != "rgb(246, 247, 249)" {
		t.Fatalf("light background = %s", bg)
	}
	toggle := page.Locator("[data-theme-toggle]")
	must(t, toggle.Focus())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("data-theme", "dark"))
	if bg := background(); bg != "rgb(15, 18, 23)" {
		t.Errorf("after the toggle the background is %s, want dark", bg)
	}
	// The server renders the stored choice, so the next page starts dark.
	_, err = page.Goto(env.console.URL + "/c/no-such-context/")
	must(t, err)
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("data-theme", "dark"))
	screenshot(t, page, "error-404-dark.png")
}
