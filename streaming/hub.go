package streaming

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// ErrResync tells a subscriber that the hub cannot continue its stream: it
// must relist and subscribe again from the new list's version.
var ErrResync = errors.New("streaming: resync required: relist and subscribe again")

// Upstream runs one upstream stream from fromVersion until ctx ends or the
// stream ends, calling emit for each event in order.
type Upstream[E any] func(ctx context.Context, fromVersion string, emit func(E)) error

// HubConfig configures a Hub. Zero fields take the defaults.
type HubConfig[E any] struct {
	Key      func(E) string   // coalescing key (uid); "" for bookmarks (they coalesce with each other)
	Version  func(E) string   // resourceVersion of the event
	Expired  func(error) bool // upstream error meaning "too old: relist" (410)
	Fatal    func(error) bool // upstream error retrying cannot fix (403, 404): Next returns it
	Ring     int              // recent events kept for joiners (1024)
	QueueMax int              // max pending keys per subscriber before it must resync (10000)
	Backoff  time.Duration    // first retry delay after an upstream drop (250ms, doubling to 10s)
	Log      *slog.Logger
}

// Hub fans one upstream stream out to many subscribers, so that browser tabs
// watching the same thing as the same identity share one upstream watch.
// Each subscriber has its own Coalescer: a slow tab gets coalesced events
// and never slows the upstream or the other tabs.
type Hub[E any] struct {
	cfg    HubConfig[E]
	ctx    context.Context // parent of every upstream: subscribers come and go
	cancel context.CancelFunc
	wg     sync.WaitGroup // upstream goroutines

	mu      sync.Mutex // guards streams, closed and started; taken before stream.mu
	streams map[string]*stream[E]
	closed  bool
	started uint64 // upstreams started so far: the next one's log id
}

// stream is the state of one key: its upstream, subscribers and recent
// events.
type stream[E any] struct {
	key    string
	id     uint64 // names the stream in logs, in place of its key
	cancel context.CancelFunc

	mu      sync.Mutex
	dead    bool // removed from the hub; its upstream is cancelled
	subs    map[*Subscription[E]]struct{}
	recent  ring[E]
	floor   string // the recent events are complete from this version on
	version string // the last version seen: where a restart resumes
}

// Subscription is one subscriber's view of a hub stream.
type Subscription[E any] struct {
	hub *Hub[E]
	st  *stream[E] // nil when never attached
	q   *Coalescer[string, E]

	// after, guarded by st.mu, drops events up to this version: the
	// subscriber joined with a version newer than the hub had seen.
	after string

	// trouble carries upstream failures that are being retried, so the
	// subscriber can say its view may be stale.
	trouble chan error

	mu  sync.Mutex
	err error // what Next returns once q is closed
}

// NewHub returns a Hub. Close it to stop every upstream.
func NewHub[E any](cfg HubConfig[E]) *Hub[E] {
	if cfg.Ring <= 0 {
		cfg.Ring = 1024
	}
	if cfg.QueueMax <= 0 {
		cfg.QueueMax = 10000
	}
	p := Policy[E]{Expired: cfg.Expired, Fatal: cfg.Fatal, Backoff: cfg.Backoff}.withDefaults()
	cfg.Expired, cfg.Fatal, cfg.Backoff = p.Expired, p.Fatal, p.Backoff
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub[E]{cfg: cfg, ctx: ctx, cancel: cancel, streams: make(map[string]*stream[E])}
}

// Subscribe joins the stream named key, which must identify everything that
// determines its content, including the exact credential it runs as (a
// keyed hash of it, so that a refreshed token never joins an upstream
// opened with the old one). The key is never logged: logs name an upstream
// by a number. The first
// subscriber of a key starts start from fromVersion; later ones share that
// upstream (their start is not used). A joiner first gets the recent events
// after fromVersion when the hub saw that version or it falls numerically
// within the kept history; ErrResync when it is older than that history;
// and only new events when the versions cannot be compared.
// Always Close the subscription.
func (h *Hub[E]) Subscribe(key, fromVersion string, start Upstream[E]) *Subscription[E] {
	s := &Subscription[E]{hub: h, q: NewCoalescer[string, E](h.cfg.QueueMax), trouble: make(chan error, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.fail(ErrClosed)
		return s
	}
	if st := h.streams[key]; st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
		if err := h.join(st, s, fromVersion); err != nil {
			s.fail(err)
			return s
		}
		s.st = st
		st.subs[s] = struct{}{}
		return s
	}
	ctx, cancel := context.WithCancel(h.ctx)
	h.started++
	st := &stream[E]{
		key:     key,
		id:      h.started,
		cancel:  cancel,
		subs:    map[*Subscription[E]]struct{}{s: {}},
		recent:  ring[E]{max: h.cfg.Ring},
		floor:   fromVersion,
		version: fromVersion,
	}
	s.st = st
	h.streams[key] = st
	h.wg.Add(1)
	go h.run(ctx, st, start)
	return s
}

// join queues for s the recent events after fromVersion. st.mu is held.
func (h *Hub[E]) join(st *stream[E], s *Subscription[E], fromVersion string) error {
	if fromVersion == st.version {
		return nil
	}
	n := st.recent.len()
	from := -1 // replay the events after this index; -1 is the floor
	if fromVersion != st.floor {
		from = n - 1
		for from >= 0 && h.cfg.Version(st.recent.at(from)) != fromVersion {
			from--
		}
		if from < 0 {
			// Versions are opaque by contract but numeric in practice:
			// compare when we can, and deliver from now when we cannot.
			c, ok := CompareVersions(fromVersion, st.floor)
			if !ok {
				return nil
			}
			if c < 0 {
				return ErrResync
			}
			s.after = fromVersion
		}
	}
	for i := from + 1; i < n; i++ {
		h.deliver(s, st.recent.at(i))
	}
	return nil
}

// publish records e and hands it to every subscriber.
func (h *Hub[E]) publish(st *stream[E], e E) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dead {
		return // emitted after cancellation
	}
	if v := h.cfg.Version(e); v != "" {
		st.version = v
	}
	if old, ok := st.recent.push(e); ok {
		st.floor = h.cfg.Version(old)
	}
	for s := range st.subs {
		h.deliver(s, e)
	}
}

// deliver queues e for s, or tells s to resync when it has fallen too far
// behind. st.mu is held.
func (h *Hub[E]) deliver(s *Subscription[E], e E) {
	if s.after != "" {
		if c, ok := CompareVersions(h.cfg.Version(e), s.after); ok && c <= 0 {
			return // already in the subscriber's list
		}
		s.after = ""
	}
	if !s.q.Put(h.cfg.Key(e), e) {
		s.fail(ErrResync)
	}
}

// run keeps the upstream of st going until it is cancelled or expires.
func (h *Hub[E]) run(ctx context.Context, st *stream[E], start Upstream[E]) {
	defer h.wg.Done()
	log := h.cfg.Log.With("upstream", st.id)
	log.Debug("upstream started")
	p := Policy[E]{Version: h.cfg.Version, Expired: h.cfg.Expired, Fatal: h.cfg.Fatal, Backoff: h.cfg.Backoff}
	var from string
	retry(ctx, p, func(ctx context.Context) error {
		st.mu.Lock()
		from = st.version
		st.mu.Unlock()
		return start(ctx, from, func(e E) { h.publish(st, e) })
	}, func(err error, after time.Duration) bool {
		switch {
		case err == nil:
			log.Debug("upstream ended; restarting", "from", from, "after", after) // watches time out routinely
			return true
		case h.cfg.Expired(err):
			log.Info("upstream expired; subscribers must relist", "from", from, "err", err)
			h.end(st, ErrResync)
			return false
		case h.cfg.Fatal(err):
			log.Info("upstream refused", "from", from, "err", err)
			h.end(st, err)
			return false
		}
		log.Warn("upstream failed; restarting", "from", from, "err", err, "after", after)
		h.warn(st, err)
		return true
	})
}

// warn tells st's subscribers that the upstream failed and is retried; a
// subscriber that has not read the last warning keeps that one.
func (h *Hub[E]) warn(st *stream[E], err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for s := range st.subs {
		select {
		case s.trouble <- err:
		default:
		}
	}
}

// end drops st so that the next Subscribe starts afresh, and ends its
// subscriptions with err.
func (h *Hub[E]) end(st *stream[E], err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	h.drop(st)
	for s := range st.subs {
		s.fail(err)
	}
}

// drop removes st from the hub and cancels its upstream. h.mu and st.mu are
// held.
func (h *Hub[E]) drop(st *stream[E]) {
	if st.dead {
		return
	}
	st.dead = true
	st.cancel()
	if h.streams[st.key] == st {
		delete(h.streams, st.key)
	}
}

// Upstreams returns the number of keys with an upstream, running or waiting
// to restart.
func (h *Hub[E]) Upstreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// Close stops every upstream and waits for them to return; subscribers get
// ErrClosed.
func (h *Hub[E]) Close() {
	h.mu.Lock()
	h.closed = true
	for _, st := range h.streams {
		st.mu.Lock()
		h.drop(st)
		for s := range st.subs {
			s.fail(ErrClosed)
		}
		st.mu.Unlock()
	}
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// Next returns the next event. It returns ErrResync when the subscriber must
// relist, the upstream's error when HubConfig.Fatal says so, ErrClosed after
// Close, or ctx's error.
func (s *Subscription[E]) Next(ctx context.Context) (E, error) {
	_, e, err := s.q.Next(ctx)
	if errors.Is(err, ErrClosed) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return e, s.err
	}
	return e, err
}

// Trouble reports upstream failures the hub is retrying. It is never
// closed.
func (s *Subscription[E]) Trouble() <-chan error { return s.trouble }

// Pending is how many events wait for this subscriber. A browser may
// resume from an event's version only when none wait: coalesced events can
// arrive out of version order.
func (s *Subscription[E]) Pending() int { return s.q.Len() }

// Close leaves the stream; the last subscriber to leave cancels the
// upstream. It does not wait for the upstream to return.
func (s *Subscription[E]) Close() {
	s.mu.Lock()
	s.err = ErrClosed
	s.mu.Unlock()
	s.q.Close()
	if s.st == nil {
		return
	}
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	delete(s.st.subs, s)
	if len(s.st.subs) == 0 {
		h.drop(s.st)
	}
}

// fail ends the subscription with err unless it already ended.
func (s *Subscription[E]) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.q.Close()
}

// CompareVersions compares two resourceVersions as unsigned integers, as
// kube-apiserver's are. ok is false when either is not one, since the
// Kubernetes API calls them opaque.
func CompareVersions(a, b string) (int, bool) {
	x, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, false
	}
	y, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return 0, false
	}
	return cmp.Compare(x, y), true
}
