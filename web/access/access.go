// Package access answers what the requesting user may do, so pages can
// show what the server would refuse as disabled, with the reason: access
// reviews asked in one batch per page, and one rules review per namespace
// for the sidebar, kept briefly per identity. The answers are hints; the
// server still decides every request.
package access

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

// Defaults of Options.
const (
	// DefaultTTL is how long an answer is kept: long enough to spare the
	// reviews of a user clicking through pages, short enough that a
	// RoleBinding granted or revoked shows within half a minute.
	DefaultTTL = 30 * time.Second
	// DefaultMaxEntries bounds the cache: about a hundred bytes an entry.
	DefaultMaxEntries = 20000
)

// Options tune a Checker; the zero value takes the defaults.
type Options struct {
	TTL        time.Duration
	MaxEntries int
	Log        *slog.Logger
	// Now is the clock, for tests.
	Now func() time.Time
}

// Checker implements page.Access with a short-lived bounded cache.
type Checker struct {
	ttl time.Duration
	max int
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	entries map[string]entry
}

// entry is one cached answer: a Decision or a Rules.
type entry struct {
	at       time.Time
	decision apiclient.Decision
	rules    *apiclient.Rules
}

// New builds a Checker.
func New(opts Options) *Checker {
	a := &Checker{ttl: opts.TTL, max: opts.MaxEntries, log: opts.Log, now: opts.Now, entries: map[string]entry{}}
	if a.ttl <= 0 {
		a.ttl = DefaultTTL
	}
	if a.max <= 0 {
		a.max = DefaultMaxEntries
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// scope is the part of a cache key that says whose answer it is: the
// identity (the client's IdentityKey) and the context it was asked in. It is the one
// place that decides which requests share answers; who "" shares nothing.
func scope(who, contextName string) (string, bool) {
	if who == "" {
		return "", false
	}
	return who + "\x00" + contextName + "\x00", true
}

func checkKey(ch apiclient.AccessCheck) string {
	return strings.Join([]string{"can", ch.Verb, ch.Group, ch.Resource, ch.Subresource, ch.Namespace, ch.Name}, "\x00")
}

func rulesKey(namespace string) string { return "rules\x00" + namespace }

// Can answers checks, from the cache where it can and with one batch of
// reviews for the rest. Only known answers are kept: a review that failed
// is asked again by the next page.
func (a *Checker) Can(ctx context.Context, who string, client *apiclient.Client, checks []apiclient.AccessCheck) []apiclient.Decision {
	out := make([]apiclient.Decision, len(checks))
	prefix, cacheable := scope(who, client.ContextName())
	var missing []int
	now := a.now()
	a.mu.Lock()
	for i, ch := range checks {
		if e, ok := a.get(prefix, cacheable, checkKey(ch), now); ok {
			out[i] = e.decision
			continue
		}
		missing = append(missing, i)
	}
	a.mu.Unlock()
	if len(missing) == 0 {
		return out
	}
	asked := make([]apiclient.AccessCheck, len(missing))
	for j, i := range missing {
		asked[j] = checks[i]
	}
	answers := client.AccessReview(ctx, asked)
	now = a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for j, i := range missing {
		out[i] = answers[j]
		if answers[j].Known {
			a.put(prefix, cacheable, checkKey(asked[j]), entry{at: now, decision: answers[j]})
		} else {
			a.log.DebugContext(ctx, "access review gave no answer", slog.String("verb", asked[j].Verb), slog.String("resource", asked[j].Resource), slog.String("reason", answers[j].Reason))
		}
	}
	return out
}

// Rules is what who may do in namespace, from the cache or one rules
// review; nil when the server could not say (which is not kept).
func (a *Checker) Rules(ctx context.Context, who string, client *apiclient.Client, namespace string) *apiclient.Rules {
	prefix, cacheable := scope(who, client.ContextName())
	a.mu.Lock()
	e, ok := a.get(prefix, cacheable, rulesKey(namespace), a.now())
	a.mu.Unlock()
	if ok {
		return e.rules
	}
	rules, err := client.RulesReview(ctx, namespace)
	if err != nil {
		a.log.DebugContext(ctx, "rules review gave no answer", slog.String("namespace", namespace), slog.Any("error", err))
		return nil
	}
	a.mu.Lock()
	a.put(prefix, cacheable, rulesKey(namespace), entry{at: a.now(), rules: rules})
	a.mu.Unlock()
	return rules
}

// get returns a fresh entry; a.mu is held.
func (a *Checker) get(prefix string, cacheable bool, key string, now time.Time) (entry, bool) {
	if !cacheable {
		return entry{}, false
	}
	e, ok := a.entries[prefix+key]
	if !ok || now.Sub(e.at) >= a.ttl {
		return entry{}, false
	}
	return e, true
}

// put stores an entry, first making room when the cache is full: expired
// entries go, then, if it is still full, a quarter of it (whichever
// entries map order gives: a full cache is an unusual load, and every
// answer is cheap to ask again). a.mu is held.
func (a *Checker) put(prefix string, cacheable bool, key string, e entry) {
	if !cacheable {
		return
	}
	if len(a.entries) >= a.max {
		for k, old := range a.entries {
			if e.at.Sub(old.at) >= a.ttl {
				delete(a.entries, k)
			}
		}
		for k := range a.entries {
			if len(a.entries) < a.max*3/4 {
				break
			}
			delete(a.entries, k)
		}
	}
	a.entries[prefix+key] = e
}

// Len is how many answers are kept, for tests and metrics.
func (a *Checker) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.entries)
}
