package streaming

import (
	"context"
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
