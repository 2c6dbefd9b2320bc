package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Memory targets (issue 12), in MiB.
const (
	targetRestMiB    = 64
	targetPerPageMiB = 100
)

// sampleEvery is how often VmRSS is read while concurrent pages are served.
const sampleEvery = 5 * time.Millisecond

// memReading is the console's memory at one moment.
type memReading struct {
	name string
	st   procStatus
	// Go heap in use, and heap kept but idle (not yet returned to the OS),
	// in bytes from the console's metrics; negative when not exported.
	heapInuse, heapIdleKept float64
}

// peakResult is one round of k concurrent big pages.
type peakResult struct {
	k int
	// beforeKiB is VmRSS just before; sampledKiB the highest VmRSS read
	// every sampleEvery; hwmKiB VmHWM after the round, which is the round's
	// own peak only when hwmReset (clear_refs accepted).
	beforeKiB, sampledKiB, hwmKiB int64
	hwmReset                      bool
	samples                       int
	d                             time.Duration // until the last page's last byte
	rows, bytes                   int           // of one page
}

// peakKiB is the round's peak: VmHWM when it was reset, else the sampled one.
func (p peakResult) peakKiB() int64 {
	if p.hwmReset {
		return max(p.hwmKiB, p.sampledKiB)
	}
	return p.sampledKiB
}

// perPageKiB is the growth over the round's start per concurrent page.
func (p peakResult) perPageKiB() float64 {
	return float64(p.peakKiB()-p.beforeKiB) / float64(p.k)
}

type memoryResult struct {
	points []memReading
	// restPoints index points taken after -rest-wait (the target's).
	restPoints []int
	bigPage    sample
	bigRows    int
	peaks      []peakResult
}

// idleKiB is VmRSS before any page, or -1 when that was not read.
func (r memoryResult) idleKiB() int64 {
	if len(r.points) > 0 && r.points[0].name == restBeforeAnyPage {
		return r.points[0].st.rssKiB
	}
	return -1
}

// restBeforeAnyPage names the first reading, taken by the caller.
const restBeforeAnyPage = "at rest, before any page"

// memory reads the console's memory now, its RSS first so the metrics
// request does not count.
func memory(ctx context.Context, browser *http.Client, consoleURL string, pid int, name string) memReading {
	p := memReading{name: name, st: readProcStatus(pid), heapInuse: -1, heapIdleKept: -1}
	if m, err := scrape(ctx, browser, consoleURL+"/metrics"); err == nil {
		if v, ok := m["go_memstats_heap_inuse_bytes"]; ok {
			p.heapInuse = v
		}
		idle, ok1 := m["go_memstats_heap_idle_bytes"]
		released, ok2 := m["go_memstats_heap_released_bytes"]
		if ok1 && ok2 {
			p.heapIdleKept = idle - released
		}
	}
	return p
}

// measureMemory serves one all-namespaces page of o.bigLimit rows, reads
// memory right after and o.restWait later; then, for each k of
// o.concurrent, serves k such pages at once while sampling VmRSS, and reads
// memory o.restWait after the last round. points holds the readings the
// caller took before (at rest, after the list run).
func measureMemory(ctx context.Context, o options, browser *http.Client, consoleURL string, pid int, points []memReading) (memoryResult, error) {
	res := memoryResult{points: points}
	pageURL := fmt.Sprintf("%s/c/%s/api/v1/pods?limit=%d", consoleURL, contextName, o.bigLimit)
	get := func() (sample, error) { return fetch(ctx, browser, pageURL, "text/html", "identity") }
	rest := func(name string) error {
		slog.Info("letting the console rest", "for", o.restWait)
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(o.restWait):
		}
		res.restPoints = append(res.restPoints, len(res.points))
		res.points = append(res.points, memory(ctx, browser, consoleURL, pid, name))
		return nil
	}

	s, err := get()
	if err != nil {
		return res, fmt.Errorf("%d-row page: %w", o.bigLimit, err)
	}
	res.bigPage, res.bigRows = s, rowsOf(listKind{console: true}, s.body)
	res.points = append(res.points, memory(ctx, browser, consoleURL, pid,
		fmt.Sprintf("right after one all-namespaces %d-row page", o.bigLimit)))
	if err := rest(fmt.Sprintf("%s after it", o.restWait)); err != nil {
		return res, err
	}
	// Each round starts from a rested console (the reading before it), so
	// one round's garbage does not count as the next one's baseline.
	for _, k := range o.concurrent {
		slog.Info("serving concurrent pages", "pages", k, "rows", o.bigLimit)
		p, err := measurePeak(ctx, pid, k, get)
		if err != nil {
			return res, err
		}
		res.peaks = append(res.peaks, p)
		round := fmt.Sprintf("%s after %d concurrent pages", o.restWait, k)
		if k == 1 {
			round = fmt.Sprintf("%s after the single page", o.restWait)
		}
		if err := rest(round); err != nil {
			return res, err
		}
	}
	return res, nil
}

// measurePeak serves k pages at once while reading VmRSS every sampleEvery.
func measurePeak(ctx context.Context, pid, k int, get func() (sample, error)) (peakResult, error) {
	p := peakResult{k: k}
	p.hwmReset = resetPeak(pid) == nil
	p.beforeKiB = vmRSSKiB(pid)
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			if rss := vmRSSKiB(pid); rss > p.sampledKiB {
				p.sampledKiB = rss
			}
			p.samples++
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, k)
	pages := make([]sample, k)
	for i := range k {
		wg.Go(func() { pages[i], errs[i] = get() })
	}
	wg.Wait()
	p.d = time.Since(start)
	close(stop)
	<-sampled
	p.hwmKiB = readProcStatus(pid).hwmKiB
	for i, err := range errs {
		if err != nil {
			return p, fmt.Errorf("%d concurrent pages: %w", k, err)
		}
		p.rows, p.bytes = rowsOf(listKind{console: true}, pages[i].body), len(pages[i].body)
	}
	return p, nil
}

func reportMemory(w io.Writer, o options, res memoryResult, err error) (targets []targetResult) {
	flags := "its defaults"
	if len(o.consoleArgs) > 0 {
		flags = "`" + strings.Join(o.consoleArgs, " ") + "`"
	}
	fmt.Fprintf(w, "\n### Console memory (VmRSS of its process; console flags: %s)\n\n", flags)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return []targetResult{{name: fmt.Sprintf("console at rest ≤ %d MiB", targetRestMiB), value: "not measured"}}
	}
	bytesMiB := func(b float64) string {
		if b < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	fmt.Fprintln(w, "| when | VmRSS | VmHWM (peak so far) | Go heap in use | Go heap idle, not yet returned |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, p := range res.points {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", p.name, mib(p.st.rssKiB), mib(p.st.hwmKiB), bytesMiB(p.heapInuse), bytesMiB(p.heapIdleKept))
	}
	fmt.Fprintf(w, "\nThe %d-row all-namespaces page: %d rows, %d bytes of HTML, served in %.0f ms.\n",
		o.bigLimit, res.bigRows, len(res.bigPage.body), float64(res.bigPage.d)/float64(time.Millisecond))
	for _, i := range res.restPoints {
		p := res.points[i]
		ok := p.st.rssKiB >= 0 && p.st.rssKiB <= targetRestMiB*1024
		targets = append(targets, targetResult{fmt.Sprintf("console at rest ≤ %d MiB, %s", targetRestMiB, p.name), mib(p.st.rssKiB), ok})
	}
	if len(res.peaks) == 0 {
		return targets
	}
	fmt.Fprintf(w, "\nPeak per concurrent %d-row all-namespaces page (VmRSS read every %s; VmHWM reset before each round with clear_refs):\n\n", o.bigLimit, sampleEvery)
	fmt.Fprintln(w, "| concurrent pages | VmRSS before | peak VmRSS sampled (reads) | VmHWM of the round | (peak − before) / pages | (peak − before any page) / pages | all pages served in |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, p := range res.peaks {
		hwm := mib(p.hwmKiB)
		if !p.hwmReset {
			hwm = "not reset: " + hwm
		}
		fromIdle := "n/a"
		if idle := res.idleKiB(); idle >= 0 {
			fromIdle = fmt.Sprintf("%.1f MiB", float64(p.peakKiB()-idle)/float64(p.k)/1024)
		}
		fmt.Fprintf(w, "| %d | %s | %s (%d) | %s | **%.1f MiB** | %s | %.0f ms |\n", p.k, mib(p.beforeKiB), mib(p.sampledKiB), p.samples,
			hwm, p.perPageKiB()/1024, fromIdle, float64(p.d)/float64(time.Millisecond))
		ok := p.perPageKiB() <= targetPerPageMiB*1024
		targets = append(targets, targetResult{fmt.Sprintf("peak ≤ %d MiB per concurrent %d-row page, %d at once", targetPerPageMiB, o.bigLimit, p.k),
			fmt.Sprintf("%.1f MiB", p.perPageKiB()/1024), ok})
	}
	fmt.Fprintln(w, "\nThe target is read on (peak − before): memory the console kept from earlier pages and reuses does not count there, which is why the at-rest target matters too; the next column counts it, against the console before any page.")
	return targets
}
