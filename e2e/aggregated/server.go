// Package aggregated is a small aggregated API server for the end-to-end
// tests: it serves the read-only, namespaced resource probes.ops.tabula.dev
// from fixed in-memory objects, with the conventions kube-apiserver follows —
// legacy and aggregated discovery, Table content negotiation, paging, label
// selectors, metav1.Status errors and front-proxy authentication — and
// Register makes kube-apiserver serve it through its aggregation layer.
package aggregated

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// serverOptions configure a server.
type serverOptions struct {
	// allowedNames are the front-proxy certificate CNs accepted.
	allowedNames []string
	// now is the clock for the fixtures' ages; time.Now when nil.
	now func() time.Time
	log *slog.Logger
}

// server is the HTTP handler of the aggregated API.
type server struct {
	store *store
	auth  frontProxyAuth
	now   func() time.Time
	log   *slog.Logger
	mux   *http.ServeMux
}

func newServer(opts serverOptions) *server {
	if opts.now == nil {
		opts.now = time.Now
	}
	if opts.log == nil {
		opts.log = slog.Default()
	}
	s := &server{
		store: newStore(opts.now()),
		auth:  frontProxyAuth{allowedNames: opts.allowedNames},
		now:   opts.now,
		log:   opts.log,
		mux:   http.NewServeMux(),
	}
	const base = "/apis/" + Group + "/" + Version
	s.mux.HandleFunc("/apis", s.serveGroupList)
	s.mux.HandleFunc("/apis/"+Group, s.serveGroup)
	s.mux.HandleFunc(base, s.serveResourceList)
	s.mux.HandleFunc(base+"/"+Resource, s.serveList)
	s.mux.HandleFunc(base+"/namespaces/{namespace}/"+Resource, s.serveList)
	s.mux.HandleFunc(base+"/namespaces/{namespace}/"+Resource+"/{name}", s.serveGet)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "get", schema.GroupResource{}, "", "", 0, false))
	})
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		// Public, as kube-apiserver's is (system:public-info-viewer).
		_, _ = w.Write([]byte("ok"))
		return
	}
	u, err := s.auth.authenticate(r)
	if err != nil {
		s.log.Info("unauthenticated request", "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
		s.writeError(w, apierrors.NewUnauthorized(err.Error()))
		return
	}
	// Authorization is deliberately simple: every user the front proxy
	// vouches for may read everything. kube-apiserver has already run RBAC
	// on the request before proxying it; a production server would also ask
	// it again through a SubjectAccessReview (delegated authorization).
	s.log.Debug("request", "user", u.name, "groups", u.groups, "method", r.Method, "path", r.URL.Path)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.writeError(w, apierrors.NewMethodNotSupported(groupResource, r.Method))
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *server) serveGroupList(w http.ResponseWriter, r *http.Request) {
	rep, ok := negotiate(r.Header.Get("Accept"), repDiscoveryV2)
	switch {
	case !ok:
		s.writeNotAcceptable(w)
	case rep.kind == repDiscoveryV2:
		s.writeJSON(w, contentTypeDiscoveryV2, aggregatedDiscovery())
	default:
		s.writeJSON(w, contentTypeJSON, apiGroupList())
	}
}

func (s *server) serveGroup(w http.ResponseWriter, r *http.Request) {
	if _, ok := negotiate(r.Header.Get("Accept")); !ok {
		s.writeNotAcceptable(w)
		return
	}
	s.writeJSON(w, contentTypeJSON, apiGroup())
}

func (s *server) serveResourceList(w http.ResponseWriter, r *http.Request) {
	if _, ok := negotiate(r.Header.Get("Accept")); !ok {
		s.writeNotAcceptable(w)
		return
	}
	s.writeJSON(w, contentTypeJSON, apiResourceList())
}

func (s *server) serveList(w http.ResponseWriter, r *http.Request) {
	rep, ok := negotiate(r.Header.Get("Accept"), repTable)
	if !ok {
		s.writeNotAcceptable(w)
		return
	}
	q := r.URL.Query()
	if watch := q.Get("watch"); watch == "true" || watch == "1" {
		s.writeError(w, apierrors.NewMethodNotSupported(groupResource, "watch"))
		return
	}
	opts := listOptions{namespace: r.PathValue("namespace"), cont: q.Get("continue")}
	var err error
	if opts.selector, err = labels.Parse(q.Get("labelSelector")); err != nil {
		s.writeError(w, apierrors.NewBadRequest("invalid labelSelector: "+err.Error()))
		return
	}
	if v := q.Get("limit"); v != "" {
		if opts.limit, err = strconv.ParseInt(v, 10, 64); err != nil {
			s.writeError(w, apierrors.NewBadRequest("invalid limit: "+err.Error()))
			return
		}
	}
	pg, err := s.store.list(opts)
	if err != nil {
		s.writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	meta := metav1.ListMeta{ResourceVersion: s.store.resourceVersion, Continue: pg.cont, RemainingItemCount: pg.remaining}
	if rep.kind == repTable {
		s.writeTable(w, r, rep, pg.items, meta)
		return
	}
	s.writeJSON(w, contentTypeJSON, ProbeList{
		TypeMeta: metav1.TypeMeta{APIVersion: groupVersion.String(), Kind: ListKind},
		ListMeta: meta,
		Items:    pg.items,
	})
}

func (s *server) serveGet(w http.ResponseWriter, r *http.Request) {
	rep, ok := negotiate(r.Header.Get("Accept"), repTable)
	if !ok {
		s.writeNotAcceptable(w)
		return
	}
	name := r.PathValue("name")
	p, found := s.store.get(r.PathValue("namespace"), name)
	if !found {
		s.writeError(w, apierrors.NewNotFound(groupResource, name))
		return
	}
	if rep.kind == repTable {
		s.writeTable(w, r, rep, []Probe{p}, metav1.ListMeta{ResourceVersion: p.ResourceVersion})
		return
	}
	s.writeJSON(w, contentTypeJSON, p)
}

func (s *server) writeTable(w http.ResponseWriter, r *http.Request, rep representation, probes []Probe, meta metav1.ListMeta) {
	include, err := parseIncludeObject(r.URL.Query().Get("includeObject"))
	if err != nil {
		s.writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	t, err := tableOf(probes, meta, rep.version, include, s.now())
	if err != nil {
		s.writeError(w, apierrors.NewInternalError(err))
		return
	}
	// Like kube-apiserver, answer with the exact media type that was chosen.
	s.writeJSON(w, "application/json;as=Table;v="+rep.version+";g=meta.k8s.io", t)
}

func (s *server) writeNotAcceptable(w http.ResponseWriter) {
	s.writeError(w, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "get", schema.GroupResource{}, "",
		"only application/json is served, optionally as a meta.k8s.io Table for probes", 0, false))
}

// writeError answers with err's metav1.Status and its HTTP code.
func (s *server) writeError(w http.ResponseWriter, err *apierrors.StatusError) {
	status := err.Status()
	status.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	s.writeJSONCode(w, int(status.Code), contentTypeJSON, status)
}

func (s *server) writeJSON(w http.ResponseWriter, contentType string, v any) {
	s.writeJSONCode(w, http.StatusOK, contentType, v)
}

func (s *server) writeJSONCode(w http.ResponseWriter, code int, contentType string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.log.Error("encoding response", "err", err)
		http.Error(w, "encoding response failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
