package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Targets of the recent-changes page (issue 25).
const (
	// targetChangesMs is the page of the bulk namespace, complete.
	targetChangesMs = 2000
	// targetChangesGrowthMiB is the console's VmRSS growth during one.
	targetChangesGrowthMiB = 32
)

// changesResult is the recent-changes measurement: loads of the page for
// the bulk namespace over a day's window, one by one, the first with the
// console's VmRSS sampled.
type changesResult struct {
	samples []sample
	peak    peakResult
	// rows, objects and requests are what the last page states.
	rows, objects, requests, skipped int
	cost                             string
}

// changesCost reads the counts of the page's cost line: "33 kinds asked in
// 34 requests, 20,067 objects read, 0.94 s.".
var changesCost = regexp.MustCompile(`([0-9]+) kinds? asked in ([0-9]+) requests?, ([0-9]+) objects? read`)

// scanPage names what a page that scans many kinds states: its cost line,
// its rows and its skipped kinds, by data-testid.
type scanPage struct{ cost, row, skipped string }

var (
	changesPage  = scanPage{cost: "changes-cost", row: "change-row", skipped: "changes-skipped-kind"}
	problemsPage = scanPage{cost: "problems-cost", row: "problem-row", skipped: "problems-skipped-kind"}
)

// parseScanPage reads what a scanning page states.
func parseScanPage(body []byte, sp scanPage) (rows, objects, requests, skipped int, cost string, err error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return 0, 0, 0, 0, "", err
	}
	cost = strings.Join(strings.Fields(doc.Find(`[data-testid="`+sp.cost+`"]`).Text()), " ")
	m := changesCost.FindStringSubmatch(cost)
	if m == nil {
		return 0, 0, 0, 0, cost, fmt.Errorf("no cost line on the page (%q)", cost)
	}
	requests, _ = strconv.Atoi(m[2])
	objects, _ = strconv.Atoi(m[3])
	rows = doc.Find(`[data-testid="` + sp.row + `"]`).Length()
	skipped = doc.Find(`[data-testid="` + sp.skipped + `"]`).Length()
	return rows, objects, requests, skipped, cost, nil
}

// measureChanges loads /c/{context}/changes?namespace=bulk&since=24h
// o.relationsRuns times after one unmeasured, the first measured one with
// VmRSS read every sampleEvery.
func measureChanges(ctx context.Context, o options, browser *http.Client, consoleURL string, pid int) (changesResult, error) {
	return measureScanPage(ctx, o, browser, consoleURL+"/c/"+contextName+"/changes?namespace="+namespace+"&since=24h", pid, changesPage)
}

// measureScanPage loads url o.relationsRuns times after one unmeasured, the
// first measured one with VmRSS read every sampleEvery, and reads what the
// last states.
func measureScanPage(ctx context.Context, o options, browser *http.Client, url string, pid int, sp scanPage) (changesResult, error) {
	var res changesResult
	// fetch refuses anything but a 200.
	get := func() (sample, error) { return fetch(ctx, browser, url, "text/html", browserAcceptEncoding) }
	if _, err := get(); err != nil {
		return res, err
	}
	peak, err := measurePeak(ctx, pid, 1, get)
	if err != nil {
		return res, err
	}
	res.peak = peak
	for range o.relationsRuns {
		s, err := get()
		if err != nil {
			return res, err
		}
		res.samples = append(res.samples, s)
	}
	last := res.samples[len(res.samples)-1]
	res.rows, res.objects, res.requests, res.skipped, res.cost, err = parseScanPage(last.body, sp)
	return res, err
}

func reportChanges(w io.Writer, o options, res changesResult, err error) []targetResult {
	return reportScanPage(w, res, err, scanReport{
		title:        fmt.Sprintf("Recent changes: namespace %s, 24 h (%d bulk pods, %d bench CRDs)", namespace, o.pods, o.crds),
		completeName: fmt.Sprintf("changes: recent changes of %s complete ≤ %d ms (p50)", namespace, targetChangesMs),
		growthName:   fmt.Sprintf("changes: console VmRSS growth during one ≤ %d MiB", targetChangesGrowthMiB),
		rows:         "rows",
		targetMs:     targetChangesMs, targetGrowthMiB: targetChangesGrowthMiB,
	})
}

// scanReport is how a scanning page's measurement is reported.
type scanReport struct {
	title, completeName, growthName string
	// rows names what the page's rows are.
	rows                      string
	targetMs, targetGrowthMiB float64
}

func reportScanPage(w io.Writer, res changesResult, err error, r scanReport) []targetResult {
	fmt.Fprintf(w, "\n### %s\n\n", r.title)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: r.completeName, value: "not measured"}, {name: r.growthName, value: "not measured"}}
	}
	ms := make([]float64, len(res.samples))
	for i, s := range res.samples {
		ms[i] = float64(s.d) / float64(time.Millisecond)
	}
	p50 := median(ms)
	growth := float64(res.peak.peakKiB()-res.peak.beforeKiB) / 1024
	fmt.Fprintf(w, "%d loads after one unmeasured, one at a time, the whole response as a browser asks.\n\n", len(res.samples))
	fmt.Fprintln(w, "| | figure |")
	fmt.Fprintln(w, "|---|---|")
	fmt.Fprintf(w, "| complete, p50 (min–max) | %.0f ms (%.0f–%.0f) |\n", p50, nearestRank(ms, 0), nearestRank(ms, 1))
	fmt.Fprintf(w, "| the page states | %s; %d %s, %d kinds skipped |\n", res.cost, res.rows, r.rows, res.skipped)
	fmt.Fprintf(w, "| console VmRSS before / peak during the first | %s / %s |\n", mib(res.peak.beforeKiB), mib(res.peak.peakKiB()))
	return []targetResult{
		{r.completeName, fmt.Sprintf("%.0f ms (%d objects read in %d requests)", p50, res.objects, res.requests), p50 <= r.targetMs},
		{r.growthName, fmt.Sprintf("%+.1f MiB", growth), growth <= r.targetGrowthMiB},
	}
}
