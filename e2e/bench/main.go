// Command bench measures the console against the API server it fronts, in
// one run, and prints Markdown tables ending with a summary of the targets.
// Targets are reported, not asserted: the exit code is non-zero only on
// errors.
//
// It starts the dev control plane seeded with -pods kwok pods in namespace
// bulk (and, for the log measurement, the -log-mb MiB log of pod
// logbench/big, and for the search and relations measurements -crds CRDs
// with a few objects each) and waits until the pods are all Running, or, with
// -kubeconfig, uses a running cluster; it starts the console, then runs the
// measurements chosen with -measure, in this order:
//
//   - list: the namespaced and all-namespaces list pages against the raw
//     Table GETs (includeObject None and Metadata), and the pages as a
//     browser asks for them (compressed) against identity, -n requests of
//     each kind interleaved after a warm-up; then where a page's time goes;
//   - columns: the namespaced page with two label columns (?labelColumns=)
//     against the raw Metadata Table it asks for, and, reported, the page
//     with a custom column (200 rows) against the raw Object Table;
//   - memory: the console's VmRSS at rest before any page, after the list
//     run, after one all-namespaces -big-limit-row page and -rest-wait
//     later, and its peak while -concurrent such pages are served at once;
//   - browser: the namespaced list loaded in Chromium at -browser-limits
//     rows: first-row paint (Element Timing), FCP, LCP, DOM size, JS heap;
//   - paint: the floor, the home page, a pod's page and the namespaced
//     list at 500 and 5,000 rows, each load in a new browser context under
//     a Chromium performance trace: the first paint against the floor's,
//     and where the time to it went (parse, style, layout, script, paint,
//     waiting for the HTML, for render-blocking resources, for the frame);
//   - logs: the whole log of logbench/big straight from the API server
//     against the console's live log WebSocket, in bytes/s;
//   - watch: the latency from a ConfigMap PATCH to its event on a live list
//     page, at -watch-rate changes per second (creates namespace
//     -watch-namespace and its ConfigMaps);
//   - clients: the console's resident memory and upstream watch count with
//     -clients live list WebSockets open;
//   - exec: the keystroke echo round trip into a shell in a demo pod, through
//     the console's terminal socket against kubectl exec -i -t (on a pty)
//     and client-go's executor, -exec-keys keystrokes each, taking turns.
//   - search: a name search for -search-query across every kind in all
//     namespaces (with -crds bench CRDs in the cluster): Chromium's first
//     result row paint and completion, the page over HTTP alone, in a row
//     (also compressed, as a browser asks) and -search-concurrent at once,
//     kube-apiserver's requests per search against kinds × pages, the
//     console's VmRSS during and after, and the budget the page states;
//     last, -search-concurrent different searches at once that read what
//     the one reads (reported, not held against the target: they cannot
//     share a run).
//   - relations: the Deployment demo/web's object page (its 3 Pods, with
//     -crds bench CRDs in the cluster) without and with its Related section
//     (?related=0), its map (?view=map) and the namespace map of demo,
//     -relations-runs loads each after -warmup, over HTTP as a browser
//     asks: medians, the Related section's added %, and the upstream
//     requests and skipped kinds each page states.
//   - changes: the recent changes of namespace bulk over 24 h, one load
//     unmeasured, one with the console's VmRSS sampled, then
//     -relations-runs: the median against 2 s, and what the page states it
//     read.
//   - problems: the Problems page of all namespaces, measured as changes
//     is.
//   - export: the bulk pods exported through the console as CSV and as
//     YAML (?export=), -export-runs each after one unmeasured, read to the
//     end: rows/s and the console's VmRSS growth, against the same pages
//     read straight from the API server.
//   - bulk: -bulk-pods pods of a namespace of their own (created) deleted
//     through the console's bulk review and apply, with the console's
//     context behind a counting proxy: the apply's time, and the most
//     upstream requests in flight, against the budget;
//   - fleet: two more dev control planes (no pods) and a delaying proxy in
//     front of one, a console serving the three: a fleet list of pods
//     (first section, complete) against each cluster's own page, its
//     VmRSS, a cluster slow and one stopped, and -fleet-clients live fleet
//     pages' upstream watches.
//   - filter: filtered list pages of namespace bulk (?filter=): one matching
//     nothing (it reads its whole scan budget), one matching every row, one
//     some; medians over -relations-runs, the console's VmRSS during the
//     first, and what each page states it read.
//
// A live measurement that fails (the console may not serve WebSockets yet)
// is reported as not measured, the others still run, and the exit code is 1.
//
//	TABULA_BIN_DIR=bin go run ./e2e/bench
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
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
	// targetLogRatio is the console's log throughput over the raw one.
	targetLogRatio = 0.8
)

// measurements, in the order they run.
var measurements = []string{"list", "columns", "memory", "browser", "paint", "logs", "watch", "clients", "exec", "search", "relations", "changes", "problems", "fleet", "filter", "export", "bulk"}

type options struct {
	requests       int
	warmup         int
	pods           int
	limit          int
	dataDir        string
	keep           bool
	timeout        time.Duration
	clusterTimeout time.Duration
	kubeconfig     string
	consoleArgs    []string
	measure        map[string]bool

	bigLimit   int
	restWait   time.Duration
	concurrent []int

	browserLimits []int
	browserPages  []string
	browserRuns   int
	chromium      string

	paintRuns   int
	paintPod    string
	paintTraces string
	paintFrom   string
	paintPages  []string
	paintCopies bool

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

	crds             int
	searchQuery      string
	searchRuns       int
	searchConcurrent int

	relationsRuns int
	bulkPods      int
	fleetClients  int
	exportRuns    int
}

func main() {
	var o options
	flag.IntVar(&o.requests, "n", 30, "measured requests of each kind (at least 20)")
	flag.IntVar(&o.warmup, "warmup", 5, "unmeasured requests of each kind first")
	flag.IntVar(&o.pods, "pods", 20000, "kwok pods to seed in namespace "+namespace+" (with -kubeconfig: how many must be there)")
	flag.IntVar(&o.limit, "limit", 500, "page size, as the console page's default limit")
	flag.StringVar(&o.dataDir, "data-dir", "", "dev control plane data directory (default: a temporary directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the data directory and logs")
	flag.DurationVar(&o.timeout, "timeout", time.Hour, "overall deadline")
	flag.DurationVar(&o.clusterTimeout, "cluster-timeout", 20*time.Minute, "deadline for the dev control plane to have every pod Running (about 4 min for 20,000 here)")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "measure against this running cluster (context "+contextName+", pods in namespace "+namespace+") instead of starting one; it is not changed unless -measure names watch")
	consoleArgs := flag.String("console-args", "", "space-separated extra flags for the console, e.g. '--memory-limit=0' to compare memory settings")
	measure := flag.String("measure", strings.Join(measurements, ","), "comma-separated measurements to run: "+strings.Join(measurements, ", "))
	flag.IntVar(&o.bigLimit, "big-limit", 5000, "rows of the all-namespaces page of the memory measurement")
	flag.DurationVar(&o.restWait, "rest-wait", 30*time.Second, "how long the console rests before the memory target is read")
	concurrent := flag.String("concurrent", "1,4", "comma-separated numbers of big pages served at once for the peak memory, one round each")
	browserPages := flag.String("browser-pages", "", "comma-separated further pages to load in Chromium, as console paths (/c/admin/…) or URLs")
	browserLimits := flag.String("browser-limits", "500,5000", "comma-separated page sizes of the namespaced list loaded in Chromium")
	flag.IntVar(&o.browserRuns, "browser-runs", 7, "measured loads of each size in Chromium")
	flag.IntVar(&o.paintRuns, "paint-runs", 7, "measured traced loads of each page of the paint measurement")
	flag.StringVar(&o.paintPod, "paint-pod", "bulk-00000", "pod of namespace "+namespace+" whose object page the paint measurement loads")
	paintPages := flag.String("paint-pages", "", "comma-separated further console paths (or URLs) the paint measurement loads and reports, with no budget; a path of a pod list is timed to its first row")
	flag.BoolVar(&o.paintCopies, "paint-copies", true, "also load static copies of the budgeted pages, whole and without their scripts and sidebar, from the floor's server (untraced): what each page costs the browser with no server work beside it")
	flag.StringVar(&o.paintFrom, "paint-from", "/healthz", "path of the same origin each paint load starts from, untraced, as a click in the console does (empty: a new tab's first page, from about:blank)")
	flag.StringVar(&o.paintTraces, "paint-traces", "", "directory to keep the paint measurement's traces in (open them in DevTools' Performance panel)")
	flag.StringVar(&o.chromium, "chromium", envOr("TABULA_E2E_CHROMIUM", "/usr/bin/chromium"), "Chromium executable")
	flag.IntVar(&o.logMB, "log-mb", 64, "MiB of log served for pod "+logNamespace+"/"+logPod+" (devcluster --log-bench-mb)")
	flag.IntVar(&o.logRuns, "log-runs", 3, "complete reads of the log through each path")
	flag.IntVar(&o.watchRate, "watch-rate", 200, "ConfigMap changes per second")
	flag.DurationVar(&o.watchDuration, "watch-duration", 10*time.Second, "how long to send changes")
	flag.IntVar(&o.watchConfigMaps, "watch-configmaps", 20, "ConfigMaps the changes rotate over")
	flag.IntVar(&o.watchWorkers, "watch-workers", 16, "goroutines sending the PATCHes")
	flag.StringVar(&o.watchNamespace, "watch-namespace", "watchbench", "namespace of the watched ConfigMaps (created)")
	flag.IntVar(&o.clients, "clients", 2000, "concurrent live list WebSockets for the memory measurement")
	flag.IntVar(&o.fleetClients, "fleet-clients", 1000, "live fleet pages of the fleet measurement (one live list per cluster each)")
	clientNamespaces := flag.String("clients-namespaces", namespace, "comma-separated namespaces whose pod lists the clients open, round robin")
	flag.DurationVar(&o.clientSettle, "clients-settle", 3*time.Second, "wait after the last client connected (and after closing them) before reading memory")
	flag.IntVar(&o.execKeys, "exec-keys", 1000, "measured keystrokes per path for the keystroke echo")
	flag.IntVar(&o.execWarmup, "exec-warmup", 20, "unmeasured keystrokes per path first")
	flag.StringVar(&o.execPod, "exec-pod", "", "pod of namespace "+execNamespace+" to type into (default: the first Running one by name)")
	flag.IntVar(&o.crds, "crds", 200, "bench CRDs with 3 objects each the cluster gets for the search and relations measurements (devcluster --crds)")
	flag.StringVar(&o.searchQuery, "search-query", "bulk-0001", "what the search measurement searches for, in all namespaces (devcluster's probe objects and bulk pods bulk-00010…19 hold bulk-0001)")
	flag.IntVar(&o.searchRuns, "search-runs", 10, "searches in a row over HTTP")
	flag.IntVar(&o.searchConcurrent, "search-concurrent", 10, "searches at once over HTTP")
	flag.IntVar(&o.relationsRuns, "relations-runs", 15, "measured loads of each relation page")
	flag.IntVar(&o.exportRuns, "export-runs", 3, "measured exports of each format (CSV, YAML)")
	flag.IntVar(&o.bulkPods, "bulk-pods", 500, "pods of namespace "+bulkNamespace+" (created) the bulk measurement deletes")
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
	for _, m := range splitList(*measure) {
		if !slices.Contains(measurements, m) {
			usage(fmt.Sprintf("-measure: unknown measurement %q (known: %s)", m, strings.Join(measurements, ", ")))
		}
		o.measure[m] = true
	}
	o.clientNamespaces = splitList(*clientNamespaces)
	o.paintPages = splitList(*paintPages)
	o.consoleArgs = strings.Fields(*consoleArgs)
	var err error
	if o.concurrent, err = positiveInts(*concurrent); err != nil {
		usage("-concurrent: " + err.Error())
	}
	for _, p := range strings.Split(*browserPages, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.browserPages = append(o.browserPages, p)
		}
	}
	if o.browserLimits, err = positiveInts(*browserLimits); err != nil || len(o.browserLimits) == 0 {
		usage(fmt.Sprintf("-browser-limits: want at least one positive number (%v)", err))
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
	case o.crds < 0 || o.searchQuery == "" || o.searchRuns < 1 || o.searchConcurrent < 1:
		usage("-crds must not be negative, -search-query not empty, -search-runs and -search-concurrent positive")
	case o.relationsRuns < 1:
		usage("-relations-runs must be positive")
	case o.exportRuns < 1:
		usage("-export-runs must be positive")
	case o.bulkPods < 1 || o.bulkPods > 1000:
		usage("-bulk-pods must be from 1 to 1000, what one bulk review takes")
	case o.bigLimit < 1 || o.restWait < 0 || o.browserRuns < 1 || o.paintRuns < 1:
		usage("-big-limit, -browser-runs and -paint-runs must be positive and -rest-wait not negative")
	}
	if o.measure["search"] {
		// Found out now rather than after the cluster has started.
		if _, err := distinctQueries(o.searchQuery, o.searchConcurrent); err != nil {
			usage("-search-query and -search-concurrent: " + err.Error())
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	err = run(ctx, o)
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// positiveInts parses a comma-separated list of positive numbers.
func positiveInts(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", x)
		}
		out = append(out, n)
	}
	return out, nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// targetResult is one target of the final summary.
type targetResult struct {
	name, value string
	ok          bool
}

// reportedFigure is a figure the final summary shows beside the targets
// without holding it against one; note says why, in the verdict's place.
type reportedFigure struct{ name, value, note string }

func reportTargets(w io.Writer, targets []targetResult, figures []reportedFigure) {
	fmt.Fprintf(w, "\n### Targets\n\n")
	fmt.Fprintln(w, "| target | measured | |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range targets {
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.name, t.value, verdict(t.ok))
	}
	for _, f := range figures {
		fmt.Fprintf(w, "| %s | %s | %s |\n", f.name, f.value, f.note)
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
	kubeconfig := o.kubeconfig
	if kubeconfig == "" {
		slog.Info("starting dev control plane", "pods", o.pods, "dir", dir)
		dcOpts := harness.DevClusterOptions{
			DataDir: filepath.Join(dir, "cluster"), Seed: true, Pods: o.pods,
			// The ready line comes once every pod is Running.
			ReadyTimeout: o.clusterTimeout, Timeout: o.clusterTimeout + time.Minute,
		}
		if o.measure["logs"] {
			dcOpts.LogBenchMB = o.logMB
		}
		if o.measure["search"] || o.measure["relations"] {
			dcOpts.CRDs = o.crds
		}
		dc, err := harness.StartDevCluster(ctx, dcOpts)
		if err != nil {
			return err
		}
		defer stopProcess("devcluster", dc.Process, 30*time.Second)
		slog.Info("dev control plane ready", "server", dc.Server, "after", time.Since(t0).Round(time.Millisecond))
		kubeconfig = dc.Kubeconfig
	}

	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: contextName},
	).ClientConfig()
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	kube, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	server := strings.TrimSuffix(cfg.Host, "/")
	podsURL := server + "/api/v1/namespaces/" + namespace + "/pods"

	if err := waitForPods(ctx, kube, podsURL, o.pods, o.clusterTimeout); err != nil {
		return err
	}
	slog.Info("bulk pods listable", "pods", o.pods, "after", time.Since(t0).Round(time.Millisecond))
	// Measure a settled cluster: while kwok is still moving pods to
	// Running, the API server is busy and every figure is noise.
	if err := waitForRunning(ctx, kube, podsURL, o.clusterTimeout); err != nil {
		return err
	}
	slog.Info("bulk pods Running", "after", time.Since(t0).Round(time.Millisecond))

	args := o.consoleArgs
	if o.measure["clients"] {
		// Every live list takes a stream slot of its user's and of the
		// console's: the clients, all one identity, need that many.
		slots := strconv.Itoa(o.clients + 64)
		args = append([]string{"--max-streams=" + slots, "--max-streams-per-user=" + slots}, args...)
	}
	console, err := harness.StartConsole(ctx, dir, kubeconfig, args...)
	if err != nil {
		return err
	}
	defer stopProcess("console", console.Process, 10*time.Second)
	slog.Info("console ready", "url", console.URL, "extra flags", args)
	browser := &http.Client{Timeout: 2 * time.Minute}
	out := os.Stdout
	var targets []targetResult
	var figures []reportedFigure

	// At rest before any page, and after the list run, for the memory table.
	var points []memReading
	if o.measure["memory"] {
		points = append(points, memory(ctx, browser, console.URL, console.Pid(), restBeforeAnyPage))
	}
	if o.measure["list"] {
		t, err := benchList(ctx, o, out, kube, browser, server, console)
		if err != nil {
			return err
		}
		targets = append(targets, t...)
		if o.measure["memory"] {
			points = append(points, memory(ctx, browser, console.URL, console.Pid(), "after the list run"))
		}
	}
	var errs []error
	if o.measure["columns"] {
		slog.Info("measuring label and custom columns", "requests", o.requests)
		res, err := measureColumns(ctx, o, kube, browser, server, console.URL)
		t, f := reportColumns(out, o, res, err)
		targets, figures = append(targets, t...), append(figures, f...)
		if err != nil {
			errs = append(errs, fmt.Errorf("columns: %w", err))
		}
	}
	if o.measure["memory"] {
		slog.Info("measuring console memory", "rows", o.bigLimit, "rest", o.restWait, "concurrent", o.concurrent)
		res, err := measureMemory(ctx, o, browser, console.URL, console.Pid(), points)
		targets = append(targets, reportMemory(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("memory: %w", err))
		}
	}
	if o.measure["browser"] {
		slog.Info("measuring the list in chromium", "sizes", o.browserLimits, "runs", o.browserRuns)
		res, err := measureBrowser(ctx, o, console.URL)
		targets = append(targets, reportBrowser(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("browser: %w", err))
		}
	}
	if o.measure["paint"] {
		slog.Info("tracing first paints in chromium", "runs", o.paintRuns)
		res, err := measurePaint(ctx, o, console.URL)
		targets = append(targets, reportPaint(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("paint: %w", err))
		}
	}

	ws, err := newWSClient(console.URL)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	// Enough for -watch-rate PATCHes per second without client-side throttling.
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 1000, 1000
	client, err := kubernetes.NewForConfig(fast)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if o.measure["logs"] {
		slog.Info("measuring log throughput", "mib", o.logMB, "runs", o.logRuns)
		res, err := measureLogs(ctx, o, kube, server, ws)
		targets = append(targets, reportLogs(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("log throughput: %w", err))
		} else if res.consoleErr != nil {
			errs = append(errs, fmt.Errorf("log throughput through the console: %w", res.consoleErr))
		}
	}
	if o.measure["watch"] {
		slog.Info("measuring watch latency", "rate", o.watchRate, "duration", o.watchDuration)
		res, err := measureWatch(ctx, o, client, ws)
		reportWatch(out, o, res, err)
		if err != nil {
			err = fmt.Errorf("watch latency: %w", err)
		}
		errs = append(errs, err)
	}
	if o.measure["clients"] {
		slog.Info("measuring console memory with live clients", "clients", o.clients)
		res, err := measureClients(ctx, o, client, ws, browser, console.URL, console.Pid())
		reportClients(out, o, res, err)
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
		res, err := measureExec(ctx, o, execTargets{ws: ws, kubeconfig: kubeconfig, kubectl: filepath.Join(bin, "kubectl"), client: client})
		reportExec(out, o, res, err)
		if err == nil {
			err = res.failed()
		}
		if err != nil {
			err = fmt.Errorf("keystroke echo: %w", err)
		}
		errs = append(errs, err)
	}
	if o.measure["search"] {
		slog.Info("measuring the search", "query", o.searchQuery, "runs", o.searchRuns, "concurrent", o.searchConcurrent)
		res, err := measureSearch(ctx, o, kube, server, browser, console)
		t, f := reportSearch(out, o, res, err)
		targets, figures = append(targets, t...), append(figures, f...)
		if err == nil {
			err = errors.Join(res.browserErr, res.distinctErr)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("search: %w", err))
		}
	}
	if o.measure["relations"] {
		slog.Info("measuring relations", "runs", o.relationsRuns, "warmup", o.warmup)
		res, err := measureRelations(ctx, o, kube, browser, server, console.URL)
		targets = append(targets, reportRelations(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("relations: %w", err))
		}
	}
	if o.measure["changes"] {
		slog.Info("measuring recent changes", "runs", o.relationsRuns)
		res, err := measureChanges(ctx, o, browser, console.URL, console.Pid())
		targets = append(targets, reportChanges(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("changes: %w", err))
		}
	}
	if o.measure["fleet"] {
		slog.Info("measuring the fleet", "runs", o.relationsRuns, "fleet pages", o.fleetClients)
		res, err := measureFleet(ctx, o, dir, kubeconfig)
		targets = append(targets, reportFleet(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("fleet: %w", err))
		}
	}
	if o.measure["problems"] {
		slog.Info("measuring problems", "runs", o.relationsRuns)
		res, err := measureProblems(ctx, o, browser, console.URL, console.Pid())
		targets = append(targets, reportProblems(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("problems: %w", err))
		}
	}
	if o.measure["filter"] {
		slog.Info("measuring filtered lists", "runs", o.relationsRuns)
		res, err := measureFilter(ctx, o, browser, console.URL, console.Pid())
		targets = append(targets, reportFilter(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("filter: %w", err))
		}
	}
	if o.measure["export"] {
		slog.Info("measuring the export", "runs", o.exportRuns)
		res, err := measureExport(ctx, o, kube, browser, server, console.URL, console.Pid())
		targets = append(targets, reportExport(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("export: %w", err))
		}
	}
	if o.measure["bulk"] {
		slog.Info("measuring a bulk delete", "pods", o.bulkPods)
		res, err := measureBulk(ctx, o, dir, kubeconfig, fast, client)
		targets = append(targets, reportBulk(out, o, res, err)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("bulk: %w", err))
		}
	}
	if len(targets) > 0 || len(figures) > 0 {
		reportTargets(out, targets, figures)
	}
	return errors.Join(errs...)
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
		s, err := fetch(ctx, c, url, tableAccept, "")
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
		s, err := fetch(ctx, c, url, tableAccept, "")
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

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
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
