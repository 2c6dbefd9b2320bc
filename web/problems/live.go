package problems

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// settle is how long the page waits for a burst of changes (a rollout
// touches many pods) before rendering once.
const settle = 300 * time.Millisecond

// live follows the page: it scans as the page did, then watches the asked
// kinds (the budget's LiveKinds, kinds with problems first) and the
// Warning events from the lists' versions, and re-renders the report on
// every change, and when a verdict's threshold passes.
func (h *Handler) live(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	q, problem := parse(c)
	if problem != "" {
		return echo.NewHTTPError(http.StatusBadRequest, problem)
	}
	// Its watches are upstream streams like a log's: they take a slot of
	// the console's cap for as long as the page follows.
	return h.env.FollowInSlot(c, client.IdentityKey(), func(stream *page.Stream) error {
		return h.follow(stream, client, q, page.URLsOf(c.Request().Context()))
	})
}

func (h *Handler) follow(stream *page.Stream, client *apiclient.Client, q query, u page.URLs) error {
	ctx := stream.Context
	dctx, cancel := h.env.WithDeadline(ctx)
	d, err := client.FreshDiscovery(dctx)
	cancel()
	if err != nil {
		return err
	}
	bd := newBoard(q.after, h.budget.Tracked, h.budget.Tracked)
	res := scan(ctx, client, d, q.namespace, bd, h.budget)
	if ctx.Err() != nil {
		return nil
	}
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	f := &follower{client: client, namespace: q.namespace, board: bd, budget: h.budget, poke: poke}
	watched, notLive := liveKinds(res, bd, h.budget.LiveKinds)
	f.notLive = notLive
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	for _, r := range watched {
		wg.Go(func() { f.watchKind(ctx, r, res.Versions[keyOf(r, "", "")]) })
	}
	if res.Events.Name != "" && res.Events.Can("watch") {
		wg.Go(func() { f.watchEvents(ctx, res.Events, res.EventsVersion, res.EventsSelector) })
	}
	last := ""
	var due <-chan time.Time
	for {
		now := time.Now()
		html, err := f.render(u, d, q, res, now)
		if err != nil {
			return err
		}
		if html != last {
			msg := streaming.NewSections()
			msg.Sections["problems"] = html
			if err := stream.SendJSON(ctx, streaming.ChannelData, msg); err != nil {
				return err
			}
			last = html
		}
		// A verdict whose threshold passes changes the page with no event.
		due = nil
		if next := bd.nextChange(now); !next.IsZero() {
			due = time.After(next.Sub(now) + time.Second)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-due:
		case <-changed:
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(settle):
			}
		}
	}
}

// liveKinds are the kinds a live page watches, at most n: kinds with
// problems first, then in the scan's order (pods, workloads, the rest);
// the others are not followed, with the reason.
func liveKinds(res Result, bd *board, n int) (watched []apiclient.Resource, notLive []Skipped) {
	troubled := bd.kindsWithProblems()
	kinds := slices.Clone(res.Asked)
	slices.SortStableFunc(kinds, func(a, b apiclient.Resource) int {
		ta, tb := troubled[[2]string{a.Group, a.Name}], troubled[[2]string{b.Group, b.Name}]
		switch {
		case ta && !tb:
			return -1
		case tb && !ta:
			return 1
		}
		return 0
	})
	for _, r := range kinds {
		_, listed := res.Versions[keyOf(r, "", "")]
		switch {
		case !listed:
			// Skipped by the scan, which says why.
		case !r.Can("watch"):
			notLive = append(notLive, Skipped{Resource: r, Reason: "cannot be watched"})
		case len(watched) >= n:
			notLive = append(notLive, Skipped{Resource: r, Reason: fmt.Sprintf("past the live page's %d watches: reload to see it anew", n)})
		default:
			watched = append(watched, r)
		}
	}
	return watched, notLive
}

// follower keeps a live page's board current.
type follower struct {
	client    *apiclient.Client
	namespace string
	board     *board
	budget    Budget
	poke      func()

	mu      sync.Mutex
	notLive []Skipped
}

func (f *follower) render(u page.URLs, d *apiclient.Discovery, q query, res Result, now time.Time) (string, error) {
	f.mu.Lock()
	notLive := slices.Clone(f.notLive)
	f.mu.Unlock()
	var buf bytes.Buffer
	r := model(u, d, q, f.board.report(now, f.budget.Shown), res, notLive, now, "")
	if err := views.ProblemsReportBody(r).Render(context.Background(), &buf); err != nil {
		return "", fmt.Errorf("rendering problems: %w", err)
	}
	return buf.String(), nil
}

// stopped records a kind no longer followed, and why.
func (f *follower) stopped(r apiclient.Resource, err error) {
	f.mu.Lock()
	f.notLive = append(f.notLive, Skipped{Resource: r, Reason: "no longer followed: " + err.Error()})
	f.mu.Unlock()
	f.poke()
}

// watchKind follows r from version, listing it anew (its verdicts
// replaced) when the version expired.
func (f *follower) watchKind(ctx context.Context, r apiclient.Resource, version string) {
	err := f.keep(ctx, r, version, apiclient.WatchOptions{Namespace: f.namespace},
		func(ctx context.Context) (string, error) {
			f.board.forgetKind(r)
			now := time.Now()
			read, err := f.client.EachObject(ctx, r, f.namespace, listQuery(r, f.budget), func(obj *unstructured.Unstructured) error {
				f.board.observe(r, obj, now)
				return nil
			})
			return read.ResourceVersion, err
		},
		func(ev apiclient.WatchEvent) {
			switch ev.Type {
			case apiclient.WatchAdded, apiclient.WatchModified:
				f.board.observe(r, ev.Object, time.Now())
			case apiclient.WatchDeleted:
				f.board.forget(r, ev.Namespace, ev.Name)
			}
		})
	if err != nil {
		f.stopped(r, err)
	}
}

// watchEvents follows the Warning events from version, with the selector
// they were listed with.
func (f *follower) watchEvents(ctx context.Context, r apiclient.Resource, version, selector string) {
	err := f.keep(ctx, r, version, apiclient.WatchOptions{Namespace: f.namespace, FieldSelector: selector},
		func(ctx context.Context) (string, error) {
			f.board.forgetEvents()
			read, err := f.client.EachObject(ctx, r, f.namespace, apiclient.ListQuery{FieldSelector: selector, PageSize: f.budget.PageSize, MaxObjects: f.budget.MaxObjects}, func(obj *unstructured.Unstructured) error {
				f.board.observeEvent(r, obj)
				return nil
			})
			return read.ResourceVersion, err
		},
		func(ev apiclient.WatchEvent) {
			switch ev.Type {
			case apiclient.WatchAdded, apiclient.WatchModified:
				f.board.observeEvent(r, ev.Object)
			case apiclient.WatchDeleted:
				f.board.forgetEvent(ev.UID)
			}
		})
	if err != nil {
		f.stopped(r, err)
	}
}

// keep watches r from version until ctx ends, resuming after drops from
// the last event's version, and calling relist for a new version when
// the last one expired (or there was none). It returns a refusal retrying
// cannot fix.
func (f *follower) keep(ctx context.Context, r apiclient.Resource, version string, opts apiclient.WatchOptions,
	relist func(context.Context) (string, error), apply func(apiclient.WatchEvent)) error {
	resume := version
	return streaming.KeepWatching(ctx, page.Watches(), func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
		if from != "" {
			resume = from
		}
		if resume == "" {
			v, err := relist(ctx)
			if err != nil {
				return err
			}
			resume = v
			f.poke()
		}
		opts.ResourceVersion = resume
		err := f.client.WatchObjects(ctx, r, opts, emit)
		if apiclient.IsExpired(err) {
			resume = ""
		}
		return err
	}, func(ev apiclient.WatchEvent) {
		apply(ev)
		f.poke()
	})
}
