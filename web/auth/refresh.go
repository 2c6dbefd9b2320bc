package auth

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Bounds of the refreshed-token cache.
const (
	maxRefreshed = 4096
	// refreshedTTL is how long a refresh's result serves requests that
	// still carry the cookie from before it.
	refreshedTTL = 2 * time.Minute
	// refreshTimeout bounds one refresh at the provider.
	refreshTimeout = 15 * time.Second
	// retryRefreshAfter is how soon a session's failed refresh is tried
	// again: a provider that is down is not asked by every request.
	retryRefreshAfter = 10 * time.Second
)

// tokens are what a refresh replaces in a session.
type tokens struct {
	Token        string
	RefreshToken string
	IssuedAt     int64
	Expiry       int64
	User         string
	Groups       []string
	Subject      string
}

// refresher refreshes a session's tokens at most once at a time per
// session, and remembers the outcome for a while: a page's requests, its
// streams reconnecting and other tabs all carry the same cookie and arrive
// together, and all of them must get the one refreshed token rather than
// each refresh again (a refresh token may be single-use).
type refresher struct {
	flight singleflight.Group
	// refresh asks the provider for new tokens.
	refresh func(ctx context.Context, s Session) (tokens, error)
	now     func() time.Time
	// maxAge is the sessions' absolute timeout: nothing about a session
	// need be remembered longer.
	maxAge time.Duration
	// shared, when set, makes the refresh once across the replicas
	// (replicas.go) rather than once in this process.
	shared *shared

	mu   sync.Mutex
	done map[string]outcome // by session ID
}

// outcome is a refresh of the token issued at from: tokens or an error,
// good until until.
type outcome struct {
	from   int64
	tokens tokens
	err    error
	until  time.Time
}

func newRefresher(refresh func(context.Context, Session) (tokens, error), now func() time.Time, maxAge time.Duration) *refresher {
	return &refresher{refresh: refresh, now: now, maxAge: maxAge, done: map[string]outcome{}}
}

// tokensFor returns s's tokens refreshed: what this session's refresh from
// the same token gave lately, else the provider's answer, asked once for
// all concurrent callers. The refresh outlives a caller that leaves.
func (r *refresher) tokensFor(ctx context.Context, s Session) (tokens, error) {
	if o, ok := r.recent(s); ok {
		return o.tokens, o.err
	}
	v, err, _ := r.flight.Do(s.ID, func() (any, error) {
		if o, ok := r.recent(s); ok {
			return o.tokens, o.err
		}
		// Waiting for another replica's refresh may take up to claimTTL,
		// besides this one's own.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTTL+refreshTimeout)
		defer cancel()
		var t tokens
		var err error
		if r.shared != nil {
			t, err = r.shared.refresh(ctx, s, r.ask, r.failureKept(s))
		} else {
			t, err = r.ask(ctx, s)
		}
		r.remember(s, t, err)
		return t, err
	})
	if err != nil {
		return tokens{}, err
	}
	t, ok := v.(tokens)
	if !ok {
		return tokens{}, errors.New("auth: refresh returned no tokens")
	}
	return t, nil
}

// ask asks the provider, within refreshTimeout.
func (r *refresher) ask(ctx context.Context, s Session) (tokens, error) {
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	return r.refresh(ctx, s)
}

// failureKept is how long a refusal of s's refresh is remembered: as long
// as the session could live, as asking again can only be refused again.
func (r *refresher) failureKept(s Session) time.Time {
	return time.Unix(s.LoginAt, 0).Add(r.maxAge)
}

func (r *refresher) recent(s Session) (outcome, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.done[s.ID]
	if !ok || o.from != s.IssuedAt || !r.now().Before(o.until) {
		return outcome{}, false
	}
	return o, true
}

func (r *refresher) remember(s Session, t tokens, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if len(r.done) >= maxRefreshed {
		for id, o := range r.done {
			if !now.Before(o.until) {
				delete(r.done, id)
			}
		}
	}
	if len(r.done) >= maxRefreshed {
		for id := range r.done {
			delete(r.done, id) // any one: its requests refresh again
			break
		}
	}
	o := outcome{from: s.IssuedAt, tokens: t, err: err, until: now.Add(refreshedTTL)}
	switch {
	case err != nil && permanent(err):
		// The provider said no to this refresh token: asking again with
		// it can only be refused again (or, where refresh tokens rotate,
		// look like a stolen one being replayed).
		o.until = r.failureKept(s)
		if o.until.Before(now.Add(retryRefreshAfter)) {
			o.until = now.Add(retryRefreshAfter)
		}
	case err != nil:
		o.until = now.Add(retryRefreshAfter)
	}
	r.done[s.ID] = o
}

// forget drops what is remembered of a session (logout).
func (r *refresher) forget(sid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.done, sid)
}
