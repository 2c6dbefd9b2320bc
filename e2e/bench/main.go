// Command bench measures the console against the API server it fronts, in
// one run, and prints a Markdown summary. Targets are reported, not asserted:
// the exit code is non-zero only on errors.
//
// It starts the dev control plane seeded with -pods kwok pods in namespace
// bulk (and, for the log measurement, the -log-mb MiB log of pod
// logbench/big), waits until they are listable, starts the console, then
// runs the measurements chosen with -measure, in this order:
//
//   - list: the console's list page for the bulk pods against the raw Table
//     GET it makes, -n requests of each kind alternated after a warm-up;
//   - logs: the whole log of logbench/big straight from the API server
//     against the console's live log WebSocket, in bytes/s;
//   - watch: the latency from a ConfigMap PATCH to its event on a live list
//     page, at -watch-rate changes per second;
//   - clients: the console's resident memory and upstream watch count with
//     -clients live list WebSockets open;
//   - exec: the keystroke echo round trip into a shell in a demo pod, through
//     the console's terminal socket against kubectl exec -i -t (on a pty)
//     and client-go's executor, -exec-keys keystrokes each, taking turns.
//
// A live measurement that fails (the console may not serve WebSockets yet)
// is reported as not measured, the others still run, and the exit code is 1.
//
//	TABULA_BIN_DIR=bin go run ./e2e/bench
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

const (
	namespace = "bulk"
	// contextName is the kubeconfig context the console page is asked for.
	contextName = "admin"
	// tableAccept is the Accept header the console's list sends (apiclient's
	// acceptTable): Table v1, v1beta1, then the fallbacks.
	tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io," +
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io," +
		"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io," +
		"application/json"
	// Targets from the issue.
	targetRatio       = 1.2
	targetBytesPerRow = 400
	// targetLogRatio is the console's log throughput over the raw one.
	targetLogRatio = 0.8
)

// measurements, in the order they run.
var measurements = []string{"list", "logs", "watch", "clients", "exec"}

type options struct {
	requests int
	warmup   int
	pods     int
	limit    int
	dataDir  string
	keep     bool
	timeout  time.Duration
	measure  map[string]bool

	logMB   int
	logRuns int

	watchRate       int
	watchDuration   time.Duration
	watchConfigMaps int
	watchWorkers    int
	watchNamespace  string

	clients          int
	clientNamespaces []string
	clientSettle     time.Duration

	execKeys   int
	execWarmup int
	execPod    string
}

func main() {
	var o options
	flag.IntVar(&o.requests, "n", 30, "measured requests of each kind (at least 20)")
	flag.IntVar(&o.warmup, "warmup", 5, "unmeasured requests of each kind first")
	flag.IntVar(&o.pods, "pods", 5000, "kwok pods to seed in namespace "+namespace)
	flag.IntVar(&o.limit, "limit", 500, "page size, as the console page's default limit")
	flag.StringVar(&o.dataDir, "data-dir", "", "dev control plane data directory (default: a temporary directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the data directory and logs")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "overall deadline")
	measure := flag.String("measure", strings.Join(measurements, ","), "comma-separated measurements to run: "+strings.Join(measurements, ", "))
	flag.IntVar(&o.logMB, "log-mb", 64, "MiB of log served for pod "+logNamespace+"/"+logPod+" (devcluster --log-bench-mb)")
	flag.IntVar(&o.logRuns, "log-runs", 3, "complete reads of the log through each path")
	flag.IntVar(&o.watchRate, "watch-rate", 200, "ConfigMap changes per second")
	flag.DurationVar(&o.watchDuration, "watch-duration", 10*time.Second, "how long to send changes")
	flag.IntVar(&o.watchConfigMaps, "watch-configmaps", 20, "ConfigMaps the changes rotate over")
	flag.IntVar(&o.watchWorkers, "watch-workers", 16, "goroutines sending the PATCHes")
	flag.StringVar(&o.watchNamespace, "watch-namespace", "watchbench", "namespace of the watched ConfigMaps (created)")
	flag.IntVar(&o.clients, "clients", 500, "concurrent live list WebSockets for the memory measurement")
	clientNamespaces := flag.String("clients-namespaces", namespace, "comma-separated namespaces whose pod lists the clients open, round robin")
	flag.DurationVar(&o.clientSettle, "clients-settle", 3*time.Second, "wait after the last client connected (and after closing them) before reading memory")
	flag.IntVar(&o.execKeys, "exec-keys", 1000, "measured keystrokes per path for the keystroke echo")
	flag.IntVar(&o.execWarmup, "exec-warmup", 20, "unmeasured keystrokes per path first")
	flag.StringVar(&o.execPod, "exec-pod", "", "pod of namespace "+execNamespace+" to type into (default: the first Running one by name)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	usage := func(msg string) {
		fmt.Fprintln(os.Stderr, "bench:", msg)
		os.Exit(2)
	}
	if o.requests < 20 {
		usage("-n must be at least 20")
	}
	o.measure = map[string]bool{}
	for _, m := range strings.Split(*measure, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if !slices.Contains(measurements, m) {
			usage(fmt.Sprintf("-measure: unknown measurement %q (known: %s)", m, strings.Join(measurements, ", ")))
		}
		o.measure[m] = true
	}
	for _, ns := range strings.Split(*clientNamespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			o.clientNamespaces = append(o.clientNamespaces, ns)
		}
	}
	switch {
	case o.logMB < 1 || o.logRuns < 1:
		usage("-log-mb and -log-runs must be at least 1")
	case o.watchRate < 1 || o.watchDuration <= 0 || o.watchConfigMaps < 1 || o.watchWorkers < 1:
		usage("-watch-rate, -watch-duration, -watch-configmaps and -watch-workers must be positive")
	case o.clients < 1 || len(o.clientNamespaces) == 0:
		usage("-clients and -clients-namespaces must not be empty")
	case o.execKeys < 1 || o.execWarmup < 0:
		usage("-exec-keys must be positive and -exec-warmup not negative")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	err := run(ctx, o)
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) (err error) {
	dir := o.dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "tabula-bench-"); err != nil {
			return err
		}
		if !o.keep {
			defer func() {
				if err == nil {
					os.RemoveAll(dir)
				} else {
					slog.Info("logs kept", "dir", dir)
				}
			}()
		}
	}
	t0 := time.Now()
	slog.Info("starting dev control plane", "pods", o.pods, "dir", dir)
	dcOpts := harness.DevClusterOptions{
		DataDir: filepath.Join(dir, "cluster"), Seed: true, Pods: o.pods, Timeout: 5 * time.Minute,
	}
	if o.measure["logs"] {
		dcOpts.LogBenchMB = o.logMB
	}
	dc, err := harness.StartDevCluster(ctx, dcOpts)
	if err != nil {
		return err
	}
	defer stopProcess("devcluster", dc.Process, 30*time.Second)
	slog.Info("dev control plane ready", "server", dc.Server, "after", time.Since(t0).Round(time.Millisecond))

	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: dc.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: contextName},
	).ClientConfig()
	if err != nil {
		return fmt.Errorf("loading %s: %w", dc.Kubeconfig, err)
	}
	kube, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	server := strings.TrimSuffix(cfg.Host, "/")
	podsURL := server + "/api/v1/namespaces/" + namespace + "/pods"

	if err := waitForPods(ctx, kube, podsURL, o.pods, 3*time.Minute); err != nil {
		return err
	}
	slog.Info("bulk pods listable", "pods", o.pods, "after", time.Since(t0).Round(time.Millisecond))
	// Measure a settled cluster: while kwok is still moving 5,000 pods to
	// Running, the API server is busy and both figures are noise.
	if err := waitForRunning(ctx, kube, podsURL, 3*time.Minute); err != nil {
		return err
	}
	slog.Info("bulk pods Running", "after", time.Since(t0).Round(time.Millisecond))

	console, err := harness.StartConsole(ctx, dir, dc.Kubeconfig)
	if err != nil {
		return err
	}
	defer stopProcess("console", console.Process, 10*time.Second)
	slog.Info("console ready", "url", console.URL)
	browser := &http.Client{Timeout: time.Minute}

	if o.measure["list"] {
		if err := benchList(ctx, o, kube, browser, podsURL, console); err != nil {
			return err
		}
	}

	ws, err := newWSClient(console.URL)
	if err != nil {
		return err
	}
	// Enough for -watch-rate PATCHes per second without client-side throttling.
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 1000, 1000
	client, err := kubernetes.NewForConfig(fast)
	if err != nil {
		return err
	}
	var errs []error
	if o.measure["logs"] {
		slog.Info("measuring log throughput", "mib", o.logMB, "runs", o.logRuns)
		res, err := measureLogs(ctx, o, kube, server, ws)
		reportLogs(os.Stdout, o, res, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("log throughput: %w", err))
		} else if res.consoleErr != nil {
			errs = append(errs, fmt.Errorf("log throughput through the console: %w", res.consoleErr))
		}
	}
	if o.measure["watch"] {
		slog.Info("measuring watch latency", "rate", o.watchRate, "duration", o.watchDuration)
		res, err := measureWatch(ctx, o, client, ws)
		reportWatch(os.Stdout, o, res, err)
		if err != nil {
			err = fmt.Errorf("watch latency: %w", err)
		}
		errs = append(errs, err)
	}
	if o.measure["clients"] {
		slog.Info("measuring console memory with live clients", "clients", o.clients)
		res, err := measureClients(ctx, o, client, ws, browser, console.URL, console.Pid())
		reportClients(os.Stdout, o, res, err)
		if err != nil {
			err = fmt.Errorf("live clients: %w", err)
		}
		errs = append(errs, err)
	}
	if o.measure["exec"] {
		slog.Info("measuring keystroke echo", "keys", o.execKeys)
		bin, err := harness.BinDir()
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		res, err := measureExec(ctx, o, execTargets{ws: ws, kubeconfig: dc.Kubeconfig, kubectl: filepath.Join(bin, "kubectl"), client: client})
		reportExec(os.Stdout, o, res, err)
		if err == nil {
			err = res.failed()
		}
		if err != nil {
			err = fmt.Errorf("keystroke echo: %w", err)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// benchList measures the console's list page against the raw Table GET.
func benchList(ctx context.Context, o options, kube, browser *http.Client, podsURL string, console *harness.Console) error {
	pageURL := console.URL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods"
	if o.limit != 500 {
		pageURL += "?limit=" + strconv.Itoa(o.limit)
	}
	rawURL := podsURL + "?limit=" + strconv.Itoa(o.limit) + "&includeObject=None"
	getPage := func() (sample, error) { return fetch(ctx, browser, pageURL, "text/html") }
	getRaw := func() (sample, error) { return fetch(ctx, kube, rawURL, tableAccept) }

	for range o.warmup {
		if _, err := getPage(); err != nil {
			return fmt.Errorf("console page: %w", err)
		}
		if _, err := getRaw(); err != nil {
			return fmt.Errorf("raw Table: %w", err)
		}
	}
	before, err := scrape(ctx, browser, console.URL+"/metrics")
	if err != nil {
		return err
	}
	var page, raw []sample
	for i := range o.requests {
		// Alternate which goes first, so neither always follows the other.
		first, second := getPage, getRaw
		if i%2 == 1 {
			first, second = getRaw, getPage
		}
		a, err := first()
		if err != nil {
			return err
		}
		b, err := second()
		if err != nil {
			return err
		}
		if i%2 == 1 {
			a, b = b, a
		}
		page, raw = append(page, a), append(raw, b)
	}
	after, err := scrape(ctx, browser, console.URL+"/metrics")
	if err != nil {
		return err
	}
	rss, hwm := procMemory(console.Pid())
	report(os.Stdout, o, page, raw, rss, hwm)
	breakdown(os.Stdout, before, after, len(page))
	return nil
}

// series maps a Prometheus series ("name{labels}") to its value.
type series map[string]float64

// scrape reads the console's /metrics in the text exposition format.
func scrape(ctx context.Context, c *http.Client, url string) (series, error) {
	s, err := fetch(ctx, c, url, "text/plain")
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	out := series{}
	for _, line := range strings.Split(string(s.body), "\n") {
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
	return out, nil
}

// breakdown prints, per console page, the upstream requests the console made
// and its own handling time, from its metrics' deltas over the measured run.
func breakdown(w io.Writer, before, after series, pages int) {
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
	fmt.Fprintf(w, "\nWhere a console page's time goes (console metrics over the %d measured pages):\n\n", pages)
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
}

// sample is one request measured to the last byte of its body.
type sample struct {
	d time.Duration
	// body is the decoded body; gzip reports whether it came compressed.
	body []byte
	gzip bool
}

func fetch(ctx context.Context, c *http.Client, url, accept string) (sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return sample{}, err
	}
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return sample{}, fmt.Errorf("GET %s: %s: %.300s", url, resp.Status, body)
	}
	return sample{d: d, body: body, gzip: resp.Uncompressed}, nil
}

// tableCount is the part of a Table the readiness poll reads.
type tableCount struct {
	Kind     string `json:"kind"`
	Metadata struct {
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Rows []json.RawMessage `json:"rows"`
}

// waitForPods polls a one-row Table page until want pods are listable.
func waitForPods(ctx context.Context, c *http.Client, podsURL string, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	url := podsURL + "?limit=1&includeObject=None"
	last := "no answer yet"
	for {
		s, err := fetch(ctx, c, url, tableAccept)
		if err == nil {
			var t tableCount
			if err := json.Unmarshal(s.body, &t); err != nil {
				return fmt.Errorf("decoding %s: %w", url, err)
			}
			if t.Kind != "Table" {
				return fmt.Errorf("GET %s answered a %s, not a Table", url, t.Kind)
			}
			n := int64(len(t.Rows))
			if t.Metadata.RemainingItemCount != nil {
				n += *t.Metadata.RemainingItemCount
			}
			if n >= int64(want) {
				return nil
			}
			last = fmt.Sprintf("%d of %d pods", n, want)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods in %s not listable after %s: %s", namespace, timeout, last)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// waitForRunning polls until no pod in the namespace is outside Running.
func waitForRunning(ctx context.Context, c *http.Client, podsURL string, timeout time.Duration) error {
	url := podsURL + "?limit=1&includeObject=None&fieldSelector=status.phase%21%3DRunning"
	deadline := time.Now().Add(timeout)
	for {
		s, err := fetch(ctx, c, url, tableAccept)
		if err != nil {
			return err
		}
		var t tableCount
		if err := json.Unmarshal(s.body, &t); err != nil {
			return fmt.Errorf("decoding %s: %w", url, err)
		}
		if len(t.Rows) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods in %s not all Running after %s", namespace, timeout)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(time.Second):
		}
	}
}

type stats struct {
	p50, p95, mean time.Duration
}

func summarize(samples []sample) stats {
	ds := make([]time.Duration, len(samples))
	var sum time.Duration
	for i, s := range samples {
		ds[i] = s.d
		sum += s.d
	}
	slices.Sort(ds)
	return stats{p50: percentile(ds, 0.50), p95: percentile(ds, 0.95), mean: sum / time.Duration(len(ds))}
}

func report(w io.Writer, o options, page, raw []sample, rss, hwm string) {
	ps, rs := summarize(page), summarize(raw)
	last := page[len(page)-1].body
	rows := bytes.Count(tbody(last), []byte("<tr"))
	pageBytes, rawBytes := len(last), len(raw[len(raw)-1].body)
	perRow := math.NaN()
	if rows > 0 {
		perRow = float64(pageBytes) / float64(rows)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
	wire := "identity"
	if raw[len(raw)-1].gzip {
		wire = "gzip"
	}

	fmt.Fprintf(w, "\n### List page benchmark: %d pods in namespace %s, limit=%d, %d measured requests each (after %d warm-up)\n\n",
		o.pods, namespace, o.limit, len(page), o.warmup)
	fmt.Fprintln(w, "| request | p50 | p95 | mean | body bytes | rows | bytes/row |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| console page `GET /c/%s/api/v1/namespaces/%s/pods` | %s | %s | %s | %d | %d | %.0f |\n",
		contextName, namespace, ms(ps.p50), ms(ps.p95), ms(ps.mean), pageBytes, rows, perRow)
	fmt.Fprintf(w, "| raw Table `GET /api/v1/namespaces/%s/pods?limit=%d&includeObject=None` (%s on the wire) | %s | %s | %s | %d | %d | %.0f |\n",
		namespace, o.limit, wire, ms(rs.p50), ms(rs.p95), ms(rs.mean), rawBytes, o.limit, float64(rawBytes)/float64(o.limit))
	fmt.Fprintf(w, "| **ratio console / raw** | **%.2f** | **%.2f** | %.2f | %.2f | | |\n",
		ratio(ps.p50, rs.p50), ratio(ps.p95, rs.p95), ratio(ps.mean, rs.mean), float64(pageBytes)/float64(rawBytes))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- Target ratio ≤ %.1f: p50 %.2f (%s), p95 %.2f (%s).\n",
		targetRatio, ratio(ps.p50, rs.p50), verdict(ratio(ps.p50, rs.p50) <= targetRatio),
		ratio(ps.p95, rs.p95), verdict(ratio(ps.p95, rs.p95) <= targetRatio))
	fmt.Fprintf(w, "- Target ≤ %d bytes of HTML per row: %.0f (%s).\n", targetBytesPerRow, perRow, verdict(perRow <= targetBytesPerRow))
	fmt.Fprintf(w, "- Console process after the run: VmRSS %s, VmHWM (peak) %s.\n", rss, hwm)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
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

// procMemory reads the resident and peak resident set sizes of pid.
func procMemory(pid int) (rss, hwm string) {
	rss, hwm = "unknown", "unknown"
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rss, hwm
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "VmRSS":
			rss = kib(v)
		case "VmHWM":
			hwm = kib(v)
		}
	}
	return rss, hwm
}

// kib turns "  123456 kB" into "120.6 MiB".
func kib(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return "unknown"
	}
	n, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return strings.TrimSpace(v)
	}
	return fmt.Sprintf("%.1f MiB", n/1024)
}

func stopProcess(name string, p *harness.Process, grace time.Duration) {
	if err := p.Stop(grace); err != nil && !isSignalExit(err) {
		slog.Warn("stopping "+name, "err", err, "log", p.LogPath)
	}
}

// isSignalExit reports whether err only says the process ended on our SIGTERM.
func isSignalExit(err error) bool {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		return ee.ExitCode() == -1 || ee.ExitCode() == 143
	}
	return false
}
