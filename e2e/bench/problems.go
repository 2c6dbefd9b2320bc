package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
	return reportScanPage(w, res, err, scanReport{
		title:        fmt.Sprintf("Problems: all namespaces (%d bulk pods, %d bench CRDs)", o.pods, o.crds),
		completeName: fmt.Sprintf("problems: Problems of all namespaces complete ≤ %d ms (p50)", targetProblemsMs),
		growthName:   fmt.Sprintf("problems: console VmRSS growth during one ≤ %d MiB", targetProblemsGrowthMiB),
		rows:         "problem rows",
		targetMs:     targetProblemsMs, targetGrowthMiB: targetProblemsGrowthMiB,
	})
}
