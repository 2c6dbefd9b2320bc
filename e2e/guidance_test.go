//go:build e2e

package e2e

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// A URL with a version apps does not serve is a 404 that links to the
// version it does serve, in the same namespace with the same selector;
// following the link shows the list.
func TestUnservedVersionLinksToTheServedOne(t *testing.T) {
	page := newPage(t)
	resp, err := page.Goto(env.console.URL + "/c/admin/apis/apps/v1beta1/namespaces/demo/deployments?labelSelector=app%3Dweb")
	must(t, err)
	if resp.Status() != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.Status())
	}
	must(t, expect.Locator(page.GetByTestId("error-message")).ToHaveText("The API group apps serves deployments in v1, not in v1beta1."))
	must(t, expect.Locator(page.GetByTestId("served-resources")).ToContainText("statefulsets"))
	screenshot(t, page, "unserved-version-404.png")
	checkA11y(t, page, "unserved-version-404")

	must(t, page.GetByTestId("served-version").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments\?labelSelector=app%3Dweb$`)))
	must(t, expect.Locator(link(page, "[data-testid=list-table]", "web")).ToBeVisible())
}

// A typo in a resource name suggests the resource it is nearest to.
func TestResourceTypoSuggestsTheResource(t *testing.T) {
	page := newPage(t)
	resp, err := page.Goto(env.console.URL + "/c/admin/apis/apps/v1/namespaces/demo/deploymnets")
	must(t, err)
	if resp.Status() != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.Status())
	}
	suggestion := page.GetByTestId("did-you-mean")
	must(t, expect.Locator(suggestion).ToHaveText("deployments in apps/v1"))
	screenshot(t, page, "resource-typo-404.png")
	must(t, suggestion.Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments$`)))
	must(t, expect.Locator(page.GetByTestId("list-title")).ToContainText("Deployment"))
}

// A selector that matches nothing says so; its link clears the selector
// and keeps the namespace.
func TestEmptyListClearsItsSelector(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?labelSelector=app%3Dnone")
	must(t, expect.Locator(page.GetByTestId("list-empty-reason")).ToHaveText("No pods match the label selector app=none in namespace demo."))
	screenshot(t, page, "list-empty-selector.png")
	must(t, page.GetByTestId("list-empty-clear").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/api/v1/namespaces/demo/pods$`)))
	must(t, expect.Locator(page.GetByTestId("list-empty")).ToBeHidden())
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody tr").First()).ToBeVisible())
}

// The kubectl command of a list and of an object page is shown, and its
// button puts it on the clipboard.
func TestCopyAsKubectl(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:    &playwright.Size{Width: 1360, Height: 900},
		Permissions: []string{"clipboard-read", "clipboard-write"},
	})
	goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments?labelSelector=app%3Dweb&wide=1")
	const listCmd = "kubectl --context admin get deployments -n demo -l app=web -o wide"
	must(t, expect.Locator(page.GetByTestId("kubectl-command")).ToHaveText(listCmd))
	copyButton := page.GetByTestId("kubectl-copy")
	must(t, copyButton.Click())
	must(t, expect.Locator(copyButton).ToHaveText("Copied"))
	clip, err := page.Evaluate(`navigator.clipboard.readText()`)
	must(t, err)
	if clip != listCmd {
		t.Errorf("clipboard = %q, want %q", clip, listCmd)
	}
	screenshot(t, page, "kubectl-command-list.png")
	checkA11y(t, page, "kubectl-command-list")

	must(t, link(page, "[data-testid=list-table]", "web").Click())
	must(t, expect.Locator(page.GetByTestId("kubectl-command")).ToHaveText("kubectl --context admin get deployments web -n demo -o yaml"))
}
