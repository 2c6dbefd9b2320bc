// Package apitest runs fake API servers that follow the Kubernetes API
// conventions, for tests of code that talks to such servers.
//
// A Server serves discovery (aggregated v2 and legacy), and generic list, get
// and subresource (status, scale) reads of the unstructured objects seeded with
// Add, with label and field selectors, limit/continue paging, server-side
// Tables (meta.k8s.io v1 and v1beta1), PartialObjectMetadata(List) and the
// Tabula describe representation, and writes (below). Options select which
// of these conventions the server follows, so one test can run against
// several kinds of server:
//
//	kube-apiserver (the zero Options)      Tables v1+v1beta1, metadata lists, aggregated discovery
//	Options{Table: TableV1Beta1Only}       an old server: picks the v1beta1 entry of Accept
//	Options{Table: TableNone}              a server that ignores as=Table and sends the plain list
//	Options{Table: TableNotAcceptable}     406 for any request that asks for as=Table
//	Options{NoPartialMetadata: true}       as=PartialObjectMetadataList ignored: plain list
//	Options{LegacyDiscovery: true}         /api and /apis answer only legacy discovery
//	Options{NoDiscoveryETag: true}         aggregated discovery without ETag/304 (default: ETag, 304 on If-None-Match)
//	Options{Warnings: {"pods": "msg"}}     a `Warning: 299 - "msg"` header on responses about pods
//	Options{Describe: DescribeServed}      serves as=Description (see docs/describe-representation.md)
//	Options{Describe: DescribeNotAcceptable} 406 for any request that asks for as=Description
//	Options{NoMergePatch: true}            415 to merge patches: JSON Patch only, as some non-Kubernetes servers
//	Options{Immutable: {"services": {"spec.clusterIP"}}}  422 Invalid "field is immutable" when an update changes them
//	Options{Exec: ExecOptions{...}}        exec, attach and debug containers missing, refused or kwok-like (below)
//	Options{Access: &Access{Users, Rules}}  bearer tokens → users, RBAC-like rules enforced on every request
//	                                       (401, and 403 Forbidden worded as kube-apiserver's), and the
//	                                       authorization.k8s.io/v1 SelfSubjectAccessReview and
//	                                       SelfSubjectRulesReview answered from the same rules
//	                                       (default: no authorization API, everything allowed)
//
// Writes follow kube-apiserver (write.go names the code each step copies).
// A write needs its verb among the resource's (or subresource's) verbs,
// else 405:
//
//	PATCH            merge or JSON Patch (other types 415) of an object, its status or its scale
//	PUT              replaces an object, its status or its scale
//	                 (a status write changes only the status, a scale write only spec.replicas,
//	                 a write of the object leaves a status served by the status subresource alone)
//	POST             creates in a collection: 201, generateName, 409 AlreadyExists, 422 Invalid name
//	DELETE           DeleteOptions from the body or query: preconditions (409), propagationPolicy;
//	                 finalizers (the object's, Foreground's, Orphan's) only mark it for deletion;
//	                 removed, it is answered with a Success Status, or itself for pods, services and
//	                 the other built-ins whose storage returns the deleted object
//	resourceVersion  a stale one is 409 Conflict; a failed JSON Patch test op kube-apiserver's generic 422
//	identity         a changed name or namespace is 400, a changed uid 422 Invalid
//	dryRun=All       answered as if done; nothing stored, no watch event
//	managedFields    an Update entry per fieldManager (default: the User-Agent's product), time now
//	no change        nothing written: same resourceVersion, no watch event
//
// with these test controls:
//
//	Writes()                                   the write requests, with their bodies
//	Finalize(group, resource, namespace, name) clears finalizers, removing an object marked for deletion
//
// AddGroupVersions serves more group versions on a running server (a CRD
// created after the client cached discovery). SetDiscoveryFilter makes
// discovery differ by who asks (the request's Authorization or
// Impersonate-User header).
//
// OpenAPI v3 (GET /openapi/v3, an index, and the per-group-version
// documents it points to, as kube-apiserver serves them) comes from schemas
// a test sets, AppsV1OpenAPI and WidgetOpenAPI being realistic ones:
//
//	no SetOpenAPI (the default)                 /openapi/v3 answers 404: a server without OpenAPI v3
//	SetOpenAPI("apps", "v1", AppsV1OpenAPI())   the index lists apis/apps/v1?hash=…; ETag, 304, 301 from a stale hash
//	SetOpenAPI("apps", "v1", nil)               apis/apps/v1 no longer listed (404)
//	FailPath("/openapi/v3", Forbidden(…))       a user whom RBAC does not grant the OpenAPI paths
//
// Failures are injected with Override (any handler for a path), FailPath and
// FailResource (a metav1.Status such as Forbidden, NotFound, TooManyRequests),
// for reads and writes alike, ExpireContinueTokens (410 Expired for
// continue tokens issued so far) and ExpireContinueTokensAfter (410 for the
// continue token of a later page: a long list cut in the middle).
//
// Every Add, Update, Modify and Delete, and every write request that stores
// something, bumps one resourceVersion counter and is kept in a bounded
// history, which watches (?watch=1 or watch=true on any collection with the
// watch verb, one namespace or all) stream as kube-apiserver does:
// labelSelector, fieldSelector, resourceVersion ("" and "0" start with an
// ADDED per object; too old a version gets an ERROR event with a 410 Expired
// Status), allowWatchBookmarks, timeoutSeconds, includeObject, and the Accept
// negotiation of lists (a Table stream sends columnDefinitions in its first
// event only). Test controls:
//
//	ResourceVersion()        the current version, to watch from
//	ExpireWatchHistory()     every version before now becomes too old (410)
//	CloseWatches()           cuts every open watch connection
//	SendBookmarks()          a BOOKMARK now on watches that allow them
//	Options.BookmarkInterval periodic BOOKMARKs
//	OpenWatches(), AwaitOpenWatches(n, d)  watch requests being served
//
// Exec and attach (pods/{name}/exec and pods/{name}/attach, listed in
// discovery) are WebSocket upgrades speaking v5.channel.k8s.io or
// v4.channel.k8s.io, after kube-apiserver's checks (create on the
// subresource as well for the GET, 404 pod, 400 container, 400 pod without
// a node, 400 container waiting or terminated by its status). Behind each
// socket runs a scripted process (exec.go: echo, pwd, stty size, exit N; a
// terminal's echo with a TTY; cat for any non-shell command), whose end is
// a kubelet's channel-3 Status, or kwok's. Test controls:
//
//	ExecSessions()              every session: pod, container, command, tty, input, resizes, output, how it ended
//	WaitExec(ctx, done)         waits until done(sessions) holds
//
// Ephemeral containers (pods/{name}/ephemeralcontainers): GET, and PATCH
// (merge, JSON and, as kubectl debug sends, strategic merge) or PUT of
// spec.ephemeralContainers only, validated as kube-apiserver does (names,
// image, target, existing ones unchanged); the new containers are then
// marked running (or waiting) in status.ephemeralContainerStatuses.
//
// The resource metrics API is MetricsV1Beta1 (metrics-server's
// metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics), seeded with
// PodMetrics and NodeMetrics; metrics.go says how to inject its failures.
//
// Pod logs (GET pods/{name}/log, plain text, with container, follow,
// tailLines, sinceSeconds, sinceTime, timestamps, previous and limitBytes)
// come from AppendLog and AppendLogAt; EndLog ends the streams following a
// container, RestartLog makes its log so far the previous one.
package apitest

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TableMode says which server-side Table versions a server serves.
type TableMode int

const (
	// TableV1 serves meta.k8s.io/v1 and v1beta1 Tables, like kube-apiserver
	// since 1.15. It is the default.
	TableV1 TableMode = iota
	// TableV1Beta1Only serves only meta.k8s.io/v1beta1 Tables: of an Accept
	// list naming v1 then v1beta1 it picks v1beta1, as kube-apiserver < 1.15 did.
	// An Accept naming only v1 Tables and no fallback gets 406.
	TableV1Beta1Only
	// TableNone models a server that knows no Tables and ignores the as=
	// parameter: it answers as=Table requests with the plain object or list.
	TableNone
	// TableNotAcceptable answers 406 Not Acceptable to any request whose
	// Accept header asks for as=Table, fallback or not.
	TableNotAcceptable
)

// DescribeMode says whether a server serves the describe representation
// (application/json;as=Description;v=v1alpha1;g=describe.tabula.dev).
type DescribeMode int

const (
	// DescribeIgnored ignores as=Description and answers the plain object, as
	// every server that has not heard of it does. It is the default.
	DescribeIgnored DescribeMode = iota
	// DescribeServed answers single-object GETs asking for it with a generic
	// Description built from the object (metadata, spec, status conditions).
	DescribeServed
	// DescribeNotAcceptable answers 406 to any request asking for it.
	DescribeNotAcceptable
)

// Options select the conventions a Server follows. The zero value behaves like
// a current kube-apiserver without the describe representation.
type Options struct {
	Table TableMode
	// NoPartialMetadata ignores as=PartialObjectMetadata and
	// as=PartialObjectMetadataList, answering the plain object or list.
	NoPartialMetadata bool
	// LegacyDiscovery turns aggregated discovery (apidiscovery.k8s.io/v2) off:
	// /api and /apis answer APIVersions and APIGroupList whatever is asked.
	LegacyDiscovery bool
	// NoDiscoveryETag serves aggregated discovery without an ETag and
	// ignores If-None-Match. By default /api and /apis send an ETag and
	// answer 304 Not Modified to a request naming it, as kube-apiserver does.
	NoDiscoveryETag bool
	// Warnings adds a Warning header (code 299, as kube-apiserver sends for
	// deprecations) with the message to every response about the resource
	// named by its plural (any group, version, namespace or subresource).
	Warnings map[string]string
	Describe DescribeMode
	// BookmarkInterval, when set, makes watches with allowWatchBookmarks
	// send a BOOKMARK that often (kube-apiserver: about once a minute).
	// SendBookmarks sends one at any time.
	BookmarkInterval time.Duration
	// NoRemainingCount leaves remainingItemCount out of every page, as a
	// server copying the conventions may: the field is optional.
	NoRemainingCount bool
	// NoMergePatch answers 415 Unsupported Media Type to merge patches and
	// accepts JSON Patch (RFC 6902) only, as some servers copying the
	// conventions do.
	NoMergePatch bool
	// Immutable lists, keyed by resource plural, the dotted field paths
	// (for example "spec.clusterIP" of "services") an update may not
	// change: 422 Invalid "field is immutable", as kube-apiserver's
	// validation answers.
	Immutable map[string][]string
	// Access, when set, authenticates bearer tokens and authorizes every
	// request with RBAC-like rules, and serves the self-reviews from them
	// (see Access). Without it every request is allowed and no
	// authorization API is served.
	Access *Access
	// Exec selects how exec, attach and ephemeral containers behave.
	Exec ExecOptions
}

// ExecOptions select how pods/exec, pods/attach and
// pods/ephemeralcontainers behave. The zero value is a current
// kube-apiserver and kubelet: all three served and in discovery, exit codes
// in a NonZeroExitCode Status, ephemeral containers running once added.
type ExecOptions struct {
	// NoExec serves neither pods/exec nor pods/attach: discovery lists
	// neither and their paths answer 404, as a server without them.
	NoExec bool
	// NoWebSocket fails the WebSocket upgrade as a server older than the
	// v5 protocol does (403 with no body), so clients fall back to SPDY,
	// which the fake does not serve (400 saying so).
	NoWebSocket bool
	// Kwok ends processes as kwok's local exec does: a non-zero exit code
	// comes as an InternalError whose message ends in "exit status N",
	// and the end of stdin is never delivered (a shell or cat reading
	// stdin runs until it reads "exit" or the connection goes).
	Kwok bool
	// NoEphemeralContainers serves no pods/ephemeralcontainers (missing
	// from discovery, 404), as a server without debug containers.
	NoEphemeralContainers bool
	// EphemeralWaiting leaves added ephemeral containers waiting
	// (ContainerCreating) instead of marking them running.
	EphemeralWaiting bool
}

// GroupVersion is one served group version and its resources.
type GroupVersion struct {
	Group     string // "" is the core group
	Version   string
	Resources []metav1.APIResource
	// Columns are a resource's Table columns, keyed by its plural name. A
	// resource without an entry gets Name and Age.
	Columns map[string][]Column
	// FieldLabels are the field selector paths a resource supports besides
	// metadata.name and metadata.namespace, keyed by its plural name. Any
	// other field answers 400 BadRequest, as kube-apiserver does.
	FieldLabels map[string][]string
}

// Server is a fake API server. Its handler can be overridden per path to
// simulate failures.
type Server struct {
	*httptest.Server
	// GroupVersions are what the server serves. Once it runs, add to them
	// only with AddGroupVersions.
	GroupVersions []GroupVersion
	// Token, when set, is the bearer token every request must carry.
	Token string

	t         testing.TB
	mu        sync.Mutex
	opts      Options
	overrides map[string]http.HandlerFunc
	failPaths map[string]metav1.Status
	failRes   map[string]metav1.Status // "group/resource"
	requests  []*http.Request
	writes    []Write
	store     store
	openapi   map[string]openAPIDocument // by index path ("apis/apps/v1"); see SetOpenAPI
	// discoveryFilter, when set, hides group versions from some requests' discovery.
	discoveryFilter func(*http.Request, GroupVersion) bool

	execSessions []*ExecSession
	execChanged  chan struct{} // closed (and replaced) on any change of execSessions
	execWG       sync.WaitGroup
}

// NewServer starts a fake server for gvs with the default Options; it is
// closed when the test ends.
func NewServer(t testing.TB, gvs ...GroupVersion) *Server {
	t.Helper()
	return NewServerWith(t, Options{}, gvs...)
}

// NewServerWith starts a fake server for gvs following opts; it is closed when
// the test ends.
func NewServerWith(t testing.TB, opts Options, gvs ...GroupVersion) *Server {
	t.Helper()
	s := &Server{
		GroupVersions: gvs,
		t:             t,
		opts:          opts,
		overrides:     map[string]http.HandlerFunc{},
		failPaths:     map[string]metav1.Status{},
		failRes:       map[string]metav1.Status{},
		store:         newStore(),
		execChanged:   make(chan struct{}),
	}
	// TLS, because clientcmd sends credentials only over TLS.
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// Connections cut when the test ends are not worth a log line.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// SetOptions changes the conventions the server follows from the next request on.
func (s *Server) SetOptions(opts Options) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts = opts
}

// AddGroupVersions serves gvs from the next request on, as a CRD or an
// aggregated API appears on a running server; discovery documents change
// (and so do their ETags).
func (s *Server) AddGroupVersions(gvs ...GroupVersion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.GroupVersions = append(s.GroupVersions, gvs...)
}

// served returns the group versions served now.
func (s *Server) served() []GroupVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	gvs := slices.Clone(s.GroupVersions)
	var hidden []string
	if s.opts.Exec.NoExec {
		hidden = append(hidden, "pods/exec", "pods/attach")
	}
	if s.opts.Exec.NoEphemeralContainers {
		hidden = append(hidden, "pods/ephemeralcontainers")
	}
	if len(hidden) > 0 {
		for i, gv := range gvs {
			if gv.Group == "" {
				gvs[i].Resources = slices.DeleteFunc(slices.Clone(gv.Resources), func(r metav1.APIResource) bool {
					return slices.Contains(hidden, r.Name)
				})
			}
		}
	}
	if ac := s.opts.Access; ac != nil && !ac.NoReviewAPI {
		gvs = append(gvs, authorizationGroupVersion())
	}
	return gvs
}

// Options returns the conventions the server follows.
func (s *Server) Options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts
}

// Close ends the open watches and log streams (the client sees the server
// close them), then shuts the server down: httptest would otherwise wait for
// them forever. Exec sessions still running are dropped, and waited for.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.store.shutdown:
	default:
		close(s.store.shutdown)
	}
	s.mu.Unlock()
	s.Server.Close()
	s.execWG.Wait()
}

// Override makes path answer with h instead of the fake's own handling;
// a nil h restores it.
func (s *Server) Override(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overrides[path] = h
}

// FailPath makes every request for exactly path (no query) answer st. A
// Status with Details.RetryAfterSeconds also gets a Retry-After header, which
// makes client-go retry it (up to 10 times) before giving up.
func (s *Server) FailPath(path string, st metav1.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPaths[path] = st
}

// FailResource makes every request for the resource (group "" is core; any
// version, namespace, name or subresource) answer st, as FailPath does.
func (s *Server) FailResource(group, resource string, st metav1.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRes[group+"/"+resource] = st
}

// Requests returns the requests served so far.
func (s *Server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// Write is one write request (POST, PUT, PATCH, DELETE) as the server
// received it. Requests keeps the *http.Request, whose body is read by then;
// Write keeps the body.
type Write struct {
	Method      string
	Path        string
	Query       url.Values
	ContentType string
	Body        []byte
}

// Writes returns the write requests served so far, those answered by
// Override, FailPath or FailResource included.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// ResetRequests forgets the requests (and writes) served so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
	s.writes = nil
}

// Kubeconfig returns a kubeconfig with one context per name, all pointing at s.
func (s *Server) Kubeconfig(contexts ...string) clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	cfg.Clusters["fake"] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["fake-user"] = &clientcmdapi.AuthInfo{Token: s.Token}
	for _, name := range contexts {
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "fake", AuthInfo: "fake-user"}
	}
	if len(contexts) > 0 {
		cfg.CurrentContext = contexts[0]
	}
	return *cfg
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	write, isWrite := readWrite(r)
	s.mu.Lock()
	s.requests = append(s.requests, r)
	if isWrite {
		s.writes = append(s.writes, write)
	}
	override := s.overrides[r.URL.Path]
	failure, failed := s.failPaths[r.URL.Path]
	opts := s.opts
	s.mu.Unlock()
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
		return
	}
	// Authentication and authorization come before any handler, as in
	// kube-apiserver; overrides and injected failures are handlers.
	if opts.Access != nil && opts.Access.authorize(w, r) {
		return
	}
	if override != nil {
		override(w, r)
		return
	}
	if failed {
		writeFailure(w, failure)
		return
	}
	switch path := strings.TrimSuffix(r.URL.Path, "/"); {
	case path == "/version":
		writeJSON(w, http.StatusOK, map[string]string{"major": "1", "minor": "36", "gitVersion": "v1.36.0-fake"})
	case path == "/api" || path == "/apis":
		s.serveDiscoveryRoot(w, r, path, opts)
	case path == openAPIPrefix || strings.HasPrefix(path, openAPIPrefix+"/"):
		s.serveOpenAPI(w, r, path)
	case (path == SelfSubjectAccessReviewPath || path == SelfSubjectRulesReviewPath) && opts.Access != nil && !opts.Access.NoReviewAPI:
		opts.Access.serveReview(w, r, path)
	default:
		if s.serveDiscoveryPath(w, r, path) {
			return
		}
		req, ok := s.parseResourcePath(path)
		if !ok {
			WriteStatus(w, metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
				Message: "the server could not find the requested resource",
			})
			return
		}
		if msg, ok := opts.Warnings[req.res.Name]; ok {
			w.Header().Add("Warning", warningHeader(msg))
		}
		s.mu.Lock()
		failure, failed := s.failRes[req.gv.Group+"/"+req.res.Name]
		s.mu.Unlock()
		if failed {
			writeFailure(w, failure)
			return
		}
		s.serveResource(w, r, req, opts)
	}
}

// readWrite records a write request, reading its body and putting a copy
// back for whichever handler serves it.
func readWrite(r *http.Request) (Write, bool) {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return Write{}, false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return Write{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		ContentType: r.Header.Get("Content-Type"), Body: body,
	}, true
}

func gvString(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	writeJSONAs(w, code, "application/json", v)
}

func writeJSONAs(w http.ResponseWriter, code int, contentType string, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// warningHeader is an RFC 7234 Warning header value with code 299 and no
// agent, as kube-apiserver writes them.
func warningHeader(msg string) string {
	msg = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(msg)
	return `299 - "` + msg + `"`
}
