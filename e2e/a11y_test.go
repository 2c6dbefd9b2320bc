//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// axeScript is axe.min.js as e2e/install-deps.sh installed it beside
// playwright-core (TABULA_E2E_AXE names another copy).
var axeScript = sync.OnceValues(func() (string, error) {
	path := os.Getenv("TABULA_E2E_AXE")
	if path == "" {
		path = filepath.Join(os.Getenv("PLAYWRIGHT_DRIVER_PATH"), "node_modules", "axe-core", "axe.min.js")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading axe-core (run `make deps`): %w", err)
	}
	return string(src), nil
})

// axeRun runs the WCAG 2.0/2.1 A and AA rules and axe's best practices on
// the whole document, returning only what failed.
//
// Running animations are finished first: a row's arrival flash fades from
// the accent tint in a second and a half, and is checked as it settles.
const axeRun = `async () => {
	// Infinite animations (the code editor's blinking cursor) cannot finish.
	document.getAnimations().forEach((a) => { if (a.effect?.getComputedTiming().endTime !== Infinity) a.finish(); });
	const r = await axe.run(document, {
		runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
		resultTypes: ["violations"],
	});
	return JSON.stringify(r.violations.map((v) => ({
		id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
		nodes: v.nodes.map((n) => ({ target: n.target.flat().join(" "), summary: n.failureSummary })),
	})));
}`

type axeViolation struct {
	ID, Impact, Help, HelpURL string
	Nodes                     []struct{ Target, Summary string }
}

// checkA11y runs axe-core on the page as it is now, once in the light and
// once in the dark theme, and fails the test on every serious or critical
// violation; minor and moderate ones are logged.
//
// Both themes come from html[data-theme], which is what the tabula-theme
// cookie renders and what the theme toggle sets, so one page load covers
// both palettes; the page's own theme is restored afterwards.
//
// axe is injected with page.Evaluate rather than a BypassCSP context: the
// evaluation is sent over the DevTools protocol, which the page's CSP
// (script-src nonce + strict-dynamic) does not govern, so the page under
// test keeps exactly the policy users get. A BypassCSP context would also
// hide a script the policy blocks, and every journey's context would need it.
func checkA11y(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	original, err := page.Evaluate(`() => document.documentElement.getAttribute("data-theme")`)
	must(t, err)
	defer func() {
		_, err := page.Evaluate(`(theme) => theme === null
			? document.documentElement.removeAttribute("data-theme")
			: document.documentElement.setAttribute("data-theme", theme)`, original)
		must(t, err)
	}()
	for _, theme := range []string{"light", "dark"} {
		_, err := page.Evaluate(`(theme) => { document.documentElement.dataset.theme = theme }`, theme)
		must(t, err)
		for _, v := range axeViolations(t, page, name+" ("+theme+")") {
			var b strings.Builder
			fmt.Fprintf(&b, "%s (%s): axe %s [%s]: %s (%s)", name, theme, v.ID, v.Impact, v.Help, v.HelpURL)
			for _, n := range v.Nodes {
				fmt.Fprintf(&b, "\n    %s\n      %s", n.Target, strings.ReplaceAll(n.Summary, "\n", "\n      "))
			}
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Error(b.String())
			} else {
				t.Log(b.String())
			}
		}
	}
}

// axeViolations injects axe-core unless the page has it, and runs it.
func axeViolations(t *testing.T, page playwright.Page, name string) []axeViolation {
	t.Helper()
	src, err := axeScript()
	must(t, err)
	loaded, err := page.Evaluate(`() => typeof window.axe === "object"`)
	must(t, err)
	if loaded != true {
		if _, err := page.Evaluate(src); err != nil {
			t.Fatalf("%s: injecting axe-core: %v", name, err)
		}
	}
	out, err := page.Evaluate(axeRun)
	if err != nil {
		t.Fatalf("%s: axe.run: %v", name, err)
	}
	var violations []axeViolation
	must(t, json.Unmarshal([]byte(out.(string)), &violations))
	return violations
}

// The checker itself finds what it should: axe runs under the console's
// CSP and reports an unlabelled button and an image without alt text.
func TestAxeReportsViolations(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/")
	_, err := page.Evaluate(`() => document.querySelector("main").insertAdjacentHTML("beforeend", '<button></button><img src="/none.png">')`)
	must(t, err)
	found := map[string]string{}
	for _, v := range axeViolations(t, page, "home with planted faults") {
		found[v.ID] = v.Impact
	}
	if found["button-name"] != "critical" || found["image-alt"] != "critical" {
		t.Errorf("axe found %v, want button-name and image-alt as critical", found)
	}
}

// TestAccessibilityOfEveryPageKind checks one page of each kind the console
// renders, in both themes (see checkA11y).
func TestAccessibilityOfEveryPageKind(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	for _, tc := range []struct {
		name, path string
		status     int
		ready      string // a selector present once the page has settled
	}{
		{"home", "/c/admin/", 200, "[data-testid=api-group]"},
		{"list", "/c/admin/apis/apps/v1/namespaces/demo/deployments", 200, "[data-testid=live-status]"},
		{"list-all-namespaces", "/c/admin/api/v1/pods", 200, "[data-testid=live-status]"},
		{"list-paged", "/c/admin/api/v1/namespaces/demo/pods?limit=2", 200, "[data-testid=page-next]"},
		{"list-sorted-wide", "/c/admin/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses?wide=1&sort=-Name", 200, "[data-testid=list-table]"},
		{"list-empty", "/c/admin/api/v1/namespaces/demo/pods?labelSelector=app%3Dnone", 200, "[data-testid=list-empty]"},
		{"object", "/c/admin/apis/apps/v1/namespaces/demo/deployments/web", 200, "[data-testid=scale]"},
		{"object-pod", "/c/admin/api/v1/namespaces/demo/pods/" + pod.Name, 200, "[data-testid=conditions]"},
		{"object-yaml", "/c/admin/apis/apps/v1/namespaces/demo/deployments/web?view=yaml", 200, "[data-testid=yaml]"},
		{"log", "/c/admin/api/v1/namespaces/demo/pods/" + pod.Name + "/log?tailLines=20&q=msg%3D", 200, "[data-testid=log-output] mark"},
		{"log-merged", "/c/admin/apis/apps/v1/namespaces/demo/deployments/web/log?tailLines=10&timestamps=1", 200, "[data-testid=log-output] .log-line"},
		{"jump-results", "/c/admin/jump?q=all&namespace=demo", 200, "[data-testid=jump-results]"},
		{"search", "/c/admin/search?q=web&namespace=demo", 200, "[data-testid=search-summary]"},
		{"search-refused", "/c/admin/search?q=app+in+%28web", 400, "[data-testid=search-error]"},
		{"error-404", "/c/no-such-context/", 404, "[data-testid=error-page]"},
		{"error-403", "/c/viewer/api/v1/namespaces/demo/secrets", 403, "[data-testid=error-page]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := newPage(t)
			resp, err := page.Goto(env.console.URL + tc.path)
			must(t, err)
			if resp.Status() != tc.status {
				t.Fatalf("GET %s: status %d, want %d", tc.path, resp.Status(), tc.status)
			}
			must(t, expect.Locator(page.Locator(tc.ready).First()).ToBeAttached())
			checkA11y(t, page, tc.name)
		})
	}
}

// focusRing fails the test unless the focused element matches selector and
// shows a focus indicator: an outline or a box-shadow.
func focusRing(t *testing.T, page playwright.Page, selector string) {
	t.Helper()
	got, err := page.Evaluate(`(selector) => {
		const el = document.activeElement;
		const s = getComputedStyle(el);
		return {
			matches: el.matches(selector),
			element: el.outerHTML.slice(0, 160),
			ring: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none",
		};
	}`, selector)
	must(t, err)
	m := got.(map[string]any)
	if m["matches"] != true {
		t.Fatalf("focus is on %v, want %s", m["element"], selector)
	}
	if m["ring"] != true {
		t.Errorf("focused %v shows no outline or box-shadow", m["element"])
	}
}

// tabTo presses Tab until the focused element matches selector, checking
// that every element it passes on the way shows a focus ring.
func tabTo(t *testing.T, page playwright.Page, selector string) {
	t.Helper()
	for range 100 {
		must(t, page.Keyboard().Press("Tab"))
		at, err := page.Evaluate(`(selector) => document.activeElement === document.body ? "body" : document.activeElement.matches(selector)`, selector)
		must(t, err)
		if at == "body" { // past the last element, before wrapping around
			continue
		}
		focusRing(t, page, "*")
		if at == true {
			return
		}
	}
	t.Fatalf("100 presses of Tab never reached %s", selector)
}

// The jump box, the namespace picker, sorting and paging work from the
// keyboard alone, with a visible focus ring, in both themes.
func TestKeyboardDrivesJumpPickerSortingAndPaging(t *testing.T) {
	for _, theme := range []string{"light", "dark"} {
		t.Run(theme, func(t *testing.T) {
			page := newPage(t)
			must(t, page.Context().AddCookies([]playwright.OptionalCookie{{
				Name: "tabula-theme", Value: theme, URL: playwright.String(env.console.URL),
			}}))
			kb := page.Keyboard()
			goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?limit=2")
			must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("data-theme", theme))

			// "/" focuses the jump box; Enter resolves a short name.
			must(t, kb.Press("/"))
			focusRing(t, page, "[data-testid=jump-input]")
			must(t, kb.Type("deploy"))
			must(t, kb.Press("Enter"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments$`)))

			// The namespace picker: arrow keys on the focused select choose,
			// and the choice submits. (Chromium ignores type-ahead there.)
			picker := "[data-testid=namespace-select]"
			tabTo(t, page, picker)
			screenshot(t, page, "keyboard-namespace-focus-"+theme+".png")
			must(t, kb.Press("Home"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/deployments$`)))
			tabTo(t, page, picker)
			must(t, kb.Press("ArrowDown"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/apis/apps/v1/namespaces/default/deployments$`)))
			must(t, expect.Locator(page.GetByTestId("namespace-select")).ToHaveValue("default"))

			// Sorting: Enter on a column heading's link sorts by it, and
			// again reverses it.
			goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments")
			name := `[data-testid=list-table] th a[href*="sort=Name"]`
			tabTo(t, page, name)
			screenshot(t, page, "keyboard-sort-focus-"+theme+".png")
			must(t, kb.Press("Enter"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]sort=Name(&|$)`)))
			must(t, expect.Locator(page.Locator(`[data-testid=list-table] th[aria-sort=ascending]`)).ToHaveText("Name"))
			tabTo(t, page, `[data-testid=list-table] th a[href*="sort=-Name"]`)
			must(t, kb.Press("Enter"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]sort=-Name(&|$)`)))

			// Paging: Next, then Back, by Tab and Enter.
			goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?limit=2")
			tabTo(t, page, "[data-testid=page-next]")
			screenshot(t, page, "keyboard-page-next-focus-"+theme+".png")
			must(t, kb.Press("Enter"))
			must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`continue=`)))
			must(t, expect.Locator(page.GetByTestId("page-info")).ToContainText("Page 2"))
			tabTo(t, page, "[data-testid=page-back]")
			must(t, kb.Press("Enter"))
			must(t, expect.Locator(page.GetByTestId("page-info")).ToContainText("Page 1"))
		})
	}
}
