package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Targets of the Problems page (issue 25).
const (
	// targetProblemsMs is the page for all namespaces, complete.
	targetProblemsMs = 2000
	// targetProblemsGrowthMiB is the console's VmRSS growth during one.
	targetProblemsGrowthMiB = 32
)

// measureProblems loads /c/{context}/problems (all namespaces) as
// measureScanPage does.
func measureProblems(ctx context.Context, o options, browser *http.Client, consoleURL string, pid int) (changesResult, error) {
	return measureScanPage(ctx, o, browser, consoleURL+"/c/"+contextName+"/problems", pid, problemsPage)
}

func reportProblems(w io.Writer, o options, res changesResult, err error) []targetResult {
	names := []string{
		fmt.Sprintf("problems: Problems of all namespaces complete ≤ %d ms (p50)", targetProblemsMs),
		fmt.Sprintf("problems: console VmRSS growth during one ≤ %d MiB", targetProblemsGrowthMiB),
	}
	fmt.Fprintf(w, "\n### Problems: all namespaces (%d bulk pods, %d bench CRDs)\n\n", o.pods, o.crds)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: names[0], value: "not measured"}, {name: names[1], value: "not measured"}}
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
	fmt.Fprintf(w, "| the page states | %s; %d problem rows, %d kinds skipped |\n", res.cost, res.rows, res.skipped)
	fmt.Fprintf(w, "| console VmRSS before / peak during the first | %s / %s |\n", mib(res.peak.beforeKiB), mib(res.peak.peakKiB()))
	return []targetResult{
		{names[0], fmt.Sprintf("%.0f ms (%d objects read in %d requests)", p50, res.objects, res.requests), p50 <= targetProblemsMs},
		{names[1], fmt.Sprintf("%+.1f MiB", growth), growth <= targetProblemsGrowthMiB},
	}
}
