package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// The log bench's pod, created by devcluster --log-bench-mb.
const (
	logNamespace = "logbench"
	logPod       = "big"
)

// logRun is one complete read of the pod's log.
type logRun struct {
	bytes int64
	d     time.Duration // from the request to the end of the stream
	first time.Duration // to the first payload byte
	diag  []string      // channel-2 messages (console only)
}

func (r logRun) rate() float64 { return float64(r.bytes) / r.d.Seconds() }

// logResult is the log throughput measurement.
type logResult struct {
	raw, console []logRun
	consoleErr   error
}

// measureLogs alternates o.logRuns reads of the whole log straight from the
// API server and through the console's live log WebSocket. An error of the
// raw path is fatal for the measurement; one of the console path is kept in
// the result (the raw figures still say something).
func measureLogs(ctx context.Context, o options, kube *http.Client, server string, ws *wsClient) (logResult, error) {
	// The console always asks for timestamps (it merges and resumes by
	// them), so the raw read asks too: both carry the same bytes.
	rawURL := server + "/api/v1/namespaces/" + logNamespace + "/pods/" + logPod + "/log?timestamps=true"
	consolePath := "/c/" + contextName + "/api/v1/namespaces/" + logNamespace + "/pods/" + logPod + "/log?tailLines=all"
	var res logResult
	for i := range o.logRuns {
		r, err := rawLogRun(ctx, kube, rawURL)
		if err != nil {
			return res, fmt.Errorf("raw log: %w", err)
		}
		res.raw = append(res.raw, r)
		slog.Info("log run", "path", "raw", "run", i+1, "bytes", r.bytes, "took", r.d.Round(time.Millisecond))
		if res.consoleErr != nil {
			continue
		}
		c, err := consoleLogRun(ctx, ws, consolePath)
		if err != nil {
			res.consoleErr = err
			slog.Warn("console log stream failed; measuring the raw path only", "err", err)
			continue
		}
		res.console = append(res.console, c)
		slog.Info("log run", "path", "console", "run", i+1, "bytes", c.bytes, "took", c.d.Round(time.Millisecond))
	}
	return res, nil
}

// rawLogRun reads the log from the API server, without follow, to its end.
func rawLogRun(ctx context.Context, kube *http.Client, url string) (logRun, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return logRun{}, err
	}
	start := time.Now()
	resp, err := kube.Do(req)
	if err != nil {
		return logRun{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return logRun{}, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	var r logRun
	buf := make([]byte, 256<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && r.bytes == 0 {
			r.first = time.Since(start)
		}
		r.bytes += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return logRun{}, fmt.Errorf("GET %s: after %d bytes: %w", url, r.bytes, err)
		}
	}
	r.d = time.Since(start)
	return r, nil
}

// consoleLogRun opens the console's log page as a live WebSocket and counts
// the channel-1 payload until the server closes normally, which it does when
// a stream without follow ends.
func consoleLogRun(ctx context.Context, ws *wsClient, pathQuery string) (logRun, error) {
	start := time.Now()
	conn, err := ws.dial(ctx, pathQuery)
	if err != nil {
		return logRun{}, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	var r logRun
	var status *streamStatus
	fr := &frameReader{conn: conn}
	for {
		ch, payload, err := fr.next()
		if err != nil {
			if isNormalClose(err) {
				break
			}
			return logRun{}, fmt.Errorf("log stream after %d bytes: %w", r.bytes, err)
		}
		switch ch {
		case chanData:
			if r.bytes == 0 && len(payload) > 0 {
				r.first = time.Since(start)
			}
			r.bytes += int64(len(payload))
		case chanDiagnostics:
			r.diag = append(r.diag, diagnostic(payload))
		case chanStatus:
			s := parseStatus(payload)
			status = &s
		}
	}
	r.d = time.Since(start)
	if status != nil && status.failed() {
		return logRun{}, fmt.Errorf("log stream ended with status %s after %d bytes", status, r.bytes)
	}
	return r, nil
}

func reportLogs(w io.Writer, o options, res logResult, err error) []targetResult {
	name := fmt.Sprintf("log throughput console / raw ≥ %.1f", targetLogRatio)
	fmt.Fprintf(w, "\n### Log throughput: pod %s/%s (%d MiB served by kwok), whole log without follow, %d runs each\n\n",
		logNamespace, logPod, o.logMB, o.logRuns)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: name, value: "not measured"}}
	}
	mibps := func(x float64) string { return fmt.Sprintf("%.1f MiB/s", x/(1<<20)) }
	row := func(name string, runs []logRun) float64 {
		rates := make([]float64, len(runs))
		firsts := make([]float64, len(runs))
		lo, hi := runs[0].rate(), runs[0].rate()
		for i, r := range runs {
			rates[i] = r.rate()
			firsts[i] = float64(r.first) / float64(time.Millisecond)
			lo, hi = min(lo, rates[i]), max(hi, rates[i])
		}
		m := median(rates)
		fmt.Fprintf(w, "| %s | **%s** | %s | %s | %.0f ms | %d |\n",
			name, mibps(m), mibps(lo), mibps(hi), median(firsts), runs[len(runs)-1].bytes)
		return m
	}
	fmt.Fprintln(w, "| path | median | min | max | first byte (median) | bytes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	raw := row(fmt.Sprintf("raw `GET /api/v1/namespaces/%s/pods/%s/log?timestamps=true`", logNamespace, logPod), res.raw)
	consoleName := fmt.Sprintf("console WebSocket `/c/%s/api/v1/namespaces/%s/pods/%s/log?tailLines=all` (%s)",
		contextName, logNamespace, logPod, channelProtocol)
	if len(res.console) == 0 {
		fmt.Fprintf(w, "| %s | n/a | | | | |\n\n", consoleName)
		fmt.Fprintf(w, "- Target console / raw ≥ %.1f: not measured (%v).\n", targetLogRatio, res.consoleErr)
		return []targetResult{{name: name, value: "not measured"}}
	}
	con := row(consoleName, res.console)
	ratio := con / raw
	fmt.Fprintf(w, "| **ratio console / raw** | **%.2f** | | | | |\n\n", ratio)
	fmt.Fprintf(w, "- Target console / raw ≥ %.1f: %.2f (%s).\n", targetLogRatio, ratio, verdict(ratio >= targetLogRatio))
	if res.consoleErr != nil {
		fmt.Fprintf(w, "- Only %d of %d console runs completed: %v.\n", len(res.console), o.logRuns, res.consoleErr)
	}
	if rb, cb := res.raw[len(res.raw)-1].bytes, res.console[len(res.console)-1].bytes; rb != cb {
		fmt.Fprintf(w, "- The console delivered %d bytes, the API server %d: they should be equal.\n", cb, rb)
	}
	if d := res.console[len(res.console)-1].diag; len(d) > 0 {
		fmt.Fprintf(w, "- Console diagnostics (channel 2) in the last run: %q.\n", d)
	}
	return []targetResult{{name, fmt.Sprintf("%.2f", ratio), ratio >= targetLogRatio}}
}
