package auth

import (
	"sync"
	"time"
)

// maxRevoked bounds the signed-out sessions one process remembers.
const maxRevoked = 100000

// revokedSessions remembers, until they would have expired anyway, the
// sessions signed out on this replica, so a copy of their cookies taken
// before the logout opens nothing here afterwards. Other replicas learn of
// them through the shared state (replicas.go), when there is one.
type revokedSessions struct {
	mu sync.Mutex
	m  map[string]time.Time // session ID → when it would have expired
}

func newRevokedSessions() *revokedSessions {
	return &revokedSessions{m: map[string]time.Time{}}
}

// add revokes sid until until.
func (r *revokedSessions) add(sid string, until, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= maxRevoked {
		r.sweepLocked(now)
	}
	if len(r.m) >= maxRevoked {
		// Still full of live entries: forget the one nearest its end.
		var first string
		for id, t := range r.m {
			if first == "" || t.Before(r.m[first]) {
				first = id
			}
		}
		delete(r.m, first)
	}
	r.m[sid] = until
}

// has says whether sid was signed out here.
func (r *revokedSessions) has(sid string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	until, ok := r.m[sid]
	if ok && !now.Before(until) {
		delete(r.m, sid)
		return false
	}
	return ok
}

func (r *revokedSessions) sweepLocked(now time.Time) {
	for id, until := range r.m {
		if !now.Before(until) {
			delete(r.m, id)
		}
	}
}
