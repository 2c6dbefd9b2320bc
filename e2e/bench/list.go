package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-console/tabula/e2e/harness"
)

// Targets of the list pages (issue 12).
const (
	// targetNamespacedRatio is the namespaced page over the raw None Table.
	targetNamespacedRatio = 1.1
	// targetAllRatio is the all-namespaces page over the cheapest raw Table
	// that carries what it shows: Metadata, as None has no namespace.
	targetAllRatio    = 1.2
	targetBytesPerRow = 400
)

// listKind is one kind of request of the list measurement.
type listKind struct {
	name   string
	client *http.Client
	url    string
	accept string
	// encoding is the Accept-Encoding sent; see fetch.
	encoding string
	console  bool
}

// listURLs are the pages and raw Tables the list measurement compares.
type listURLs struct {
	consoleNS, consoleAll string // pages, without a query for the default limit
	rawNS, rawAll         string // Table GETs without includeObject
}

func newListURLs(o options, consoleURL, server string) listURLs {
	limit := ""
	if o.limit != 500 {
		limit = "?limit=" + strconv.Itoa(o.limit)
	}
	return listURLs{
		consoleNS:  consoleURL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods" + limit,
		consoleAll: consoleURL + "/c/" + contextName + "/api/v1/pods" + limit,
		rawNS:      fmt.Sprintf("%s/api/v1/namespaces/%s/pods?limit=%d", server, namespace, o.limit),
		rawAll:     fmt.Sprintf("%s/api/v1/pods?limit=%d", server, o.limit),
	}
}

// The kinds, by index into listKinds' result.
const (
	kConsoleNS = iota
	kConsoleAll
	kRawNSNone
	kRawNSMeta
	kRawAllNone
	kRawAllMeta
	kConsoleNSBrowser
	kConsoleAllBrowser
)

// listKinds: the console pages are fetched with Accept-Encoding: identity,
// so the ratios measure the page, not compression toward the browser (the
// "as a browser asks" kinds measure that); the raw Tables accept gzip, as the console's own
// upstream requests do (client-go's default), and are decoded in the timed
// span.
func listKinds(u listURLs, kube, browser *http.Client) []listKind {
	page := func(name, url, enc string) listKind {
		return listKind{name: name, client: browser, url: url, accept: "text/html", encoding: enc, console: true}
	}
	raw := func(name, url, include string) listKind {
		return listKind{name: name, client: kube, url: url + "&includeObject=" + include, accept: tableAccept, encoding: "gzip"}
	}
	return []listKind{
		kConsoleNS:         page("console, namespace "+namespace, u.consoleNS, "identity"),
		kConsoleAll:        page("console, all namespaces", u.consoleAll, "identity"),
		kRawNSNone:         raw("raw Table, namespace "+namespace+", `None`", u.rawNS, "None"),
		kRawNSMeta:         raw("raw Table, namespace "+namespace+", `Metadata`", u.rawNS, "Metadata"),
		kRawAllNone:        raw("raw Table, all namespaces, `None`", u.rawAll, "None"),
		kRawAllMeta:        raw("raw Table, all namespaces, `Metadata`", u.rawAll, "Metadata"),
		kConsoleNSBrowser:  page("console, namespace "+namespace+", as a browser asks", u.consoleNS, browserAcceptEncoding),
		kConsoleAllBrowser: page("console, all namespaces, as a browser asks", u.consoleAll, browserAcceptEncoding),
	}
}

// listResult is the list measurement: samples per kind, and the console's
// metrics over each page measured alone.
type listResult struct {
	kinds   []listKind
	samples [][]sample
	// breakdown per console page kind (kConsoleNS, kConsoleAll).
	breakdowns map[int]breakdownResult
}

// breakdownResult is the console's metrics over pages requests of one page.
type breakdownResult struct {
	before, after series
	pages         int
}

// measureList interleaves o.requests of every kind on keep-alive
// connections: each round goes over every kind, starting one further each
// time, so no kind always follows another. Then, for the breakdown, each
// console page is requested o.requests times alone between two scrapes of
// the console's metrics (its upstream metrics cannot tell the pages apart).
func measureList(ctx context.Context, o options, kinds []listKind, metricsURL string, browser *http.Client) (listResult, error) {
	res := listResult{kinds: kinds, samples: make([][]sample, len(kinds)), breakdowns: map[int]breakdownResult{}}
	get := func(k listKind) (sample, error) {
		s, err := fetch(ctx, k.client, k.url, k.accept, k.encoding)
		if err != nil {
			return s, fmt.Errorf("%s: %w", k.name, err)
		}
		return s, nil
	}
	for range o.warmup {
		for _, k := range kinds {
			if _, err := get(k); err != nil {
				return res, err
			}
		}
	}
	for round := range o.requests {
		for j := range kinds {
			i := (j + round) % len(kinds)
			s, err := get(kinds[i])
			if err != nil {
				return res, err
			}
			res.samples[i] = append(res.samples[i], s)
		}
	}
	for _, i := range []int{kConsoleNS, kConsoleAll} {
		before, err := scrape(ctx, browser, metricsURL)
		if err != nil {
			return res, err
		}
		for range o.requests {
			if _, err := get(kinds[i]); err != nil {
				return res, err
			}
		}
		after, err := scrape(ctx, browser, metricsURL)
		if err != nil {
			return res, err
		}
		res.breakdowns[i] = breakdownResult{before: before, after: after, pages: o.requests}
	}
	return res, nil
}

// rowsOf counts a body's rows: a page's table body rows, or a Table's rows.
func rowsOf(k listKind, body []byte) int {
	if k.console {
		return bytes.Count(tbody(body), []byte("<tr"))
	}
	var t tableCount
	if json.Unmarshal(body, &t) != nil {
		return 0
	}
	return len(t.Rows)
}

// ratio is a p50/p95/mean quotient of two kinds.
type ratio struct{ p50, p95, mean float64 }

func ratioOf(a, b stats) ratio {
	q := func(x, y time.Duration) float64 { return float64(x) / float64(y) }
	return ratio{q(a.p50, b.p50), q(a.p95, b.p95), q(a.mean, b.mean)}
}

func reportList(w io.Writer, o options, res listResult) (targets []targetResult) {
	st := make([]stats, len(res.kinds))
	for i := range res.kinds {
		st[i] = summarize(durations(res.samples[i]))
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "\n### List pages: %d pods in namespace %s, limit=%d, %d measured requests of each kind, interleaved (after %d warm-up rounds)\n\n",
		o.pods, namespace, o.limit, o.requests, o.warmup)
	fmt.Fprintln(w, "| request | p50 | p95 | mean | wire bytes | Content-Encoding | body bytes | rows | body bytes/row |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	perRow := make([]float64, len(res.kinds))
	for i, k := range res.kinds {
		last := res.samples[i][len(res.samples[i])-1]
		rows := rowsOf(k, last.body)
		perRow[i] = math.NaN()
		if rows > 0 {
			perRow[i] = float64(len(last.body)) / float64(rows)
		}
		enc := last.encoding
		if enc == "" {
			enc = "none"
		}
		fmt.Fprintf(w, "| %s (Accept-Encoding: %s) | %s | %s | %s | %d | %s | %d | %d | %.0f |\n",
			k.name, k.encoding, ms(st[i].p50), ms(st[i].p95), ms(st[i].mean), last.wire, enc, len(last.body), rows, perRow[i])
	}

	type line struct {
		name   string
		a, b   int
		target float64 // 0: none
	}
	lines := []line{
		{"namespaced console / raw `None` (the request the page makes)", kConsoleNS, kRawNSNone, targetNamespacedRatio},
		{"all-namespaces console / raw `Metadata` (the cheapest request that carries each row's namespace, the request the page makes)", kConsoleAll, kRawAllMeta, targetAllRatio},
		{"all-namespaces console / raw `None` (carries no namespace: for reference)", kConsoleAll, kRawAllNone, 0},
		{"namespaced console, as a browser asks / identity", kConsoleNSBrowser, kConsoleNS, 0},
		{"all-namespaces console, as a browser asks / identity", kConsoleAllBrowser, kConsoleAll, 0},
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| ratio | p50 | p95 | mean | target (p50) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, l := range lines {
		r := ratioOf(st[l.a], st[l.b])
		target := "—"
		if l.target > 0 {
			ok := r.p50 <= l.target
			target = fmt.Sprintf("≤ %.1f: %s", l.target, verdict(ok))
			targets = append(targets, targetResult{fmt.Sprintf("%s ≤ %.1f (p50)", firstClause(l.name), l.target), fmt.Sprintf("%.2f", r.p50), ok})
		}
		fmt.Fprintf(w, "| %s | **%.2f** | %.2f | %.2f | %s |\n", l.name, r.p50, r.p95, r.mean, target)
	}
	fmt.Fprintln(w)
	for _, i := range []int{kConsoleNSBrowser, kConsoleAllBrowser} {
		ident := res.samples[i-kConsoleNSBrowser][len(res.samples[i-kConsoleNSBrowser])-1]
		br := res.samples[i][len(res.samples[i])-1]
		fmt.Fprintf(w, "- %s: %d bytes on the wire (%s) against %d (identity), %+.1f ms at p50 on loopback.\n",
			res.kinds[i].name, br.wire, orNone(br.encoding), ident.wire,
			float64(st[i].p50-st[i-kConsoleNSBrowser].p50)/float64(time.Millisecond))
	}
	ok := perRow[kConsoleNS] <= targetBytesPerRow
	fmt.Fprintf(w, "- HTML per row of the namespaced page: %.0f bytes (target ≤ %d: %s).\n", perRow[kConsoleNS], targetBytesPerRow, verdict(ok))
	targets = append(targets, targetResult{fmt.Sprintf("namespaced page HTML ≤ %d bytes/row", targetBytesPerRow), fmt.Sprintf("%.0f", perRow[kConsoleNS]), ok})
	fmt.Fprintln(w, "- The first rows of the all-namespaces list are bulk pods when no namespace sorts before it, so both pages show the same rows.")

	for _, i := range []int{kConsoleNS, kConsoleAll} {
		b := res.breakdowns[i]
		breakdown(w, res.kinds[i].name, b.before, b.after, b.pages)
	}
	return targets
}

// firstClause is a ratio line's name up to its parenthesis.
func firstClause(s string) string {
	if i := strings.Index(s, " ("); i >= 0 {
		return s[:i]
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// breakdown prints, for one console page measured alone, the upstream
// requests the console made and its own handling time, from its metrics'
// deltas.
func breakdown(w io.Writer, name string, before, after series, pages int) {
	type part struct {
		labels      string
		count, secs float64
	}
	collect := func(histogram string) []part {
		var out []part
		for k, sum := range after {
			labels, ok := strings.CutPrefix(k, histogram+"_sum")
			if !ok {
				continue
			}
			n := after[histogram+"_count"+labels] - before[histogram+"_count"+labels]
			if n <= 0 || strings.Contains(labels, `"/metrics"`) {
				continue
			}
			out = append(out, part{labels, n, sum - before[k]})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].secs > out[j].secs })
		return out
	}
	per := func(p part) string {
		return fmt.Sprintf("%.2f | %.1f ms | %.1f ms", p.count/float64(pages),
			1000*p.secs/float64(pages), 1000*p.secs/p.count)
	}
	fmt.Fprintf(w, "\nWhere the time of the page \"%s\" goes (console metrics over %d pages requested alone after the interleaved run):\n\n", name, pages)
	fmt.Fprintln(w, "| what | calls/page | time/page | time/call |")
	fmt.Fprintln(w, "|---|---|---|---|")
	var upstream float64
	for _, p := range collect("tabula_upstream_request_duration_seconds") {
		upstream += p.secs
		fmt.Fprintf(w, "| upstream %s | %s |\n", p.labels, per(p))
	}
	for _, p := range collect("tabula_http_request_duration_seconds") {
		fmt.Fprintf(w, "| console handler %s | %s |\n", p.labels, per(p))
		fmt.Fprintf(w, "| console handler minus upstream | | %.1f ms | |\n", 1000*(p.secs-upstream)/float64(pages))
	}
	fmt.Fprintln(w, "\nThe upstream metric stops at the response headers, so \"minus upstream\" also holds reading the upstream body.")
}

// series maps a Prometheus series ("name{labels}") to its value.
type series map[string]float64

// scrape reads the console's /metrics in the text exposition format.
func scrape(ctx context.Context, c *http.Client, url string) (series, error) {
	s, err := fetch(ctx, c, url, "text/plain", "")
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return parseSeries(s.body), nil
}

// parseSeries reads the text exposition format, skipping what is not a
// sample line.
func parseSeries(b []byte) series {
	out := series{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// tbody is the page's table body, or the whole page if it has none.
func tbody(page []byte) []byte {
	if i := bytes.Index(page, []byte("<tbody")); i >= 0 {
		page = page[i:]
		if j := bytes.Index(page, []byte("</tbody>")); j >= 0 {
			page = page[:j]
		}
	}
	return page
}

// benchList runs the list measurement and prints it.
func benchList(ctx context.Context, o options, w io.Writer, kube, browser *http.Client, server string, console *harness.Console) ([]targetResult, error) {
	kinds := listKinds(newListURLs(o, console.URL, server), kube, browser)
	slog.Info("measuring list pages", "kinds", len(kinds), "requests", o.requests)
	res, err := measureList(ctx, o, kinds, console.URL+"/metrics", browser)
	if err != nil {
		return nil, err
	}
	return reportList(w, o, res), nil
}
