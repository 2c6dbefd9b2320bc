package object

import (
	"bytes"
	"cmp"
	"context"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// SectionsMessage replaces the live sections of an object page.
type SectionsMessage = streaming.Sections

// settle is how long an object page waits for a burst of changes (a
// rollout touches the object and several events) before re-rendering once.
const settle = 300 * time.Millisecond

// Live follows an object page over a WebSocket: a change to the object or
// to its events re-renders the page's live sections and pushes them.
func (h *Handler) Live(c echo.Context, t page.Target) error {
	// Its object and events watches are upstream streams like a log's:
	// they take a slot of the console's cap for as long as the page follows.
	return h.env.FollowInSlot(c, t.Client.IdentityKey(), func(stream *page.Stream) error { return h.follow(stream, t) })
}

func (h *Handler) follow(stream *page.Stream, t page.Target) error {
	ctx := stream.Context
	client, r, p := t.Client, t.Resource, t.Path
	changed := make(chan struct{}, 1)
	poke := func(apiclient.WatchEvent) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	watchErr := make(chan error, 1)
	go func() {
		opts := apiclient.WatchOptions{Namespace: p.Namespace, FieldSelector: fields.OneTermEqualSelector("metadata.name", p.Name).String()}
		watchErr <- streaming.KeepWatching(ctx, page.Watches(), func(ctx context.Context, rv string, emit func(apiclient.WatchEvent)) error {
			opts.ResourceVersion = rv
			return client.WatchMeta(ctx, r, opts, emit)
		}, poke)
	}()
	if events, ok := watchableEvents(ctx, client); ok {
		go func() {
			// events.k8s.io names the object "regarding", core "involvedObject".
			field := "involvedObject.name"
			if events.Group == "events.k8s.io" {
				field = "regarding.name"
			}
			opts := apiclient.WatchOptions{Namespace: p.Namespace, FieldSelector: fields.OneTermEqualSelector(field, p.Name).String()}
			// A refused events watch only means the page's events stay put.
			_ = streaming.KeepWatching(ctx, page.Watches(), func(ctx context.Context, rv string, emit func(apiclient.WatchEvent)) error {
				opts.ResourceVersion = rv
				return client.WatchMeta(ctx, events, opts, emit)
			}, poke)
		}()
	}
	// The Related section's kinds are listed anew at most once per
	// relistEvery: a change inside that window re-renders with the lists of
	// a moment ago, and one more render follows when the window ends, so
	// the last state of a burst (a rollout's new pods) is shown from fresh
	// lists, and following a busy object costs one scan every few seconds.
	relistEvery := cmp.Or(h.relate.ReuseFor, apiclient.DefaultRelateBudget().ReuseFor)
	var lastFresh time.Time
	var relist <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			return err
		case <-relist:
			relist = nil
		case <-changed:
			// Let a burst settle, then render once.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(settle):
			}
			select {
			case <-changed:
			default:
			}
		}
		now := time.Now()
		fresh := now.Sub(lastFresh) >= relistEvery
		if fresh {
			lastFresh = now
		} else if relist == nil {
			relist = time.After(lastFresh.Add(relistEvery).Sub(now))
		}
		msg, err := h.sections(ctx, t, fresh)
		if err != nil {
			return err
		}
		if err := stream.SendJSON(ctx, streaming.ChannelData, msg); err != nil {
			return err
		}
	}
}

// watchableEvents is the events resource the server serves (as EventsFor
// reads it) if it may be watched: a server without events gets no events
// watch.
func watchableEvents(ctx context.Context, client *apiclient.Client) (apiclient.Resource, bool) {
	d, err := client.Discovery(ctx)
	if err != nil {
		return apiclient.Resource{}, false
	}
	r, ok := d.EventsResource()
	return r, ok && r.Can("watch")
}

// sections renders the live sections of an object page afresh, with the
// same fetch and builder as the page; fresh lists the relations' kinds
// anew.
func (h *Handler) sections(ctx context.Context, t page.Target, fresh bool) (SectionsMessage, error) {
	ctx, cancel := h.env.WithDeadline(ctx)
	defer cancel()
	in, err := h.load(ctx, t, viewOverview, pageOptions{related: true, fresh: fresh})
	if err != nil {
		return SectionsMessage{}, err
	}
	p, err := Model(ctx, in)
	if err != nil {
		return SectionsMessage{}, err
	}
	msg := streaming.NewSections()
	var buf bytes.Buffer
	for id, component := range views.ObjectLiveSections(p) {
		buf.Reset()
		if err := component.Render(ctx, &buf); err != nil {
			return SectionsMessage{}, err
		}
		msg.Sections[id] = buf.String()
	}
	return msg, nil
}
