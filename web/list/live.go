package list

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// watchHub shares one upstream Table watch among the browser tabs of one
// identity that follow the same list.
type watchHub = streaming.Hub[apiclient.WatchEvent]

func newWatchHub(log *slog.Logger) *watchHub {
	w := page.Watches()
	return streaming.NewHub(streaming.HubConfig[apiclient.WatchEvent]{
		Log: log, Key: watchEventKey, Version: w.Version, Expired: w.Expired, Fatal: w.Fatal,
	})
}

// watchEventKey coalesces a slow page's events per object: by uid, or by
// namespace/name when the server sent rows without object metadata.
// Bookmarks share the empty key, so only the latest is kept.
func watchEventKey(e apiclient.WatchEvent) string {
	switch {
	case e.Type == apiclient.WatchBookmark:
		return ""
	case e.UID != "":
		return e.UID
	}
	return e.Namespace + "/" + e.Name
}

// Relist is the message type that replaces every row of the page.
const Relist = "RELIST"

// Message is one channel-1 message of a live list (docs/live-protocol.md).
type Message struct {
	Type string `json:"type"`
	UID  string `json:"uid,omitempty"`
	Key  string `json:"key,omitempty"`
	RV   string `json:"rv,omitempty"`
	// Resume is the version a reconnecting page may watch from: set only
	// when nothing coalesced is still queued behind this event.
	Resume string `json:"resume,omitempty"`
	HTML   string `json:"html,omitempty"`
	Notice string `json:"notice,omitempty"`
	// Unmatched marks, on a filtered page, a row its filters do not keep.
	Unmatched bool `json:"unmatched,omitempty"`
}

// Live follows a list page over a WebSocket: it joins the shared upstream
// watch from the page's resourceVersion and pushes each changed row
// rendered exactly as the page renders rows. An expired watch relists.
func (h *Handler) Live(c echo.Context, t page.Target) error {
	r, ns := t.Resource, t.Path.Namespace
	lq, err := ParseQuery(c.QueryParams())
	if err != nil {
		return err
	}
	// Its shared upstream watch is an upstream stream like a log's: the page
	// takes a slot of the console's cap, and of its user's, for as long as
	// it follows, so no user can open watches without bound.
	return h.env.FollowInSlot(c, t.Client.IdentityKey(), func(stream *page.Stream) error {
		f := &follower{
			env: h.env, watches: h.watches, stream: stream, client: t.Client, scanBudget: h.scanBudget,
			in:    Input{URLs: t.URLs, Resource: r, Namespace: ns, Query: lq},
			usage: newLiveUsage(c.Request().Context(), h.env, t.Client, r, ns, lq, c.QueryParam("usage") == "on"),
			// Rows pushed to a page with checkboxes carry them too.
			selectable: c.QueryParam("select") == "on" && len(kube.BulkOptions(r)) > 0,
			// The identity key covers the exact credential: a tab carrying a
			// refreshed token opens its own upstream, never riding one opened
			// with the old token. The include policy is in it too: the rows
			// carry what the page's columns need of their object.
			key: strings.Join([]string{t.Client.ContextName(), t.Client.IdentityKey(), r.Group, r.Version, r.Name,
				ns, lq.LabelSelector, lq.FieldSelector, string(watchInclude(lq, r, ns))}, "\x00"),
		}
		return f.run(stream.Context, c.QueryParam("resourceVersion"))
	})
}

// watchInclude is what the rows of a live list carry of their object: a
// watch always sends metadata (which label columns read); custom columns
// need the whole object, as the page's list asked for it.
func watchInclude(lq Query, r apiclient.Resource, ns string) apiclient.IncludeObject {
	if Options(lq, r, ns).IncludeObject == apiclient.IncludeFullObject {
		return apiclient.IncludeFullObject
	}
	return apiclient.IncludeMetadata
}

type follower struct {
	env     *page.Env
	watches *watchHub
	stream  *page.Stream
	client  *apiclient.Client
	// in is the page being followed; Table and Usage are set per render.
	in  Input
	key string
	// usage keeps the usage columns of pods and nodes (nil: none).
	usage *liveUsage
	// scanBudget bounds a filtered page's relist, as it bounds the page.
	scanBudget ScanBudget
	// selectable rows start with the bulk form's checkbox.
	selectable bool
}

// writeRows renders rows as the followed page does.
func (f *follower) writeRows(ctx context.Context, buf *bytes.Buffer, rows []views.ListRow) error {
	if f.selectable {
		return views.WriteSelectableRows(ctx, buf, rows)
	}
	return views.WriteRows(ctx, buf, rows)
}

func (f *follower) run(ctx context.Context, rv string) error {
	if rv == "" {
		// A watch without a version would replay the whole list as ADDED.
		var err error
		if rv, err = f.relist(ctx, ""); err != nil {
			return err
		}
	}
	pause := time.Duration(0)
	for {
		began := time.Now()
		err := f.follow(ctx, rv)
		if !errors.Is(err, streaming.ErrResync) {
			return err
		}
		// Resyncs in quick succession back off, so a page can never make
		// the console relist in a loop.
		if time.Since(began) > time.Minute {
			pause = 0
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		pause = min(max(2*pause, time.Second), 30*time.Second)
		if rv, err = f.relist(ctx, "The watch expired (410 Gone) or this page fell behind, so the list was fetched again."); err != nil {
			return err
		}
	}
}

func (f *follower) follow(ctx context.Context, rv string) error {
	lq := f.in.Query
	sub := f.watches.Subscribe(f.key, rv, func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
		opts := apiclient.WatchOptions{Namespace: f.in.Namespace, LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector, ResourceVersion: from,
			IncludeObject: watchInclude(lq, f.in.Resource, f.in.Namespace)}
		return f.client.WatchTable(ctx, f.in.Resource, opts, emit)
	})
	defer sub.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case err := <-sub.Trouble():
				f.stream.Notify("The API server's watch failed and is being retried; rows may be out of date. (" + page.StatusFor(err).Message + ")")
			}
		}
	}()
	var buf bytes.Buffer
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		msg := Message{Type: ev.Type, UID: ev.UID, RV: ev.ResourceVersion}
		if sub.Pending() == 0 {
			msg.Resume = ev.ResourceVersion
		}
		if ev.Type != apiclient.WatchBookmark && ev.Table != nil {
			in := f.in
			in.Table = ev.Table
			if ev.Type != apiclient.WatchDeleted {
				// A deleted row is only named: no cells, no metrics request.
				in.Usage = f.usage.current(ctx, usageRefresh)
			}
			rows := Rows(ctx, in)
			if len(rows) != 1 {
				continue
			}
			msg.Key = rows[0].Key
			if ev.Type != apiclient.WatchDeleted && len(lq.Filter) > 0 {
				msg.Unmatched = filteredOut(in, rows[0])
			}
			if ev.Type != apiclient.WatchDeleted {
				buf.Reset()
				if err := f.writeRows(ctx, &buf, rows); err != nil {
					return err
				}
				msg.HTML = buf.String()
			}
		}
		if err := f.stream.SendJSON(ctx, streaming.ChannelData, msg); err != nil {
			return err
		}
	}
}

// relist fetches the page again, as the browser first saw it, and replaces
// its rows; it returns the version to watch from.
func (f *follower) relist(ctx context.Context, notice string) (string, error) {
	ctx, cancel := f.env.WithDeadline(ctx)
	defer cancel()
	r, ns := f.in.Resource, f.in.Namespace
	table, lq, err := f.fetch(ctx)
	if err != nil {
		return "", err
	}
	// An expired continue token restarted the page: follow the first page
	// from now on.
	f.in.Query = lq
	rv := table.ResourceVersion
	if lq.Continue != "" {
		// A later page is served from the first page's snapshot, whose
		// version may be too old to watch from: watch from now.
		fresh := Options(lq.FirstPage(), r, ns)
		fresh.Limit = 1
		now, err := f.client.ListTable(ctx, r, fresh)
		if err != nil {
			return "", err
		}
		rv = now.ResourceVersion
	}
	in := f.in
	in.Table = &table
	in.Usage = f.usage.current(ctx, 0)
	var buf bytes.Buffer
	if err := f.writeRows(ctx, &buf, Rows(ctx, in)); err != nil {
		return "", err
	}
	msg := Message{Type: Relist, RV: rv, Resume: rv, HTML: buf.String(), Notice: notice}
	return rv, f.stream.SendJSON(ctx, streaming.ChannelData, msg)
}

// fetch reads the page again: the upstream page, or a filtered page's
// matches from its position, within the same scan budget.
func (f *follower) fetch(ctx context.Context) (apiclient.Table, Query, error) {
	r, ns := f.in.Resource, f.in.Namespace
	if len(f.in.Query.Filter) > 0 {
		found, lq, _, err := scanPage(ctx, f.env, f.scanBudget, f.client, r, ns, f.in.Query, func(head *apiclient.Table) (*kube.ListView, error) {
			in := f.in
			in.Table = head
			in.Usage = f.usage.current(ctx, 0)
			return kube.NewListView(in.table()), nil
		})
		if err != nil {
			return apiclient.Table{}, lq, err
		}
		table := found.Head
		table.Rows = found.Matches
		return table, lq, nil
	}
	stream, lq, _, err := open(ctx, f.client, r, ns, f.in.Query)
	if err != nil {
		return apiclient.Table{}, lq, err
	}
	defer stream.Close()
	table := stream.Head
	table.Rows, err = collect(stream)
	return table, lq, err
}
