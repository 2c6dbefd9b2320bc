package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/web/search"
)

// searchPageFixture is a search page as the issue describes it: rows, the
// skipped kinds, and the summary last.
const searchPageFixture = `<!doctype html><html><body><main>
<table><tbody>
<tr data-testid="search-row"><td elementtiming="search-first-row"><a href="/c/admin/api/v1/namespaces/bulk/pods/bulk-00010">bulk-00010</a></td><td>Pod</td></tr>
<tr data-testid="search-row"><td>bulk-0001-probe000-0</td><td>Probe000</td></tr>
<tr data-testid="search-row"><td>bulk-0001-probe000-1</td><td>Probe000</td></tr>
</tbody></table>
<ul>
<li data-testid="search-skipped" data-reason="forbidden" data-resource="secrets">secrets: forbidden</li>
<li data-testid="search-skipped" data-reason="too-many" data-resource="events">events: more than 5,000</li>
<li data-testid="search-skipped" data-reason="too-many" data-resource="events.events.k8s.io">events.events.k8s.io</li>
<li data-testid="search-skipped" data-reason="no-list" data-resource="tokenreviews.authentication.k8s.io">tokenreviews</li>
</ul>
<p data-testid="search-summary" data-kinds-asked="254" data-kinds-skipped="4" data-requests="291" data-bytes="18734120" data-matches="3" data-elapsed-ms="1234.5">3 matches</p>
</main></body></html>`

func TestParseSearchPage(t *testing.T) {
	b, err := parseSearchPage([]byte(searchPageFixture))
	if err != nil {
		t.Fatal(err)
	}
	if b.kindsAsked != 254 || b.kindsSkipped != 4 || b.requests != 291 || b.bytes != 18734120 || b.matches != 3 || b.elapsedMs != 1234.5 || b.rows != 3 {
		t.Errorf("budget %+v", b)
	}
	if b.reviews != -1 {
		t.Errorf("reviews %d from a page that does not state them, want -1", b.reviews)
	}
	if r, err := parseSearchPage([]byte(strings.Replace(searchPageFixture, `data-requests="291"`, `data-requests="291" data-reviews="37"`, 1))); err != nil || r.reviews != 37 {
		t.Errorf("data-reviews: %d, %v", r.reviews, err)
	}
	if b.shared != "" {
		t.Errorf("shared %q from a page that does not say, want empty", b.shared)
	}
	for _, v := range []string{"true", "false"} {
		if r, err := parseSearchPage([]byte(strings.Replace(searchPageFixture, `data-matches="3"`, `data-matches="3" data-shared="`+v+`"`, 1))); err != nil || r.shared != v {
			t.Errorf("data-shared=%q: %q, %v", v, r.shared, err)
		}
	}
	if len(b.skipped) != 4 || b.skipped[1] != (skippedKind{resource: "events", reason: "too-many"}) {
		t.Errorf("skipped %+v", b.skipped)
	}
	got := map[string]int{}
	for i, c := range b.byReason() {
		if i < len(skipReasons) && (c.reason != skipReasons[i] || !c.known) {
			t.Errorf("reason %d is %q (known %v), want %q first, in order", i, c.reason, c.known, skipReasons[i])
		}
		got[c.reason] = c.n
	}
	if len(got) != len(skipReasons) || got["forbidden"] != 1 || got["too-many"] != 2 || got["no-list"] != 1 || got["timeout"] != 0 {
		t.Errorf("by reason %v", got)
	}
}

func TestParseSearchPageRefusesWhatItCannotRead(t *testing.T) {
	summary := `<p data-testid="search-summary" data-kinds-asked="2" data-kinds-skipped="0" data-requests="2" data-bytes="10" data-matches="0" data-elapsed-ms="5"></p>`
	for _, tc := range []struct {
		name, page, want string
	}{
		{"no summary (the stream ended early)", `<table><tr data-testid="search-row"><td>x</td></tr></table>`, "has no [data-testid=\"search-summary\"]"},
		{"two summaries", summary + summary, "2 elements"},
		{"an attribute missing", strings.Replace(summary, ` data-bytes="10"`, "", 1), "no data-bytes"},
		{"a count that is not one", strings.Replace(summary, `data-requests="2"`, `data-requests="two"`, 1), `data-requests is "two"`},
		{"a negative count", strings.Replace(summary, `data-matches="0"`, `data-matches="-1"`, 1), `data-matches is "-1"`},
		{"elapsed not a number", strings.Replace(summary, `data-elapsed-ms="5"`, `data-elapsed-ms="5ms"`, 1), `data-elapsed-ms is "5ms"`},
		{"shared neither true nor false", strings.Replace(summary, `data-matches="0"`, `data-matches="0" data-shared="yes"`, 1), `data-shared is "yes"`},
		{"a skipped kind without its reason", summary + `<li data-testid="search-skipped" data-resource="pods"></li>`, "skipped kind 1 lacks"},
	} {
		if _, err := parseSearchPage([]byte(tc.page)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

func TestByReasonKeepsUnknownReasons(t *testing.T) {
	b := searchBudget{skipped: []skippedKind{{"a", "zebra"}, {"b", "failed"}, {"c", "aardvark"}, {"d", "zebra"}}}
	rs := b.byReason()
	if len(rs) != len(skipReasons)+2 {
		t.Fatalf("%d reasons, want the %d known and 2 unknown", len(rs), len(skipReasons))
	}
	a, z := rs[len(skipReasons)], rs[len(skipReasons)+1]
	if a.reason != "aardvark" || a.known || a.n != 1 || z.reason != "zebra" || z.n != 2 || strings.Join(z.examples, ",") != "a,d" {
		t.Errorf("unknown reasons %+v, %+v", a, z)
	}
}

// roundTrip answers every request with a 200 whose body is body.
type roundTrip struct{ body io.ReadCloser }

func (rt roundTrip) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") != "identity" {
		return nil, fmt.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Header: http.Header{"Content-Type": {"text/html"}}, Body: rt.body, Request: r}, nil
}

// TestFetchSearch streams a page through a pipe in three parts, the first
// row's marker split across the first two; a pipe write returns only once
// the reader has taken it, so the first row is seen before the last part
// is read.
func TestFetchSearch(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		for _, part := range []string{
			`<main><table><tr data-test`,
			`id="search-row"><td>bulk-00010</td></tr>`,
			`</table><p data-testid="search-summary"></p></main>`,
		} {
			if _, err := io.WriteString(pw, part); err != nil {
				return
			}
		}
		pw.Close()
	}()
	f, err := fetchSearch(context.Background(), &http.Client{Transport: roundTrip{pr}}, "http://console.test/c/admin/search")
	if err != nil {
		t.Fatal(err)
	}
	if f.firstRow <= 0 || f.firstRow > f.complete || !strings.HasSuffix(string(f.body), "</main>") {
		t.Errorf("first row %s, complete %s, body %q", f.firstRow, f.complete, f.body)
	}

	none := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<p data-testid="search-summary"></p>`)
	}))
	defer none.Close()
	if f, err := fetchSearch(context.Background(), none.Client(), none.URL); err != nil || f.firstRow != 0 {
		t.Errorf("no rows: first row %s, err %v", f.firstRow, err)
	}

	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	}))
	defer refused.Close()
	if _, err := fetchSearch(context.Background(), refused.Client(), refused.URL); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a 404: err = %v", err)
	}
}

func TestSearchPath(t *testing.T) {
	if got, want := searchPath("bulk-0001"), "/c/admin/search?namespace=&q=bulk-0001"; got != want {
		t.Errorf("searchPath = %q, want %q", got, want)
	}
	if got := searchPath("a b&c"); got != "/c/admin/search?namespace=&q=a+b%26c" {
		t.Errorf("searchPath escapes as %q", got)
	}
}

func TestReportSearch(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	o := options{pods: 20000, crds: 200, limit: 500, restWait: 30 * time.Second, searchConcurrent: 10}
	budget, err := parseSearchPage([]byte(searchPageFixture))
	if err != nil {
		t.Fatal(err)
	}
	// One of the searches at once ran out of time.
	cut := budget
	cut.skipped = append(slices.Clone(budget.skipped), skippedKind{"probe199s.bench.tabula.dev", "timeout"})
	cut.kindsSkipped++
	alone, joined, cutAlone := budget, budget, cut
	alone.shared, joined.shared, cutAlone.shared = "false", "true", "false"
	distinct, err := distinctQueries("bulk-0001", 3)
	if err != nil {
		t.Fatal(err)
	}
	res := searchResult{
		path:        searchPath("bulk-0001"),
		warm:        searchFetch{firstRow: ms(300), complete: ms(2500)},
		seq:         []searchFetch{{firstRow: ms(100), complete: ms(900)}, {firstRow: ms(120), complete: ms(1100)}},
		oneBudget:   budget,
		budgets:     []searchBudget{budget, budget},
		compressed:  []sample{{d: ms(950), wire: 900, encoding: "br", body: make([]byte, 10000)}},
		conc:        []searchFetch{{complete: ms(2000)}, {complete: ms(3100)}},
		concBudgets: []searchBudget{joined, alone},
		// Three different searches at once; one ran out of time.
		distinctQueries: distinct,
		distinct:        []searchFetch{{complete: ms(9000)}, {complete: ms(9900)}, {complete: ms(9500)}},
		distinctBudgets: []searchBudget{alone, cutAlone, alone},
		distinctPeak:    peakResult{k: 3, beforeKiB: 45 << 10, sampledKiB: 75 << 10, hwmKiB: 75 << 10, hwmReset: true, d: ms(9900)},
		upDistinct:      upstreamDelta{all: 4000, lists: map[string]float64{"pods": 410, "events": 400, "probe000s.bench.tabula.dev": 10}},
		consoleDistinct: 3990,
		afterDistinct:   memReading{name: "30s after the 3 different at once", st: procStatus{rssKiB: 48 << 10, hwmKiB: 75 << 10}, heapInuse: 9 << 20},
		// 20 MiB of growth; 50 MiB at rest after it.
		onePeak:  peakResult{k: 1, beforeKiB: 40 << 10, sampledKiB: 60 << 10, hwmKiB: 60 << 10, hwmReset: true, d: ms(1000)},
		concPeak: peakResult{k: 10, beforeKiB: 50 << 10, sampledKiB: 90 << 10, hwmKiB: 90 << 10, hwmReset: true, d: ms(3100)},
		before:   memReading{name: "at rest, before the search", st: procStatus{rssKiB: 40 << 10, hwmKiB: 41 << 10}, heapInuse: -1},
		afterOne: memReading{name: "30s after it", st: procStatus{rssKiB: 50 << 10, hwmKiB: 60 << 10}, heapInuse: 8 << 20},
		idleFor:  ms(2500),
		up1:      upstreamDelta{all: 300, lists: map[string]float64{"pods": 41, "events": 40, "probe000s.bench.tabula.dev": 1}},
		objects:  map[string]float64{"pods": 20012, "events": 20000, "probe000s.bench.tabula.dev": 3},
		navs: []searchNav{
			{firstRowPaint: 420, firstRowDOM: 300, summaryDOM: 1800, fcp: 400, responseEnd: 1790},
			{firstRowPaint: 480, firstRowDOM: 320, summaryDOM: 1900, fcp: 410, responseEnd: 1890},
		},
	}
	var out strings.Builder
	targets, figures := reportSearch(&out, o, res, nil)
	want := []struct {
		value string
		ok    bool
	}{
		{"450 ms", true},
		{"1850 ms", true},
		{"300 of 10414", true}, // every verb; 254 kinds asked × 41 pages of pods
		{"20.0 MiB", true},
		{"50.0 MiB", true},
		{"3.10×", false}, // 3,100 ms against the p50 of 900 and 1,100
	}
	wantFigure := reportedFigure{"search: 10 different at once, slowest / one search (p50)", "9.90× (1 of 3 cut short: timeout)", distinctFigureNote}
	if len(figures) != 1 || figures[0] != wantFigure {
		t.Errorf("figures %+v, want %+v", figures, wantFigure)
	}
	if len(targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(targets), len(want))
	}
	for i, w := range want {
		if targets[i].value != w.value || targets[i].ok != w.ok {
			t.Errorf("target %q = %q, %v; want %q, %v", targets[i].name, targets[i].value, targets[i].ok, w.value, w.ok)
		}
	}
	for _, s := range []string{
		"| too-many | 2 | 2 | 4 | 6 | events, events.events.k8s.io |",
		"| timeout | 0 | 0 | 0 | 1 | probe199s.bench.tabula.dev |",
		"LIST pods 41, LIST events 40, LIST probe000s.bench.tabula.dev 1. Its other requests: none.",
		"| one, after a rest | 254 | 4 | 291 | not stated |",
		"br, 900 bytes on the wire of 10000): complete | 950 ms |",
		"| 2 identical at once | 254 | 4 | 291 |",
		"| 291 each |",
		"Their pages state 582 requests in all, more than kube-apiserver served",
		"10 identical searches at once: the slowest ended 3100 ms",
		"Their summaries: `data-shared=\"false\"` on 1, `data-shared=\"true\"` on 1 of 2.",
		"+10.0 MiB",
		// The different searches.
		"| HTTP, 3 different at once (`bulk-0001 b`, `bulk-0001 u`, `bulk-0001 l`): complete, each | 9500 ms | 9900 ms | 9000–9900 ms | 3 of 3 |",
		"| 3 different at once | 254 | 4 (4–5) | 291 |",
		"| 10 different at once, all of them | 820 | 4000 | 3990 | 873 |",
		"| 10 different at once, per search | 82 | 400 | 399 | 291 each |",
		"**9.90×** one search (1000 ms, p50 of 2 in a row); kube-apiserver served 4000 requests for them, 820 of them LISTs (82 per search; one search: 82). 1 of the 3 pages report kinds skipped as `timeout`.",
		"Their summaries: `data-shared=\"false\"` on 3 of 3. Matches each page states: 3 (one search: 3).",
		"Those cut short stopped when a kind's time or the search's ran out (the page's budget), so the ratio understates what 3 complete searches would take.",
		"| peak during 3 different at once | 75.0 MiB (growth 30.0 MiB, 10.0 MiB per search) |",
		"| 30s after the 3 different at once | 48.0 MiB |",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, out.String())
		}
	}

	for _, s := range []string{"no Element Timing entry", "ran out of time", "say they shared a run"} {
		if strings.Contains(out.String(), s) {
			t.Errorf("the report says %q:\n%s", s, out.String())
		}
	}

	// A different search that joined a run is called out: the round then
	// did not measure what it is for.
	res.distinctBudgets = []searchBudget{alone, joined, alone}
	out.Reset()
	reportSearch(&out, o, res, nil)
	if !strings.Contains(out.String(), "1 of them say they shared a run") || !strings.Contains(out.String(), "`data-shared=\"false\"` on 2, `data-shared=\"true\"` on 1 of 3") {
		t.Errorf("a shared different search is not called out:\n%s", out.String())
	}

	// The different searches failed: the rest is still reported.
	failed := res
	failed.distinctErr = errors.New("GET …: 502 Bad Gateway")
	failed.distinct, failed.distinctBudgets = nil, nil
	out.Reset()
	tg, fg := reportSearch(&out, o, failed, nil)
	if len(tg) != len(want) || tg[5].value != "3.10×" || len(fg) != 1 || fg[0].value != "not measured" || fg[0].note != distinctFigureNote {
		t.Errorf("different searches not measured: targets %+v, figures %+v", tg, fg)
	}
	if !strings.Contains(out.String(), "| HTTP, 10 different at once | not measured: GET …: 502 Bad Gateway |") || strings.Contains(out.String(), "different at once, all of them") {
		t.Errorf("different searches not measured:\n%s", out.String())
	}

	// Chromium reported no first-row paint: not met, and said why.
	for i := range res.navs {
		res.navs[i].firstRowPaint = math.NaN()
	}
	out.Reset()
	if tg, _ := reportSearch(&out, o, res, nil); tg[0].value != "not reported" || tg[0].ok {
		t.Errorf("no paint: %+v", tg[0])
	}
	if !strings.Contains(out.String(), "no Element Timing entry `search-first-row`") {
		t.Errorf("the report does not say why there is no paint:\n%s", out.String())
	}
	tg, fg = reportSearch(io.Discard, o, searchResult{}, errors.New("GET /c/admin/search: 404"))
	if len(tg) != len(want) || tg[2].value != "not measured" || tg[2].ok || len(fg) != 1 || fg[0].value != "not measured" {
		t.Errorf("not measured: %+v, %+v", tg, fg)
	}
}

func TestDistinctQueries(t *testing.T) {
	got, err := distinctQueries("bulk-0001", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bulk-0001 b", "bulk-0001 u", "bulk-0001 l", "bulk-0001 k", "bulk-0001 0", "bulk-0001 1",
		"bulk-0001 bu", "bulk-0001 ul", "bulk-0001 lk", "bulk-0001 k-"}
	if !slices.Equal(got, want) {
		t.Errorf("distinctQueries(bulk-0001, 10) = %q, want %q", got, want)
	}

	// The console reads each as another search (its shared runs are keyed
	// by the words) that matches exactly what the query matches, with the
	// same selectors: the same lists, the same rows.
	names := []string{"bulk-00010", "bulk-00019", "BULK-0001-probe199-2", "bulk-00020", "bulk-00001", "bulk-10001", "probe-bulk-0001x", "demo"}
	for _, query := range []string{"bulk-0001", "app=web Bulk-0001 ns:* kind:pods", "webapp !canary field:status.phase=Running"} {
		qs, err := distinctQueries(query, 10)
		if err != nil {
			t.Fatalf("%q: %v", query, err)
		}
		base, err := search.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{strings.Join(base.Words, " "): true}
		for _, q := range qs {
			p, err := search.ParseQuery(q)
			if err != nil {
				t.Errorf("%q does not parse: %v", q, err)
				continue
			}
			words := strings.Join(p.Words, " ")
			if seen[words] || len(p.Words) != len(base.Words)+1 {
				t.Errorf("%q: words %q, want the %d of %q and one more, unlike the others", q, p.Words, len(base.Words), query)
			}
			seen[words] = true
			if p.LabelSelector != base.LabelSelector || p.FieldSelector != base.FieldSelector || p.Namespace != base.Namespace || !slices.Equal(p.Kinds, base.Kinds) {
				t.Errorf("%q is not scoped as %q: %+v against %+v", q, query, p, base)
			}
			for _, n := range names {
				if p.Matches(n) != base.Matches(n) {
					t.Errorf("%q matches %s: %v, but %q: %v", q, n, p.Matches(n), query, base.Matches(n))
				}
			}
		}
	}

	for _, tc := range []struct {
		query string
		n     int
		want  string
	}{
		{"app=web ns:demo", 1, "no word of a name"},
		{"env in (a,b) web", 1, "set term"},
		{"ab", 3, "only 2 different searches"},
		{"a-", 2, "only 1 different searches"}, // a lone "-" is not one
	} {
		if _, err := distinctQueries(tc.query, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("distinctQueries(%q, %d): err = %v, want it to say %q", tc.query, tc.n, err, tc.want)
		}
	}
	if qs, err := distinctQueries("ab", 2); err != nil || !slices.Equal(qs, []string{"ab a", "ab b"}) {
		t.Errorf("as many as there are: %q, %v", qs, err)
	}
}

func TestReportTargetsShowsFiguresAsNotTargets(t *testing.T) {
	var out strings.Builder
	reportTargets(&out, []targetResult{{"a ≤ 3×", "0.57×", true}, {"b ≤ 1", "2", false}},
		[]reportedFigure{{"search: 10 different at once", "9.10×", distinctFigureNote}})
	for _, s := range []string{
		"| a ≤ 3× | 0.57× | met |",
		"| b ≤ 1 | 2 | MISSED |",
		"| search: 10 different at once | 9.10× | reported, not a target: distinct searches share nothing |",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the summary lacks %q:\n%s", s, out.String())
		}
	}
}
