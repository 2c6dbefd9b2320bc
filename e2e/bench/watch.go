package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// liveEvent is one channel-1 message of a live list.
type liveEvent struct {
	Type   string `json:"type"`
	UID    string `json:"uid"`
	Key    string `json:"key"`
	RV     string `json:"rv"`
	HTML   string `json:"html"`
	Notice string `json:"notice"`
}

// watchQuiet ends the wait for the last events: coalesced ones never come.
var watchQuiet = 3 * time.Second

// watchResult is the watch latency measurement.
type watchResult struct {
	planned     int
	sent        int // PATCHes that succeeded
	patchErrors int
	firstErr    error
	sendSpan    time.Duration // first to last PATCH sent
	received    int           // MODIFIED events whose rv matches a PATCH
	other       map[string]int
	latencies   []time.Duration // sorted
	streamErr   error           // the WebSocket ended early
}

// measureWatch opens the console's ConfigMap list of o.watchNamespace as a
// live page, then patches the ConfigMaps at o.watchRate for
// o.watchDuration and matches each resulting resourceVersion with the event
// the page receives for it.
func measureWatch(ctx context.Context, o options, client kubernetes.Interface, ws *wsClient) (watchResult, error) {
	ns := o.watchNamespace
	names, err := ensureWatchConfigMaps(ctx, client, ns, o.watchConfigMaps)
	if err != nil {
		return watchResult{}, err
	}
	cms := client.CoreV1().ConfigMaps(ns)
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return watchResult{}, err
	}
	pagePath := "/c/" + contextName + "/api/v1/namespaces/" + ns + "/configmaps?resourceVersion=" + list.ResourceVersion
	patch := func(ctx context.Context, name string, body []byte) (string, error) {
		cm, err := cms.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{})
		if err != nil {
			return "", err
		}
		return cm.ResourceVersion, nil
	}
	return watchLatency(ctx, o, ws, pagePath, names, patch)
}

// patchFunc merge-patches the named object and returns its new
// resourceVersion.
type patchFunc func(ctx context.Context, name string, body []byte) (rv string, err error)

// watchLatency is measureWatch once the objects exist: it opens the live
// page pagePath and sends the changes with patchObject, rotating over names.
func watchLatency(ctx context.Context, o options, ws *wsClient, pagePath string, names []string, patchObject patchFunc) (watchResult, error) {
	var res watchResult
	conn, err := ws.dial(ctx, pagePath)
	if err != nil {
		return res, err
	}
	defer closeConn(conn)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	// The reader records when each rv arrives; PATCH responses may come
	// back after their events, so matching happens at the end.
	var mu sync.Mutex
	recv := map[string]time.Time{}
	other := map[string]int{}
	lastMsg := time.Now()
	readerDone := make(chan error, 1)
	arrived := make(chan string, 1)
	go func() {
		fr := &frameReader{conn: conn}
		for {
			ch, payload, err := fr.next()
			at := time.Now()
			if err != nil {
				readerDone <- err
				return
			}
			switch ch {
			case chanData:
				var ev liveEvent
				if err := json.Unmarshal(payload, &ev); err != nil {
					readerDone <- fmt.Errorf("channel 1: %w: %.200q", err, payload)
					return
				}
				mu.Lock()
				lastMsg = at
				if ev.Type == "MODIFIED" && ev.RV != "" {
					if _, seen := recv[ev.RV]; !seen {
						recv[ev.RV] = at
					}
				} else {
					other[ev.Type]++
				}
				mu.Unlock()
				if ev.RV != "" {
					select {
					case arrived <- ev.RV:
					default:
					}
				}
			case chanDiagnostics:
				slog.Info("watch page diagnostic", "message", diagnostic(payload))
			case chanStatus:
				readerDone <- fmt.Errorf("server sent status %s", parseStatus(payload))
				return
			}
		}
	}()

	patch := func(i int) (string, error) {
		body := fmt.Sprintf(`{"metadata":{"annotations":{"bench.tabula.dev/seq":"%d"}}}`, i)
		return patchObject(ctx, names[(i+len(names))%len(names)], []byte(body))
	}

	// Warm up: one change must come through before the clock starts, so
	// that the console's upstream watch is established.
	warmRV, err := patch(-1)
	if err != nil {
		return res, fmt.Errorf("warm-up patch: %w", err)
	}
	if err := waitForRV(ctx, warmRV, arrived, readerDone, &mu, recv, 30*time.Second); err != nil {
		return res, fmt.Errorf("warm-up: the live list never reported the change: %w", err)
	}

	// Send: one PATCH every 1/rate, by o.watchWorkers goroutines, each
	// timed when it actually goes out (a PATCH that waits for a free worker
	// is timed late, not early).
	res.planned = int(float64(o.watchRate) * o.watchDuration.Seconds())
	interval := time.Second / time.Duration(o.watchRate)
	sent := make(map[string]time.Time, res.planned)
	var firstSend, lastSend time.Time
	jobs := make(chan int, res.planned)
	var wg sync.WaitGroup
	for range o.watchWorkers {
		wg.Go(func() {
			for i := range jobs {
				at := time.Now()
				rv, err := patch(i)
				mu.Lock()
				if err != nil {
					res.patchErrors++
					if res.firstErr == nil {
						res.firstErr = err
					}
				} else {
					sent[rv] = at
					if firstSend.IsZero() || at.Before(firstSend) {
						firstSend = at
					}
					if at.After(lastSend) {
						lastSend = at
					}
				}
				mu.Unlock()
			}
		})
	}
	// The schedule is absolute (start + i·interval), so a late tick does not
	// lower the rate; time.Ticker would drop ticks instead.
	start := time.Now()
feed:
	for i := range res.planned {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			select {
			case <-ctx.Done():
				break feed
			case <-time.After(d):
			}
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return res, err
	}

	// Drain: until every rv has arrived, or nothing has come for a while
	// (coalesced events never will), or the reader stops.
	quiet, deadline := watchQuiet, time.Now().Add(30*time.Second)
drain:
	for {
		mu.Lock()
		all := true
		for rv := range sent {
			if _, ok := recv[rv]; !ok {
				all = false
				break
			}
		}
		idle := time.Since(lastMsg)
		mu.Unlock()
		if all || idle > quiet || time.Now().After(deadline) {
			break
		}
		select {
		case err := <-readerDone:
			res.streamErr = err
			break drain
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}

	mu.Lock()
	defer mu.Unlock()
	res.other = maps.Clone(other)
	res.sent = len(sent)
	res.sendSpan = lastSend.Sub(firstSend)
	for rv, at := range sent {
		if got, ok := recv[rv]; ok {
			res.received++
			res.latencies = append(res.latencies, got.Sub(at))
		}
	}
	slices.Sort(res.latencies)
	return res, nil
}

// waitForRV waits until rv has been received.
func waitForRV(ctx context.Context, rv string, arrived <-chan string, readerDone <-chan error, mu *sync.Mutex, recv map[string]time.Time, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		mu.Lock()
		_, ok := recv[rv]
		mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-arrived:
		case err := <-readerDone:
			return err
		case <-deadline:
			return fmt.Errorf("no event with resourceVersion %s within %s", rv, timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ensureWatchConfigMaps creates namespace ns and n ConfigMaps in it.
func ensureWatchConfigMaps(ctx context.Context, client kubernetes.Interface, ns string, n int) ([]string, error) {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("namespace %s: %w", ns, err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("watch-%02d", i)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: names[i], Namespace: ns},
			Data:       map[string]string{"index": fmt.Sprint(i)},
		}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("configmap %s/%s: %w", ns, names[i], err)
		}
	}
	return names, nil
}

func reportWatch(w io.Writer, o options, res watchResult, err error) {
	fmt.Fprintf(w, "\n### Watch latency: %d ConfigMap changes/s for %s over %d ConfigMaps in namespace %s, one live list page\n\n",
		o.watchRate, o.watchDuration, o.watchConfigMaps, o.watchNamespace)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	rate := float64(res.sent) / max(res.sendSpan.Seconds(), 1e-9)
	coalesced := res.sent - res.received
	fmt.Fprintln(w, "| PATCHes sent | achieved rate | events received | coalesced | p50 | p99 | max |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| %d of %d | %.0f/s | %d | %d (%.1f%%) | %s | %s | %s |\n\n",
		res.sent, res.planned, rate, res.received, coalesced, 100*float64(coalesced)/float64(max(res.sent, 1)),
		ms(percentile(res.latencies, 0.50)), ms(percentile(res.latencies, 0.99)), ms(percentile(res.latencies, 1)))
	fmt.Fprintln(w, "- Latency: from sending the PATCH to receiving the MODIFIED event with its resourceVersion; coalesced = sent − received.")
	if res.patchErrors > 0 {
		fmt.Fprintf(w, "- %d PATCHes failed, the first with: %v.\n", res.patchErrors, res.firstErr)
	}
	if len(res.other) > 0 {
		fmt.Fprintf(w, "- Other messages: %v.\n", res.other)
	}
	if res.streamErr != nil {
		fmt.Fprintf(w, "- The live list ended early: %v.\n", res.streamErr)
	}
}
