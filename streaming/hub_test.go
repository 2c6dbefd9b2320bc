package streaming

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// ev is a watch event: UID "" is a bookmark.
type ev struct{ UID, RV string }

var (
	errGone      = errors.New("410 Gone")
	errForbidden = errors.New("403 Forbidden")
)

func newTestHub(t *testing.T, edit func(*HubConfig[ev])) *Hub[ev] {
	cfg := HubConfig[ev]{
		Key:     func(e ev) string { return e.UID },
		Version: func(e ev) string { return e.RV },
		Expired: func(err error) bool { return errors.Is(err, errGone) },
		Fatal:   func(err error) bool { return errors.Is(err, errForbidden) },
		Backoff: time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	h := NewHub(cfg)
	t.Cleanup(h.Close)
	return h
}

// fakeUpstream is an Upstream the test drives: every start is reported on
// runs, and the test feeds each run events and its end.
type fakeUpstream struct{ runs chan *upstreamRun }

type upstreamRun struct {
	ctx    context.Context
	from   string
	events chan ev
	end    chan error
	acks   chan struct{}
}

func newFakeUpstream() *fakeUpstream { return &fakeUpstream{runs: make(chan *upstreamRun, 10)} }

func (f *fakeUpstream) start(ctx context.Context, from string, emit func(ev)) error {
	r := &upstreamRun{ctx: ctx, from: from, events: make(chan ev), end: make(chan error), acks: make(chan struct{})}
	f.runs <- r
	for {
		select {
		case e := <-r.events:
			emit(e)
			r.acks <- struct{}{}
		case err := <-r.end:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *fakeUpstream) next(t *testing.T) *upstreamRun {
	t.Helper()
	select {
	case r := <-f.runs:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("upstream not started")
	}
	return nil
}

// emit publishes events one by one, returning once the hub has taken them.
func (r *upstreamRun) emit(t *testing.T, events ...ev) {
	t.Helper()
	for _, e := range events {
		select {
		case r.events <- e:
			<-r.acks
		case <-time.After(10 * time.Second):
			t.Fatalf("upstream from %s not running", r.from)
		}
	}
}

func (r *upstreamRun) stop(t *testing.T, err error) {
	t.Helper()
	select {
	case r.end <- err:
	case <-time.After(10 * time.Second):
		t.Fatalf("upstream from %s not running", r.from)
	}
}

func (r *upstreamRun) waitCancelled(t *testing.T) {
	t.Helper()
	select {
	case <-r.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("upstream not cancelled")
	}
}

func unexpectedUpstream(t *testing.T) Upstream[ev] {
	return func(context.Context, string, func(ev)) error {
		t.Error("a second upstream was started")
		return nil
	}
}

// expect reads len(want) events from s.
func expect(t *testing.T, s *Subscription[ev], want ...ev) {
	t.Helper()
	for _, w := range want {
		got, err := s.Next(testCtx(t))
		if err != nil || got != w {
			t.Fatalf("got %v, %v; want %v", got, err, w)
		}
	}
	if n := s.q.Len(); n != 0 {
		t.Fatalf("%d more events pending", n)
	}
}

func expectErr(t *testing.T, s *Subscription[ev], want error) {
	t.Helper()
	if got, err := s.Next(testCtx(t)); !errors.Is(err, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}

func TestHubSharesOneUpstream(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	r := f.next(t)
	if r.from != "10" {
		t.Fatalf("started from %q", r.from)
	}
	b := h.Subscribe("k", "10", unexpectedUpstream(t))
	defer b.Close()
	if n := h.Upstreams(); n != 1 {
		t.Fatalf("%d upstreams", n)
	}
	r.emit(t, ev{"u1", "11"})
	expect(t, a, ev{"u1", "11"})
	expect(t, b, ev{"u1", "11"})

	other := h.Subscribe("other", "10", f.start)
	defer other.Close()
	f.next(t)
	if n := h.Upstreams(); n != 2 {
		t.Fatalf("%d upstreams for 2 keys", n)
	}
}

func TestHubLastCloseCancelsUpstream(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	b := h.Subscribe("k", "10", f.start)
	r := f.next(t)
	a.Close()
	a.Close()
	expectErr(t, a, ErrClosed)
	if h.Upstreams() != 1 || r.ctx.Err() != nil {
		t.Fatal("the upstream stopped while a subscriber remained")
	}
	b.Close()
	if n := h.Upstreams(); n != 0 {
		t.Fatalf("%d upstreams after the last subscriber left", n)
	}
	r.waitCancelled(t)

	c := h.Subscribe("k", "20", f.start)
	defer c.Close()
	if r := f.next(t); r.from != "20" {
		t.Fatalf("a new subscriber restarted from %q", r.from)
	}
}

func TestHubRestartsFromLastVersion(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	r := f.next(t)
	r.emit(t, ev{"u1", "11"}, ev{"", "15"})
	expect(t, a, ev{"u1", "11"}, ev{"", "15"})

	r.stop(t, errors.New("connection reset by peer"))
	r = f.next(t)
	if r.from != "15" {
		t.Fatalf("restarted from %q, want the bookmark's 15", r.from)
	}
	r.emit(t, ev{"u1", "16"})
	r.stop(t, nil) // a watch that times out ends without an error
	if r = f.next(t); r.from != "16" {
		t.Fatalf("restarted from %q, want 16", r.from)
	}
	r.emit(t, ev{"u2", "17"})
	expect(t, a, ev{"u1", "16"}, ev{"u2", "17"})
}

// A failing upstream is retried, and its subscribers hear about it, so a
// page can say its rows may be stale; a watch that simply ended is not news.
func TestHubReportsRetriedFailures(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	f.next(t).stop(t, nil)
	f.next(t).stop(t, errors.New("503 apiserver is shutting down"))
	select {
	case err := <-a.Trouble():
		if err.Error() != "503 apiserver is shutting down" {
			t.Fatalf("trouble = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no trouble reported")
	}
	r := f.next(t)
	r.emit(t, ev{"u1", "11"})
	expect(t, a, ev{"u1", "11"})
	select {
	case err := <-a.Trouble():
		t.Fatalf("a second report: %v", err)
	default:
	}
}

func TestHubExpiredResyncsEveryone(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	b := h.Subscribe("k", "10", f.start)
	defer b.Close()
	r := f.next(t)
	r.emit(t, ev{"u1", "11"})
	expect(t, a, ev{"u1", "11"})
	expect(t, b, ev{"u1", "11"})
	r.stop(t, fmt.Errorf("watch: %w", errGone))
	expectErr(t, a, ErrResync)
	expectErr(t, b, ErrResync)
	if n := h.Upstreams(); n != 0 {
		t.Fatalf("%d upstreams after expiry", n)
	}
	r.waitCancelled(t)

	// The key starts afresh: nothing of the expired stream is replayed.
	c := h.Subscribe("k", "11", f.start)
	defer c.Close()
	if r := f.next(t); r.from != "11" {
		t.Fatalf("restarted from %q", r.from)
	}
	if c.q.Len() != 0 {
		t.Fatal("events of the expired stream were replayed")
	}
	b.Close()
	expectErr(t, b, ErrClosed)
}

func TestHubFatalErrorReachesEveryone(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	b := h.Subscribe("k", "10", f.start)
	defer b.Close()
	r := f.next(t)
	r.stop(t, fmt.Errorf("watch pods: %w", errForbidden))
	expectErr(t, a, errForbidden)
	expectErr(t, b, errForbidden)
	if n := h.Upstreams(); n != 0 {
		t.Fatalf("%d upstreams after a fatal error", n)
	}
	c := h.Subscribe("k", "10", f.start)
	defer c.Close()
	f.next(t) // retried only for a new subscriber
}

func TestHubJoinerReplay(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	r := f.next(t)
	e20, e30, e40 := ev{"u1", "20"}, ev{"u2", "30"}, ev{"u1", "40"}
	for _, e := range []ev{e20, e30, e40} {
		r.emit(t, e)
		expect(t, a, e)
	}

	join := func(from string) *Subscription[ev] {
		s := h.Subscribe("k", from, unexpectedUpstream(t))
		t.Cleanup(s.Close)
		return s
	}
	expect(t, join("30"), e40)      // found in the ring
	expect(t, join("10"), e40, e30) // the floor: the ring is complete after it (u1 coalesced)
	expect(t, join("25"), e30, e40) // numeric, between floor and now
	expect(t, join("40"))           // now
	opaque := join("abc")           // not comparable: from now
	ahead := join("45")             // newer than the hub: skip what it has seen
	expect(t, opaque)
	expect(t, ahead)

	e43, e50 := ev{"u3", "43"}, ev{"u2", "50"}
	r.emit(t, e43, e50)
	expect(t, a, e43, e50)
	expect(t, opaque, e43, e50)
	expect(t, ahead, e50)
}

func TestHubJoinerTooOld(t *testing.T) {
	h := newTestHub(t, func(c *HubConfig[ev]) { c.Ring = 2 })
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	r := f.next(t)
	r.emit(t, ev{"u1", "11"}, ev{"u2", "12"}, ev{"u3", "13"})    // 11 is evicted
	expect(t, a, ev{"u1", "11"}, ev{"u2", "12"}, ev{"u3", "13"}) // distinct keys: no coalescing

	for _, from := range []string{"5", "10"} {
		s := h.Subscribe("k", from, unexpectedUpstream(t))
		expectErr(t, s, ErrResync)
		s.Close()
	}
	s := h.Subscribe("k", "11", unexpectedUpstream(t))
	defer s.Close()
	expect(t, s, ev{"u2", "12"}, ev{"u3", "13"})
	if n := h.Upstreams(); n != 1 {
		t.Fatalf("%d upstreams", n)
	}
}

func TestHubSlowSubscriberIsCoalesced(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	fast := h.Subscribe("k", "10", f.start)
	defer fast.Close()
	slow := h.Subscribe("k", "10", f.start)
	defer slow.Close()
	r := f.next(t)
	for i := range 30 {
		e := ev{fmt.Sprintf("u%d", i%3), fmt.Sprint(11 + i)}
		r.emit(t, e)
		expect(t, fast, e)
	}
	// The slow tab gets the latest of each object, in first-change order.
	expect(t, slow, ev{"u0", "38"}, ev{"u1", "39"}, ev{"u2", "40"})
}

func TestHubOverflowResyncsOnlyTheSlowSubscriber(t *testing.T) {
	h := newTestHub(t, func(c *HubConfig[ev]) { c.QueueMax = 2 })
	f := newFakeUpstream()
	fast := h.Subscribe("k", "10", f.start)
	defer fast.Close()
	slow := h.Subscribe("k", "10", f.start)
	defer slow.Close()
	r := f.next(t)
	for i := range 5 {
		e := ev{fmt.Sprintf("u%d", i), fmt.Sprint(11 + i)}
		r.emit(t, e)
		expect(t, fast, e)
	}
	expectErr(t, slow, ErrResync)
	if h.Upstreams() != 1 || r.ctx.Err() != nil {
		t.Fatal("a slow subscriber stopped the upstream")
	}
}

func TestHubClose(t *testing.T) {
	h := newTestHub(t, nil)
	f := newFakeUpstream()
	a := h.Subscribe("k", "10", f.start)
	defer a.Close()
	r := f.next(t)
	h.Close()
	expectErr(t, a, ErrClosed)
	if r.ctx.Err() == nil || h.Upstreams() != 0 {
		t.Fatal("Close left an upstream running")
	}
	late := h.Subscribe("k", "10", unexpectedUpstream(t))
	defer late.Close()
	expectErr(t, late, ErrClosed)
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		cmp  int
		ok   bool
	}{
		{"9", "10", -1, true},
		{"10", "10", 0, true},
		{"18446744073709551615", "1", 1, true},
		{"", "1", 0, false},
		{"1", "abc", 0, false},
		{"-1", "1", 0, false},
	} {
		if c, ok := CompareVersions(tc.a, tc.b); c != tc.cmp || ok != tc.ok {
			t.Errorf("CompareVersions(%q, %q) = %d, %v", tc.a, tc.b, c, ok)
		}
	}
}

// lockedBuffer is a log destination the hub's goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A key is derived from a credential: the hub's log lines name the
// upstream by a number instead.
func TestHubNeverLogsItsKeys(t *testing.T) {
	var logs lockedBuffer
	h := newTestHub(t, func(cfg *HubConfig[ev]) {
		cfg.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	f := newFakeUpstream()
	const key = "dev\x00credential-derived-3f9a"
	a := h.Subscribe(key, "10", f.start)
	defer a.Close()
	f.next(t).stop(t, errors.New("503 apiserver is shutting down"))
	f.next(t).stop(t, fmt.Errorf("watch pods: %w", errForbidden))
	expectErr(t, a, errForbidden)
	got := logs.String()
	if strings.Contains(got, "credential-derived") {
		t.Errorf("the hub logged its key:\n%s", got)
	}
	for _, want := range []string{"upstream failed", "upstream refused", "upstream=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
}
