package search

import (
	"context"
	"sync"
	"time"
)

// flights let identical searches of one identity that run at the same time
// share one run: a search link pasted in an incident channel and opened by
// everyone acting as that identity asks the server once. A search that
// joins sees the run's finished kinds at once, then the others as they
// finish. A run is forgotten the moment it ends, so no search is ever
// answered from an earlier one: nothing is cached. Identities never share
// (the key holds the identity), and a run ends early only when every search
// sharing it has gone.
type flights struct {
	mu   sync.Mutex
	runs map[string]*flight
}

// flight is one run and the searches sharing it. Its outcomes are each
// kind's, bounded by what a kind keeps (the rows it shows and a count).
type flight struct {
	started time.Time
	cancel  context.CancelFunc

	mu       sync.Mutex
	outcomes []outcome
	done     bool
	members  int
	// wake is closed, and replaced, whenever outcomes grows or the run ends.
	wake chan struct{}
}

// join returns the run for key and whether it was already running, else
// starts run in one detached from the caller (who may leave before the
// others) and bounded by total. The caller must leave it.
func (fs *flights) join(ctx context.Context, key string, total time.Duration, run func(context.Context, chan<- outcome)) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.runs[key]; ok {
		f.mu.Lock()
		f.members++
		f.mu.Unlock()
		return f, true
	}
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), total)
	f := &flight{started: time.Now(), cancel: cancel, members: 1, wake: make(chan struct{})}
	if fs.runs == nil {
		fs.runs = map[string]*flight{}
	}
	fs.runs[key] = f
	out := make(chan outcome)
	go run(runCtx, out)
	go func() {
		defer cancel()
		for o := range out {
			f.add(o)
		}
		fs.forget(key, f)
		f.mu.Lock()
		f.done = true
		close(f.wake)
		f.mu.Unlock()
	}()
	return f, false
}

// forget drops a run from the map, if it is still the one there, so that a
// search starting now runs afresh.
func (fs *flights) forget(key string, f *flight) {
	fs.mu.Lock()
	if fs.runs[key] == f {
		delete(fs.runs, key)
	}
	fs.mu.Unlock()
}

func (f *flight) add(o outcome) {
	f.mu.Lock()
	f.outcomes = append(f.outcomes, o)
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

// next is the run's i-th outcome, waiting for it; false once the run ended
// without one, or when ctx (the caller's page) ends.
func (f *flight) next(ctx context.Context, i int) (outcome, bool) {
	for {
		f.mu.Lock()
		if i < len(f.outcomes) {
			o := f.outcomes[i]
			f.mu.Unlock()
			return o, true
		}
		done, wake := f.done, f.wake
		f.mu.Unlock()
		if done {
			return outcome{}, false
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return outcome{}, false
		}
	}
}

// ready says whether the run's i-th outcome is there, or the run ended:
// whether next(i) would return without waiting.
func (f *flight) ready(i int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return i < len(f.outcomes) || f.done
}

// leave ends a search's share; the last to leave a run still going stops
// it, and no later search joins it (join and leave hold fs.mu, so none can
// join between the two).
func (fs *flights) leave(key string, f *flight) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f.mu.Lock()
	f.members--
	last := f.members == 0 && !f.done
	f.mu.Unlock()
	if last {
		if fs.runs[key] == f {
			delete(fs.runs, key)
		}
		f.cancel()
	}
}
