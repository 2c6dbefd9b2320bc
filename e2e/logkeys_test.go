//go:build e2e

package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// A followed log in a background tab gets no animation frames, so its
// lines wait in a queue; the page's kept-lines bound applies to that queue
// too, and the lines it drops are counted.
func TestLogQueueInABackgroundTabKeepsTheBound(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	// A hidden tab: frames are requested but never run, until released below.
	must(t, page.AddInitScript(playwright.Script{Content: playwright.String(`
		window.tabulaHeldFrames = [];
		window.requestAnimationFrame = (cb) => window.tabulaHeldFrames.push(cb);
		Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
		Object.defineProperty(document, "hidden", { get: () => true });
	`)}))
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log?tailLines=all&max=10&follow=1")
	out := page.GetByTestId("log-output")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Following"))

	// The demo log starts with 40 lines and grows by one a second: at least
	// 30 are dropped while queued, and one more as the next line comes.
	must(t, expect.Locator(out).ToHaveAttribute("data-dropped", regexp.MustCompile(`^([3-9]\d|\d{3,})$`)))
	before, err := out.GetAttribute("data-dropped")
	must(t, err)
	must(t, expect.Locator(out).Not().ToHaveAttribute("data-dropped", before, playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(30000)}))
	must(t, expect.Locator(out).ToHaveAttribute("data-queued", "10"))
	lines := out.Locator(".log-line")
	must(t, expect.Locator(lines).ToHaveCount(0))

	// Shown again, the page renders only the bound and says what it dropped.
	_, err = page.Evaluate(`() => window.tabulaHeldFrames.splice(0).forEach((cb) => cb(performance.now()))`)
	must(t, err)
	must(t, expect.Locator(lines).ToHaveCount(10))
	must(t, expect.Locator(page.GetByTestId("log-count")).ToContainText(regexp.MustCompile(`showing the last 10; \d+ older dropped`)))
	// Lines that arrived since wait for the next frame, still bounded.
	must(t, expect.Locator(out).ToHaveAttribute("data-queued", regexp.MustCompile(`^(\d|10)$`)))
}

// focused names the focused element and whether it shows a focus ring.
func focused(t *testing.T, page playwright.Page) (testid string, ring bool) {
	t.Helper()
	v, err := page.Evaluate(`() => {
		const el = document.activeElement;
		const s = getComputedStyle(el);
		return [el.dataset.testid || el.tagName, el.matches(":focus-visible") && s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0];
	}`)
	must(t, err)
	pair := v.([]any)
	return pair[0].(string), pair[1].(bool)
}

// Every log control is reached by Tab, shows a focus ring, and works with
// Enter and Space.
func TestLogControlsWorkFromTheKeyboard(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log?tailLines=5&follow=1")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Following"))
	must(t, expect.Locator(page.Locator("[data-testid=log-output] .log-line").First()).ToBeVisible())

	// Tab from the first field through the controls to the log itself.
	must(t, page.GetByTestId("log-tail").Focus())
	want := map[string]bool{"log-follow": false, "log-wrap": false, "log-search": false, "log-filter": false, "log-pause": false, "log-output": false}
	for range 20 {
		must(t, page.Keyboard().Press("Tab"))
		id, ring := focused(t, page)
		if _, ok := want[id]; ok {
			if !ring {
				t.Errorf("%s has no visible focus ring", id)
			}
			want[id] = true
		}
		if id == "log-output" {
			break
		}
	}
	for id, reached := range want {
		if !reached {
			t.Errorf("%s is not reachable by Tab", id)
		}
	}

	// Pause and resume: Space, then Enter.
	pause := page.GetByTestId("log-pause")
	must(t, page.GetByTestId("log-filter").Focus())
	must(t, page.Keyboard().Press("Tab"))
	screenshot(t, page, "log-keyboard-focus.png")
	must(t, page.Keyboard().Press("Space"))
	must(t, expect.Locator(pause).ToHaveAttribute("aria-pressed", "true"))
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(pause).ToHaveAttribute("aria-pressed", "false"))

	// Search by typing; Enter keeps the page.
	must(t, page.GetByTestId("log-search").Focus())
	must(t, page.Keyboard().Type("msg="))
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(page.Locator("[data-testid=log-output] mark").First()).ToHaveText("msg="))

	// Only matching: Space checks it, Enter unchecks it, neither reloads.
	_, err := page.Evaluate(`() => { window.tabulaNoReload = true }`)
	must(t, err)
	filter := page.GetByTestId("log-filter")
	must(t, filter.Focus())
	must(t, page.Keyboard().Press("Space"))
	must(t, expect.Locator(filter).ToBeChecked())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]filter=1`)))
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(filter).Not().ToBeChecked())
	if v, _ := page.Evaluate(`() => window.tabulaNoReload === true`); v != true {
		t.Fatal("the filter reloaded the page")
	}

	// Wrap and Follow apply through the form: Space and Enter both toggle.
	must(t, page.GetByTestId("log-wrap").Focus())
	must(t, page.Keyboard().Press("Space"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]wrap=1`)))
	must(t, expect.Locator(page.GetByTestId("log-output")).ToHaveClass(regexp.MustCompile(`\blog-wrap\b`)))
	must(t, page.GetByTestId("log-follow").Focus())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Page(page).Not().ToHaveURL(regexp.MustCompile(`[?&]follow=1`)))
	must(t, expect.Locator(page.GetByTestId("log-follow")).Not().ToBeChecked())
	must(t, expect.Locator(page.GetByTestId("log-wrap")).ToBeChecked())
}
