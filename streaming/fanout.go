package streaming

import (
	"context"
	"iter"
	"sync"
	"time"
)

// FanOut runs each item's work, at most concurrency at once, each under its
// own deadline of per within ctx, and returns when all have ended. An item
// not started before ctx ends is handed to late instead: a page's budget
// ran out before its turn.
func FanOut[T any](ctx context.Context, items []T, concurrency int, per time.Duration, work func(context.Context, T), late func(T)) {
	sem := make(chan struct{}, max(concurrency, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, item := range items {
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		// A slot that frees as the budget ends is not taken.
		if ctx.Err() != nil {
			if acquired {
				<-sem
			}
			late(item)
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(ctx, per)
			defer cancel()
			work(ctx, item)
		})
	}
}

// Answers runs FanOut and yields each item's answer as it comes, in the
// order they come: a page writes each cluster's section as it answers. An
// item not started in time yields late's answer. The answers are buffered
// (one per item), so work never waits on a reader that stopped reading.
func Answers[T, A any](ctx context.Context, items []T, concurrency int, per time.Duration, work func(context.Context, T) A, late func(T) A) iter.Seq[A] {
	return func(yield func(A) bool) {
		out := make(chan A, len(items))
		go func() {
			FanOut(ctx, items, concurrency, per, func(ctx context.Context, item T) { out <- work(ctx, item) }, func(item T) { out <- late(item) })
			close(out)
		}()
		for a := range out {
			if !yield(a) {
				return
			}
		}
	}
}
