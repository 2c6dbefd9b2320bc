//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The screens the console is checked at: a phone, a tablet (or a split
// window) and a laptop.
var screens = []struct {
	name          string
	width, height int
	narrow        bool // below the 900px breakpoint: the sidebar is a menu
}{
	{"390x844", 390, 844, true},
	{"768x1024", 768, 1024, true},
	{"1400x900", 1400, 900, false},
}

// Home, a list, an object page, a log page, Problems and the fleet's home
// and lists fit every screen: nothing overflows the window sideways, the
// content comes before the sidebar on narrow screens, and the jump box
// stays in view (fleet pages, of several clusters, have neither).
// Screenshots in both themes.
func TestPagesFitEveryScreen(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	pages := []struct {
		name, path string
		fleet      bool
	}{
		{"home", "/c/admin/", false},
		{"list", "/c/admin/api/v1/namespaces/demo/pods", false},
		{"object", "/c/admin/apis/apps/v1/namespaces/demo/deployments/web", false},
		{"log", "/c/admin/api/v1/namespaces/demo/pods/" + pod.Name + "/log?tailLines=30", false},
		{"problems", "/c/admin/problems?after=0s", false},
		{"fleet-home", "/c/_all/", true},
		{"fleet-list", "/c/admin,second/apis/apps/v1/deployments", true},
	}
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			page := newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: s.width, Height: s.height}})
			for _, p := range pages {
				goTo(t, page, p.path)
				if p.name == "log" {
					must(t, expect.Locator(page.Locator("[data-testid=log-output] .log-line").First()).ToBeVisible())
				}
				sidebar, toggle := page.GetByTestId("sidebar"), page.GetByTestId("nav-toggle")
				switch {
				case p.fleet:
					must(t, expect.Locator(sidebar).ToHaveCount(0))
					top, err := page.Locator("main").Evaluate(`(m) => m.getBoundingClientRect().top`, nil)
					must(t, err)
					if y := toFloat(top); y > 160 {
						t.Errorf("%s at %s: the content starts %.0fpx down", p.name, s.name, y)
					}
				case s.narrow:
					must(t, expect.Locator(sidebar).ToBeHidden())
					must(t, expect.Locator(toggle).ToBeVisible())
					// The page's own content starts within the first screen.
					top, err := page.Locator("main").Evaluate(`(m) => m.getBoundingClientRect().top`, nil)
					must(t, err)
					if y := toFloat(top); y > 160 {
						t.Errorf("%s at %s: the content starts %.0fpx down", p.name, s.name, y)
					}
				default:
					must(t, expect.Locator(sidebar).ToBeVisible())
					must(t, expect.Locator(toggle).ToBeHidden())
				}
				if !p.fleet {
					must(t, expect.Locator(page.GetByTestId("jump-input")).ToBeInViewport())
				}
				overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
				must(t, err)
				if px := toFloat(overflow); px > 0 {
					t.Errorf("%s at %s: the page is %.0fpx wider than the window", p.name, s.name, px)
				}
				screenshotThemes(t, page, fmt.Sprintf("screen-%s-%s", p.name, s.name))
				if s.width == 390 {
					checkA11y(t, page, fmt.Sprintf("%s at %s", p.name, s.name))
				}
			}
		})
	}
}

// At 390px the sidebar is a menu: the keyboard opens it from the header,
// lands on the current resource, follows a link, and Escape closes it with
// focus back on the menu button.
func TestSidebarMenuByKeyboardOnAPhone(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	sidebar, toggle := page.GetByTestId("sidebar"), page.GetByTestId("nav-toggle")
	must(t, expect.Locator(sidebar).ToBeHidden())

	// The menu button is the first stop after the skip link.
	must(t, page.Keyboard().Press("Tab"))
	must(t, page.Keyboard().Press("Tab"))
	must(t, expect.Locator(toggle).ToBeFocused())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(sidebar).ToBeVisible())
	current := sidebar.Locator("a[aria-current]")
	must(t, expect.Locator(current).ToHaveText("pods"))
	must(t, expect.Locator(current).ToBeFocused())
	must(t, expect.Locator(current).ToBeInViewport())
	screenshotThemes(t, page, "screen-menu-open-390x844")
	checkA11y(t, page, "the open menu at 390x844")

	must(t, page.Keyboard().Press("Escape"))
	must(t, expect.Locator(sidebar).ToBeHidden())
	must(t, expect.Locator(toggle).ToBeFocused())

	// Opened again, the keyboard reaches another resource and goes there.
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(current).ToBeFocused())
	must(t, page.Keyboard().Press("Tab"))
	next, err := page.Evaluate(`() => document.activeElement.closest("#sidebar a")?.getAttribute("href") ?? ""`)
	must(t, err)
	href, _ := next.(string)
	if href == "" {
		t.Fatal("Tab from the current resource left the menu")
	}
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(href)+`$`)))

	// The close button closes it too.
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	must(t, toggle.Click())
	must(t, expect.Locator(sidebar).ToBeVisible())
	must(t, page.GetByTestId("nav-close").Click())
	must(t, expect.Locator(sidebar).ToBeHidden())

	// "/" focuses the jump box, which is on screen.
	must(t, page.Keyboard().Press("/"))
	must(t, expect.Locator(page.GetByTestId("jump-input")).ToBeFocused())
	must(t, expect.Locator(page.GetByTestId("jump-input")).ToBeInViewport())
}

// A list wider than the window scrolls inside its card, and the name
// column stays in view.
func TestWideListKeepsTheNameInView(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
	goTo(t, page, "/c/admin/api/v1/pods?wide=1")
	wrap := page.Locator(".table-wrap").First()
	name := page.Locator("[data-testid=list-table] tbody tr").First().Locator("td.col-name")
	must(t, expect.Locator(name).ToBeVisible())
	before, err := name.Evaluate(`(td) => td.getBoundingClientRect().left`, nil)
	must(t, err)
	scrolled, err := wrap.Evaluate(`(w) => { w.scrollLeft = w.scrollWidth; return w.scrollLeft }`, nil)
	must(t, err)
	if toFloat(scrolled) < 100 {
		t.Fatalf("the wide table did not scroll sideways (scrollLeft %v)", scrolled)
	}
	after, err := name.Evaluate(`(td) => td.getBoundingClientRect().left`, nil)
	must(t, err)
	// All namespaces: the namespace column scrolled away, the name stuck
	// at the card's left edge.
	if toFloat(after) > toFloat(before) || toFloat(after) < 0 {
		t.Errorf("the name cell moved from x=%v to x=%v", before, after)
	}
	must(t, expect.Locator(name).ToBeInViewport())
	screenshotThemes(t, page, "screen-wide-list-scrolled-390x844")
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
