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
	res := searchResult{
		path:        searchPath("bulk-0001"),
		warm:        searchFetch{firstRow: ms(300), complete: ms(2500)},
		seq:         []searchFetch{{firstRow: ms(100), complete: ms(900)}, {firstRow: ms(120), complete: ms(1100)}},
		oneBudget:   budget,
		budgets:     []searchBudget{budget, budget},
		compressed:  []sample{{d: ms(950), wire: 900, encoding: "br", body: make([]byte, 10000)}},
		conc:        []searchFetch{{complete: ms(2000)}, {complete: ms(3100)}},
		concBudgets: []searchBudget{budget, cut},
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
	targets := reportSearch(&out, o, res, nil)
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
	if len(targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(targets), len(want))
	}
	for i, w := range want {
		if targets[i].value != w.value || targets[i].ok != w.ok {
			t.Errorf("target %q = %q, %v; want %q, %v", targets[i].name, targets[i].value, targets[i].ok, w.value, w.ok)
		}
	}
	for _, s := range []string{
		"| too-many | 2 | 2 | 4 | events, events.events.k8s.io |",
		"| timeout | 0 | 0 | 1 | probe199s.bench.tabula.dev |",
		"LIST pods 41, LIST events 40, LIST probe000s.bench.tabula.dev 1. Its other requests: none.",
		"| one, after a rest | 254 | 4 | 291 | not stated |",
		"br, 900 bytes on the wire of 10000): complete | 950 ms |",
		"| 2 at once | 254 | 5 (4–5) | 291 |",
		"1 of them ran out of time",
		"| 291 each |",
		"Their pages state 582 requests in all, more than kube-apiserver served",
		"+10.0 MiB",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, out.String())
		}
	}

	if strings.Contains(out.String(), "no Element Timing entry") {
		t.Error("the report says no paint was reported")
	}

	// Chromium reported no first-row paint: not met, and said why.
	for i := range res.navs {
		res.navs[i].firstRowPaint = math.NaN()
	}
	out.Reset()
	if tg := reportSearch(&out, o, res, nil); tg[0].value != "not reported" || tg[0].ok {
		t.Errorf("no paint: %+v", tg[0])
	}
	if !strings.Contains(out.String(), "no Element Timing entry `search-first-row`") {
		t.Errorf("the report does not say why there is no paint:\n%s", out.String())
	}
	tg := reportSearch(io.Discard, o, searchResult{}, errors.New("GET /c/admin/search: 404"))
	if len(tg) != len(want) || tg[2].value != "not measured" || tg[2].ok {
		t.Errorf("not measured: %+v", tg)
	}
}
