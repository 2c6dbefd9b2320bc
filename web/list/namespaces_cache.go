package list

import (
	"sync"
	"time"
)

// namespaceTTL is how long the namespace picker's options are reused. The
// picker is a convenience: a namespace created seconds ago can be typed or
// picked after the next refresh, and the list itself is always fresh.
const namespaceTTL = 15 * time.Second

// namespaceCache keeps, per context and identity, the namespaces the user
// may list (or that they may not), so list pages make one upstream call.
type namespaceCache struct {
	mu      sync.Mutex
	entries map[string]namespaceEntry
}

type namespaceEntry struct {
	names   []string
	allowed bool
	fetched time.Time
}

func newNamespaceCache() *namespaceCache {
	return &namespaceCache{entries: map[string]namespaceEntry{}}
}

func (nc *namespaceCache) get(key string, now time.Time) (namespaceEntry, bool) {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	e, ok := nc.entries[key]
	if !ok || now.Sub(e.fetched) > namespaceTTL {
		return namespaceEntry{}, false
	}
	return e, true
}

func (nc *namespaceCache) put(key string, e namespaceEntry) {
	nc.mu.Lock()
	defer nc.mu.Unlock()
	// Expired entries go when the map is written, so it stays as small as
	// the set of recent users.
	for k, old := range nc.entries {
		if e.fetched.Sub(old.fetched) > namespaceTTL {
			delete(nc.entries, k)
		}
	}
	nc.entries[key] = e
}
