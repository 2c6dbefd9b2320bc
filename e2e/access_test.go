//go:build e2e

package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The dev control plane's viewer has the view ClusterRole in demo, its
// editor the edit ClusterRole: kube-apiserver's own RBAC answers the
// console's access reviews, and the pages follow them.

func TestViewerSeesActionsDisabledWithTheReason(t *testing.T) {
	page := newPage(t)
	const path = "/c/viewer/apis/apps/v1/namespaces/demo/deployments/web"
	goTo(t, page, path)
	for id, reason := range map[string]string{
		"edit-link":   "You may not patch deployments.apps in namespace demo (verb patch)",
		"scale-link":  "You may not patch deployments.apps/scale in namespace demo (verb patch)",
		"restart":     "You may not patch deployments.apps in namespace demo (verb patch)",
		"delete-link": "You may not delete deployments.apps in namespace demo (verb delete)",
	} {
		action := page.GetByTestId(id)
		must(t, expect.Locator(action).ToHaveAttribute("aria-disabled", "true"))
		must(t, expect.Locator(action).ToHaveAccessibleDescription(reason))
	}
	must(t, expect.Locator(page.GetByTestId("logs-link")).ToHaveAttribute("href", regexp.MustCompile(`/log$`)))

	// The reason shows on keyboard focus, and Escape hides it.
	edit := page.GetByTestId("edit-link")
	tip := page.GetByTestId("edit-link-reason")
	must(t, expect.Locator(tip).ToBeHidden())
	must(t, edit.Focus())
	must(t, expect.Locator(edit).ToBeFocused())
	must(t, expect.Locator(tip).ToBeVisible())
	screenshotThemes(t, page, "access-viewer-deployment")
	must(t, page.Keyboard().Press("Escape"))
	must(t, expect.Locator(tip).ToBeHidden())
	// Pressed, it goes nowhere (forced: Playwright itself waits for an
	// aria-disabled element to be enabled).
	must(t, edit.Click(playwright.LocatorClickOptions{Force: playwright.Bool(true)}))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(path)+`$`)))

	// The sidebar dims what the viewer may not list in demo.
	sidebar := page.GetByTestId("sidebar")
	must(t, expect.Locator(sidebar.Locator(`a[href$="/namespaces/demo/secrets"]`)).ToHaveClass(regexp.MustCompile(`nav-denied`)))
	// (Core pods: metrics.k8s.io has pods too.)
	must(t, expect.Locator(sidebar.Locator(`a[href$="/api/v1/namespaces/demo/pods"]`)).Not().ToHaveClass(regexp.MustCompile(`nav-denied`)))
	checkA11y(t, page, "access-viewer-deployment")

	// A list: Create disabled, and a namespace to type (the viewer may not
	// list namespaces).
	goTo(t, page, "/c/viewer/api/v1/namespaces/demo/configmaps")
	must(t, expect.Locator(page.GetByTestId("create-link")).ToHaveAccessibleDescription("You may not create configmaps in namespace demo (verb create)"))
	must(t, expect.Locator(page.GetByTestId("namespace-input")).ToHaveValue("demo"))
	screenshotThemes(t, page, "access-viewer-configmaps")
	checkA11y(t, page, "access-viewer-configmaps")
}

func TestEditorSeesActionsEnabled(t *testing.T) {
	page := newPage(t)
	const path = "/c/editor/apis/apps/v1/namespaces/demo/deployments/web"
	goTo(t, page, path)
	for _, id := range []string{"edit-link", "scale-link", "delete-link"} {
		must(t, expect.Locator(page.GetByTestId(id)).ToHaveAttribute("href", regexp.MustCompile(`/(edit|scale|delete)$`)))
	}
	must(t, expect.Locator(page.Locator("[aria-disabled]")).ToHaveCount(0))
	must(t, page.GetByTestId("edit-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(path)+`/edit$`)))
	// Secrets are the editor's to list.
	must(t, expect.Locator(page.GetByTestId("sidebar").Locator(`a[href$="/namespaces/demo/secrets"]`)).Not().ToHaveClass(regexp.MustCompile(`nav-denied`)))
}

// The outsider has no binding at all: the sidebar of their home page dims
// every namespaced list, and nothing is hidden.
func TestOutsiderSeesTheSidebarDimmed(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/outsider/")
	pods := page.GetByTestId("sidebar").Locator(`a[href$="/api/v1/pods"]`)
	must(t, expect.Locator(pods).ToHaveClass(regexp.MustCompile(`nav-denied`)))
	must(t, expect.Locator(pods).ToHaveAttribute("title", "You may not list pods across all namespaces (verb list)"))
	must(t, pods.Click())
	must(t, expect.Locator(page.GetByTestId("error-code")).ToHaveText("403"))
}
