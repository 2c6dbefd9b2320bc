package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Console metrics the client measurement reads, when exported.
const (
	metricUpstreamWatches = "tabula_upstream_watches"
	metricWebSockets      = "tabula_websockets_open"
)

// memPoint is the console's state at one moment of the client measurement.
type memPoint struct {
	rssKiB     int64 // -1: unknown
	watches    float64
	hasWatches bool
	sockets    float64
	hasSockets bool
}

type clientsResult struct {
	clients                int
	dialTime               time.Duration
	before, during, closed memPoint
	messages               int64 // received by all clients while open
	// Soft open-files limits of the bench and the console (-1: unknown).
	benchFiles, consoleFiles int64
}

// measureClients opens o.clients live list pages (round robin over
// o.clientNamespaces' pod lists) and reads the console's resident memory and
// upstream watch count before, with all of them open, and after they close.
func measureClients(ctx context.Context, o options, client kubernetes.Interface, ws *wsClient, browser *http.Client, consoleURL string, pid int) (clientsResult, error) {
	paths := make([]string, len(o.clientNamespaces))
	for i, ns := range o.clientNamespaces {
		// The rv of a one-item list is the current one, as the page's is.
		list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return clientsResult{}, fmt.Errorf("listing pods in %s: %w", ns, err)
		}
		paths[i] = "/c/" + contextName + "/api/v1/namespaces/" + ns + "/pods?resourceVersion=" + list.ResourceVersion
	}
	point := func() (memPoint, error) {
		m, err := scrape(ctx, browser, consoleURL+"/metrics")
		if err != nil {
			return memPoint{}, err
		}
		p := memPoint{rssKiB: vmRSSKiB(pid)}
		p.watches, p.hasWatches = metricSum(m, metricUpstreamWatches)
		p.sockets, p.hasSockets = metricSum(m, metricWebSockets)
		return p, nil
	}
	res, err := holdClients(ctx, o, ws, paths, point)
	res.benchFiles, res.consoleFiles = openFilesLimit(os.Getpid()), openFilesLimit(pid)
	return res, err
}

// holdClients is measureClients once the pages' addresses are known: it
// takes a point before, while o.clients WebSockets to paths (round robin)
// are open, and after they are closed.
func holdClients(ctx context.Context, o options, ws *wsClient, paths []string, point func() (memPoint, error)) (clientsResult, error) {
	res := clientsResult{clients: o.clients}
	var err error
	if res.before, err = point(); err != nil {
		return res, err
	}

	// Dial with bounded concurrency; each open connection gets a reader,
	// which also answers the server's pings.
	conns := make([]*websocket.Conn, o.clients)
	var messages atomic.Int64
	var readers sync.WaitGroup
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		readers.Wait()
	}()
	var dialErrs atomic.Int64
	var firstErr error
	var errOnce sync.Once
	sem := make(chan struct{}, 32)
	var dials sync.WaitGroup
	t := time.Now()
	for i := range conns {
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := ws.dial(ctx, paths[i%len(paths)])
			if err != nil {
				dialErrs.Add(1)
				errOnce.Do(func() { firstErr = err })
				return
			}
			conns[i] = c
			readers.Go(func() {
				for {
					if _, _, err := c.NextReader(); err != nil {
						return
					}
					messages.Add(1)
				}
			})
		})
	}
	dials.Wait()
	res.dialTime = time.Since(t)
	if n := dialErrs.Load(); n > 0 {
		return res, fmt.Errorf("%d of %d WebSockets failed, the first with: %w", n, o.clients, firstErr)
	}
	slog.Info("live list clients connected", "clients", o.clients, "after", res.dialTime.Round(time.Millisecond))

	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(o.clientSettle):
	}
	if res.during, err = point(); err != nil {
		return res, err
	}
	res.messages = messages.Load()

	// Close every client normally, then give the console time to release.
	var closes sync.WaitGroup
	for i, c := range conns {
		if c != nil {
			closes.Go(func() { closeConn(c) })
		}
		conns[i] = nil
	}
	closes.Wait()
	readers.Wait()
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(o.clientSettle):
	}
	res.closed, err = point()
	return res, err
}

func reportClients(w io.Writer, o options, res clientsResult, err error) {
	fmt.Fprintf(w, "\n### Console memory with %d live list clients (pod lists of %s)\n\n",
		o.clients, strings.Join(o.clientNamespaces, ", "))
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v (open-files limits: bench %s, console %s)\n", err, filesLimit(res.benchFiles), filesLimit(res.consoleFiles))
		return
	}
	gauge := func(v float64, ok bool) string {
		if !ok {
			return "n/a"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	fmt.Fprintln(w, "| when | console VmRSS | upstream watches | WebSockets open |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range []struct {
		name string
		p    memPoint
	}{
		{"before", res.before},
		{fmt.Sprintf("with %d clients (%s after the last connected)", res.clients, o.clientSettle), res.during},
		{fmt.Sprintf("%s after closing them", o.clientSettle), res.closed},
	} {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.name, mib(r.p.rssKiB),
			gauge(r.p.watches, r.p.hasWatches), gauge(r.p.sockets, r.p.hasSockets))
	}
	fmt.Fprintln(w)
	if res.before.rssKiB >= 0 && res.during.rssKiB >= 0 {
		delta := res.during.rssKiB - res.before.rssKiB
		fmt.Fprintf(w, "- VmRSS grew by %s with the clients: %.1f KiB per client.\n", mib(delta), float64(delta)/float64(res.clients))
	}
	fmt.Fprintf(w, "- All %d WebSockets were established in %s; they received %d messages while open.\n",
		res.clients, res.dialTime.Round(time.Millisecond), res.messages)
	fmt.Fprintf(w, "- Open-files limits (each socket is a file): bench %s, console %s.\n", filesLimit(res.benchFiles), filesLimit(res.consoleFiles))
}

func filesLimit(n int64) string {
	switch {
	case n < 0:
		return "unknown"
	case n == 0:
		return "unlimited"
	}
	return strconv.FormatInt(n, 10)
}
