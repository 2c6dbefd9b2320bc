package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

// Targets of the fleet (issue 26).
const (
	// targetFleetFirstMs is a fleet list's first section, painted.
	targetFleetFirstMs = 500
	// targetFleetRatio bounds the whole fleet page against its slowest
	// cluster's own page.
	targetFleetRatio = 1.3
	// targetFleetGrowthMiB is the console's VmRSS growth during one page.
	targetFleetGrowthMiB = 32
	// fleetSlowDelay is how long the delaying proxy holds each answer of
	// the slow cluster.
	fleetSlowDelay = 2 * time.Second
)

// fleetResult is the fleet measurement.
type fleetResult struct {
	// single are each cluster's own pod list (100 rows), by context.
	single map[string][]float64
	// first and complete are the fleet page's first section and whole
	// page.
	first, complete []float64
	peak            peakResult
	// stopped: the page with one cluster stopped: its time, and whether
	// the stopped one's section said why.
	stoppedMs   float64
	stoppedSaid bool
	// slow: the page with one cluster behind the delaying proxy: when the
	// two others' sections were in, and the whole page.
	slowOthersMs, slowCompleteMs float64
	// live: clients open on each cluster's live list, and the console's
	// upstream watches with all of them open.
	liveClients int
	watches     float64
	hasWatches  bool
}

// fleetContexts are the fleet's contexts, in the page's order.
var fleetContexts = []string{contextName, "second", "third"}

// measureFleet starts two more dev control planes beside the bench's (no
// pods), a delaying proxy in front of the third, and a console serving all
// of them, and measures a fleet list of pods.
func measureFleet(ctx context.Context, o options, dir, kubeconfig string) (fleetResult, error) {
	var res fleetResult
	var extra []*harness.DevCluster
	defer func() {
		for _, dc := range extra {
			stopProcess("devcluster", dc.Process, 30*time.Second)
		}
	}()
	// One after the other: devcluster picks free ports and frees them
	// before its components bind them.
	for _, name := range fleetContexts[1:] {
		dc, err := harness.StartDevCluster(ctx, harness.DevClusterOptions{DataDir: filepath.Join(dir, name), Nodes: 1, Timeout: 3 * time.Minute})
		if err != nil {
			return res, fmt.Errorf("starting %s: %w", name, err)
		}
		extra = append(extra, dc)
	}
	proxy, err := startDelayingProxy(ctx, strings.TrimPrefix(extra[1].Server, "https://"), fleetSlowDelay)
	if err != nil {
		return res, err
	}
	defer proxy.Close()
	merged := filepath.Join(dir, "fleet.kubeconfig")
	if err := harness.WriteMergedKubeconfig(merged,
		harness.KubeconfigContext{Kubeconfig: kubeconfig, Context: contextName},
		harness.KubeconfigContext{Kubeconfig: extra[0].Kubeconfig, Context: "admin", As: "second", Cluster: "tabula-dev-2"},
		harness.KubeconfigContext{Kubeconfig: extra[1].Kubeconfig, Context: "admin", As: "third", Cluster: "tabula-dev-3"},
	); err != nil {
		return res, err
	}
	if err := addSlowContext(merged, "third", "slow", "https://"+proxy.Addr().String()); err != nil {
		return res, err
	}
	slots := fmt.Sprint(3*o.fleetClients + 64)
	logDir := filepath.Join(dir, "fleet-console")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return res, err
	}
	console, err := harness.StartConsole(ctx, logDir, merged, "--max-streams="+slots, "--max-streams-per-user="+slots)
	if err != nil {
		return res, err
	}
	defer stopProcess("console", console.Process, 10*time.Second)
	browser := &http.Client{Timeout: 2 * time.Minute}
	fleet := "/c/" + strings.Join(fleetContexts, ",") + "/api/v1/pods"

	// Each cluster's own page of 100 pods, and the fleet page, in turns.
	res.single = map[string][]float64{}
	for i := range o.relationsRuns + 1 {
		for _, name := range fleetContexts {
			s, err := fetch(ctx, browser, console.URL+"/c/"+name+"/api/v1/pods?limit=100", "text/html", browserAcceptEncoding)
			if err != nil {
				return res, err
			}
			if i > 0 {
				res.single[name] = append(res.single[name], ms(s.d))
			}
		}
		first, complete, _, err := fetchSections(ctx, browser, console.URL+fleet, 1)
		if err != nil {
			return res, err
		}
		if i > 0 {
			res.first, res.complete = append(res.first, ms(first)), append(res.complete, ms(complete))
		}
	}
	res.peak, err = measurePeak(ctx, console.Pid(), 1, func() (sample, error) {
		_, complete, _, err := fetchSections(ctx, browser, console.URL+fleet, 1)
		return sample{d: complete}, err
	})
	if err != nil {
		return res, err
	}

	// Live: the fleet page's sections follow each cluster's own list.
	if res.liveClients, res.watches, res.hasWatches, err = fleetLive(ctx, o, browser, console.URL); err != nil {
		return res, err
	}

	// One cluster behind a proxy that holds each answer.
	others, complete, _, err := fetchSections(ctx, browser, console.URL+"/c/"+contextName+",second,slow/api/v1/pods", 2)
	if err != nil {
		return res, err
	}
	res.slowOthersMs, res.slowCompleteMs = ms(others), ms(complete)

	// One cluster stopped.
	stopProcess("devcluster third", extra[1].Process, 30*time.Second)
	_, complete, body, err := fetchSections(ctx, browser, console.URL+fleet, 1)
	if err != nil {
		return res, err
	}
	res.stoppedMs = ms(complete)
	res.stoppedSaid = bytes.Contains(body, []byte(`data-context="third"`)) && bytes.Contains(body, []byte(`data-testid="fleet-list-error"`))
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// dataRV is a live list's version on its page.
var dataRV = regexp.MustCompile(`data-rv="([0-9]+)"`)

// fetchSections loads a fleet page as a browser does, and says when its
// first n sections had arrived and when it was complete.
func fetchSections(ctx context.Context, c *http.Client, url string, n int) (first, complete time.Duration, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, nil, err
	}
	req.Header.Set("Accept", "text/html")
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var buf bytes.Buffer
	r := bufio.NewReader(resp.Body)
	chunk := make([]byte, 32<<10)
	marker := []byte(`data-testid="fleet-list-section"`)
	for {
		k, err := r.Read(chunk)
		buf.Write(chunk[:k])
		if first == 0 && bytes.Count(buf.Bytes(), marker) >= n {
			first = time.Since(start)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, nil, err
		}
	}
	return first, time.Since(start), buf.Bytes(), nil
}

// fleetLive opens o.fleetClients live lists on each cluster, as that many
// fleet pages' sections would, and reads the console's upstream watches.
func fleetLive(ctx context.Context, o options, browser *http.Client, consoleURL string) (clients int, watches float64, has bool, err error) {
	ws, err := newWSClient(consoleURL)
	if err != nil {
		return 0, 0, false, err
	}
	// Each stream starts from its page's version, as a page's does: from
	// none, it would first replay every pod.
	versions := map[string]string{}
	for _, name := range fleetContexts {
		page, err := fetch(ctx, browser, consoleURL+"/c/"+name+"/api/v1/pods?limit=1", "text/html", "")
		if err != nil {
			return 0, 0, false, err
		}
		m := dataRV.FindSubmatch(page.body)
		if m == nil {
			return 0, 0, false, fmt.Errorf("no list version on %s's pod list", name)
		}
		versions[name] = string(m[1])
	}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var mu sync.Mutex
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	var dialErr error
	for i := range o.fleetClients * len(fleetContexts) {
		if ctx.Err() != nil {
			break
		}
		name := fleetContexts[i%len(fleetContexts)]
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := ws.dial(ctx, "/c/"+name+"/api/v1/pods?limit=100&resourceVersion="+versions[name])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				dialErr = err
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	if dialErr != nil {
		return len(conns), 0, false, dialErr
	}
	// Every stream has asked for its watch once the count settles.
	var last float64 = -1
	for range 50 {
		m, err := scrape(ctx, browser, consoleURL+"/metrics")
		if err != nil {
			return len(conns), 0, false, err
		}
		w, ok := m[metricUpstreamWatches]
		if !ok {
			return len(conns), 0, false, nil
		}
		if w == last {
			return len(conns), w, true, nil
		}
		last = w
		time.Sleep(200 * time.Millisecond)
	}
	return len(conns), last, true, nil
}

// addSlowContext adds to the kubeconfig at path a context named slow that
// is from's, but for its server, which is server.
func addSlowContext(path, from, slow, server string) error {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return err
	}
	src, ok := cfg.Contexts[from]
	if !ok {
		return fmt.Errorf("no context %q in %s", from, path)
	}
	cluster := cfg.Clusters[src.Cluster].DeepCopy()
	cluster.Server = server
	cfg.Clusters[slow] = cluster
	ctx := src.DeepCopy()
	ctx.Cluster = slow
	cfg.Contexts[slow] = ctx
	return clientcmd.WriteToFile(*cfg, path)
}

// delayingProxy forwards TCP connections to a backend, holding each burst
// of the backend's answer for delay: every response of a cluster behind
// it comes that much later, whatever the TLS inside.
type delayingProxy struct{ net.Listener }

func startDelayingProxy(ctx context.Context, backend string, delay time.Duration) (*delayingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				up, err := (&net.Dialer{}).DialContext(ctx, "tcp", backend)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, conn) }()
				buf := make([]byte, 32<<10)
				last := time.Time{}
				for {
					n, err := up.Read(buf)
					if n > 0 {
						// A burst after a pause is a new answer: hold it.
						if time.Since(last) > 50*time.Millisecond {
							time.Sleep(delay)
						}
						if _, werr := conn.Write(buf[:n]); werr != nil {
							return
						}
						last = time.Now()
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return &delayingProxy{ln}, nil
}

func reportFleet(w io.Writer, o options, res fleetResult, err error) []targetResult {
	names := []string{
		fmt.Sprintf("fleet: first section of a 3-cluster pod list ≤ %d ms (p50)", targetFleetFirstMs),
		fmt.Sprintf("fleet: the whole page ≤ %.1f× the slowest cluster's own page (p50)", targetFleetRatio),
		fmt.Sprintf("fleet: console VmRSS growth during one ≤ %d MiB", targetFleetGrowthMiB),
		"fleet: with one cluster stopped, the others complete in their time and it says why",
		"fleet: with one cluster slow, the others' sections are not held up",
		"fleet: live sections hold one upstream watch per cluster and list",
	}
	fmt.Fprintf(w, "\n### Fleet: pods over %s (%d bulk pods in %s, none in the others)\n\n", strings.Join(fleetContexts, ", "), o.pods, contextName)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		out := make([]targetResult, len(names))
		for i, n := range names {
			out[i] = targetResult{name: n, value: "not measured"}
		}
		return out
	}
	slowest, slowestName := 0.0, ""
	fmt.Fprintln(w, "| page | p50 | min–max |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, name := range fleetContexts {
		p := median(res.single[name])
		if p > slowest {
			slowest, slowestName = p, name
		}
		fmt.Fprintf(w, "| %s's own pods, 100 rows | %.0f ms | %.0f–%.0f ms |\n", name, p, nearestRank(res.single[name], 0), nearestRank(res.single[name], 1))
	}
	first, complete := median(res.first), median(res.complete)
	fmt.Fprintf(w, "| fleet page: first section | %.0f ms | %.0f–%.0f ms |\n", first, nearestRank(res.first, 0), nearestRank(res.first, 1))
	fmt.Fprintf(w, "| fleet page: complete | %.0f ms | %.0f–%.0f ms |\n", complete, nearestRank(res.complete, 0), nearestRank(res.complete, 1))
	fmt.Fprintf(w, "\nWith %s stopped: complete in %.0f ms; its section says why: %v. With a cluster behind a proxy holding each answer %s: the two others' sections in %.0f ms, the page complete in %.0f ms.\n",
		fleetContexts[2], res.stoppedMs, res.stoppedSaid, fleetSlowDelay, res.slowOthersMs, res.slowCompleteMs)
	growth := float64(res.peak.peakKiB()-res.peak.beforeKiB) / 1024
	fmt.Fprintf(w, "Console VmRSS before / peak during one fleet page: %s / %s.\n", mib(res.peak.beforeKiB), mib(res.peak.peakKiB()))
	watches := "not exported"
	if res.hasWatches {
		watches = fmt.Sprintf("%.0f", res.watches)
	}
	fmt.Fprintf(w, "Live: %d live lists open (%d per cluster): %s upstream watches.\n", res.liveClients, o.fleetClients, watches)
	ratio := complete / slowest
	return []targetResult{
		{names[0], fmt.Sprintf("%.0f ms", first), first <= targetFleetFirstMs},
		{names[1], fmt.Sprintf("%.2f× (%.0f ms vs %s's %.0f ms)", ratio, complete, slowestName, slowest), ratio <= targetFleetRatio},
		{names[2], fmt.Sprintf("%+.1f MiB", growth), growth <= targetFleetGrowthMiB},
		{names[3], fmt.Sprintf("%.0f ms (normally %.0f), said why: %v", res.stoppedMs, complete, res.stoppedSaid), res.stoppedSaid && res.stoppedMs <= targetFleetRatio*complete+1000},
		{names[4], fmt.Sprintf("others in %.0f ms, slow one at %.0f ms", res.slowOthersMs, res.slowCompleteMs), res.slowOthersMs < ms(fleetSlowDelay)},
		{names[5], fmt.Sprintf("%s watches for %d clients on %d clusters", watches, res.liveClients, len(fleetContexts)), res.hasWatches && res.watches <= float64(len(fleetContexts))},
	}
}
