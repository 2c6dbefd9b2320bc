package apiclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// dev is the entry of the context "dev" and one identity.
var dev = discoveryKey{context: "dev", identity: "someone"}

// named builds a fetcher whose n-th answer is a Discovery with one group "vN".
func named(fetches *atomic.Int32) discoveryFetcher {
	return func(context.Context, *conditionalDiscovery) (*Discovery, error) {
		n := fetches.Add(1)
		return &Discovery{Groups: []Group{{Name: fmt.Sprintf("v%d", n)}}}, nil
	}
}

func TestDiscoveryCacheTTLAndFreshLoads(t *testing.T) {
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	dc := newDiscoveryCache(time.Minute)
	dc.now = func() time.Time { return now }
	var fetches atomic.Int32
	fetch := named(&fetches)
	ctx := context.Background()
	load := func(fresh bool) string {
		t.Helper()
		d, err := dc.load(ctx, dev, fresh, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return d.Groups[0].Name
	}

	if got := load(false); got != "v1" || fetches.Load() != 1 {
		t.Fatalf("first load = %s after %d fetches", got, fetches.Load())
	}
	now = now.Add(2 * time.Second)
	if got := load(false); got != "v1" {
		t.Errorf("within the TTL: %s, want the cached v1", got)
	}
	// An unknown resource refreshes at once, however recent the cache.
	if got := load(true); got != "v2" {
		t.Errorf("fresh load right after a fetch = %s, want v2", got)
	}
	if got := load(false); got != "v2" {
		t.Errorf("after the fresh load = %s, want the cached v2", got)
	}
	now = now.Add(time.Minute + time.Second)
	if got := load(false); got != "v3" {
		t.Errorf("after the TTL = %s, want a fresh v3", got)
	}
	// A failed fetch is returned, and the last good answer stays cached.
	failing := func(context.Context, *conditionalDiscovery) (*Discovery, error) { return nil, errors.New("boom") }
	now = now.Add(time.Minute + time.Second)
	if _, err := dc.load(ctx, dev, false, failing); err == nil {
		t.Error("a failed fetch was hidden")
	}
	if d, ok := dc.cached(dev); !ok || d.Groups[0].Name != "v3" {
		t.Error("a failed fetch dropped the cached discovery")
	}
}

// awaitWaiting waits until n callers wait on the context's fetches.
func awaitWaiting(t *testing.T, dc *discoveryCache, key discoveryKey, n int) {
	t.Helper()
	apitest.WaitFor(t, 5*time.Second, func() error {
		dc.mu.Lock()
		w := dc.entry(key).waiting
		dc.mu.Unlock()
		if w != n {
			return fmt.Errorf("%d callers waiting, want %d", w, n)
		}
		return nil
	})
}

// A fresh load must not be answered by a fetch that started before it was
// asked for (that fetch may predate the CRD), and a storm of them shares
// one next fetch: never more than one runs.
func TestDiscoveryCacheFreshLoadsWaitForALaterFetchAndShareIt(t *testing.T) {
	dc := newDiscoveryCache(time.Minute)
	var fetches, running, maxRunning atomic.Int32
	release := make(chan struct{})
	fetch := func(ctx context.Context, cond *conditionalDiscovery) (*Discovery, error) {
		if r := running.Add(1); r > maxRunning.Load() {
			maxRunning.Store(r)
		}
		defer running.Add(-1)
		n := fetches.Add(1)
		if n == 1 {
			<-release
		}
		return &Discovery{Groups: []Group{{Name: fmt.Sprintf("v%d", n)}}}, nil
	}
	ctx := context.Background()
	first := make(chan string, 1)
	go func() {
		d, err := dc.load(ctx, dev, false, fetch)
		if err != nil {
			first <- err.Error()
			return
		}
		first <- d.Groups[0].Name
	}()
	awaitWaiting(t, dc, dev, 1)

	// Fetch 1 runs. A plain load shares it; fresh loads need fetch 2.
	const storm = 20
	var wg sync.WaitGroup
	fresh := make(chan string, storm)
	for range storm {
		wg.Go(func() {
			d, err := dc.load(ctx, dev, true, fetch)
			if err != nil {
				fresh <- err.Error()
				return
			}
			fresh <- d.Groups[0].Name
		})
	}
	shared := make(chan string, 1)
	go func() {
		d, _ := dc.load(ctx, dev, false, fetch)
		shared <- d.Groups[0].Name
	}()
	awaitWaiting(t, dc, dev, storm+2)
	close(release)
	wg.Wait()
	close(fresh)

	if got := <-first; got != "v1" {
		t.Errorf("first load = %s, want v1", got)
	}
	if got := <-shared; got != "v1" {
		t.Errorf("a plain load during fetch 1 = %s, want to share v1", got)
	}
	for got := range fresh {
		if got != "v2" {
			t.Errorf("a fresh load asked during fetch 1 got %s, want v2 (a fetch started after it)", got)
		}
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("%d fetches for 1 plain load and a storm of %d fresh ones, want 2", n, storm)
	}
	if m := maxRunning.Load(); m != 1 {
		t.Errorf("%d fetches ran at once, want 1", m)
	}
}

// A caller that leaves (a closed tab) gets its context's error, and the
// fetch it started still completes for the others.
func TestDiscoveryCacheCallerLeavingDoesNotFailTheFetch(t *testing.T) {
	dc := newDiscoveryCache(time.Minute)
	release := make(chan struct{})
	fetch := func(ctx context.Context, cond *conditionalDiscovery) (*Discovery, error) {
		<-release
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return &Discovery{Groups: []Group{{Name: "v1"}}}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := dc.load(ctx, dev, false, fetch); done <- err }()
	awaitWaiting(t, dc, dev, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("leaving caller: %v", err)
	}
	close(release)
	d, err := dc.load(context.Background(), dev, false, fetch)
	if err != nil || d.Groups[0].Name != "v1" {
		t.Errorf("the others: %v %v", d, err)
	}
}

// The cache keeps at most max identities, the least recently used going
// first; an evicted identity fetches again when it comes back.
func TestDiscoveryCacheBoundsTheIdentitiesItKeeps(t *testing.T) {
	dc := newDiscoveryCache(time.Minute)
	dc.max = 2
	var fetches atomic.Int32
	fetch := named(&fetches)
	ctx := context.Background()
	key := func(who string) discoveryKey { return discoveryKey{context: "dev", identity: who} }
	for _, who := range []string{"a", "b", "a", "c"} { // c evicts b, used less recently than a
		if _, err := dc.load(ctx, key(who), false, fetch); err != nil {
			t.Fatal(err)
		}
	}
	if n := fetches.Load(); n != 3 {
		t.Errorf("%d fetches for three identities, want 3", n)
	}
	for who, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok := dc.cached(key(who)); ok != want {
			t.Errorf("%s cached: %v, want %v", who, ok, want)
		}
	}
	dc.mu.Lock()
	n := len(dc.entries)
	dc.mu.Unlock()
	if n != 2 {
		t.Errorf("%d entries kept, want 2", n)
	}
	if _, err := dc.load(ctx, key("b"), false, fetch); err != nil || fetches.Load() != 4 {
		t.Errorf("an evicted identity coming back: %v after %d fetches, want a fetch", err, fetches.Load())
	}
}

// A new identity's first fetch starts from what the context's latest
// successful fetch learnt (its ETags), never from its answer: it still
// fetches, as itself.
func TestDiscoveryCacheSeedsANewIdentityWithTheContextsETags(t *testing.T) {
	dc := newDiscoveryCache(time.Minute)
	ctx := context.Background()
	shared := &Discovery{Groups: []Group{{Name: "shared"}}}
	var seen []conditionalDiscovery
	fetch := func(_ context.Context, cond *conditionalDiscovery) (*Discovery, error) {
		seen = append(seen, *cond)
		cond.docs = map[string]etaggedDiscovery{"/api": {etag: `"a"`}, "/apis": {etag: `"b"`}}
		cond.discovery = shared
		return shared, nil
	}
	for _, who := range []string{"a", "b"} {
		if _, err := dc.load(ctx, discoveryKey{context: "dev", identity: who}, false, fetch); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dc.load(ctx, discoveryKey{context: "prod", identity: "a"}, false, fetch); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("%d fetches, want one per identity and context", len(seen))
	}
	if seen[0].discovery != nil || seen[2].discovery != nil {
		t.Error("the first fetch of a context started from another context's documents")
	}
	if seen[1].discovery != shared || seen[1].docs["/apis"].etag != `"b"` {
		t.Errorf("the second identity's fetch did not start from the first's ETags: %+v", seen[1])
	}
}
