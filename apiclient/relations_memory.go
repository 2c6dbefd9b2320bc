package apiclient

import (
	"sync"
	"time"
)

// relateMemory is what relation scans learn, per context and identity:
// which kinds were found empty in a namespace (skipped for a short while),
// and which kinds were found related to objects of a kind (asked first).
// Nothing in it is an object, only kind names, and no identity's entries
// ever steer another's scan.
type relateMemory struct {
	mu      sync.Mutex
	empty   map[emptyKey]time.Time
	learned map[learnKey]map[string]time.Time
	// lists are the records of recent lists, per identity, so that the
	// pages one user opens in a row (an object, its map, a neighbour)
	// share them for a few seconds; held counts their records.
	lists map[emptyKey]*cachedList
	held  int
}

// cachedList is one kind's records in a namespace, as listed at a moment.
// Its records are never changed once listed: scans share them.
type cachedList struct {
	records  []*record
	complete bool
	at       time.Time
}

type emptyKey struct{ context, id, namespace, resource string }

type learnKey struct{ context, id, group, kind string }

// Bounds on the memory: past them it forgets what has expired, then all.
const (
	maxEmptyEntries   = 16384
	maxLearnedEntries = 4096
	learnedFor        = 30 * time.Minute
	// maxHeldRecords bounds the records kept for reuse, over all
	// identities (a record is a few hundred bytes).
	maxHeldRecords = 20000
)

func newRelateMemory() *relateMemory {
	return &relateMemory{empty: map[emptyKey]time.Time{}, learned: map[learnKey]map[string]time.Time{}, lists: map[emptyKey]*cachedList{}}
}

// list is the kind's list, if one was kept within ttl.
func (m *relateMemory) list(k emptyKey, ttl time.Duration, now time.Time) (*cachedList, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.lists[k]
	if !ok || now.Sub(l.at) >= ttl {
		return nil, false
	}
	return l, true
}

// keepList keeps a list for reuse within ttl, forgetting expired lists,
// then the oldest, to stay within maxHeldRecords.
func (m *relateMemory) keepList(k emptyKey, l *cachedList, ttl time.Duration, now time.Time) {
	if len(l.records) > maxHeldRecords/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropList(k)
	for key, old := range m.lists {
		if now.Sub(old.at) >= ttl {
			m.dropList(key)
		}
	}
	for m.held+len(l.records) > maxHeldRecords {
		var oldest emptyKey
		var at time.Time
		for key, old := range m.lists {
			if at.IsZero() || old.at.Before(at) {
				oldest, at = key, old.at
			}
		}
		m.dropList(oldest)
	}
	m.lists[k] = l
	m.held += len(l.records)
}

func (m *relateMemory) dropList(k emptyKey) {
	if old, ok := m.lists[k]; ok {
		m.held -= len(old.records)
		delete(m.lists, k)
	}
}

// emptySince says when the kind was last found empty in namespace, if
// within ttl.
func (m *relateMemory) emptySince(k emptyKey, ttl time.Duration, now time.Time) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, ok := m.empty[k]
	if !ok || now.Sub(at) >= ttl {
		return time.Time{}, false
	}
	return at, true
}

func (m *relateMemory) setEmpty(k emptyKey, empty bool, ttl time.Duration, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !empty {
		delete(m.empty, k)
		return
	}
	if len(m.empty) >= maxEmptyEntries {
		for key, at := range m.empty {
			if now.Sub(at) >= ttl {
				delete(m.empty, key)
			}
		}
		if len(m.empty) >= maxEmptyEntries {
			clear(m.empty)
		}
	}
	m.empty[k] = now
}

// related returns the kinds (resourceKey) found related to objects of
// k, most recent first is not needed: any order, the scan sorts.
func (m *relateMemory) related(k learnKey, now time.Time) map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]bool{}
	for r, at := range m.learned[k] {
		if now.Sub(at) < learnedFor {
			out[r] = true
		}
	}
	return out
}

func (m *relateMemory) learn(k learnKey, resources []string, now time.Time) {
	if len(resources) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.learned[k]; !ok && len(m.learned) >= maxLearnedEntries {
		clear(m.learned)
	}
	set := m.learned[k]
	if set == nil {
		set = map[string]time.Time{}
		m.learned[k] = set
	}
	for _, r := range resources {
		set[r] = now
	}
}
