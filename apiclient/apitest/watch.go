package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CloseWatches drops every open watch connection without ending its stream
// properly (the client reads an unexpected EOF), as when the connection to
// the API server is cut. Watches started afterwards are served as usual.
func (s *Server) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.cuts++
	s.store.notify()
}

// SendBookmarks makes every open watch that allows bookmarks send a BOOKMARK
// at the store's current resourceVersion, after any change it has not sent.
func (s *Server) SendBookmarks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.store.bookmarks++
	s.store.notify()
}

// OpenWatches is the number of watch requests being served. A watch counts
// from before its response headers are sent, so once a client's watch call
// has its response the count includes it; it stops counting a moment after
// the client goes away (see AwaitOpenWatches).
func (s *Server) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.openWatches
}

// AwaitOpenWatches waits up to within for OpenWatches to be n, and reports
// whether it got there.
func (s *Server) AwaitOpenWatches(n int, within time.Duration) bool {
	return poll(within, func() error {
		if got := s.OpenWatches(); got != n {
			return fmt.Errorf("%d open watches, want %d", got, n)
		}
		return nil
	}) == nil
}

// TooOldResourceVersion is the 410 Status of a watch from a resourceVersion
// older than the retained history, as kube-apiserver's watch cache words it.
func TooOldResourceVersion(requested, oldest int64) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
		Message: fmt.Sprintf("too old resource version: %d (%d)", requested, oldest),
	}
}

// serveWatch streams the changes of a collection (all namespaces or one), as
// kube-apiserver does for ?watch=1: one JSON event per line, flushed.
//
// It honours labelSelector, fieldSelector, resourceVersion ("" or "0": an
// ADDED for every current object first; N: the changes after N, or an ERROR
// event with a 410 Status when N is older than the history), allowWatchBookmarks,
// timeoutSeconds (then it ends the stream), includeObject, and the Accept
// negotiation of lists, with the object media types (as=PartialObjectMetadata,
// not ...List). In a Table stream each event's object is a one-row Table and
// only the first carries columnDefinitions, as kube-apiserver's NoHeaders
// does. An object modified into or out of the selectors comes as ADDED or
// DELETED (its last matching state), as from the watch cache.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	if req.name != "" || req.sub != "" {
		WriteStatus(w, methodNotAllowed("the fake API server serves watches of collections only"))
		return
	}
	if !slices.Contains(req.res.Verbs, "watch") {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	accept := r.Header.Get("Accept")
	repr, ok := negotiate(accept, opts, false)
	if !ok || repr == reprDescription {
		WriteStatus(w, NotAcceptable(accept))
		return
	}
	q := r.URL.Query()
	sel, st := compileSelectors(req, q.Get("labelSelector"), q.Get("fieldSelector"))
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	include := q.Get("includeObject")
	switch include {
	case "", "None", "Metadata", "Object":
	default:
		WriteStatus(w, badRequest(fmt.Sprintf("includeObject: unsupported value %q: must be None, Metadata or Object", include)))
		return
	}
	start := int64(-1) // an initial ADDED for every object, then follow
	if v := q.Get("resourceVersion"); v != "" && v != "0" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			WriteStatus(w, badRequest(fmt.Sprintf("resourceVersion: Invalid value: %q: must be a non-negative integer", v)))
			return
		}
		start = n
	}
	bookmarks, st := boolParam(q.Get("allowWatchBookmarks"), "allowWatchBookmarks")
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	var timeout <-chan time.Time
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			WriteStatus(w, badRequest(fmt.Sprintf("timeoutSeconds: Invalid value: %q", v)))
			return
		}
		if n > 0 {
			timer := time.NewTimer(time.Duration(n) * time.Second)
			defer timer.Stop()
			timeout = timer.C
		}
	}
	var tick <-chan time.Time
	if bookmarks && opts.BookmarkInterval > 0 {
		ticker := time.NewTicker(opts.BookmarkInterval)
		defer ticker.Stop()
		tick = ticker.C
	}

	key := req.gv.Group + "/" + req.res.Name
	s.mu.Lock()
	s.store.openWatches++
	cursor, compacted := start, s.store.compacted
	cuts, bookmarkCalls := s.store.cuts, s.store.bookmarks
	var initial []*unstructured.Unstructured
	if start < 0 {
		cursor = s.store.rv
		for _, o := range s.store.objects[key] {
			if req.namespace == "" || o.GetNamespace() == req.namespace {
				initial = append(initial, o)
			}
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.store.openWatches--
		s.mu.Unlock()
	}()
	sort.Slice(initial, func(i, j int) bool {
		return storeKey(initial[i].GetNamespace(), initial[i].GetName()) < storeKey(initial[j].GetNamespace(), initial[j].GetName())
	})

	// Like kube-apiserver, the stream starts (200) before any error: a watch
	// that cannot be served past this point says so in an ERROR event.
	ws := &watchStream{s: s, req: req, repr: repr, include: include, sel: sel, enc: json.NewEncoder(w), rc: http.NewResponseController(w)}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = ws.rc.Flush()
	if start >= 0 && start < compacted {
		_ = ws.sendStatus(TooOldResourceVersion(start, compacted))
		return
	}
	for _, o := range initial {
		if sel.matches(o) {
			if ws.send("ADDED", o) != nil {
				return
			}
		}
	}

	wantBookmark := false
	for {
		s.mu.Lock()
		trimmed := s.store.trimmed
		h := s.store.history
		// The history array is never written below its length, so this
		// slice stays valid after unlocking.
		evs := h[sort.Search(len(h), func(i int) bool { return h[i].rv > cursor }):]
		last := cursor
		cursor = s.store.rv
		changed, shutdown, cut := s.store.changed, s.store.shutdown, s.store.cuts != cuts
		if s.store.bookmarks != bookmarkCalls {
			bookmarkCalls = s.store.bookmarks
			wantBookmark = wantBookmark || bookmarks
		}
		s.mu.Unlock()
		if cut {
			// Abort the connection: no final chunk, as when it is cut.
			panic(http.ErrAbortHandler)
		}
		if last < trimmed {
			// This watch fell behind the bounded history: it lost events.
			_ = ws.sendStatus(TooOldResourceVersion(last, trimmed))
			return
		}
		for _, ev := range evs {
			if ev.resource != key {
				continue
			}
			if typ, obj := ws.translate(ev); typ != "" {
				if ws.send(typ, obj) != nil {
					return
				}
			}
		}
		if wantBookmark {
			wantBookmark = false
			if ws.send("BOOKMARK", bookmarkObject(req, cursor)) != nil {
				return
			}
		}
		if ws.rc.Flush() != nil {
			return
		}
		select {
		case <-changed:
		case <-tick:
			wantBookmark = true
		case <-timeout:
			return
		case <-shutdown:
			return
		case <-r.Context().Done():
			return
		}
	}
}

func boolParam(v, name string) (bool, *metav1.Status) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		st := badRequest(fmt.Sprintf("%s: Invalid value: %q", name, v))
		return false, &st
	}
	return b, nil
}

// bookmarkObject is what kube-apiserver sends in a BOOKMARK: an object of
// the resource's kind with only its resourceVersion set.
func bookmarkObject(req resourceRequest, rv int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvString(req.gv.Group, req.gv.Version),
		"kind":       req.res.Kind,
		"metadata":   map[string]any{"resourceVersion": strconv.FormatInt(rv, 10)},
	}}
}

type watchStream struct {
	s       *Server
	req     resourceRequest
	repr    representation
	include string
	sel     *selectors
	enc     *json.Encoder
	rc      *http.ResponseController
	headed  bool // a Table with columnDefinitions went out
}

type wireWatchEvent struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// translate says how the watch sees a change: its type and object, or ""
// when it does not see it at all.
func (ws *watchStream) translate(ev watchEvent) (string, *unstructured.Unstructured) {
	if ws.req.namespace != "" && ev.obj.GetNamespace() != ws.req.namespace {
		return "", nil
	}
	now := ws.sel.matches(ev.obj)
	if ev.typ != "MODIFIED" {
		if now {
			return ev.typ, ev.obj
		}
		return "", nil
	}
	before := ws.sel.matches(ev.prev)
	switch {
	case now && before:
		return "MODIFIED", ev.obj
	case now:
		return "ADDED", ev.obj
	case before:
		gone := ev.prev.DeepCopy()
		gone.SetResourceVersion(ev.obj.GetResourceVersion())
		return "DELETED", gone
	}
	return "", nil
}

// send writes one event, its object in the negotiated representation.
func (ws *watchStream) send(typ string, obj *unstructured.Unstructured) error {
	var out any
	switch ws.repr {
	case reprTableV1, reprTableV1Beta1:
		t, err := ws.s.table(ws.req, ws.repr, []*unstructured.Unstructured{obj}, ws.include)
		if err != nil {
			return err
		}
		t.ResourceVersion = obj.GetResourceVersion()
		if ws.headed {
			t.ColumnDefinitions = nil
		}
		ws.headed = true
		out = t
	case reprPartial:
		out = partialObject(obj, "meta.k8s.io/v1")
	default:
		out = obj.Object
	}
	return ws.enc.Encode(wireWatchEvent{Type: typ, Object: out})
}

// sendStatus writes the ERROR event that ends a watch.
func (ws *watchStream) sendStatus(st metav1.Status) error {
	st.Kind, st.APIVersion = "Status", "v1"
	if err := ws.enc.Encode(wireWatchEvent{Type: "ERROR", Object: st}); err != nil {
		return err
	}
	return ws.rc.Flush()
}
