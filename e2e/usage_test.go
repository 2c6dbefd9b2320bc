//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Usage cells as the console prints them: CPU "12m" or "1.5" cores, memory
// "64Mi", "512Ki" or "12.5Gi".
var (
	cpuText    = regexp.MustCompile(`^\d+(\.\d+)?m?$`)
	memoryText = regexp.MustCompile(`^\d+(\.\d+)?(Ki|Mi|Gi)$`)
)

// usageWait covers metrics-server's first scrapes of kwok's pods (its
// resolution is 15 to 60 s) and the console's discovery noticing the
// metrics APIService once it is available (its TTL is 2 minutes).
const usageWait = 3 * time.Minute

// The pods list of demo gets CPU and memory columns from metrics-server,
// and a pod's page charts its usage, drawn by the server as inline SVG and
// kept current by the page.
func TestUsageColumnsAndPodChart(t *testing.T) {
	page := newPage(t)
	const list = "/c/admin/api/v1/namespaces/demo/pods"
	// The list shows usage as it was when the page was read: read it again
	// until metrics-server has sampled a pod.
	sampled := page.Locator("[data-testid=list-table] tbody tr").Filter(playwright.LocatorFilterOptions{
		Has: page.Locator("td:last-child", playwright.PageLocatorOptions{HasText: memoryText}),
	})
	apitest.WaitFor(t, usageWait, func() error {
		goTo(t, page, list)
		n, err := sampled.Count()
		if err != nil || n > 0 {
			return err
		}
		headers, _ := page.Locator("[data-testid=list-table] thead th").AllTextContents()
		return fmt.Errorf("no demo pod has a usage sample (columns %v): is metrics-server serving metrics.k8s.io?", headers)
	})
	head := page.Locator("[data-testid=list-table] thead tr")
	must(t, expect.Locator(head.Locator("th:nth-last-child(2)")).ToHaveText("CPU"))
	must(t, expect.Locator(head.Locator("th:last-child")).ToHaveText("Memory"))
	row := sampled.First()
	must(t, expect.Locator(row.Locator("td:nth-last-child(2)")).ToHaveText(cpuText))
	must(t, expect.Locator(row.Locator("td:last-child")).ToHaveClass(regexp.MustCompile(`\bnum\b`)))
	screenshotThemes(t, page, "usage-pods-list")

	// A row pushed live keeps the usage cells: the page tells its socket it
	// has them.
	key, err := row.GetAttribute("data-key")
	must(t, err)
	ns, name, _ := strings.Cut(key, "/")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	mustKubectl(t, "annotate", "pod", "-n", ns, name, "--overwrite", "tabula.e2e/touched="+strconv.FormatInt(time.Now().UnixNano(), 10))
	changed := page.Locator(`[data-testid=list-table] tbody tr.row-changed[data-key="` + key + `"]`)
	must(t, expect.Locator(changed).ToHaveCount(1))
	// The bulk checkbox, the five Table columns, CPU and memory.
	must(t, expect.Locator(changed.Locator("td")).ToHaveCount(8))
	must(t, expect.Locator(changed.Locator("td.select-col input[name=item]")).ToHaveCount(1))
	must(t, expect.Locator(changed.Locator("td:last-child")).ToHaveText(memoryText))

	// A list of a short namespace paged with a selector (whose length
	// kube-apiserver does not tell): usage all the same, as the namespace
	// holds fewer pods than the bound.
	goTo(t, page, list+"?labelSelector=app.kubernetes.io%2Fpart-of%3Dshop&limit=1")
	must(t, expect.Locator(page.Locator("[data-testid=list-table] thead th:last-child")).ToHaveText("Memory"))
	must(t, expect.Locator(page.GetByTestId("usage-omitted")).ToHaveCount(0))
	goTo(t, page, list)
	row = sampled.First()

	must(t, row.Locator("td a").First().Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/namespaces/demo/pods/[^/]+$`)))
	usage := page.GetByTestId("usage")
	must(t, expect.Locator(usage).ToBeVisible())
	svgs := usage.Locator("svg[data-testid=usage-svg]")
	must(t, expect.Locator(svgs).ToHaveCount(2))
	must(t, expect.Locator(svgs.First().Locator("polyline")).ToHaveCount(1))
	must(t, expect.Locator(svgs.First()).ToHaveAttribute("aria-label", regexp.MustCompile(`^CPU of pod .*: now \S+, peak \S+$`)))
	latest := usage.GetByTestId("usage-latest")
	must(t, expect.Locator(latest.First()).ToHaveText(cpuText))
	must(t, expect.Locator(latest.Last()).ToHaveText(memoryText))
	checkA11y(t, page, "usage-pod")
	// While the page is open, it gathers samples: a second one arrives
	// with metrics-server's next scrape.
	must(t, expect.Locator(usage.GetByTestId("usage-chart")).ToHaveAttribute("data-usage-history", regexp.MustCompile(`;`),
		playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(float64(usageWait.Milliseconds()))}))
	must(t, expect.Locator(usage.Locator("polyline").First()).ToHaveAttribute("points", regexp.MustCompile(`^\S+ \S+`)))
	screenshotThemes(t, page, "usage-pod-chart")

	// On a phone the charts stack and the page stays within the screen.
	must(t, page.SetViewportSize(390, 844))
	must(t, expect.Locator(usage).ToBeVisible())
	overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
	must(t, err)
	if px := toFloat(overflow); px > 0 {
		t.Errorf("the pod page with its usage chart overflows a 390 px screen by %v px", px)
	}
	must(t, usage.ScrollIntoViewIfNeeded())
	screenshotThemes(t, page, "usage-pod-chart-390")
}
