//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// goToRefused opens path and expects the console to refuse it with code.
func goToRefused(t *testing.T, page playwright.Page, path string, code int) {
	t.Helper()
	resp, err := page.Goto(env.console.URL + path)
	must(t, err)
	if resp.Status() != code {
		t.Fatalf("GET %s: status %d, want %d", path, resp.Status(), code)
	}
}

// Pages that refuse say why, with a 4xx, in both themes: a terminal the
// viewer may not open (403, and no terminal on the page), and a namespace
// no server can hold (400, asked of no server).
func TestRefusalsSayWhy(t *testing.T) {
	admin, _ := clientset(t, "admin")
	pod := runningPod(t, admin)
	for theme, open := range map[string]func(*testing.T) playwright.Page{"light": func(t *testing.T) playwright.Page { return newPage(t) }, "dark": darkPage} {
		t.Run(theme, func(t *testing.T) {
			page := open(t)
			goToRefused(t, page, "/c/viewer/api/v1/namespaces/demo/pods/"+pod.Name+"/exec", http.StatusForbidden)
			must(t, expect.Locator(page.GetByTestId("terminal-denied")).ToContainText("pods/exec"))
			if n, err := page.GetByTestId("terminal").Count(); err != nil || n != 0 {
				t.Errorf("the viewer's refused terminal page has %d terminals (%v)", n, err)
			}
			screenshot(t, page, "refused-terminal-"+theme+".png")
			checkA11y(t, page, "refused-terminal-"+theme)

			goToRefused(t, page, "/c/admin/api/v1/namespaces/Demo%00/pods", http.StatusBadRequest)
			must(t, expect.Locator(page.GetByTestId("error-code")).ToHaveText("400"))
			msg, err := page.GetByTestId("error-message").TextContent()
			must(t, err)
			if !strings.Contains(msg, "is not a namespace name") {
				t.Errorf("the 400 says %q", msg)
			}
			screenshot(t, page, "refused-namespace-"+theme+".png")
			checkA11y(t, page, "refused-namespace-"+theme)
		})
	}
}
