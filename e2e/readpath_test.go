//go:build e2e

package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

func goTo(t *testing.T, page playwright.Page, path string) {
	t.Helper()
	resp, err := page.Goto(env.console.URL + path)
	must(t, err)
	if resp.Status() != 200 {
		t.Fatalf("GET %s: status %d", path, resp.Status())
	}
}

func link(page playwright.Page, scope, name string) playwright.Locator {
	return page.Locator(scope).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: name, Exact: playwright.Bool(true)})
}

// Home → Deployments in demo → a Deployment → its ReplicaSet → its Pods.
func TestJourneyFromHomeToThePodsOfADeployment(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/")
	must(t, page.Locator(`[data-group="apps"] a.resource-name`, playwright.PageLocatorOptions{HasText: "deployments"}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/deployments$`)))
	must(t, expect.Locator(page.GetByTestId("served")).ToHaveText("Table v1"))

	_, err := page.GetByTestId("namespace-select").SelectOption(playwright.SelectOptionValues{Values: &[]string{"demo"}})
	must(t, err)
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments$`)))
	must(t, expect.Locator(page.GetByTestId("list-namespace")).ToHaveText("demo"))
	screenshot(t, page, "deployments-demo.png")
	checkA11y(t, page, "deployments-demo")

	must(t, link(page, "[data-testid=list-table]", "web").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/namespaces/demo/deployments/web$`)))
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Deployment"))
	must(t, expect.Locator(page.GetByTestId("scale-desired")).ToHaveText("3"))
	screenshot(t, page, "deployment-web.png")
	checkA11y(t, page, "deployment-web")

	rs := page.Locator(`[data-testid=related-row][data-relation=owns][data-kind=ReplicaSet] a`).First()
	must(t, expect.Locator(rs).ToHaveText(regexp.MustCompile(`^web-[a-z0-9]+$`)))
	must(t, rs.Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/namespaces/demo/replicasets/web-[a-z0-9]+$`)))
	must(t, expect.Locator(page.GetByTestId("owners")).ToContainText("web"))
	pods := page.Locator(`[data-testid=related-row][data-relation=owns][data-kind=Pod] a`)
	must(t, expect.Locator(pods).ToHaveCount(3))
	checkA11y(t, page, "replicaset")

	must(t, pods.First().Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/namespaces/demo/pods/web-[a-z0-9]+-[a-z0-9]+$`)))
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Pod"))
	checkA11y(t, page, "pod")
}

func TestPodDescribeShowsConditionsAndEvents(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb")
	must(t, page.Locator("[data-testid=list-table] tbody tr").First().Locator("a").First().Click())
	must(t, expect.Locator(page.GetByTestId("describe-source")).ToHaveText("Generic describe"))
	must(t, expect.Locator(page.GetByTestId("conditions")).ToContainText("Ready"))
	must(t, expect.Locator(page.GetByTestId("events").Locator("[data-testid=event]").First()).ToContainText("Scheduled"))
	must(t, expect.Locator(page.GetByTestId("object-summary")).ToContainText("Running"))
	screenshot(t, page, "pod-describe.png")
	checkA11y(t, page, "pod-describe")

	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "YAML", Exact: playwright.Bool(true)}).Click())
	must(t, expect.Locator(page.GetByTestId("yaml")).ToContainText("kind: Pod"))
	text, err := page.GetByTestId("yaml").Locator("pre").TextContent()
	must(t, err)
	if strings.Contains(text, "managedFields") {
		t.Error("YAML shows managedFields by default")
	}
	checkA11y(t, page, "pod-yaml")
}

func TestCRDListShowsPrinterColumnsAndWideRevealsPriority(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses")
	head := page.Locator("[data-testid=list-table] thead")
	must(t, expect.Locator(head).ToHaveText(regexp.MustCompile(`Name\s*Coast\s*Range\s*Lit\s*Inspected\s*Age`)))
	must(t, expect.Locator(head).Not().ToContainText("Keeper"))
	// Integer columns are right-aligned; dates show an age with the time on hover.
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody td.num").First()).ToBeVisible())
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody time").First()).ToHaveAttribute("title", regexp.MustCompile(`^(≈ )?\d{4}-\d\d-\d\dT`)))

	must(t, page.GetByTestId("wide-toggle").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`wide=1`)))
	must(t, expect.Locator(head).ToContainText("Keeper"))
	screenshot(t, page, "lighthouses-wide.png")
	checkA11y(t, page, "lighthouses-wide")
}

func TestLabelChipFiltersTheList(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments/api")
	// The chip opens its menu (details/summary), whose first entry filters.
	must(t, page.GetByTestId("label-chip").Filter(playwright.LocatorFilterOptions{HasText: "tier=backend"}).Click())
	must(t, page.Locator("details.chip-menu[open]").GetByTestId("chip-filter").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/namespaces/demo/deployments\?labelSelector=tier%3Dbackend$`)))
	must(t, expect.Locator(page.GetByTestId("label-selector")).ToHaveValue("tier=backend"))
	rows := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(rows.First()).ToContainText("api"))
	checkA11y(t, page, "deployments-filtered")
}

func TestPagingWithLimitTwoGoesNextAndBack(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods?limit=2")
	rows := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(rows).ToHaveCount(2))
	first, err := rows.First().Locator("a").First().TextContent()
	must(t, err)

	must(t, page.GetByTestId("page-next").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`continue=`)))
	must(t, expect.Locator(page.GetByTestId("page-info")).ToContainText("Page 2"))
	must(t, expect.Locator(rows).ToHaveCount(2))
	must(t, expect.Locator(rows.First()).Not().ToContainText(first))
	screenshot(t, page, "pods-page-2.png")
	checkA11y(t, page, "pods-page-2")

	must(t, page.GetByTestId("page-back").Click())
	must(t, expect.Locator(page.GetByTestId("page-info")).ToContainText("Page 1"))
	must(t, expect.Locator(rows.First()).ToContainText(first))
}

func TestJumpBoxResolvesShortNames(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	must(t, page.Locator("body").Press("/"))
	jump := page.GetByTestId("jump-input")
	must(t, expect.Locator(jump).ToBeFocused())
	must(t, jump.Fill("sts"))
	must(t, jump.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/statefulsets$`)))
	must(t, expect.Locator(page.GetByTestId("list-table")).ToContainText("db"))
	checkA11y(t, page, "statefulsets")
}

func TestViewerSeesAClear403OnSecrets(t *testing.T) {
	page := newPage(t)
	resp, err := page.Goto(env.console.URL + "/c/viewer/api/v1/namespaces/demo/secrets")
	must(t, err)
	if resp.Status() != 403 {
		t.Errorf("status %d, want 403", resp.Status())
	}
	must(t, expect.Locator(page.GetByTestId("error-code")).ToHaveText("403"))
	must(t, expect.Locator(page.GetByTestId("error-hint")).ToHaveText("You may not list secrets in namespace demo."))
	must(t, expect.Locator(page.GetByTestId("error-message")).ToContainText(`User "viewer" cannot list resource "secrets"`))
	screenshot(t, page, "viewer-secrets-403.png")
	checkA11y(t, page, "viewer-secrets-403")
}

func TestAggregatedAPIResourcesAreListed(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/")
	must(t, expect.Locator(page.Locator(`[data-testid=api-group][data-group="ops.tabula.dev"]`)).ToBeVisible())
	must(t, page.Locator(`[data-group="ops.tabula.dev"] a.resource-name`, playwright.PageLocatorOptions{HasText: "probes"}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/ops.tabula.dev/v1alpha1/probes$`)))
	must(t, expect.Locator(page.GetByTestId("served")).ToHaveText("Table v1"))
	table := page.GetByTestId("list-table")
	must(t, expect.Locator(table.Locator("thead")).ToContainText("Target"))
	must(t, expect.Locator(table).ToContainText("api-latency"))
	must(t, expect.Locator(table).ToContainText("checkout"))
	screenshot(t, page, "aggregated-probes.png")
	checkA11y(t, page, "aggregated-probes")
}
