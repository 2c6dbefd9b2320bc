package auth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/seal"
)

// Replicas of a console share, through one Secret in the console's own
// namespace that each of them watches, the two things a session's cookies
// cannot carry:
//
//   - that a session was signed out (Revoked), so a copy of its cookies
//     opens nothing at any replica, and its streams end everywhere;
//   - how its token's refresh went (Refresh), so that the requests of one
//     session reaching several replicas at its refresh point make one
//     refresh at the provider, not one per replica: a provider that
//     rotates refresh tokens refuses the second (and may revoke them all).
//
// Every write is a read-modify-write at the Secret's resourceVersion (a
// conflict reads it again and retries), so no replica's write is lost. A
// refresh is claimed before the provider is asked: the replica whose claim
// was written asks; the others wait for its answer (their watch brings it)
// and take its tokens, sealed with the session key like a cookie, never in
// clear. A claim not answered within claimTTL (a replica that died
// mid-refresh) may be taken over.
//
// Sessions are named by a hash of their ID: IDs are 144 random bits, so
// the hash reveals nothing, and it is the same whatever session key a
// replica seals with (a key rotation rolling out).
type shared struct {
	store   stateStore
	codec   *seal.Codec
	replica string
	log     *slog.Logger
	now     func() time.Time
	// revoked, when set, is told of the sessions newly revoked (any
	// replica's logouts), to end their streams here.
	revoked func(keys map[string]bool)

	// writeMu makes this replica's writes take turns: they would
	// otherwise only conflict with each other.
	writeMu sync.Mutex

	mu sync.Mutex
	// secret is the Secret as last read, written or watched; nil before
	// it was read (or once deleted): then nothing is shared.
	secret *corev1.Secret
	// doc is secret's state, never modified once set (update decodes its
	// own copy).
	doc sharedDoc
	// changed is closed, and replaced, at every new doc.
	changed chan struct{}
	// failing is since when the Secret could not be read, for the log.
	failing time.Time
}

// sharedDoc is the state in the Secret (data key stateKey, JSON).
type sharedDoc struct {
	// Revoked are the sessions signed out, each until it would have
	// expired anyway (Unix seconds).
	Revoked map[string]int64 `json:"revoked,omitempty"`
	// Refresh is the latest refresh of each session that refreshed lately.
	Refresh map[string]refreshEntry `json:"refresh,omitempty"`
}

// refreshEntry is a refresh of the session's token issued at From:
// claimed (in flight, by Owner, until Until), or Done.
type refreshEntry struct {
	From  int64  `json:"from"`
	Until int64  `json:"until"`
	Owner string `json:"owner,omitempty"`
	Done  bool   `json:"done,omitempty"`
	// Tokens are the refreshed tokens, sealed, until TokensUntil: the
	// requests still carrying the old cookie take them.
	Tokens      string `json:"tokens,omitempty"`
	TokensUntil int64  `json:"tokensUntil,omitempty"`
	// Failed says why the refresh failed; Permanent that the provider
	// refused it (the session is over), not that it could not be reached.
	Failed    string `json:"failed,omitempty"`
	Permanent bool   `json:"permanent,omitempty"`
}

// Bounds of the shared state: a Secret holds at most 1 MiB.
const (
	stateKey         = "state"
	maxStateBytes    = 768 << 10
	maxSharedRevoked = 20000
	maxSharedRefresh = 4000
	// stateTimeout bounds one read or write of the Secret.
	stateTimeout = 10 * time.Second
	// claimTTL is how long a claimed refresh is waited for before another
	// replica may take it over: the provider's answer and the write of its
	// outcome, with a margin for the replicas' clocks, so that no replica
	// spends a refresh token another is still writing the successor of.
	claimTTL = refreshTimeout + stateTimeout + 10*time.Second
	// claimPoll is how often a replica waiting for another's refresh reads
	// the Secret itself, should its watch be silent.
	claimPoll = time.Second
)

// stateStore is the Secret the state lives in.
type stateStore interface {
	get(ctx context.Context) (*corev1.Secret, error)
	update(ctx context.Context, s *corev1.Secret) (*corev1.Secret, error)
	watch(ctx context.Context, resourceVersion string, emit func(eventType string, s *corev1.Secret)) error
}

// secretStore is the Secret namespace/name, read and written through the
// API server of the current context with the console's own credentials.
type secretStore struct {
	clusters        page.Clusters
	namespace, name string
}

func (s secretStore) client() (*apiclient.Client, error) {
	return s.clusters.Client(s.clusters.Current(), apiclient.Identity{})
}

func (s secretStore) get(ctx context.Context) (*corev1.Secret, error) {
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	return c.GetSecret(ctx, s.namespace, s.name)
}

func (s secretStore) update(ctx context.Context, sec *corev1.Secret) (*corev1.Secret, error) {
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	return c.UpdateSecret(ctx, sec)
}

func (s secretStore) watch(ctx context.Context, rv string, emit func(string, *corev1.Secret)) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	return c.WatchSecret(ctx, s.namespace, s.name, rv, emit)
}

func newShared(store stateStore, c *seal.Codec, log *slog.Logger, now func() time.Time) (*shared, error) {
	id, err := randomString(9)
	if err != nil {
		return nil, err
	}
	return &shared{store: store, codec: c, replica: id, log: log, now: now, changed: make(chan struct{})}, nil
}

// key names session sid in the shared state.
func sessionKey(sid string) string {
	sum := sha256.Sum256([]byte("tabula session " + sid))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// view is the shared state as this replica last saw it, whether there is
// one (the Secret was read), and a channel closed when it changes.
func (sh *shared) view() (sharedDoc, bool, <-chan struct{}) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.doc, sh.secret != nil, sh.changed
}

// set makes s the state seen (nil: none).
func (sh *shared) set(s *corev1.Secret) {
	var doc sharedDoc
	if s != nil {
		if err := decodeDoc(s, &doc); err != nil {
			sh.log.Warn("the shared session state is not readable; it is started afresh at the next write", "secret", s.Namespace+"/"+s.Name, "error", err)
			doc = sharedDoc{}
		}
	}
	sh.mu.Lock()
	if sh.secret != nil && s != nil && sh.secret.ResourceVersion == s.ResourceVersion {
		sh.mu.Unlock()
		return
	}
	var fresh map[string]bool
	for k := range doc.Revoked {
		if _, ok := sh.doc.Revoked[k]; !ok {
			if fresh == nil {
				fresh = map[string]bool{}
			}
			fresh[k] = true
		}
	}
	sh.secret, sh.doc = s, doc
	close(sh.changed)
	sh.changed = make(chan struct{})
	sh.mu.Unlock()
	if fresh != nil && sh.revoked != nil {
		sh.revoked(fresh)
	}
}

func decodeDoc(s *corev1.Secret, doc *sharedDoc) error {
	raw := s.Data[stateKey]
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, doc)
}

// run keeps the view up to date until ctx ends: it reads the Secret, then
// watches it from there, and reads it again whenever the watch cannot go
// on (an expired version, an error), backing off while it fails.
func (sh *shared) run(ctx context.Context) {
	const minWait, maxWait = 250 * time.Millisecond, 30 * time.Second
	wait := minWait
	pause := func() bool {
		t := time.NewTimer(wait)
		defer t.Stop()
		wait = min(wait*2, maxWait)
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, stateTimeout)
		s, err := sh.store.get(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			sh.failed(err)
			if apierrors.IsNotFound(err) {
				sh.set(nil)
			}
			if !pause() {
				return
			}
			continue
		}
		sh.recovered()
		sh.set(s)
		for ctx.Err() == nil {
			started := time.Now()
			rv := s.ResourceVersion
			if cur := sh.current(); cur != nil {
				rv = cur.ResourceVersion
			}
			err := sh.store.watch(ctx, rv, func(typ string, s *corev1.Secret) {
				if typ == apiclient.WatchDeleted {
					sh.set(nil)
					return
				}
				sh.set(s)
			})
			if err != nil || sh.current() == nil {
				if err != nil && ctx.Err() == nil && !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
					sh.failed(err)
				}
				break // read it again
			}
			if time.Since(started) > time.Second {
				wait = minWait
			} else if !pause() { // a server that ends every watch at once
				return
			}
		}
		if !pause() {
			return
		}
	}
}

// failed logs that the Secret cannot be used: when it starts failing, and
// every few minutes while it goes on.
func (sh *shared) failed(err error) {
	sh.mu.Lock()
	now := time.Now()
	first := sh.failing.IsZero()
	if first || now.Sub(sh.failing) > 5*time.Minute {
		sh.failing = now
	} else {
		sh.mu.Unlock()
		return
	}
	sh.mu.Unlock()
	sh.log.Warn("the session state replicas share cannot be used: until it can, logouts and refreshes are known to this replica only (does the Secret exist, and may the console's service account get, watch and update it? see deploy/session-state.yaml)",
		"error", err)
}

func (sh *shared) recovered() {
	sh.mu.Lock()
	was := !sh.failing.IsZero()
	sh.failing = time.Time{}
	sh.mu.Unlock()
	if was {
		sh.log.Info("the session state replicas share can be used again")
	}
}

func (sh *shared) current() *corev1.Secret {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.secret
}

// update applies change to the shared state and writes it at the version
// it was read at, reading it again and retrying on a conflict. changed
// says whether there was anything to write (change returned true) and it
// was written.
func (sh *shared) update(ctx context.Context, change func(d *sharedDoc, now time.Time) bool) (changed bool, err error) {
	sh.writeMu.Lock()
	defer sh.writeMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	for range 8 {
		cur := sh.current()
		if cur == nil {
			s, err := sh.store.get(ctx)
			if err != nil {
				return false, err
			}
			sh.set(s)
			cur = s
		}
		var doc sharedDoc
		if err := decodeDoc(cur, &doc); err != nil {
			doc = sharedDoc{}
		}
		now := sh.now()
		if !change(&doc, now) {
			return false, nil
		}
		raw, err := encodeDoc(&doc, now)
		if err != nil {
			return false, err
		}
		next := cur.DeepCopy()
		if next.Data == nil {
			next.Data = map[string][]byte{}
		}
		next.Data[stateKey] = raw
		stored, err := sh.store.update(ctx, next)
		switch {
		case apierrors.IsConflict(err):
			fresh, gerr := sh.store.get(ctx)
			if gerr != nil {
				return false, gerr
			}
			sh.set(fresh)
			continue
		case err != nil:
			return false, err
		}
		sh.set(stored)
		return true, nil
	}
	return false, errors.New("the shared session state kept changing under this replica's writes")
}

// encodeDoc drops what has expired, keeps the state within its bounds
// (the tokens of the oldest refreshes first, then the oldest entries),
// and encodes it.
func encodeDoc(d *sharedDoc, now time.Time) ([]byte, error) {
	t := now.Unix()
	for k, until := range d.Revoked {
		if until <= t {
			delete(d.Revoked, k)
		}
	}
	for k, e := range d.Refresh {
		switch {
		case e.Until <= t:
			delete(d.Refresh, k)
		case e.Tokens != "" && e.TokensUntil <= t:
			e.Tokens, e.TokensUntil = "", 0
			d.Refresh[k] = e
		}
	}
	dropOldest(d.Revoked, maxSharedRevoked, func(until int64) int64 { return until })
	dropOldest(d.Refresh, maxSharedRefresh, func(e refreshEntry) int64 { return e.Until })
	for {
		raw, err := json.Marshal(d)
		if err != nil || len(raw) <= maxStateBytes {
			return raw, err
		}
		// Over budget: the sealed tokens go first, oldest first, then
		// whole refreshes, then the revocations nearest their end.
		switch {
		case dropOldestTokens(d.Refresh, len(d.Refresh)/4+1):
		case len(d.Refresh) > 0:
			dropOldest(d.Refresh, len(d.Refresh)*3/4, func(e refreshEntry) int64 { return e.Until })
		default:
			dropOldest(d.Revoked, len(d.Revoked)*3/4, func(until int64) int64 { return until })
		}
	}
}

// dropOldest keeps the n entries of m with the latest end.
func dropOldest[V any](m map[string]V, n int, end func(V) int64) {
	if len(m) <= n {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(end(m[a]), end(m[b])) })
	for _, k := range keys[:len(keys)-n] {
		delete(m, k)
	}
}

// dropOldestTokens drops the sealed tokens of up to n refreshes, those
// kept the shortest first, and says whether it dropped any.
func dropOldestTokens(m map[string]refreshEntry, n int) bool {
	var keys []string
	for k, e := range m {
		if e.Tokens != "" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(m[a].TokensUntil, m[b].TokensUntil) })
	for _, k := range keys[:min(n, len(keys))] {
		e := m[k]
		e.Tokens, e.TokensUntil = "", 0
		m[k] = e
	}
	return len(keys) > 0
}

// revoke records that session sid was signed out, until until.
func (sh *shared) revoke(ctx context.Context, sid string, until time.Time) error {
	key := sessionKey(sid)
	_, err := sh.update(ctx, func(d *sharedDoc, _ time.Time) bool {
		if d.Revoked == nil {
			d.Revoked = map[string]int64{}
		}
		d.Revoked[key] = until.Unix()
		return true
	})
	return err
}

// isRevoked says whether any replica signed session sid out.
func (sh *shared) isRevoked(sid string, now time.Time) bool {
	doc, _, _ := sh.view()
	until, ok := doc.Revoked[sessionKey(sid)]
	return ok && now.Unix() < until
}

// errSpent is a refresh another request made already, from the same token,
// whose new tokens are no longer kept: this request's refresh token is
// spent, and it goes on with its current token while that holds.
var errSpent = errors.New("this token was refreshed already, by a request whose new tokens are no longer kept")

// refresh refreshes session s's tokens once across the replicas: it takes
// the outcome of a refresh of the same token that any replica made or is
// making, else claims the refresh and makes it (with do, the provider),
// writing the outcome for the others. Without a readable shared state, or
// if the claim cannot be written, it refreshes alone, as a single replica
// does.
func (sh *shared) refresh(ctx context.Context, s Session, do func(context.Context, Session) (tokens, error), keepFailure time.Time) (tokens, error) {
	key := sessionKey(s.ID)
	for {
		doc, ok, changed := sh.view()
		if !ok {
			return do(ctx, s)
		}
		now := sh.now()
		e, found := doc.Refresh[key]
		if found && e.Until <= now.Unix() {
			found = false // over: a failure to try again, a claim abandoned
		}
		switch {
		case found && e.From > s.IssuedAt:
			return tokens{}, errSpent // a newer token of the session was refreshed
		case found && e.From == s.IssuedAt && e.Done:
			return sh.outcome(key, e)
		case found && e.From == s.IssuedAt:
			// Claimed, by another replica (or by this one's earlier life):
			// wait for its answer, or for the claim to lapse. The watch
			// brings the answer; should it be silent (failing, or backing
			// off), the Secret is read again every claimPoll.
			wait := time.Unix(e.Until, 0).Sub(now) + 10*time.Millisecond
			reread := wait > claimPoll
			t := time.NewTimer(min(wait, claimPoll))
			select {
			case <-changed:
			case <-t.C:
				if reread {
					sh.reread(ctx)
				}
			case <-ctx.Done():
				t.Stop()
				return tokens{}, ctx.Err()
			}
			t.Stop()
			continue
		}
		claimed, err := sh.update(ctx, func(d *sharedDoc, now time.Time) bool {
			if e, ok := d.Refresh[key]; ok && e.Until > now.Unix() && e.From >= s.IssuedAt {
				return false // someone got there first
			}
			if d.Refresh == nil {
				d.Refresh = map[string]refreshEntry{}
			}
			d.Refresh[key] = refreshEntry{From: s.IssuedAt, Owner: sh.replica, Until: now.Add(claimTTL).Unix()}
			return true
		})
		if err != nil {
			sh.log.Warn("a refresh could not be claimed in the shared session state; refreshing alone", "session", s, "error", err)
			return do(ctx, s)
		}
		if !claimed {
			continue // look at what is there now
		}
		t, rerr := do(ctx, s)
		if _, err := sh.update(context.WithoutCancel(ctx), func(d *sharedDoc, now time.Time) bool {
			if e, ok := d.Refresh[key]; ok && (e.From > s.IssuedAt || e.Owner != sh.replica) {
				return false // taken over, or superseded, meanwhile
			}
			if d.Refresh == nil {
				// The state lost every refresh meanwhile (re-created, or
				// trimmed): the outcome is still written, or the next
				// request would spend the rotated refresh token again.
				d.Refresh = map[string]refreshEntry{}
			}
			d.Refresh[key] = sh.entry(key, s, t, rerr, now, keepFailure)
			return true
		}); err != nil {
			sh.log.Warn("a refresh's outcome could not be written to the shared session state", "session", s, "error", err)
		}
		return t, rerr
	}
}

// reread reads the Secret into the view, when the watch may not have.
func (sh *shared) reread(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, stateTimeout)
	defer cancel()
	if s, err := sh.store.get(ctx); err == nil {
		sh.set(s)
	}
}

// entry is the outcome of a refresh from s's token, to share.
func (sh *shared) entry(key string, s Session, t tokens, err error, now, keepFailure time.Time) refreshEntry {
	e := refreshEntry{From: s.IssuedAt, Done: true}
	switch {
	case err == nil:
		sealed, serr := sh.codec.Seal(tokensName(key, s.IssuedAt), t)
		if serr == nil {
			e.Tokens, e.TokensUntil = sealed, now.Add(refreshedTTL).Unix()
		}
		// Kept while the new token lives: a request with an older cookie
		// then knows its refresh token is spent.
		e.Until = max(t.Expiry, now.Add(refreshedTTL).Unix())
	case permanent(err):
		e.Failed, e.Permanent, e.Until = logSafe(err), true, max(keepFailure.Unix(), now.Add(retryRefreshAfter).Unix())
	default:
		e.Failed, e.Until = logSafe(err), now.Add(retryRefreshAfter).Unix()
	}
	return e
}

// outcome is what a finished refresh gives a request that did not make it.
func (sh *shared) outcome(key string, e refreshEntry) (tokens, error) {
	switch {
	case e.Failed != "" && e.Permanent:
		return tokens{}, &refreshRefused{reason: e.Failed}
	case e.Failed != "":
		return tokens{}, errors.New(e.Failed)
	case e.Tokens == "":
		return tokens{}, errSpent
	}
	var t tokens
	if err := sh.codec.Open(tokensName(key, e.From), e.Tokens, &t); err != nil {
		return tokens{}, fmt.Errorf("the refreshed tokens another replica shared do not open with this replica's session keys: %w", err)
	}
	return t, nil
}

// tokensName binds sealed tokens to the session and the token they
// replace, as a cookie's name binds its value.
func tokensName(key string, from int64) string {
	return "tabula refreshed " + key + " " + strconv.FormatInt(from, 10)
}
