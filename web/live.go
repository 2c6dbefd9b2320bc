package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
)

// watchHub shares one upstream Table watch among the browser tabs of one
// identity that follow the same list.
type watchHub = streaming.Hub[apiclient.WatchEvent]

func newWatchHub(log *slog.Logger) *watchHub {
	return streaming.NewHub(streaming.HubConfig[apiclient.WatchEvent]{
		Log:     log,
		Key:     watchEventKey,
		Version: func(e apiclient.WatchEvent) string { return e.ResourceVersion },
		Expired: apiclient.IsExpired,
		Fatal:   permanentWatchError,
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

// permanentWatchError is an upstream refusal that retrying cannot fix.
func permanentWatchError(err error) bool {
	switch statusOf(err) {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// upgrade turns the request into a channel-framed WebSocket. On refusal the
// response (403 or 400 with its reason) is already written. finish ends the
// stream: with err's Status on channel 3 unless the browser left, then a
// close code that tells the browser whether reconnecting can help.
func (s *Server) upgrade(c echo.Context) (conn *streaming.Conn, ctx context.Context, finish func(error), err error) {
	conn, err = streaming.Upgrade(c.Response(), c.Request(), s.wsOptions)
	if err != nil {
		return nil, nil, nil, err
	}
	s.metrics.WebSockets.Inc()
	// A hijacked connection's request context outlives the socket; the
	// stream's context ends with whichever ends first.
	ctx, cancel := context.WithCancel(c.Request().Context())
	go func() {
		select {
		case <-conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	var once sync.Once
	finish = func(err error) {
		once.Do(func() {
			code := websocket.CloseNormalClosure
			if err != nil && ctx.Err() == nil {
				st := statusFor(err)
				_ = conn.SendStatus(ctx, &st)
				if st.Code >= 500 || st.Code == http.StatusTooManyRequests {
					code = websocket.CloseTryAgainLater
				}
			}
			cancel()
			_ = conn.Close(code, "")
			s.metrics.WebSockets.Dec()
		})
	}
	return conn, ctx, finish, nil
}

// statusFor is the metav1.Status a stream reports for err: the API
// server's own Status when there is one, otherwise what the central error
// mapper would show on a page (never internals).
func statusFor(err error) metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return api.Status()
	}
	p := classify(err)
	msg := p.Message
	if p.Hint != "" {
		msg = p.Hint + " " + msg
	}
	return metav1.Status{Status: metav1.StatusFailure, Code: int32(p.Code), Reason: metav1.StatusReason(p.Reason), Message: msg}
}

// listMessage is one channel-1 message of a live list.
type listMessage struct {
	Type string `json:"type"`
	UID  string `json:"uid,omitempty"`
	Key  string `json:"key,omitempty"`
	RV   string `json:"rv,omitempty"`
	// Resume is the version a reconnecting page may watch from: set only
	// when nothing coalesced is still queued behind this event.
	Resume string `json:"resume,omitempty"`
	HTML   string `json:"html,omitempty"`
	Notice string `json:"notice,omitempty"`
}

// liveList follows a list page: it joins the shared upstream watch from the
// page's resourceVersion and pushes each changed row rendered exactly as
// the page renders rows. An expired watch relists the page.
func (s *Server) liveList(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	if !r.Can("watch") {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("The server does not allow watching %s.", r.Name))
	}
	lq, err := parseListQuery(c.QueryParams())
	if err != nil {
		return err
	}
	conn, ctx, finish, err := s.upgrade(c)
	if err != nil {
		return nil
	}
	l := &listFollower{
		s: s, conn: conn, client: client, r: r, lq: lq, namespace: p.Namespace,
		base: consolePath(client.ContextName(), r, p.Namespace, ""),
		key: strings.Join([]string{client.ContextName(), identityOf(c).Key(), r.Group, r.Version, r.Name,
			p.Namespace, lq.LabelSelector, lq.FieldSelector}, "\x00"),
	}
	finish(l.run(ctx, c.QueryParam("resourceVersion")))
	return nil
}

type listFollower struct {
	s         *Server
	conn      *streaming.Conn
	client    *apiclient.Client
	r         apiclient.Resource
	lq        listQuery
	namespace string
	base      string
	key       string
}

func (l *listFollower) run(ctx context.Context, rv string) error {
	if rv == "" {
		// A watch without a version would replay the whole list as ADDED.
		var err error
		if rv, err = l.relist(ctx, ""); err != nil {
			return err
		}
	}
	pause := time.Duration(0)
	for {
		began := time.Now()
		err := l.follow(ctx, rv)
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
		if rv, err = l.relist(ctx, "The watch expired (410 Gone) or this page fell behind, so the list was fetched again."); err != nil {
			return err
		}
	}
}

func (l *listFollower) follow(ctx context.Context, rv string) error {
	sub := l.s.watches.Subscribe(l.key, rv, func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
		opts := apiclient.WatchOptions{Namespace: l.namespace, LabelSelector: l.lq.LabelSelector, FieldSelector: l.lq.FieldSelector, ResourceVersion: from}
		return l.client.WatchTable(ctx, l.r, opts, emit)
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
				_ = l.conn.SendJSON(ctx, streaming.ChannelDiagnostics, map[string]string{
					"message": "The API server's watch failed and is being retried; rows may be out of date. (" + statusFor(err).Message + ")",
				})
			}
		}
	}()
	var buf bytes.Buffer
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		msg := listMessage{Type: ev.Type, UID: ev.UID, RV: ev.ResourceVersion}
		if sub.Pending() == 0 {
			msg.Resume = ev.ResourceVersion
		}
		if ev.Type != "BOOKMARK" && ev.Table != nil {
			_, rows, _ := tableView(l.client.ContextName(), l.r, l.namespace, ev.Table, l.lq, l.base)
			if len(rows) != 1 {
				continue
			}
			msg.Key = rows[0].Key
			if ev.Type != "DELETED" {
				buf.Reset()
				if err := views.WriteRows(ctx, &buf, rows); err != nil {
					return err
				}
				msg.HTML = buf.String()
			}
		}
		if err := l.conn.SendJSON(ctx, streaming.ChannelData, msg); err != nil {
			return err
		}
	}
}

// relist fetches the page again, as the browser first saw it, and replaces
// its rows; it returns the version to watch from.
func (l *listFollower) relist(ctx context.Context, notice string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, l.s.timeout)
	defer cancel()
	opts := listOptions(l.lq, l.r, l.namespace)
	table, err := l.client.ListTable(ctx, l.r, opts)
	if err != nil && opts.Continue != "" && apiclient.IsExpired(err) {
		opts.Continue = ""
		table, err = l.client.ListTable(ctx, l.r, opts)
	}
	if err != nil {
		return "", err
	}
	rv := table.ResourceVersion
	if opts.Continue != "" {
		// A later page is served from the first page's snapshot, whose
		// version may be too old to watch from: watch from now.
		fresh := listOptions(l.lq.firstPage(), l.r, l.namespace)
		fresh.Limit = 1
		now, err := l.client.ListTable(ctx, l.r, fresh)
		if err != nil {
			return "", err
		}
		rv = now.ResourceVersion
	}
	_, rows, _ := tableView(l.client.ContextName(), l.r, l.namespace, table, l.lq, l.base)
	var buf bytes.Buffer
	if err := views.WriteRows(ctx, &buf, rows); err != nil {
		return "", err
	}
	msg := listMessage{Type: "RELIST", RV: rv, Resume: rv, HTML: buf.String(), Notice: notice}
	return rv, l.conn.SendJSON(ctx, streaming.ChannelData, msg)
}

// objectMessage replaces the live sections of an object page.
type objectMessage struct {
	Type     string            `json:"type"`
	Sections map[string]string `json:"sections"`
}

// objectSettle is how long an object page waits for a burst of changes (a
// rollout touches the object and several events) before re-rendering once.
const objectSettle = 300 * time.Millisecond

// liveObject follows an object page: a change to the object or to its
// events re-renders the page's live sections and pushes them.
func (s *Server) liveObject(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	if !r.Can("watch") {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("The server does not allow watching %s.", r.Name))
	}
	conn, ctx, finish, err := s.upgrade(c)
	if err != nil {
		return nil
	}
	finish(s.followObject(ctx, conn, c, client, r, p))
	return nil
}

func (s *Server) followObject(ctx context.Context, conn *streaming.Conn, c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	changed := make(chan struct{}, 1)
	poke := func(apiclient.WatchEvent) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	watchErr := make(chan error, 2)
	go func() {
		opts := apiclient.WatchOptions{Namespace: p.Namespace, FieldSelector: fields.OneTermEqualSelector("metadata.name", p.Name).String()}
		watchErr <- s.keepWatching(ctx, func(ctx context.Context, rv string, emit func(apiclient.WatchEvent)) error {
			opts.ResourceVersion = rv
			return client.WatchMeta(ctx, r, opts, emit)
		}, poke)
	}()
	if events, err := client.Resource(ctx, "", "v1", "events"); err == nil && events.Can("watch") {
		go func() {
			opts := apiclient.WatchOptions{Namespace: p.Namespace, FieldSelector: fields.OneTermEqualSelector("involvedObject.name", p.Name).String()}
			// A refused events watch only means the page's events stay put.
			_ = s.keepWatching(ctx, func(ctx context.Context, rv string, emit func(apiclient.WatchEvent)) error {
				opts.ResourceVersion = rv
				return client.WatchMeta(ctx, events, opts, emit)
			}, poke)
		}()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			return err
		case <-changed:
		}
		// Let a burst settle, then render once.
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(objectSettle):
		}
		select {
		case <-changed:
		default:
		}
		msg, err := s.objectSections(ctx, c, client, r, p)
		if err != nil {
			return err
		}
		if err := conn.SendJSON(ctx, streaming.ChannelData, msg); err != nil {
			return err
		}
	}
}

// objectSections renders the live sections of an object page afresh.
func (s *Server) objectSections(ctx context.Context, c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) (objectMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// The page builders read the request's context.
	c.SetRequest(c.Request().WithContext(ctx))
	page, err := s.objectPage(c, client, r, p, "")
	if err != nil {
		return objectMessage{}, err
	}
	msg := objectMessage{Type: "SECTIONS", Sections: map[string]string{}}
	var buf bytes.Buffer
	for id, component := range views.ObjectLiveSections(page) {
		buf.Reset()
		if err := component.Render(ctx, &buf); err != nil {
			return objectMessage{}, err
		}
		msg.Sections[id] = buf.String()
	}
	return msg, nil
}

// keepWatching runs a watch that only signals change, resuming from the
// last version seen after drops and from now after a 410. It returns only
// for a refusal retrying cannot fix, or when ctx ends.
func (s *Server) keepWatching(ctx context.Context, watch func(context.Context, string, func(apiclient.WatchEvent)) error, emit func(apiclient.WatchEvent)) error {
	rv := ""
	backoff := 250 * time.Millisecond
	for {
		started := time.Now()
		err := watch(ctx, rv, func(e apiclient.WatchEvent) {
			rv = e.ResourceVersion
			if e.Type != "BOOKMARK" {
				emit(e)
			}
		})
		switch {
		case ctx.Err() != nil:
			return nil
		case apiclient.IsExpired(err):
			rv = ""
		case permanentWatchError(err):
			return err
		}
		if time.Since(started) > 10*time.Second {
			backoff = 250 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}
