package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"
)

// Budgets of the paint measurement: a page's first paint (its first row's,
// for a list) over the floor's, medians of one run.
const (
	budgetListOverFloorMs    = 100 // the 500-row list, the home page, an object page
	budgetBigListOverFloorMs = 200 // the 5,000-row list
)

// paintPage is a page the paint measurement loads.
type paintPage struct {
	name, url string
	// budgetMs is its budget over the floor (0: the floor itself; below
	// 0: none, a page of -paint-pages).
	budgetMs float64
	// rows: the page's first paint is its first row's (firstRowMark).
	rows bool
	// untracedOnly: a static copy of a page, served by the floor's
	// server, loaded untraced alone.
	untracedOnly bool
}

// paintLoad is one load of a page, traced or not.
type paintLoad struct {
	nav navigation
	// paint is the first row's paint where the page has a marked row, else
	// its first contentful paint (ms from navigation start).
	paint     float64
	breakdown paintBreakdown
	// stalled is the share of an untraced load's time (from the
	// navigation to its figures read back, after the load event) in
	// which some runnable task of the machine waited for a core (NaN
	// where the kernel does not say).
	stalled float64
}

// paintResult holds the loads of each page, in the order of pages:
// traced (none for a static copy), and untraced (their breakdown empty).
type paintResult struct {
	pages    []paintPage
	loads    [][]paintLoad
	untraced [][]paintLoad
}

// measurePaint loads the floor, the home page, an object page and the
// namespaced list at 500 and 5,000 rows, -paint-runs times each after one
// unmeasured load, taking turns, each load in a new browser context (no
// cache: a first visit, or a new session) under a performance trace, and
// attributes each load's time to its first paint (analyzeTrace); each
// load is paired with an untraced one, in turn first and second. With
// -paint-copies, static copies of the budgeted pages are loaded too,
// untraced. With -paint-traces, the traces are kept there for DevTools.
func measurePaint(ctx context.Context, o options, consoleURL string) (paintResult, error) {
	copies := &staticCopies{console: consoleURL}
	floor := httptest.NewServer(copies.handler(serveFloor()))
	defer floor.Close()
	list := consoleURL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods"
	res := paintResult{pages: []paintPage{
		{name: "floor: one static cell", url: floor.URL + "/", rows: true},
		{name: "home", url: consoleURL + "/c/" + contextName + "/", budgetMs: budgetListOverFloorMs},
		{name: "object page (pod " + o.paintPod + ")", url: list + "/" + o.paintPod, budgetMs: budgetListOverFloorMs},
		{name: "list, 500 rows", url: list, budgetMs: budgetListOverFloorMs, rows: true},
		{name: "list, 5,000 rows", url: list + "?limit=5000", budgetMs: budgetBigListOverFloorMs, rows: true},
	}}
	for _, path := range o.paintPages {
		// Reported beside the others, with no budget: to compare a page
		// with one that differs in one thing (the YAML view, a short list).
		url := path
		if strings.HasPrefix(path, "/") {
			url = consoleURL + path
		}
		res.pages = append(res.pages, paintPage{name: path, url: url, budgetMs: -1, rows: strings.Contains(path, "/pods") && !strings.Contains(path, "/pods/")})
	}
	if o.paintCopies {
		for _, p := range slices.Clone(res.pages) {
			if p.budgetMs <= 0 {
				continue // the floor, and the pages of -paint-pages
			}
			whole, bare, err := copies.add(ctx, p.url)
			if err != nil {
				return res, fmt.Errorf("copying %s: %w", p.name, err)
			}
			res.pages = append(res.pages,
				paintPage{name: "static copy: " + p.name, url: floor.URL + whole, budgetMs: -1, rows: p.rows, untracedOnly: true},
				paintPage{name: "static copy without scripts and sidebar: " + p.name, url: floor.URL + bare, budgetMs: -1, rows: p.rows, untracedOnly: true})
		}
	}
	res.loads = make([][]paintLoad, len(res.pages))
	res.untraced = make([][]paintLoad, len(res.pages))
	b, closeBrowser, err := launchBrowser(o)
	if err != nil {
		return res, err
	}
	defer closeBrowser()
	if o.paintTraces != "" {
		if err := os.MkdirAll(o.paintTraces, 0o755); err != nil {
			return res, err
		}
	}
	for run := range o.paintRuns + 1 {
		for i, p := range res.pages {
			if err := ctx.Err(); err != nil {
				return res, context.Cause(ctx)
			}
			from := ""
			if o.paintFrom != "" {
				from = originOf(p.url) + o.paintFrom
			}
			// The budget is judged on the traced loads, whose time the
			// trace accounts for. A tracer costs the browser time, more
			// for a bigger page than for the floor, so each page is also
			// loaded untraced, to show what it costs; first and second in
			// turn, as the load after a trace starts while the browser
			// may still be writing it out.
			var (
				plain, load paintLoad
				trace       []byte
				err         error
			)
			if !p.untracedOnly && run%2 == 1 {
				load, trace, err = loadPage(b, p, from, true)
			}
			if err == nil {
				plain, _, err = loadPage(b, p, from, false)
			}
			if err == nil && !p.untracedOnly && run%2 == 0 {
				load, trace, err = loadPage(b, p, from, true)
			}
			if err != nil {
				return res, fmt.Errorf("%s: %w", p.name, err)
			}
			if run == 0 {
				continue // the console's caches (discovery, namespaces) fill
			}
			res.untraced[i] = append(res.untraced[i], plain)
			if p.untracedOnly {
				continue
			}
			if o.paintTraces != "" {
				name := filepath.Join(o.paintTraces, fmt.Sprintf("%s-%d.json", slug(p.name), run))
				if err := os.WriteFile(name, trace, 0o644); err != nil {
					return res, err
				}
			}
			res.loads[i] = append(res.loads[i], load)
		}
		slog.Info("paint: traced a load of each page", "run", run, "of", o.paintRuns)
	}
	return res, nil
}

// loadPage loads p in a new browser context, under a trace if traced,
// and returns its figures, the trace's breakdown and the trace; for a
// page of rows, its paint is its first row's. From, when set, is loaded
// first, untraced.
func loadPage(b playwright.Browser, p paintPage, from string, traced bool) (paintLoad, []byte, error) {
	url := p.url
	bctx, err := newBrowserContext(b)
	if err != nil {
		return paintLoad{}, nil, err
	}
	defer func() { _ = bctx.Close() }()
	page, err := bctx.NewPage()
	if err != nil {
		return paintLoad{}, nil, err
	}
	if from != "" {
		// A page of the same origin first, as a click in the console
		// follows one: the load then stays in that page's renderer.
		if _, err := page.Goto(from); err != nil {
			return paintLoad{}, nil, fmt.Errorf("%s: %w", from, err)
		}
	}
	var got collected
	mark := ""
	if p.rows {
		mark = firstRowMark
	}
	loaded := func() paintLoad {
		l := paintLoad{nav: got.navigationOf()}
		l.paint = l.nav.FCP
		if p.rows {
			l.paint = l.nav.FirstRow
		}
		return l
	}
	if !traced {
		start := time.Now()
		stalledBefore, known := cpuStalled()
		err := gotoAndRead(page, url, collectScript, collectArgs(mark), &got)
		l := loaded()
		l.stalled = math.NaN()
		if stalledAfter, ok := cpuStalled(); ok && known {
			l.stalled = float64(stalledAfter-stalledBefore) / float64(time.Since(start))
		}
		return l, nil, err
	}
	s, err := bctx.NewCDPSession(page)
	if err != nil {
		return paintLoad{}, nil, err
	}
	defer func() { _ = s.Detach() }()
	complete := make(chan string, 1)
	s.On("Tracing.tracingComplete", func(params map[string]any) {
		stream, _ := params["stream"].(string)
		complete <- stream
	})
	if _, err := s.Send("Tracing.start", map[string]any{
		"transferMode": "ReturnAsStream",
		"traceConfig": map[string]any{
			"recordMode":         "recordAsMuchAsPossible",
			"includedCategories": traceCategories,
		},
	}); err != nil {
		return paintLoad{}, nil, fmt.Errorf("starting the trace: %w", err)
	}
	loadErr := gotoAndRead(page, url, collectScript, collectArgs(mark), &got)
	if _, err := s.Send("Tracing.end", nil); err != nil {
		return paintLoad{}, nil, errors.Join(loadErr, fmt.Errorf("ending the trace: %w", err))
	}
	var stream string
	select {
	case stream = <-complete:
	case <-time.After(time.Minute):
		return paintLoad{}, nil, errors.Join(loadErr, errors.New("the trace did not complete in a minute"))
	}
	trace, err := readCDPStream(s, stream)
	if err != nil || loadErr != nil {
		return paintLoad{}, nil, errors.Join(loadErr, err)
	}
	l := loaded()
	events, err := parseTrace(trace)
	if err != nil {
		return l, trace, err
	}
	l.breakdown, err = analyzeTrace(events, page.URL(), l.paint, l.nav.ResponseEnd, l.nav.FCP)
	return l, trace, err
}

// gotoAndRead loads url in page, which must answer 200, and decodes what
// script returns (given args) into out.
func gotoAndRead(page playwright.Page, url, script string, args map[string]any, out any) error {
	resp, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad, Timeout: playwright.Float(120_000)})
	if err != nil {
		return err
	}
	if resp == nil || resp.Status() != 200 {
		return fmt.Errorf("GET %s did not answer 200", url)
	}
	v, err := page.Evaluate(script, args)
	if err != nil {
		return err
	}
	return decodeInto(v, out)
}

// readCDPStream reads a CDP IO stream to its end and closes it.
func readCDPStream(s playwright.CDPSession, handle string) ([]byte, error) {
	if handle == "" {
		return nil, errors.New("the trace came without a stream")
	}
	defer func() { _, _ = s.Send("IO.close", map[string]any{"handle": handle}) }()
	var out []byte
	for {
		v, err := s.Send("IO.read", map[string]any{"handle": handle, "size": 4 << 20})
		if err != nil {
			return nil, fmt.Errorf("reading the trace: %w", err)
		}
		var chunk struct {
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
			Base64Encoded bool   `json:"base64Encoded"`
		}
		if err := decodeInto(v, &chunk); err != nil {
			return nil, err
		}
		if chunk.Base64Encoded {
			b, err := base64.StdEncoding.DecodeString(chunk.Data)
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		} else {
			out = append(out, chunk.Data...)
		}
		if chunk.EOF {
			return out, nil
		}
	}
}

// slug is a page's name as a file name.
func slug(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, name)
}

// reportPaint prints each page's first paint beside the floor's, with the
// budgets, then where the time went.
func reportPaint(w io.Writer, o options, res paintResult, err error) (targets []targetResult) {
	fmt.Fprintf(w, "\n### Chromium: first paint against the floor, traced, %d loads of each page after one unmeasured (and as many untraced, to show what the tracer costs), each in a new browser context (nothing cached), taking turns; medians\n\n", o.paintRuns)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
	}
	if len(res.loads) == 0 || len(res.loads[0]) == 0 {
		for _, p := range res.pages[1:] {
			if p.budgetMs >= 0 {
				targets = append(targets, targetResult{name: paintTargetName(p), value: "not measured"})
			}
		}
		return targets
	}
	paintOf := func(l paintLoad) float64 { return l.paint }
	floor := medianLoads(res.loads[0], paintOf)
	floorPlain := medianLoads(res.untraced[0], paintOf)
	fmt.Fprintln(w, "| page | first paint (first row, else FCP) | over the floor | untraced: first paint, over the floor | untraced: time a task waited for a core | FCP | HTML: first byte, last | render-blocking requests | frames before the paint |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for i, p := range res.pages {
		loads := res.loads[i]
		if p.untracedOnly && len(res.untraced[i]) > 0 {
			plain := medianLoads(res.untraced[i], paintOf)
			fmt.Fprintf(w, "| %s | — | — | %.0f ms (%s), +%.0f ms | %s | %.0f ms | — | — | — |\n", p.name, plain, spreadOf(res.untraced[i], paintOf), plain-floorPlain,
				stalledOf(res.untraced[i]), medianLoads(res.untraced[i], func(l paintLoad) float64 { return l.nav.FCP }))
			continue
		}
		if len(loads) == 0 {
			continue
		}
		m := medianLoads(loads, paintOf)
		over := "—"
		if i > 0 {
			over = fmt.Sprintf("+%.0f ms", m-floor)
		}
		if i > 0 && p.budgetMs >= 0 {
			ok := m-floor <= p.budgetMs
			targets = append(targets, targetResult{paintTargetName(p), fmt.Sprintf("+%.0f ms (%.0f, floor %.0f)", m-floor, m, floor), ok})
		}
		plain := medianLoads(res.untraced[i], paintOf)
		plainOver := "—"
		if i > 0 {
			plainOver = fmt.Sprintf("+%.0f ms", plain-floorPlain)
		}
		fmt.Fprintf(w, "| %s | **%.0f ms** (%s) | %s | %.0f ms (%s), %s | %s | %.0f ms | %.0f, %.0f ms | %d | %.0f |\n", p.name, m,
			spreadOf(loads, paintOf), over, plain, spreadOf(res.untraced[i], paintOf), plainOver, stalledOf(res.untraced[i]),
			medianLoads(loads, func(l paintLoad) float64 { return l.nav.FCP }),
			medianLoads(loads, func(l paintLoad) float64 { return l.nav.ResponseStart }),
			medianLoads(loads, func(l paintLoad) float64 { return l.nav.ResponseEnd }),
			len(loads[len(loads)-1].breakdown.blocking),
			medianLoads(loads, func(l paintLoad) float64 { return float64(l.breakdown.frames) }))
	}

	if o.paintCopies {
		fmt.Fprintf(w, "\nStatic copies are the budgeted pages as the console sent them, served whole and at once by the floor's server (the console's assets through it), untraced: the browser's own cost of each page, with no server work beside it; the copies without scripts and sidebar lose the import map, the module scripts and the sidebar.\n")
	}
	fmt.Fprintf(w, "\nWhere the time to that paint went (the renderer's main thread, from the trace; medians of each part, ms):\n\n")
	head := "| page | paint |"
	rule := "|---|---|"
	for _, ph := range busyPhases {
		head += " " + ph + " |"
		rule += "---|"
	}
	for _, k := range idleKinds {
		head += " " + k + " |"
		rule += "---|"
	}
	head += " main thread busy: wall time, CPU time | raster, off the main thread (its CPU time) | rendering unblocked | last HTML parsed | last frame committed | trace FCP |"
	rule += "---|---|---|---|---|---|"
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for i, p := range res.pages {
		loads := res.loads[i]
		if len(loads) == 0 {
			continue
		}
		row := fmt.Sprintf("| %s | %.0f |", p.name, medianLoads(loads, paintOf))
		for _, ph := range busyPhases {
			row += fmt.Sprintf(" %.1f |", medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.busy[ph] }))
		}
		for _, k := range idleKinds {
			row += fmt.Sprintf(" %.1f |", medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.idle[k] }))
		}
		row += fmt.Sprintf(" %.1f, %.1f | %.1f (%.1f) | %.0f | %.0f | %.0f | %.0f |",
			medianLoads(loads, func(l paintLoad) float64 {
				sum := 0.0
				for _, v := range l.breakdown.busy {
					sum += v
				}
				return sum
			}),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.mainCPU }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.raster }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.rasterCPU }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.renderingReady }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.parseEnd }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.lastFrame }),
			medianLoads(loads, func(l paintLoad) float64 { return l.breakdown.traceFCP }))
		fmt.Fprintln(w, row)
	}
	fmt.Fprintf(w, "\nBusy parts are the main thread's self time by event (navigation commit: committing the navigation and setting up the document and its script context; parse: ParseHTML; style: UpdateLayoutTree, ParseAuthorStyleSheet; layout: Layout; script: compiling and evaluating scripts and modules, callbacks; paint: PrePaint, Paint, Layerize, Commit; other: the rest of its tasks). Idle parts are the main thread waiting: for the HTML (until its last byte); while a render-blocking request (the stylesheet) was in flight; after it committed its last frame before the paint, while the compositor rasterised and presented it; while other requests (module scripts) were in flight; or with nothing in flight. The main thread's CPU time is what its busy parts took of a core: the rest of their wall time it waited: runnable, for one of this machine's %d cores, or, inside a task, for another process (font data from the browser). Raster is the renderer's tile drawing on its worker threads (in software, in headless Chromium), beside those parts: its wall time, then its CPU time. A page's parts add up to its paint in each load; medians of parts need not add up to the median paint.\n", runtime.NumCPU())
	return targets
}

// stalledOf is the median share of the loads' time in which some task
// of the machine waited for a core.
func stalledOf(loads []paintLoad) string {
	m := medianLoads(loads, func(l paintLoad) float64 { return l.stalled })
	if math.IsNaN(m) {
		return "—"
	}
	return fmt.Sprintf("%.0f %%", 100*m)
}

func paintTargetName(p paintPage) string {
	return fmt.Sprintf("first paint, %s ≤ floor + %.0f ms (p50, no cache)", p.name, p.budgetMs)
}

// spreadOf is "min–max" of f over loads.
func spreadOf(loads []paintLoad, f func(paintLoad) float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range loads {
		if v := f(l); !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return "none"
	}
	return fmt.Sprintf("%.0f–%.0f", lo, hi)
}

// medianLoads is the median of f over loads, ignoring NaN; NaN for none.
func medianLoads(loads []paintLoad, f func(paintLoad) float64) float64 {
	var xs []float64
	for _, l := range loads {
		if v := f(l); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return median(xs)
}

// decodeInto decodes what Playwright returned (JSON-shaped maps) into out.
func decodeInto(v, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decoding %.200s: %w", raw, err)
	}
	return nil
}

// originOf is scheme://host:port of url.
func originOf(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[:i+3+j]
		}
	}
	return url
}
