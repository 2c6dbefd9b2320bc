package web

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/streaming"
)

// idleRelease hands the memory a burst of pages grew the heap to back to
// the operating system once the console is quiet. The runtime's scavenger
// returns memory only slowly, and not until a collection has run, which a
// quiet process may not do for two minutes: a console that served a few
// 5,000-row pages would otherwise keep their peak resident. One forced
// collection per quiet spell costs a few milliseconds of CPU.
type idleRelease struct {
	quiet time.Duration
	// threshold is how much memory the heap must hold from the OS before
	// a release is worth a collection.
	threshold uint64
	log       *slog.Logger
	// held and release are the runtime's, but for tests.
	held    func() uint64
	release func()

	busy  atomic.Int64 // page requests being served
	ended chan struct{}
}

// defaultReleaseThreshold is well above an idle console's heap (about
// 10 MiB), so a quiet console is never collected for nothing.
const defaultReleaseThreshold = 24 << 20

func newIdleRelease(quiet time.Duration, log *slog.Logger) *idleRelease {
	return &idleRelease{
		quiet: quiet, threshold: defaultReleaseThreshold, log: log,
		held: heapHeld, release: debug.FreeOSMemory, ended: make(chan struct{}, 1),
	}
}

// middleware counts page requests; streams (WebSockets) are long-lived and
// do not keep the console from being quiet.
func (r *idleRelease) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if r.quiet <= 0 || streaming.IsUpgrade(c.Request()) {
			return next(c)
		}
		r.busy.Add(1)
		defer func() {
			r.busy.Add(-1)
			select {
			case r.ended <- struct{}{}:
			default:
			}
		}()
		return next(c)
	}
}

// run releases memory r.quiet after the last page request ended, while
// no other is being served, until ctx ends.
func (r *idleRelease) run(ctx context.Context) {
	if r.quiet <= 0 {
		return
	}
	timer := time.NewTimer(0)
	<-timer.C
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-r.ended:
			timer.Reset(r.quiet)
		case <-timer.C:
			if r.busy.Load() > 0 {
				continue // its end signals again
			}
			if held := r.held(); held >= r.threshold {
				start := time.Now()
				r.release()
				r.log.Debug("released idle memory", "heldBytes", held, "afterBytes", r.held(), "took", time.Since(start))
			}
		}
	}
}

// heapHeld is the heap memory the process holds from the OS (resident or
// not yet returned), as the runtime accounts it.
func heapHeld() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	var held uint64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			held += v.Value.Uint64()
		}
	}
	return held
}
