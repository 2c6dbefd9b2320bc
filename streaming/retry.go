package streaming

import (
	"context"
	"time"
)

// Policy says how an upstream stream of events E resumes after it drops.
type Policy[E any] struct {
	// Version is the version an event carries: where a restart resumes.
	Version func(E) string
	// Expired: the upstream refused the version as too old (410 Gone).
	Expired func(error) bool
	// Fatal: a refusal retrying cannot fix (403, 404).
	Fatal func(error) bool
	// Bookmark: the event only moves the version on; KeepWatching passes
	// none on. Nil: none is.
	Bookmark func(E) bool
	// Backoff is the first delay before a restart (250 ms); it doubles up
	// to 10 s, and is back to the first once a run lasted 10 s.
	Backoff time.Duration
}

const (
	defaultBackoff = 250 * time.Millisecond
	maxBackoff     = 10 * time.Second
	// healthyRun is how long an upstream must have streamed for its next
	// drop to be retried after the first delay again.
	healthyRun = 10 * time.Second
)

func (p Policy[E]) withDefaults() Policy[E] {
	never := func(error) bool { return false }
	if p.Expired == nil {
		p.Expired = never
	}
	if p.Fatal == nil {
		p.Fatal = never
	}
	if p.Backoff <= 0 {
		p.Backoff = defaultBackoff
	}
	return p
}

// retry runs attempt again and again until ctx ends, pacing the restarts
// as p says. After each run, ended sees its error (nil: the upstream ended
// cleanly, as watches time out routinely) and the delay before the next
// run, and says whether to go on. Every upstream of the console is kept
// going by this one loop: the Hub's shared ones and KeepWatching's own.
func retry[E any](ctx context.Context, p Policy[E], attempt func(ctx context.Context) error, ended func(err error, after time.Duration) bool) {
	backoff := p.Backoff
	for {
		began := time.Now()
		err := attempt(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) >= healthyRun {
			backoff = p.Backoff
		}
		if !ended(err, backoff) {
			return
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		backoff = min(2*backoff, max(maxBackoff, p.Backoff))
	}
}

// KeepWatching runs one subscriber's own upstream (an object page's watch,
// a log's pod watch) until ctx ends, resuming after drops from the last
// version seen, and from now ("") after the version expired, so a watch
// that only signals change never needs a relist. It returns only the error
// of a refusal p.Fatal says retrying cannot fix, or nil when ctx ends.
func KeepWatching[E any](ctx context.Context, p Policy[E], upstream Upstream[E], emit func(E)) error {
	p = p.withDefaults()
	from := ""
	var fatal error
	retry(ctx, p, func(ctx context.Context) error {
		return upstream(ctx, from, func(e E) {
			if p.Version != nil {
				from = p.Version(e)
			}
			if p.Bookmark == nil || !p.Bookmark(e) {
				emit(e)
			}
		})
	}, func(err error, _ time.Duration) bool {
		switch {
		case err == nil:
		case p.Expired(err):
			from = ""
		case p.Fatal(err):
			fatal = err
			return false
		}
		return true
	})
	return fatal
}
