package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Targets of filtered list pages (issue 27). The issue sets no budget for
// them: these are the console's own, so a whole scan budget (10,000
// objects in 20 requests) stays well inside its 10 s time budget, and the
// page holds its matches only.
const (
	// targetFilterScanMs is a page whose filter matches nothing in bulk, so
	// it reads its whole budget.
	targetFilterScanMs = 3000
	// targetFilterGrowthMiB is the console's VmRSS growth during one.
	targetFilterGrowthMiB = 32
)

// filterCase is one filtered page of namespace bulk.
type filterCase struct {
	name, query string
	// all lists every namespace, whose rows carry object metadata.
	all bool
}

var filterCases = []filterCase{
	// Every bulk pod is Running: the scan reads its whole budget.
	{"no match (whole budget)", "filter=Status%21%3DRunning", false},
	// Every row matches: the page fills from the first upstream page.
	{"every row matches", "filter=Status%3DRunning", false},
	// Free text in some rows: names with "77" (bulk-00077, bulk-00177, …,
	// bulk-00770–00779, …), about one in fifty.
	{"free text 77 (some rows)", "filter=77", false},
	// All namespaces: the rows carry object metadata (includeObject=Metadata).
	{"all namespaces, no match (whole budget)", "filter=Status%21%3DRunning&filter=bulk", true},
}

type filterRun struct {
	c       filterCase
	samples []sample
	states  string
}

type filterResult struct {
	runs []filterRun
	peak peakResult
}

// measureFilter loads each filtered page of namespace bulk o.relationsRuns
// times after one unmeasured; the whole-budget page's first measured load
// has the console's VmRSS sampled.
func measureFilter(ctx context.Context, o options, browser *http.Client, consoleURL string, pid int) (filterResult, error) {
	var res filterResult
	base := consoleURL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods?"
	all := consoleURL + "/c/" + contextName + "/api/v1/pods?"
	for i, c := range filterCases {
		url := base + c.query
		if c.all {
			url = all + c.query
		}
		get := func() (sample, error) { return fetch(ctx, browser, url, "text/html", browserAcceptEncoding) }
		if _, err := get(); err != nil {
			return res, err
		}
		if i == 0 {
			peak, err := measurePeak(ctx, pid, 1, get)
			if err != nil {
				return res, err
			}
			res.peak = peak
		}
		run := filterRun{c: c}
		for range o.relationsRuns {
			s, err := get()
			if err != nil {
				return res, err
			}
			run.samples = append(run.samples, s)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(run.samples[len(run.samples)-1].body))
		if err != nil {
			return res, err
		}
		run.states = strings.Join(strings.Fields(doc.Find("[data-testid=filter-matches]").Text()), " ")
		if stopped := doc.Find("[data-testid=scan-stopped]").Text(); stopped != "" {
			run.states += ". " + strings.Join(strings.Fields(stopped), " ")
		}
		if run.states == "" {
			return res, fmt.Errorf("%s: the page states no matches line", c.name)
		}
		res.runs = append(res.runs, run)
	}
	return res, nil
}

func reportFilter(w io.Writer, o options, res filterResult, err error) []targetResult {
	completeName := fmt.Sprintf("filter: a filtered page reading its whole scan budget complete ≤ %d ms (p50)", targetFilterScanMs)
	growthName := fmt.Sprintf("filter: console VmRSS growth during one ≤ %d MiB", targetFilterGrowthMiB)
	fmt.Fprintf(w, "\n### Row filters: filtered pod lists (%d pods in namespace %s)\n\n", o.pods, namespace)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: completeName, value: "not measured"}, {name: growthName, value: "not measured"}}
	}
	fmt.Fprintf(w, "%d loads of each after one unmeasured, one at a time, the whole response as a browser asks.\n\n", o.relationsRuns)
	fmt.Fprintln(w, "| page | complete, p50 (min–max) | the page states |")
	fmt.Fprintln(w, "|---|---|---|")
	var whole float64
	for i, r := range res.runs {
		ms := make([]float64, len(r.samples))
		for j, s := range r.samples {
			ms[j] = float64(s.d) / float64(time.Millisecond)
		}
		p50 := median(ms)
		if i == 0 {
			whole = p50
		}
		fmt.Fprintf(w, "| %s | %.0f ms (%.0f–%.0f) | %s |\n", r.c.name, p50, nearestRank(ms, 0), nearestRank(ms, 1), r.states)
	}
	growth := float64(res.peak.peakKiB()-res.peak.beforeKiB) / 1024
	fmt.Fprintf(w, "\nConsole VmRSS before / peak during the first whole-budget page: %s / %s.\n", mib(res.peak.beforeKiB), mib(res.peak.peakKiB()))
	return []targetResult{
		{completeName, fmt.Sprintf("%.0f ms", whole), whole <= targetFilterScanMs},
		{growthName, fmt.Sprintf("%+.1f MiB", growth), growth <= targetFilterGrowthMiB},
	}
}
