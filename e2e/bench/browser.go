package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/playwright-community/playwright-go"

	"github.com/tabula-console/tabula/e2e/harness"
)

// targetFirstRowMs is the first row's paint after navigation, 500 rows.
const targetFirstRowMs = 100

// firstRowMark is the Element Timing identifier the console puts on a
// list's first row (views/list_rows.go).
const firstRowMark = "list-first-row"

// navigation is what one page load reports, in ms since navigation start
// (NaN when the browser reported nothing).
type navigation struct {
	// Paints; decoded through navigate's pointers, as the browser may
	// report none.
	FirstRow, FCP, LCP float64 `json:"-"`
	ResponseStart      float64 `json:"responseStart"`
	ResponseEnd        float64 `json:"responseEnd"`
	DOMContentLoaded   float64 `json:"domContentLoaded"`
	Load               float64 `json:"load"`
	// BlockingEnd is when the last render-blocking resource (stylesheets,
	// classic scripts in head) had arrived; BlockingCount how many there were.
	BlockingEnd   float64 `json:"blockingEnd"`
	BlockingCount int     `json:"blockingCount"`
	Rows          int     `json:"rows"`
	Elements      int     `json:"elements"`
	TransferSize  float64 `json:"transferSize"`
	// From CDP's Performance.getMetrics, after a forced garbage collection.
	Nodes  float64 `json:"-"`
	JSHeap float64 `json:"-"`
}

// collectScript waits until the first row's element entry (unless
// args.mark is empty), FCP and an LCP entry are in (observers with buffered: true also get the entries from
// before they existed), lets two more frames pass for a later LCP
// candidate, and returns the figures; after timeoutMs it returns what it has.
const collectScript = `(args) => new Promise(resolve => {
  const out = {firstRow: null, fcp: null, lcp: null};
  let settled = false;
  const finish = () => {
    const nav = performance.getEntriesByType('navigation')[0] || {};
    const blocking = performance.getEntriesByType('resource').filter(r => r.renderBlockingStatus === 'blocking');
    resolve({
      blockingEnd: blocking.reduce((m, r) => Math.max(m, r.responseEnd), 0),
      blockingCount: blocking.length,
      firstRow: out.firstRow, fcp: out.fcp, lcp: out.lcp,
      responseStart: nav.responseStart, responseEnd: nav.responseEnd,
      domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
      transferSize: nav.transferSize,
      rows: document.querySelectorAll('tbody tr').length,
      elements: document.getElementsByTagName('*').length,
    });
  };
  const settle = () => {
    if (settled) return;
    settled = true;
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(finish, 50)));
  };
  const observe = (type, each) => new PerformanceObserver(list => {
    list.getEntries().forEach(each);
    if ((out.firstRow !== null || !args.mark) && out.fcp !== null && out.lcp !== null) settle();
  }).observe({type, buffered: true});
  observe('element', e => {
    if (e.identifier === args.mark && out.firstRow === null) out.firstRow = e.renderTime || e.loadTime;
  });
  observe('largest-contentful-paint', e => { out.lcp = e.renderTime || e.startTime; });
  observe('paint', e => { if (e.name === 'first-contentful-paint') out.fcp = e.startTime; });
  setTimeout(() => { settled = true; finish(); }, args.timeoutMs);
})`

// browserResult holds the navigations per page size.
type browserResult struct {
	limits []int
	navs   map[int][]navigation
	// floor is a one-cell static page served by the bench, loaded the same
	// way: what headless Chromium here needs to paint anything at all.
	floor []navigation
	// extra are the -browser-pages, in order.
	extra     []string
	extraNavs [][]navigation
}

// floorPage is the floor's page: one marked cell, nothing to fetch.
const floorPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head>` +
	`<body><table><tbody><tr><td elementtiming="` + firstRowMark + `">bulk-00000</td></tr></tbody></table></body></html>`

// serveFloor serves the floor page with the console's isolation header:
// a new tab's load of a page with Cross-Origin-Opener-Policy changes
// browsing context group, and Chromium starts a renderer for it (100 ms
// and more here), which a floor without it would not pay.
func serveFloor() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		_, _ = io.WriteString(w, floorPage)
	})
}

// measureBrowser loads the namespaced list in Chromium at each of
// o.browserLimits rows, o.browserRuns times each after one unmeasured load
// (which fills the cache with the page's assets, as for a returning user),
// each in a fresh tab of one browser context.
func measureBrowser(ctx context.Context, o options, consoleURL string) (browserResult, error) {
	res := browserResult{limits: o.browserLimits, navs: map[int][]navigation{}}
	bctx, closeBrowser, err := launchChromium(o)
	if err != nil {
		return res, err
	}
	defer closeBrowser()
	floor := httptest.NewServer(serveFloor())
	defer floor.Close()
	load := func(url string, into *[]navigation) error {
		for run := range o.browserRuns + 1 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			n, err := navigate(bctx, url)
			if err != nil {
				return err
			}
			if run > 0 {
				*into = append(*into, n)
			}
		}
		return nil
	}
	slog.Info("loading the floor page in chromium", "runs", o.browserRuns)
	if err := load(floor.URL, &res.floor); err != nil {
		return res, fmt.Errorf("floor page: %w", err)
	}
	for _, page := range o.browserPages {
		url := page
		if strings.HasPrefix(page, "/") {
			url = consoleURL + page
		}
		slog.Info("loading a page in chromium", "url", url, "runs", o.browserRuns)
		var navs []navigation
		if err := load(url, &navs); err != nil {
			return res, fmt.Errorf("%s: %w", url, err)
		}
		res.extra, res.extraNavs = append(res.extra, page), append(res.extraNavs, navs)
	}
	for _, limit := range o.browserLimits {
		url := consoleURL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods"
		if limit != 500 {
			url += fmt.Sprintf("?limit=%d", limit)
		}
		slog.Info("loading the list in chromium", "rows", limit, "runs", o.browserRuns)
		var navs []navigation
		if err := load(url, &navs); err != nil {
			return res, fmt.Errorf("%d-row list: %w", limit, err)
		}
		res.navs[limit] = navs
	}
	return res, nil
}

// launchChromium starts Playwright's driver and headless Chromium as the
// e2e tests launch it, and returns a fresh browser context and what closes
// all three.
func launchChromium(o options) (playwright.BrowserContext, func(), error) {
	b, closeBrowser, err := launchBrowser(o)
	if err != nil {
		return nil, nil, err
	}
	bctx, err := newBrowserContext(b)
	if err != nil {
		closeBrowser()
		return nil, nil, err
	}
	return bctx, func() {
		_ = bctx.Close()
		closeBrowser()
	}, nil
}

// launchBrowser starts Playwright's driver and headless Chromium as the
// e2e tests launch it, and returns the browser and what closes both.
func launchBrowser(o options) (playwright.Browser, func(), error) {
	runOpts := &playwright.RunOptions{SkipInstallBrowsers: true}
	if os.Getenv("PLAYWRIGHT_DRIVER_PATH") == "" {
		// `make deps` puts the driver in .cache/playwright-driver.
		if bin, err := harness.BinDir(); err == nil {
			runOpts.DriverDirectory = filepath.Join(filepath.Dir(bin), ".cache", "playwright-driver")
		}
	}
	pw, err := playwright.Run(runOpts)
	if err != nil {
		return nil, nil, fmt.Errorf("starting playwright (run `make deps`): %w", err)
	}
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(o.chromium),
		Headless:       playwright.Bool(true),
		Args: []string{
			"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		},
	})
	if err != nil {
		_ = pw.Stop()
		return nil, nil, fmt.Errorf("launching %s: %w", o.chromium, err)
	}
	return b, func() {
		_ = b.Close()
		_ = pw.Stop()
	}, nil
}

// newBrowserContext is a context with the bench's viewport: nothing
// cached, no cookies.
func newBrowserContext(b playwright.Browser) (playwright.BrowserContext, error) {
	return b.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1280, Height: 720},
	})
}

// navigate loads url in a new tab and reads the Performance API and CDP.
func navigate(bctx playwright.BrowserContext, url string) (navigation, error) {
	var got collected
	page, closePage, err := loadAndRead(bctx, url, collectScript, collectArgs(firstRowMark), &got)
	if err != nil {
		return navigation{}, err
	}
	defer closePage()
	n := got.navigationOf()
	n.Nodes, n.JSHeap, err = cdpMetrics(bctx, page)
	return n, err
}

// collected is what collectScript returns; the browser may report no
// paint, hence the pointers.
type collected struct {
	navigation
	FirstRow *float64 `json:"firstRow"`
	FCP      *float64 `json:"fcp"`
	LCP      *float64 `json:"lcp"`
}

// navigationOf is the load's figures, NaN for a paint not reported.
func (c collected) navigationOf() navigation {
	n := c.navigation
	n.FirstRow, n.FCP, n.LCP = orNaN(c.FirstRow), orNaN(c.FCP), orNaN(c.LCP)
	return n
}

// collectArgs are collectScript's arguments: the element timing mark of
// the paint to wait for ("": none, first contentful paint), for at most
// 10 s.
func collectArgs(mark string) map[string]any {
	return map[string]any{"mark": mark, "timeoutMs": 10_000}
}

// loadAndRead loads url in a new tab, which must answer 200, and decodes
// what script returns (given args) into out. The tab stays open for the
// caller, who closes it with the function returned.
func loadAndRead(bctx playwright.BrowserContext, url, script string, args map[string]any, out any) (playwright.Page, func(), error) {
	page, err := bctx.NewPage()
	if err != nil {
		return nil, nil, err
	}
	closePage := func() { _ = page.Close() }
	fail := func(err error) (playwright.Page, func(), error) {
		closePage()
		return nil, nil, err
	}
	resp, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad, Timeout: playwright.Float(120_000)})
	if err != nil {
		return fail(err)
	}
	if resp == nil || resp.Status() != 200 {
		return fail(fmt.Errorf("GET %s did not answer 200", url))
	}
	v, err := page.Evaluate(script, args)
	if err != nil {
		return fail(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fail(fmt.Errorf("decoding %s: %w", raw, err))
	}
	return page, closePage, nil
}

// orNaN is a timing the page reported, or NaN where it reported none.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// cdpMetrics forces a garbage collection, then reads the DOM node count and
// the JS heap in use from Chromium's Performance domain.
func cdpMetrics(bctx playwright.BrowserContext, page playwright.Page) (nodes, heap float64, err error) {
	s, err := bctx.NewCDPSession(page)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = s.Detach() }()
	if _, err := s.Send("HeapProfiler.collectGarbage", nil); err != nil {
		return 0, 0, err
	}
	if _, err := s.Send("Performance.enable", nil); err != nil {
		return 0, 0, err
	}
	v, err := s.Send("Performance.getMetrics", nil)
	if err != nil {
		return 0, 0, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return 0, 0, err
	}
	var m struct {
		Metrics []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, 0, err
	}
	nodes, heap = math.NaN(), math.NaN()
	for _, x := range m.Metrics {
		switch x.Name {
		case "Nodes":
			nodes = x.Value
		case "JSHeapUsedSize":
			heap = x.Value
		}
	}
	return nodes, heap, nil
}

// medianOf is the median of f over navs, ignoring NaN; NaN for none.
func medianOf(navs []navigation, f func(navigation) float64) float64 {
	var xs []float64
	for _, n := range navs {
		if v := f(n); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return median(xs)
}

// spread is "min–max" of f over navs, ignoring NaN.
func spread(navs []navigation, f func(navigation) float64) string {
	var xs []float64
	for _, n := range navs {
		if v := f(n); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%.0f–%.0f", slices.Min(xs), slices.Max(xs))
}

func reportBrowser(w io.Writer, o options, res browserResult, err error) (targets []targetResult) {
	fmt.Fprintf(w, "\n### Chromium: the namespaced list, %d loads of each size after one unmeasured (warm cache), median\n\n", o.browserRuns)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: fmt.Sprintf("first-row paint ≤ %d ms, 500 rows", targetFirstRowMs), value: "not measured"}}
	}
	msCell := func(navs []navigation, f func(navigation) float64) string {
		m := medianOf(navs, f)
		if math.IsNaN(m) {
			return "not reported"
		}
		return fmt.Sprintf("%.0f ms (%s)", m, spread(navs, f))
	}
	fmt.Fprintln(w, "| page | rows | first-row paint | FCP | LCP | HTML received (responseEnd) | render-blocking resources: count, received | DOMContentLoaded | load | DOM elements | DOM nodes | JS heap used (after GC) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	pages := []struct {
		name string
		navs []navigation
	}{{"floor: one static cell served by the bench", res.floor}}
	for _, limit := range res.limits {
		pages = append(pages, struct {
			name string
			navs []navigation
		}{fmt.Sprintf("console, namespace %s, limit %d", namespace, limit), res.navs[limit]})
	}
	for i, page := range res.extra {
		pages = append(pages, struct {
			name string
			navs []navigation
		}{"`" + page + "`", res.extraNavs[i]})
	}
	for _, p := range pages {
		navs := p.navs
		if len(navs) == 0 {
			continue
		}
		last := navs[len(navs)-1]
		fmt.Fprintf(w, "| %s | %d | **%s** | %s | %s | %s | %d, %s | %s | %s | %d | %.0f | %.2f MB |\n", p.name, last.Rows,
			msCell(navs, func(n navigation) float64 { return n.FirstRow }),
			msCell(navs, func(n navigation) float64 { return n.FCP }),
			msCell(navs, func(n navigation) float64 { return n.LCP }),
			msCell(navs, func(n navigation) float64 { return n.ResponseEnd }),
			last.BlockingCount, msCell(navs, func(n navigation) float64 { return n.BlockingEnd }),
			msCell(navs, func(n navigation) float64 { return n.DOMContentLoaded }),
			msCell(navs, func(n navigation) float64 { return n.Load }),
			last.Elements, medianOf(navs, func(n navigation) float64 { return n.Nodes }),
			medianOf(navs, func(n navigation) float64 { return n.JSHeap })/1e6)
	}
	for _, limit := range res.limits {
		navs := res.navs[limit]
		if limit == 500 {
			m := medianOf(navs, func(n navigation) float64 { return n.FirstRow })
			targets = append(targets, targetResult{fmt.Sprintf("first-row paint ≤ %d ms, 500 rows (p50)", targetFirstRowMs), fmt.Sprintf("%.0f ms", m),
				!math.IsNaN(m) && m <= targetFirstRowMs})
		}
	}
	fmt.Fprintf(w, "\nTimes are from navigation start (min–max in brackets). First-row paint is the Element Timing entry `%s` (the first row's first cell); DOM nodes and the JS heap come from CDP's Performance.getMetrics after a forced GC; viewport 1280×720. The floor row is the same measurement of a page with one cell and nothing to fetch: headless Chromium's own time to a first paint on this machine, which no page can beat.\n", firstRowMark)
	if slices.ContainsFunc(res.limits, func(l int) bool { return len(res.navs[l]) == 0 }) {
		fmt.Fprintln(w, "Some sizes have no loads.")
	}
	return targets
}
