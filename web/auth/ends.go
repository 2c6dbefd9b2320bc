package auth

import (
	"sync"
	"time"
)

// maxEnds bounds the sessions whose stream ends one process tracks.
const maxEnds = 10000

// sessionEnds closes, per session, the channel the streams opened with
// that session watch (page.Requester.Ends): at the deadline the last
// request computed (the token's refresh point, the idle or absolute
// timeout), or at once on logout here. Ending too early is always safe:
// a stream that ends reconnects with the session's current credential.
//
// Invariants, under mu: an entry in m is not closed; a closed entry's
// timer is stopped or has fired; an entry's deadline only grows.
type sessionEnds struct {
	mu sync.Mutex
	m  map[string]*endEntry
	// now is the auth clock deadlines are computed on.
	now func() time.Time
}

type endEntry struct {
	ch       chan struct{}
	deadline time.Time
	timer    *time.Timer
}

func newSessionEnds(now func() time.Time) *sessionEnds {
	return &sessionEnds{m: map[string]*endEntry{}, now: now}
}

// watch is the channel that closes when session sid's streams must end,
// no later than deadline.
func (e *sessionEnds) watch(sid string, deadline time.Time) <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	if en, ok := e.m[sid]; ok {
		if now.Before(en.deadline) {
			if deadline.After(en.deadline) {
				// The session was used: its idle deadline moved on.
				en.deadline = deadline
			}
			// Timers run on the monotonic clock; rearming keeps the
			// deadline on the wall clock the session's times are in.
			en.timer.Reset(en.deadline.Sub(now))
			return en.ch
		}
		// Past its deadline: the timer is about to fire. Whatever the
		// request carries now (a refreshed token) gets a new entry.
		e.closeLocked(sid, en)
	}
	ch := make(chan struct{})
	if !now.Before(deadline) {
		close(ch)
		return ch
	}
	if len(e.m) >= maxEnds {
		// Full: end some session's streams early (they reconnect).
		for id, en := range e.m {
			e.closeLocked(id, en)
			break
		}
	}
	en := &endEntry{ch: ch, deadline: deadline}
	en.timer = time.AfterFunc(deadline.Sub(now), func() { e.fire(sid, en) })
	e.m[sid] = en
	return ch
}

// fire closes en when its (possibly extended) deadline has come.
func (e *sessionEnds) fire(sid string, en *endEntry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m[sid] != en {
		return // already closed
	}
	if now := e.now(); now.Before(en.deadline) {
		en.timer.Reset(en.deadline.Sub(now)) // extended while this fired
		return
	}
	e.closeLocked(sid, en)
}

// end ends session sid's streams now (logout).
func (e *sessionEnds) end(sid string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if en, ok := e.m[sid]; ok {
		e.closeLocked(sid, en)
	}
}

// endWhere ends the streams of every session match says (logouts at other
// replicas).
func (e *sessionEnds) endWhere(match func(sid string) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for sid, en := range e.m {
		if match(sid) {
			e.closeLocked(sid, en)
		}
	}
}

func (e *sessionEnds) closeLocked(sid string, en *endEntry) {
	en.timer.Stop()
	delete(e.m, sid)
	close(en.ch)
}

// size is how many sessions are tracked (tests).
func (e *sessionEnds) size() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.m)
}
