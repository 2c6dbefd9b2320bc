package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Targets of the export (issue 27).
const (
	// targetExportRowsPerSec is the CSV export of the bulk pods.
	targetExportRowsPerSec = 50000
	// targetExportCSVGrowthMiB and targetExportYAMLGrowthMiB bound the
	// console's VmRSS growth during one export.
	targetExportCSVGrowthMiB  = 32
	targetExportYAMLGrowthMiB = 64
	// exportRawPage is the page the raw reference reads, as the export does.
	exportRawPage = 1000
)

// exportRun is one export read to its end.
type exportRun struct {
	d           time.Duration
	rows, bytes int
	beforeKiB   int64
	peakKiB     int64
	// cpu is the console's CPU time (user and system) during the export:
	// what it cost, whatever else the machine was doing.
	cpu          time.Duration
	errorLine    string // the export's "# ERROR:" line, if it ended with one
	contentType  string
	disposition  string
	secretValues string
}

func (r exportRun) growthMiB() float64 { return float64(r.peakKiB-r.beforeKiB) / 1024 }
func (r exportRun) rate() float64      { return float64(r.rows) / r.d.Seconds() }

// exportFormatResult is every run of one format, and the raw reference.
type exportFormatResult struct {
	format string
	runs   []exportRun
	// raw is the API server's pages read as the export reads them
	// (Table includeObject=None for CSV, JSON lists for YAML), paged by
	// exportRawPage, each body read to its end and dropped.
	raw     time.Duration
	rawRows int
}

type exportResult struct{ formats []exportFormatResult }

// measureExport downloads the bulk pods through the console's export, CSV
// then YAML, o.exportRuns times each after one unmeasured, with the
// console's VmRSS read every sampleEvery (VmHWM reset before each), and
// reads the same collection straight from the API server as a reference.
func measureExport(ctx context.Context, o options, kube, browser *http.Client, server, consoleURL string, pid int) (exportResult, error) {
	var res exportResult
	for _, format := range []string{"csv", "yaml"} {
		fr := exportFormatResult{format: format}
		exportURL := fmt.Sprintf("%s/c/%s/api/v1/namespaces/%s/pods?export=%s", consoleURL, contextName, namespace, format)
		for i := range o.exportRuns + 1 {
			slog.Info("exporting", "format", format, "run", i)
			run, err := exportOnce(ctx, browser, exportURL, format, pid)
			if err != nil {
				return res, fmt.Errorf("%s export: %w", format, err)
			}
			if run.errorLine != "" {
				return res, fmt.Errorf("%s export ended with %q after %d rows", format, run.errorLine, run.rows)
			}
			if i > 0 { // the first warms the connections and the API server's cache
				fr.runs = append(fr.runs, run)
			}
		}
		var err error
		fr.raw, fr.rawRows, err = readRawPages(ctx, kube, server, format)
		if err != nil {
			return res, fmt.Errorf("raw %s pages: %w", format, err)
		}
		res.formats = append(res.formats, fr)
	}
	return res, nil
}

// exportOnce reads one export to its end, counting its rows (CSV: lines
// after the header; YAML: the List's items) without keeping it, while
// VmRSS is sampled.
func exportOnce(ctx context.Context, c *http.Client, url, format string, pid int) (exportRun, error) {
	run := exportRun{}
	_ = resetPeak(pid)
	run.beforeKiB = vmRSSKiB(pid)
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			if rss := vmRSSKiB(pid); rss > run.peakKiB {
				run.peakKiB = rss
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	defer func() {
		close(stop)
		<-sampled
		if hwm := readProcStatus(pid).hwmKiB; hwm > run.peakKiB {
			run.peakKiB = hwm
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return run, err
	}
	req.Header.Set("Accept-Encoding", "identity")
	cpuBefore := cpuTime(pid)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return run, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return run, fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	run.contentType, run.disposition = resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition")
	run.secretValues = resp.Header.Get("X-Tabula-Secret-Values")
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	lines := 0
	for {
		line, err := r.ReadSlice('\n')
		run.bytes += len(line)
		if bytes.HasPrefix(line, []byte("# ERROR:")) {
			run.errorLine = strings.TrimSpace(string(line))
		}
		if len(line) > 0 {
			switch {
			case format == "yaml" && bytes.HasPrefix(line, []byte("- ")):
				run.rows++
			case format != "yaml":
				lines++
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return run, fmt.Errorf("reading the export after %d bytes: %w", run.bytes, err)
		}
	}
	run.d = time.Since(start)
	run.cpu = cpuTime(pid) - cpuBefore
	if format != "yaml" {
		run.rows = lines - 1 // the header
	}
	return run, nil
}

// readRawPages reads the bulk pods straight from the API server, page by
// page as the export does (one at a time, not ahead), and counts them.
func readRawPages(ctx context.Context, kube *http.Client, server, format string) (time.Duration, int, error) {
	accept := "application/json;as=Table;v=v1;g=meta.k8s.io"
	if format == "yaml" {
		accept = "application/json"
	}
	start := time.Now()
	rows, cont := 0, ""
	for {
		q := url.Values{"limit": {fmt.Sprint(exportRawPage)}}
		if format != "yaml" {
			q.Set("includeObject", "None")
		}
		if cont != "" {
			q.Set("continue", cont)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/api/v1/namespaces/"+namespace+"/pods?"+q.Encode(), nil)
		if err != nil {
			return 0, 0, err
		}
		req.Header.Set("Accept", accept)
		resp, err := kube.Do(req)
		if err != nil {
			return 0, 0, err
		}
		var page struct {
			Metadata struct{ Continue string }
			Rows     []json.RawMessage
			Items    []json.RawMessage
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return 0, 0, err
		}
		rows += len(page.Rows) + len(page.Items)
		if cont = page.Metadata.Continue; cont == "" {
			return time.Since(start), rows, nil
		}
	}
}

func reportExport(w io.Writer, o options, res exportResult, err error) []targetResult {
	fmt.Fprintf(w, "\n### Export of the %d bulk pods (namespace %s)\n\n", o.pods, namespace)
	csvRate := fmt.Sprintf("export: CSV ≥ %d rows/s", targetExportRowsPerSec)
	csvGrowth := fmt.Sprintf("export: console VmRSS growth during a CSV export ≤ %d MiB", targetExportCSVGrowthMiB)
	yamlGrowth := fmt.Sprintf("export: console VmRSS growth during a YAML export ≤ %d MiB", targetExportYAMLGrowthMiB)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: csvRate, value: "not measured"}, {name: csvGrowth, value: "not measured"}, {name: yamlGrowth, value: "not measured"}}
	}
	fmt.Fprintf(w, "Each export read to its end over HTTP (identity), %d runs after one unmeasured; VmRSS read every %s, VmHWM reset before each. "+
		"The raw reference reads the same pages (%d a request) straight from the API server, one after the other.\n\n", o.exportRuns, sampleEvery, exportRawPage)
	fmt.Fprintln(w, "| format | run | rows | bytes | time | rows/s | console CPU | rows per CPU second | VmRSS before → peak | growth |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var targets []targetResult
	for _, fr := range res.formats {
		var rates, growths []float64
		for i, r := range fr.runs {
			rates = append(rates, r.rate())
			growths = append(growths, r.growthMiB())
			fmt.Fprintf(w, "| %s | %d | %d | %d | %.0f ms | %.0f | %.0f ms | %.0f | %s → %s | %.1f MiB |\n", fr.format, i+1, r.rows, r.bytes,
				float64(r.d)/float64(time.Millisecond), r.rate(), float64(r.cpu)/float64(time.Millisecond), float64(r.rows)/r.cpu.Seconds(),
				mib(r.beforeKiB), mib(r.peakKiB), r.growthMiB())
		}
		fmt.Fprintf(w, "| %s | raw API pages | %d | | %.0f ms | %.0f | | | | |\n", fr.format, fr.rawRows,
			float64(fr.raw)/float64(time.Millisecond), float64(fr.rawRows)/fr.raw.Seconds())
		rate, growth := median(rates), maxOf(growths)
		rowsOK := true
		for _, r := range fr.runs {
			rowsOK = rowsOK && r.rows == fr.rawRows
		}
		if !rowsOK {
			fmt.Fprintf(w, "\n**%s: an export's rows differ from the API server's %d.**\n", fr.format, fr.rawRows)
		}
		switch fr.format {
		case "csv":
			targets = append(targets,
				targetResult{csvRate, fmt.Sprintf("%.0f rows/s (median; raw pages %.0f rows/s)", rate, float64(fr.rawRows)/fr.raw.Seconds()), rate >= targetExportRowsPerSec && rowsOK},
				targetResult{csvGrowth, fmt.Sprintf("%.1f MiB (the most of %d runs)", growth, len(fr.runs)), growth <= targetExportCSVGrowthMiB})
		case "yaml":
			targets = append(targets,
				targetResult{yamlGrowth, fmt.Sprintf("%.1f MiB (the most of %d runs; %.0f rows/s)", growth, len(fr.runs), rate), growth <= targetExportYAMLGrowthMiB && rowsOK})
		}
	}
	return targets
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for i, x := range xs {
		if i == 0 || x > m {
			m = x
		}
	}
	return m
}
