package apiclient

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// DefaultDiscoveryTTL is how long discovery is trusted before it is fetched again.
const DefaultDiscoveryTTL = 2 * time.Minute

// discoveryTimeout bounds one discovery fetch.
const discoveryTimeout = 30 * time.Second

// costlyRefreshFloor is how recent a fetch must be to answer a fresh load
// on a server that cannot answer discovery conditionally (legacy
// discovery, or aggregated discovery without ETags): there every refresh
// is a full fetch, so a stream of unknown URLs must not become a stream of
// them. Servers that answer 304 refresh at once, every time.
const costlyRefreshFloor = time.Second

// maxDiscoveryIdentities bounds the identities whose discovery is kept;
// past it the least recently used entry goes (and is fetched again, in two
// 304s, when its user comes back).
const maxDiscoveryIdentities = 512

// discoveryCache keeps one Discovery per context and identity. A server may
// show different identities different resources (an aggregated API that
// authorizes its discovery, a server that filters it by RBAC), so a user
// only ever sees what a fetch made with their own identity returned.
// Sharing is left to the server: a new identity's first fetch sends the
// ETags of the context's latest documents, and a 304 (the server saying
// this identity would get the very same documents) reuses them, so a
// thousand users of one cluster cost two 304s each, not a thousand
// downloads and copies.
//
// Fetches of one entry are numbered in the order they start, and at most
// one runs at a time: concurrent callers share it, and a flood of unknown
// URLs costs one fetch after another, never many at once. A caller that
// must see the server as it is now (an unknown resource: a CRD created a
// second ago) waits for a fetch that started after it asked, never for one
// already running, which may have left before the CRD existed.
type discoveryCache struct {
	ttl time.Duration
	now func() time.Time
	max int // entries kept (maxDiscoveryIdentities)

	mu      sync.Mutex // guards entries, lru, seeds and every field of the entries marked so
	entries map[discoveryKey]*list.Element
	lru     *list.List // of *contextDiscovery, the most recently used first
	// seeds are, per context, what the latest successful fetch of any
	// identity learnt: a new entry's first fetch starts from them.
	seeds map[string]conditionalDiscovery
}

// discoveryKey names one entry: a context and an identity (IdentityKey).
type discoveryKey struct{ context, identity string }

// contextDiscovery is one context's cached answer for one identity, and its
// fetches.
type contextDiscovery struct {
	key discoveryKey
	// Guarded by discoveryCache.mu.
	discovery *Discovery // the last good answer, nil before the first
	fetched   time.Time
	// costly says the last fetch could not be conditional.
	costly  bool
	started uint64          // the number of the last fetch started
	running *discoveryFetch // nil when none runs
	last    *discoveryFetch // the last fetch that ended
	waiting int             // callers waiting for a fetch (tests watch it)

	// conditional belongs to the running fetch: only one runs at a time.
	// Its docs map is replaced, never changed in place, so a copy of it
	// (a seed) may be read by other entries' fetches.
	conditional conditionalDiscovery
}

// discoveryFetch is one fetch; its result is set before done is closed.
type discoveryFetch struct {
	n         uint64
	began     time.Time
	done      chan struct{}
	discovery *Discovery
	err       error
}

// discoveryFetcher fetches discovery, using and updating cond, which holds
// what the entry's previous fetches learnt (ETags, the server's kind).
type discoveryFetcher func(ctx context.Context, cond *conditionalDiscovery) (*Discovery, error)

func newDiscoveryCache(ttl time.Duration) *discoveryCache {
	if ttl <= 0 {
		ttl = DefaultDiscoveryTTL
	}
	return &discoveryCache{
		ttl: ttl, now: time.Now, max: maxDiscoveryIdentities,
		entries: map[discoveryKey]*list.Element{}, lru: list.New(), seeds: map[string]conditionalDiscovery{},
	}
}

// entry returns the key's entry, creating it (seeded from its context's
// latest fetch) and evicting the least recently used past the bound; dc.mu
// must be held. An evicted entry's running fetch and waiters carry on with
// it, unshared with later callers.
func (dc *discoveryCache) entry(key discoveryKey) *contextDiscovery {
	if el, ok := dc.entries[key]; ok {
		dc.lru.MoveToFront(el)
		return el.Value.(*contextDiscovery)
	}
	cd := &contextDiscovery{key: key, conditional: dc.seeds[key.context]}
	dc.entries[key] = dc.lru.PushFront(cd)
	for dc.lru.Len() > dc.max {
		old := dc.lru.Remove(dc.lru.Back()).(*contextDiscovery)
		delete(dc.entries, old.key)
	}
	return cd
}

// load returns the key's discovery. Without fresh, a cached answer younger
// than the TTL does, and a missing or stale one is fetched (sharing a fetch
// already running). With fresh, the answer comes from a fetch that started
// after this call did. A failed fetch returns its error and keeps the last
// good answer cached.
func (dc *discoveryCache) load(ctx context.Context, key discoveryKey, fresh bool, fetch discoveryFetcher) (*Discovery, error) {
	dc.mu.Lock()
	cd := dc.entry(key)
	if !fresh && cd.discovery != nil && dc.now().Sub(cd.fetched) < dc.ttl {
		d := cd.discovery
		dc.mu.Unlock()
		return d, nil
	}
	// need is the number of the first fetch whose answer will do.
	need := cd.started + 1
	switch {
	case !fresh && cd.running != nil:
		need = cd.running.n
	case fresh && cd.costly && cd.last != nil && dc.now().Sub(cd.last.began) < costlyRefreshFloor:
		need = cd.last.n
	}
	for {
		if cd.last != nil && cd.last.n >= need {
			f := cd.last
			dc.mu.Unlock()
			return f.discovery, f.err
		}
		f := cd.running
		if f == nil {
			f = dc.start(ctx, cd, fetch)
		}
		cd.waiting++
		dc.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			dc.mu.Lock()
			cd.waiting--
			dc.mu.Unlock()
			return nil, ctx.Err()
		}
		dc.mu.Lock()
		cd.waiting--
		if f.n >= need {
			dc.mu.Unlock()
			return f.discovery, f.err
		}
		// f started before this caller asked: wait for the next one.
	}
}

// start begins the entry's next fetch; dc.mu must be held and none running.
func (dc *discoveryCache) start(ctx context.Context, cd *contextDiscovery, fetch discoveryFetcher) *discoveryFetch {
	cd.started++
	f := &discoveryFetch{n: cd.started, began: dc.now(), done: make(chan struct{})}
	cd.running = f
	// Others may wait on this fetch: the caller leaving (a closed tab) must
	// not fail them, so it gets its own deadline.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discoveryTimeout)
	go func() {
		defer cancel()
		d, err := fetch(fctx, &cd.conditional)
		dc.mu.Lock()
		f.discovery, f.err = d, err
		if err == nil {
			cd.discovery, cd.fetched = d, dc.now()
			dc.seeds[cd.key.context] = cd.conditional
		}
		cd.running, cd.last = nil, f
		cd.costly = cd.conditional.costly()
		dc.mu.Unlock()
		close(f.done)
	}()
	return f
}

// cached returns the key's last good answer, if any.
func (dc *discoveryCache) cached(key discoveryKey) (*Discovery, bool) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	el, ok := dc.entries[key]
	if !ok || el.Value.(*contextDiscovery).discovery == nil {
		return nil, false
	}
	return el.Value.(*contextDiscovery).discovery, true
}

// discoveryKey is the client's entry in the discovery cache.
func (c *Client) discoveryKey() discoveryKey {
	return discoveryKey{context: c.context, identity: c.idKey}
}

// Discovery returns what the server serves to this client's identity, from
// the cache of the context and identity.
func (c *Client) Discovery(ctx context.Context) (*Discovery, error) {
	return c.cache.load(ctx, c.discoveryKey(), false, c.discoverConditionally)
}

// FreshDiscovery is Discovery as the server has it now, for a page that
// must not miss a kind created a second ago (Problems): it waits for a
// fetch that starts after this call, which concurrent callers share. On
// servers with aggregated discovery that is two conditional requests,
// answered 304 when nothing changed; on servers that cannot answer
// conditionally, a fetch of the last second answers.
func (c *Client) FreshDiscovery(ctx context.Context) (*Discovery, error) {
	return c.cache.load(ctx, c.discoveryKey(), true, c.discoverConditionally)
}

// Resource finds group/version/name. When the cached discovery does not
// know it, discovery is fetched again at once (a CRD created a second ago
// must not wait for the TTL), from a fetch that starts after this call;
// concurrent callers share that fetch, and on servers with aggregated
// discovery it is two conditional requests answered 304 when nothing
// changed. A resource still unknown is a *NotServedError (a NotFound
// Status) naming what the server serves instead.
func (c *Client) Resource(ctx context.Context, group, version, name string) (Resource, error) {
	d, err := c.Discovery(ctx)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := d.Lookup(group, version, name); ok {
		return r, nil
	}
	d, err = c.FreshDiscovery(ctx)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := d.Lookup(group, version, name); ok {
		return r, nil
	}
	return Resource{}, d.NotServed(group, version, name)
}
