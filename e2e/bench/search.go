package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/playwright-community/playwright-go"

	"github.com/tabula-console/tabula/e2e/harness"
)

// Targets of the search page (issue 23).
const (
	targetSearchFirstRowMs = 500
	targetSearchCompleteMs = 2000
	// targetSearchGrowthMiB is the console's VmRSS growth during a search.
	targetSearchGrowthMiB = 32
	// targetSearchConcurrentRatio is -search-concurrent searches at once
	// (the slowest) over one search.
	targetSearchConcurrentRatio = 3.0
)

// searchPath is the console's search for q in all namespaces.
func searchPath(q string) string {
	return "/c/" + contextName + "/search?" + url.Values{"q": {q}, "namespace": {""}}.Encode()
}

// distinctQueries are n different searches that cost what q costs: q with
// one more name word each, a piece of one of q's own name words ("bulk-0001
// b", "bulk-0001 u", …, "bulk-0001 bu", …).
//
// Why that piece: name words are matched by the console against each row,
// so any search of names reads every page of every kind (pods and events
// included) whatever its words; the lists read are q's. A different word
// alone (bulk-0002) would read the same lists too but match fewer objects
// (devcluster's 600 probe objects hold bulk-0001 only) and render less; a
// piece of q's word matches exactly q's objects, so each page has q's rows
// and only one more substring test per row. A label term instead would be
// sent to the server and read less. The console shares a run only between
// searches with the same words, so none of these can share (each page's
// data-shared says whether it did).
//
// Pieces are taken shortest first, in the order they appear; each holds a
// letter or digit (a lone "-" reads as a typo). A query with a set term
// ("env in (a,b)") is refused: telling its words apart needs the console's
// parser, and the bench only needs a query of names.
func distinctQueries(q string, n int) ([]string, error) {
	if strings.ContainsAny(q, "()") {
		return nil, fmt.Errorf("%q has a set term: the different searches add a piece of a name word to the query, and the bench does not parse sets", q)
	}
	var words []string
	for _, tok := range strings.Fields(q) {
		// The console's other terms: ns:, kind:, field:, label: and label
		// selectors (=, !=, !key).
		if !strings.ContainsAny(tok, ":/=") && !strings.HasPrefix(tok, "!") {
			words = append(words, strings.ToLower(tok))
		}
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%q has no word of a name to vary", q)
	}
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	var out []string
	for size := 1; len(out) < n; size++ {
		longer := false
		for _, w := range words {
			rs := []rune(w)
			for i := 0; i+size <= len(rs); i++ {
				longer = true
				p := string(rs[i : i+size])
				if seen[p] || strings.HasPrefix(p, "!") || !strings.ContainsFunc(p, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
					continue
				}
				seen[p] = true
				if out = append(out, q+" "+p); len(out) == n {
					return out, nil
				}
			}
		}
		if !longer {
			return nil, fmt.Errorf("%q gives only %d different searches that match what it matches (a piece of its name words added), not %d", q, len(out), n)
		}
	}
	return out, nil
}

// searchResult is the search measurement.
type searchResult struct {
	path string
	// warm is the unmeasured first search.
	warm searchFetch
	// one is the search measured alone, with the console's VmRSS sampled,
	// and the budget its page states.
	one       searchFetch
	oneBudget searchBudget
	onePeak   peakResult
	// seq are the sequential searches and the budgets their pages state;
	// compressed the same searches again as Chromium asks for them.
	seq        []searchFetch
	budgets    []searchBudget
	compressed []sample
	// conc are the searches made at once, in the order they ended, and
	// their budgets.
	conc        []searchFetch
	concBudgets []searchBudget
	concPeak    peakResult
	// Console memory at rest: before the measured search, -rest-wait after
	// it, and -rest-wait after the concurrent ones.
	before, afterOne, afterConc memReading
	// kube-apiserver's requests: while idle for idleFor, during the one
	// search, the sequential ones and the concurrent ones.
	idleFor                  time.Duration
	idle, up1, upSeq, upConc upstreamDelta
	// The console's own count of its upstream requests over the same
	// windows; NaN when it does not export it.
	console1, consoleSeq, consoleConc float64
	// objects per resource, as kube-apiserver last counted them.
	objects map[string]float64
	// Chromium: one navigation per load, or why none.
	navs       []searchNav
	browserErr error

	// The different searches at once (distinctQueries), each at its
	// query's index, with their budgets, kube-apiserver's and the
	// console's requests during them, the console's VmRSS during them and
	// -rest-wait after; distinctErr is why they were not measured.
	distinctQueries []string
	distinct        []searchFetch
	distinctBudgets []searchBudget
	distinctPeak    peakResult
	upDistinct      upstreamDelta
	consoleDistinct float64
	afterDistinct   memReading
	distinctErr     error
}

// measureSearch measures the search page for o.searchQuery in all
// namespaces: one unmeasured search, kube-apiserver's requests while the
// console idles, one search with the console's VmRSS sampled and its
// upstream requests counted, o.searchRuns in a row, o.searchConcurrent at
// once (each of the last three between two scrapes of kube-apiserver's and
// the console's metrics, and with -rest-wait and a memory reading after the
// first and the last; between the last two, o.searchRuns more as a browser
// asks, compressed), then o.searchConcurrent different searches at once
// (distinctQueries, after one unmeasured search; with the console's VmRSS
// sampled, between two scrapes, then -rest-wait and a memory reading), then
// o.browserRuns loads in Chromium after an unmeasured one. An error of the
// HTTP part ends it, except one of the different searches, which is kept in
// the result as one of Chromium is.
func measureSearch(ctx context.Context, o options, kube *http.Client, server string, browser *http.Client, console *harness.Console) (searchResult, error) {
	res := searchResult{path: searchPath(o.searchQuery)}
	pageURL := console.URL + res.path
	pid := console.Pid()
	get := func() (searchFetch, error) { return fetchSearch(ctx, browser, pageURL) }
	rest := func() error {
		slog.Info("letting the console rest", "for", o.restWait)
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(o.restWait):
			return nil
		}
	}
	consoleUpstream := func() float64 {
		m, err := scrape(ctx, browser, console.URL+"/metrics")
		if err != nil {
			return math.NaN()
		}
		if v, ok := metricSum(m, metricConsoleUpstream); ok {
			return v
		}
		return math.NaN()
	}
	// window runs f between two scrapes of both servers' metrics.
	window := func(f func() error) (up upstreamDelta, consoleN float64, after apiserverSample, err error) {
		before, err := scrapeAPIServer(ctx, kube, server)
		if err != nil {
			return up, 0, after, err
		}
		c0 := consoleUpstream()
		if err := f(); err != nil {
			return up, 0, after, err
		}
		if after, err = scrapeAPIServer(ctx, kube, server); err != nil {
			return up, 0, after, err
		}
		return after.since(before), consoleUpstream() - c0, after, nil
	}

	var err error
	if res.warm, err = get(); err != nil {
		return res, fmt.Errorf("first search: %w", err)
	}
	if _, err := parseSearchPage(res.warm.body); err != nil {
		return res, fmt.Errorf("first search: %w", err)
	}
	// What kube-apiserver serves anyway (kwok, the controllers): as long
	// as a search took, at least a second.
	res.idleFor = max(res.warm.complete, time.Second)
	if res.idle, _, _, err = window(func() error {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(res.idleFor):
			return nil
		}
	}); err != nil {
		return res, err
	}

	if err := rest(); err != nil {
		return res, err
	}
	res.before = memory(ctx, browser, console.URL, pid, "at rest, before the search")
	slog.Info("one search, console memory sampled", "url", pageURL)
	if res.up1, res.console1, _, err = window(func() (err error) {
		res.onePeak, err = measurePeak(ctx, pid, 1, func() (sample, error) {
			f, err := get()
			res.one = f
			return sample{d: f.complete, body: f.body}, err
		})
		return err
	}); err != nil {
		return res, fmt.Errorf("one search: %w", err)
	}
	if res.oneBudget, err = parseSearchPage(res.one.body); err != nil {
		return res, fmt.Errorf("one search: %w", err)
	}
	if err := rest(); err != nil {
		return res, err
	}
	res.afterOne = memory(ctx, browser, console.URL, pid, fmt.Sprintf("%s after it", o.restWait))

	slog.Info("searches in a row", "runs", o.searchRuns)
	if res.upSeq, res.consoleSeq, _, err = window(func() error {
		for range o.searchRuns {
			f, err := get()
			if err != nil {
				return err
			}
			b, err := parseSearchPage(f.body)
			if err != nil {
				return err
			}
			res.seq, res.budgets = append(res.seq, f), append(res.budgets, b)
		}
		return nil
	}); err != nil {
		return res, fmt.Errorf("searches in a row: %w", err)
	}
	slog.Info("searches in a row as a browser asks", "runs", o.searchRuns)
	for range o.searchRuns {
		c, err := fetch(ctx, browser, pageURL, "text/html", browserAcceptEncoding)
		if err != nil {
			return res, fmt.Errorf("searches in a row as a browser asks: %w", err)
		}
		res.compressed = append(res.compressed, c)
	}

	slog.Info("searches at once, console memory sampled", "searches", o.searchConcurrent)
	var mu sync.Mutex
	var after apiserverSample
	if res.upConc, res.consoleConc, after, err = window(func() (err error) {
		res.concPeak, err = measurePeak(ctx, pid, o.searchConcurrent, func() (sample, error) {
			f, err := get()
			mu.Lock()
			res.conc = append(res.conc, f)
			mu.Unlock()
			return sample{d: f.complete, body: f.body}, err
		})
		return err
	}); err != nil {
		return res, fmt.Errorf("%d searches at once: %w", o.searchConcurrent, err)
	}
	for _, f := range res.conc {
		b, err := parseSearchPage(f.body)
		if err != nil {
			return res, fmt.Errorf("%d searches at once: %w", o.searchConcurrent, err)
		}
		res.concBudgets = append(res.concBudgets, b)
	}
	res.objects = after.objects
	if err := rest(); err != nil {
		return res, err
	}
	res.afterConc = memory(ctx, browser, console.URL, pid, fmt.Sprintf("%s after the %d identical at once", o.restWait, o.searchConcurrent))

	// After the rest, so that the access reviews the one search before
	// them asks are all fresh: kept for the round, as they were for most of
	// the searches in a row the round is held against.
	res.distinctErr = func() error {
		qs, err := distinctQueries(o.searchQuery, o.searchConcurrent)
		if err != nil {
			return err
		}
		res.distinctQueries = qs
		if _, err := get(); err != nil {
			return fmt.Errorf("the search before them: %w", err)
		}
		slog.Info("different searches at once, console memory sampled", "searches", len(qs), "first", qs[0])
		res.distinct = make([]searchFetch, len(qs))
		var next atomic.Int64
		if res.upDistinct, res.consoleDistinct, _, err = window(func() (err error) {
			res.distinctPeak, err = measurePeak(ctx, pid, len(qs), func() (sample, error) {
				i := next.Add(1) - 1
				f, err := fetchSearch(ctx, browser, console.URL+searchPath(qs[i]))
				res.distinct[i] = f
				return sample{d: f.complete, body: f.body}, err
			})
			return err
		}); err != nil {
			return err
		}
		for i, f := range res.distinct {
			b, err := parseSearchPage(f.body)
			if err != nil {
				return fmt.Errorf("%q: %w", qs[i], err)
			}
			res.distinctBudgets = append(res.distinctBudgets, b)
		}
		return nil
	}()
	if res.distinctErr != nil {
		res.distinctErr = fmt.Errorf("%d different searches at once: %w", o.searchConcurrent, res.distinctErr)
	}
	// Chromium follows a rested console and server whatever happened.
	if err := rest(); err != nil {
		return res, err
	}
	if res.distinctErr == nil {
		res.afterDistinct = memory(ctx, browser, console.URL, pid, fmt.Sprintf("%s after the %d different at once", o.restWait, o.searchConcurrent))
	}

	slog.Info("loading the search in chromium", "runs", o.browserRuns)
	res.navs, res.browserErr = searchInChromium(ctx, o, pageURL)
	return res, nil
}

// searchNav is one search loaded in Chromium, in ms since navigation start
// (NaN: not reported).
type searchNav struct {
	// firstRowPaint is the Element Timing entry searchFirstRowMark;
	// firstRowDOM and summaryDOM when the first row and the summary
	// entered the DOM (searchInitScript).
	firstRowPaint, firstRowDOM, summaryDOM, fcp, responseEnd float64
	rows                                                     int
}

// searchInitScript runs in every document of the search's browser context
// before the page's own scripts (and outside its CSP): it notes when the
// first result row and the summary enter the DOM, on the timeline Element
// Timing uses.
var searchInitScript = fmt.Sprintf(`(() => {
  const marks = {firstRow: null, summary: null};
  window.__tabulaBenchSearch = marks;
  const has = (n, sel) => n.nodeType === 1 && (n.matches(sel) || n.querySelector(sel) !== null);
  const mo = new MutationObserver(records => {
    const now = performance.now();
    for (const r of records) for (const n of r.addedNodes) {
      if (marks.firstRow === null && has(n, %q)) marks.firstRow = now;
      if (marks.summary === null && has(n, %q)) marks.summary = now;
    }
    if (marks.firstRow !== null && marks.summary !== null) mo.disconnect();
  });
  mo.observe(document, {childList: true, subtree: true});
})()`, searchRowSelector, searchSummarySelector)

// searchCollectScript waits until the first row's Element Timing entry is
// in and the summary is in the DOM, and returns the figures; after
// timeoutMs it returns what it has.
const searchCollectScript = `(args) => new Promise(resolve => {
  const marks = window.__tabulaBenchSearch || {firstRow: null, summary: null};
  let firstRow = null, done = false;
  const finish = () => {
    if (done) return;
    done = true;
    const nav = performance.getEntriesByType('navigation')[0] || {};
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    resolve({firstRow, fcp: fcp ? fcp.startTime : null, firstRowDOM: marks.firstRow, summaryDOM: marks.summary,
      responseEnd: nav.responseEnd, rows: document.querySelectorAll(args.rows).length});
  };
  // Element Timing entries reach only observers, not the timeline.
  new PerformanceObserver(list => {
    list.getEntries().forEach(e => { if (e.identifier === args.mark && firstRow === null) firstRow = e.renderTime || e.loadTime; });
    if (firstRow !== null && marks.summary !== null) finish();
  }).observe({type: 'element', buffered: true});
  setTimeout(finish, args.timeoutMs);
})`

// searchInChromium loads the search o.browserRuns times after one
// unmeasured load, each in a new tab of one browser context.
func searchInChromium(ctx context.Context, o options, pageURL string) ([]searchNav, error) {
	bctx, closeBrowser, err := launchChromium(o)
	if err != nil {
		return nil, err
	}
	defer closeBrowser()
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(searchInitScript)}); err != nil {
		return nil, err
	}
	var navs []searchNav
	for run := range o.browserRuns + 1 {
		if err := ctx.Err(); err != nil {
			return navs, context.Cause(ctx)
		}
		n, err := navigateSearch(bctx, pageURL)
		if err != nil {
			return navs, err
		}
		if run > 0 {
			navs = append(navs, n)
		}
	}
	return navs, nil
}

// navigateSearch loads the search in a new tab and reads its timings.
func navigateSearch(bctx playwright.BrowserContext, pageURL string) (searchNav, error) {
	var got struct {
		FirstRow    *float64 `json:"firstRow"`
		FCP         *float64 `json:"fcp"`
		FirstRowDOM *float64 `json:"firstRowDOM"`
		SummaryDOM  *float64 `json:"summaryDOM"`
		ResponseEnd *float64 `json:"responseEnd"`
		Rows        int      `json:"rows"`
	}
	args := map[string]any{"mark": searchFirstRowMark, "rows": searchRowSelector, "timeoutMs": 5_000}
	_, closePage, err := loadAndRead(bctx, pageURL, searchCollectScript, args, &got)
	if err != nil {
		return searchNav{}, err
	}
	closePage()
	return searchNav{
		firstRowPaint: orNaN(got.FirstRow), firstRowDOM: orNaN(got.FirstRowDOM), summaryDOM: orNaN(got.SummaryDOM),
		fcp: orNaN(got.FCP), responseEnd: orNaN(got.ResponseEnd), rows: got.Rows,
	}, nil
}

// msOf is each fetch's f in ms (NaN where it is 0: not seen).
func msOf(fs []searchFetch, f func(searchFetch) time.Duration) []float64 {
	out := make([]float64, len(fs))
	for i, x := range fs {
		out[i] = math.NaN()
		if d := f(x); d > 0 {
			out[i] = float64(d) / float64(time.Millisecond)
		}
	}
	return out
}

// navMs is each navigation's f.
func navMs(navs []searchNav, f func(searchNav) float64) []float64 {
	out := make([]float64, len(navs))
	for i, n := range navs {
		out[i] = f(n)
	}
	return out
}

// nearestRank is the nearest-rank percentile p of xs, ignoring NaN; NaN
// for none.
func nearestRank(xs []float64, p float64) float64 {
	var s []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// msCells is "p50 | p90 | min–max | reported" of xs in ms.
func msCells(xs []float64) string {
	p50 := median(slices.DeleteFunc(slices.Clone(xs), math.IsNaN))
	if math.IsNaN(p50) {
		return fmt.Sprintf("not reported | | | 0 of %d", len(xs))
	}
	seen := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			seen++
		}
	}
	return fmt.Sprintf("%.0f ms | %.0f ms | %.0f–%.0f ms | %d of %d", p50, nearestRank(xs, 0.9), nearestRank(xs, 0), nearestRank(xs, 1), seen, len(xs))
}

// count formats a request count, or "n/a" for NaN.
func count(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", v)
}

// distinctFigureNote is why the different searches' ratio is in the summary
// as a figure and not held against targetSearchConcurrentRatio: each reads
// every kind anew as the user (nothing is cached), so ten of them are ten
// times the server's work however the console schedules them.
const distinctFigureNote = "reported, not a target: distinct searches share nothing"

func reportSearch(w io.Writer, o options, res searchResult, err error) (targets []targetResult, figures []reportedFigure) {
	distinctName := fmt.Sprintf("search: %d different at once, slowest / one search (p50)", o.searchConcurrent)
	names := []string{
		fmt.Sprintf("search: first result row painted ≤ %d ms (Chromium p50)", targetSearchFirstRowMs),
		fmt.Sprintf("search: complete ≤ %d ms (Chromium p50, summary in the DOM)", targetSearchCompleteMs),
		"search: kube-apiserver requests per search ≤ kinds × pages",
		fmt.Sprintf("search: console VmRSS growth during a search ≤ %d MiB", targetSearchGrowthMiB),
		fmt.Sprintf("search: console at rest %s after a search ≤ %d MiB", o.restWait, targetRestMiB),
		fmt.Sprintf("search: %d identical at once, slowest ≤ %.0f× one search (p50)", o.searchConcurrent, targetSearchConcurrentRatio),
	}
	cluster := fmt.Sprintf("%d bulk pods, %d bench CRDs with 3 objects each", o.pods, o.crds)
	if o.kubeconfig != "" {
		cluster = "the cluster of " + o.kubeconfig
	}
	fmt.Fprintf(w, "\n### Search: `%s` (%s)\n\n", res.path, cluster)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		for _, n := range names {
			targets = append(targets, targetResult{name: n, value: "not measured"})
		}
		return targets, []reportedFigure{{distinctName, "not measured", distinctFigureNote}}
	}

	fmt.Fprintln(w, "| time from the request (Chromium: from navigation start; HTTP: the bench's Go client, identity unless said) | p50 | p90 | min–max | reported |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if res.browserErr != nil {
		fmt.Fprintf(w, "| Chromium | not measured: %v | | | |\n", res.browserErr)
	}
	if len(res.navs) > 0 {
		for _, r := range []struct {
			name string
			f    func(searchNav) float64
		}{
			{fmt.Sprintf("Chromium: first result row painted (Element Timing `%s`)", searchFirstRowMark), func(n searchNav) float64 { return n.firstRowPaint }},
			{"Chromium: first result row in the DOM", func(n searchNav) float64 { return n.firstRowDOM }},
			{"Chromium: FCP", func(n searchNav) float64 { return n.fcp }},
			{"Chromium: **complete** (the summary in the DOM)", func(n searchNav) float64 { return n.summaryDOM }},
			{"Chromium: HTML received (responseEnd)", func(n searchNav) float64 { return n.responseEnd }},
		} {
			fmt.Fprintf(w, "| %s | %s |\n", r.name, msCells(navMs(res.navs, r.f)))
		}
	}
	fmt.Fprintf(w, "| HTTP, %d in a row: first result row received | %s |\n", len(res.seq), msCells(msOf(res.seq, func(f searchFetch) time.Duration { return f.firstRow })))
	fmt.Fprintf(w, "| HTTP, %d in a row: complete (last byte) | %s |\n", len(res.seq), msCells(msOf(res.seq, func(f searchFetch) time.Duration { return f.complete })))
	if n := len(res.compressed); n > 0 {
		ds := make([]searchFetch, n)
		for i, c := range res.compressed {
			ds[i].complete = c.d
		}
		last := res.compressed[n-1]
		fmt.Fprintf(w, "| HTTP, %d in a row as a browser asks (`%s`; %s, %d bytes on the wire of %d): complete | %s |\n",
			n, browserAcceptEncoding, orNone(last.encoding), last.wire, len(last.body), msCells(msOf(ds, func(f searchFetch) time.Duration { return f.complete })))
	}
	fmt.Fprintf(w, "| HTTP, %d identical at once: complete, each | %s |\n", len(res.conc), msCells(msOf(res.conc, func(f searchFetch) time.Duration { return f.complete })))
	if res.distinctErr != nil {
		fmt.Fprintf(w, "| HTTP, %d different at once | not measured: %v | | | |\n", o.searchConcurrent, res.distinctErr)
	} else {
		fmt.Fprintf(w, "| HTTP, %d different at once (%s): complete, each | %s |\n", len(res.distinct), queriesCell(res.distinctQueries),
			msCells(msOf(res.distinct, func(f searchFetch) time.Duration { return f.complete })))
	}
	fmt.Fprintf(w, "| HTTP, the first search (unmeasured, cold caches): first row / complete | %s / %s | | | |\n",
		msOr(res.warm.firstRow), msOr(res.warm.complete))
	if len(res.navs) > 0 && !slices.ContainsFunc(res.navs, func(n searchNav) bool { return !math.IsNaN(n.firstRowPaint) }) {
		fmt.Fprintf(w, "\nChromium reported no Element Timing entry `%s`: it reports one for the element whose text it paints, a cell, not a row or a link, so the page must put `elementtiming=\"%s\"` on the first row's name cell (as the list puts `%s` on its first cell).\n",
			searchFirstRowMark, searchFirstRowMark, firstRowMark)
	}

	// The budget the pages state.
	last := res.budgets[len(res.budgets)-1]
	fmt.Fprintln(w, "\nThe budget the page states (its summary's data attributes; for several searches the last, and the range in brackets):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| search | kinds asked | kinds skipped | requests | access reviews among them | bytes | matches | result rows | elapsed (the page's own) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range []struct {
		name string
		bs   []searchBudget
	}{
		{"one, after a rest", []searchBudget{res.oneBudget}},
		{fmt.Sprintf("%d in a row", len(res.budgets)), res.budgets},
		{fmt.Sprintf("%d identical at once", len(res.concBudgets)), res.concBudgets},
		{fmt.Sprintf("%d different at once", len(res.distinctBudgets)), res.distinctBudgets},
	} {
		fmt.Fprintf(w, "| %s | %s |\n", r.name, budgetCells(r.bs))
	}
	fmt.Fprintln(w, "\n| kinds skipped because | one | in a row: the last | identical at once: all of them | different at once: all of them | e.g. |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	oneR, lastR, concR, distinctR := res.oneBudget.byReason(), last.byReason(), skippedOf(res.concBudgets).byReason(), skippedOf(res.distinctBudgets).byReason()
	every := slices.Concat([]searchBudget{res.oneBudget, last}, res.concBudgets, res.distinctBudgets)
	for _, c := range skippedOf(every).byReason() {
		reason := c.reason
		if !c.known {
			reason += " (not a reason the bench knows)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", reason, reasonN(oneR, c.reason), reasonN(lastR, c.reason), reasonN(concR, c.reason), reasonN(distinctR, c.reason), strings.Join(c.examples, ", "))
	}
	for _, b := range every {
		if len(b.skipped) != b.kindsSkipped {
			fmt.Fprintf(w, "\nA summary says %d kinds were skipped, but its page lists %d.\n", b.kindsSkipped, len(b.skipped))
			break
		}
	}

	// Upstream requests.
	perSeq := func(v float64) float64 { return v / float64(len(res.seq)) }
	perConc := func(v float64) float64 { return v / float64(o.searchConcurrent) }
	bound, need, uncounted, largest := pagesBound(res.up1.lists, res.objects, res.oneBudget.kindsAsked, o.limit)
	lists1, all1 := res.up1.listTotal(), res.up1.all
	fmt.Fprintf(w, "\nUpstream requests per search (kube-apiserver's `%s` summed before and after each window, admin credentials; the console's `%s`; the page's `data-requests`):\n\n", metricAPIRequests, metricConsoleUpstream)
	fmt.Fprintln(w, "| window | kube-apiserver: LIST | kube-apiserver: every verb | the console's count | the page's count |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	fmt.Fprintf(w, "| the console idle for %s (background) | %s | %s | | |\n", res.idleFor.Round(time.Millisecond), count(res.idle.listTotal()), count(res.idle.all))
	fmt.Fprintf(w, "| one search (its memory measured) | %s | **%s** | %s | %d |\n", count(lists1), count(all1), count(res.console1), res.oneBudget.requests)
	fmt.Fprintf(w, "| %d in a row, per search | %s | %s | %s | %s |\n", len(res.seq), count(perSeq(res.upSeq.listTotal())), count(perSeq(res.upSeq.all)), count(perSeq(res.consoleSeq)),
		count(perSeq(float64(sumOf(res.budgets, func(b searchBudget) int { return b.requests })))))
	fmt.Fprintf(w, "| %d identical at once, all of them | %s | %s | %s | |\n", o.searchConcurrent, count(res.upConc.listTotal()), count(res.upConc.all), count(res.consoleConc))
	fmt.Fprintf(w, "| %d identical at once, per search | %s | %s | %s | %s each |\n", o.searchConcurrent, count(perConc(res.upConc.listTotal())), count(perConc(res.upConc.all)), count(perConc(res.consoleConc)),
		rangeOf(res.concBudgets, func(b searchBudget) int { return b.requests }))
	if res.distinctErr == nil {
		fmt.Fprintf(w, "| %d different at once, all of them | %s | %s | %s | %d |\n", o.searchConcurrent, count(res.upDistinct.listTotal()), count(res.upDistinct.all), count(res.consoleDistinct),
			sumOf(res.distinctBudgets, func(b searchBudget) int { return b.requests }))
		fmt.Fprintf(w, "| %d different at once, per search | %s | %s | %s | %s each |\n", o.searchConcurrent, count(perConc(res.upDistinct.listTotal())), count(perConc(res.upDistinct.all)), count(perConc(res.consoleDistinct)),
			rangeOf(res.distinctBudgets, func(b searchBudget) int { return b.requests }))
	}
	largestObjects := res.objects[largest]
	fmt.Fprintf(w, "\n- kinds × pages = %d kinds asked × %d, the pages of the largest kind listed (%s: %.0f objects at %d a page) = **%d**; kube-apiserver served %s requests during one search, background included (target: at most kinds × pages). Paging every listed kind to its end takes %d LISTs; it made %s.\n",
		res.oneBudget.kindsAsked, pageCount(largestObjects, o.limit), orNone(largest), largestObjects, o.limit, bound, count(all1), need, count(lists1))
	if uncounted > 0 {
		fmt.Fprintf(w, "- %d of the listed resources have no object count from kube-apiserver (events.k8s.io's events are stored as core events and counted there); each is counted as one page.\n", uncounted)
	}
	if over := overPaged(res.up1.lists, res.objects, o.limit); len(over) > 0 {
		fmt.Fprintf(w, "- Listed more often than their objects take pages: %s.\n", strings.Join(over, ", "))
	}
	lists, others := res.up1.byCount()
	fmt.Fprintf(w, "- One search listed %d resources; the most LISTs: %s. Its other requests: %s.\n",
		len(lists), joinCounts(lists, 8), joinCounts(others, 8))
	fmt.Fprintf(w, "- Object counts are kube-apiserver's `%s` (its last count, about once a minute); the page size is `-limit`.\n", metricAPIObjects)

	// Concurrency.
	one := median(msOf(res.seq, func(f searchFetch) time.Duration { return f.complete }))
	slowest := float64(res.concPeak.d) / float64(time.Millisecond)
	ratio := slowest / one
	fmt.Fprintf(w, "\n%d identical searches at once: the slowest ended %.0f ms after they started, **%.2f×** one search (%.0f ms, p50 of %d in a row); kube-apiserver served %s LISTs for them (%s per search). Their summaries: %s.\n",
		o.searchConcurrent, slowest, ratio, one, len(res.seq), count(res.upConc.listTotal()), count(perConc(res.upConc.listTotal())), sharedCell(res.concBudgets))
	if stated := sumOf(res.concBudgets, func(b searchBudget) int { return b.requests }); float64(stated) > 1.5*res.upConc.all {
		fmt.Fprintf(w, "Their pages state %d requests in all, more than kube-apiserver served: searches that share one run each state its cost.\n", stated)
	}
	if cut := cutShort(res.concBudgets); cut > 0 {
		fmt.Fprintf(w, "%d of them ran out of time (kinds skipped as timeout): they were cut short, so the ratio understates what complete searches would take.\n", cut)
	}
	distinctRatio := math.NaN()
	if res.distinctErr != nil {
		fmt.Fprintf(w, "\n%d different searches at once: not measured: %v\n", o.searchConcurrent, res.distinctErr)
	} else {
		slowest := float64(res.distinctPeak.d) / float64(time.Millisecond)
		distinctRatio = slowest / one
		fmt.Fprintf(w, "\n%d different searches at once (%s: the query with a piece of its own word added, so each reads the lists one search reads and matches its objects, and none can share a run): the slowest ended %.0f ms after they started, **%.2f×** one search (%.0f ms, p50 of %d in a row); kube-apiserver served %s requests for them, %s of them LISTs (%s per search; one search: %s). %d of the %d pages report kinds skipped as `timeout`. Their summaries: %s. Matches each page states: %s (one search: %d).\n",
			len(res.distinct), queriesCell(res.distinctQueries), slowest, distinctRatio, one, len(res.seq), count(res.upDistinct.all), count(res.upDistinct.listTotal()),
			count(perConc(res.upDistinct.listTotal())), count(lists1), cutShort(res.distinctBudgets), len(res.distinctBudgets), sharedCell(res.distinctBudgets),
			rangeOf(res.distinctBudgets, func(b searchBudget) int { return b.matches }), res.oneBudget.matches)
		if n := sharedN(res.distinctBudgets, "true"); n > 0 {
			fmt.Fprintf(w, "%d of them say they shared a run: the console took different searches for one, so this round did not measure different searches.\n", n)
		}
		if cut := cutShort(res.distinctBudgets); cut > 0 {
			fmt.Fprintf(w, "Those cut short stopped when a kind's time or the search's ran out (the page's budget), so the ratio understates what %d complete searches would take.\n", len(res.distinctBudgets))
		}
	}

	// Memory.
	fmt.Fprintf(w, "\nConsole memory (VmRSS read every %s during the searches; VmHWM reset before each round):\n\n", sampleEvery)
	fmt.Fprintln(w, "| when | VmRSS | VmHWM | Go heap in use |")
	fmt.Fprintln(w, "|---|---|---|---|")
	heap := func(b float64) string {
		if b < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	fmt.Fprintf(w, "| %s (after one unmeasured search) | %s | %s | %s |\n", res.before.name, mib(res.before.st.rssKiB), mib(res.before.st.hwmKiB), heap(res.before.heapInuse))
	fmt.Fprintf(w, "| peak during one search | %s (growth **%s**) | %s | |\n", mib(res.onePeak.peakKiB()), mib(res.onePeak.peakKiB()-res.onePeak.beforeKiB), hwmCell(res.onePeak))
	fmt.Fprintf(w, "| %s | %s | %s | %s |\n", res.afterOne.name, mib(res.afterOne.st.rssKiB), mib(res.afterOne.st.hwmKiB), heap(res.afterOne.heapInuse))
	fmt.Fprintf(w, "| peak during %d identical at once | %s (growth %s, %.1f MiB per search) | %s | |\n", o.searchConcurrent, mib(res.concPeak.peakKiB()),
		mib(res.concPeak.peakKiB()-res.concPeak.beforeKiB), res.concPeak.perPageKiB()/1024, hwmCell(res.concPeak))
	fmt.Fprintf(w, "| %s | %s | %s | %s |\n", res.afterConc.name, mib(res.afterConc.st.rssKiB), mib(res.afterConc.st.hwmKiB), heap(res.afterConc.heapInuse))
	if res.distinctErr == nil {
		fmt.Fprintf(w, "| peak during %d different at once | %s (growth %s, %.1f MiB per search) | %s | |\n", len(res.distinct), mib(res.distinctPeak.peakKiB()),
			mib(res.distinctPeak.peakKiB()-res.distinctPeak.beforeKiB), res.distinctPeak.perPageKiB()/1024, hwmCell(res.distinctPeak))
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", res.afterDistinct.name, mib(res.afterDistinct.st.rssKiB), mib(res.afterDistinct.st.hwmKiB), heap(res.afterDistinct.heapInuse))
	}
	fmt.Fprintf(w, "\nThe issue asks the console to be \"back at rest\" after a search without a figure: the target is the console's at-rest target (≤ %d MiB); against before the search, VmRSS moved by %s.\n",
		targetRestMiB, signedMiB(res.before.st.rssKiB, res.afterOne.st.rssKiB))

	// Targets.
	paint := median(slices.DeleteFunc(navMs(res.navs, func(n searchNav) float64 { return n.firstRowPaint }), math.IsNaN))
	complete := median(slices.DeleteFunc(navMs(res.navs, func(n searchNav) float64 { return n.summaryDOM }), math.IsNaN))
	msTarget := func(name string, v, target float64) targetResult {
		if math.IsNaN(v) {
			why := "not reported"
			if res.browserErr != nil {
				why = "not measured"
			}
			return targetResult{name: name, value: why}
		}
		return targetResult{name, fmt.Sprintf("%.0f ms", v), v <= target}
	}
	growth := res.onePeak.peakKiB() - res.onePeak.beforeKiB
	figure := reportedFigure{distinctName, "not measured", distinctFigureNote}
	if !math.IsNaN(distinctRatio) {
		figure.value = fmt.Sprintf("%.2f×", distinctRatio)
		if cut := cutShort(res.distinctBudgets); cut > 0 {
			figure.value += fmt.Sprintf(" (%d of %d cut short: timeout)", cut, len(res.distinctBudgets))
		}
	}
	return []targetResult{
		msTarget(names[0], paint, targetSearchFirstRowMs),
		msTarget(names[1], complete, targetSearchCompleteMs),
		{names[2], fmt.Sprintf("%s of %d", count(all1), bound), all1 <= float64(bound)},
		{names[3], mib(growth), res.onePeak.beforeKiB >= 0 && growth <= targetSearchGrowthMiB*1024},
		{names[4], mib(res.afterOne.st.rssKiB), res.afterOne.st.rssKiB >= 0 && res.afterOne.st.rssKiB <= targetRestMiB*1024},
		{names[5], fmt.Sprintf("%.2f×", ratio), ratio <= targetSearchConcurrentRatio},
	}, []reportedFigure{figure}
}

// queriesCell names the different searches: the first two and the last.
func queriesCell(qs []string) string {
	quote := func(q string) string { return "`" + q + "`" }
	switch len(qs) {
	case 0:
		return "none"
	case 1, 2, 3:
		parts := make([]string, len(qs))
		for i, q := range qs {
			parts[i] = quote(q)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s, %s, … %s", quote(qs[0]), quote(qs[1]), quote(qs[len(qs)-1]))
}

// sharedN is how many of bs state data-shared v ("" for not stated).
func sharedN(bs []searchBudget, v string) int {
	n := 0
	for _, b := range bs {
		if b.shared == v {
			n++
		}
	}
	return n
}

// sharedCell says what the summaries of bs state as data-shared.
func sharedCell(bs []searchBudget) string {
	var parts []string
	for _, v := range []string{"false", "true"} {
		if n := sharedN(bs, v); n > 0 {
			parts = append(parts, fmt.Sprintf("`data-shared=\"%s\"` on %d", v, n))
		}
	}
	if n := sharedN(bs, ""); n > 0 {
		parts = append(parts, fmt.Sprintf("no `data-shared` on %d", n))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" of %d", len(bs))
}

// budgetCells are the table cells of one or more budgets: the last's
// figures, with the range when they differ.
func budgetCells(bs []searchBudget) string {
	if len(bs) == 0 {
		return "| | | | | | | |"
	}
	last := bs[len(bs)-1]
	span := func(f func(searchBudget) float64) string {
		xs := make([]float64, len(bs))
		for i, b := range bs {
			xs[i] = f(b)
		}
		lo, hi := slices.Min(xs), slices.Max(xs)
		if f(last) < 0 {
			return "not stated"
		}
		if lo == hi {
			return fmt.Sprintf("%.0f", lo)
		}
		return fmt.Sprintf("%.0f (%.0f–%.0f)", f(last), lo, hi)
	}
	return strings.Join([]string{
		span(func(b searchBudget) float64 { return float64(b.kindsAsked) }),
		span(func(b searchBudget) float64 { return float64(b.kindsSkipped) }),
		span(func(b searchBudget) float64 { return float64(b.requests) }),
		span(func(b searchBudget) float64 { return float64(b.reviews) }),
		span(func(b searchBudget) float64 { return float64(b.bytes) }),
		span(func(b searchBudget) float64 { return float64(b.matches) }),
		span(func(b searchBudget) float64 { return float64(b.rows) }),
		span(func(b searchBudget) float64 { return b.elapsedMs }) + " ms",
	}, " | ")
}

// skippedOf is one budget holding the skipped kinds of all of bs.
func skippedOf(bs []searchBudget) searchBudget {
	var all searchBudget
	for _, b := range bs {
		all.skipped = append(all.skipped, b.skipped...)
	}
	return all
}

// reasonN is the count of reason in rs, as a cell.
func reasonN(rs []reasonCount, reason string) string {
	for _, r := range rs {
		if r.reason == reason {
			return fmt.Sprint(r.n)
		}
	}
	return "0"
}

// rangeOf is "min–max" of f over bs, or the one value.
func rangeOf(bs []searchBudget, f func(searchBudget) int) string {
	if len(bs) == 0 {
		return "none"
	}
	lo, hi := f(bs[0]), f(bs[0])
	for _, b := range bs {
		lo, hi = min(lo, f(b)), max(hi, f(b))
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// sumOf adds f over bs.
func sumOf(bs []searchBudget, f func(searchBudget) int) int {
	n := 0
	for _, b := range bs {
		n += f(b)
	}
	return n
}

// cutShort is how many of bs skipped a kind for running out of time.
func cutShort(bs []searchBudget) int {
	n := 0
	for _, b := range bs {
		if slices.ContainsFunc(b.skipped, func(k skippedKind) bool { return k.reason == "timeout" }) {
			n++
		}
	}
	return n
}

// joinCounts is the first n counts, and how many more there are.
func joinCounts(cs []requestCount, n int) string {
	if len(cs) == 0 {
		return "none"
	}
	var parts []string
	for _, c := range cs[:min(len(cs), n)] {
		parts = append(parts, c.String())
	}
	if len(cs) > n {
		parts = append(parts, fmt.Sprintf("and %d more", len(cs)-n))
	}
	return strings.Join(parts, ", ")
}

// pageCount is how many pages of size objects n takes (at least one).
func pageCount(n float64, size int) int {
	if n <= 0 {
		return 1
	}
	return int(math.Ceil(n / float64(size)))
}

func msOr(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func hwmCell(p peakResult) string {
	if !p.hwmReset {
		return "not reset: " + mib(p.hwmKiB)
	}
	return mib(p.hwmKiB)
}

// signedMiB is the change from a to b KiB, in MiB.
func signedMiB(a, b int64) string {
	if a < 0 || b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%+.1f MiB", float64(b-a)/1024)
}
