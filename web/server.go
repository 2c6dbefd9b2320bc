// Package web is the console's composition root: the echo server, its
// middleware, the one route table and the few pages that belong to no
// feature (home, jump, health). Features live in web/list, web/object,
// web/logs, web/edit, web/exec, web/auth and web/access; what they share lives in web/page.
package web

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/access"
	"github.com/tabula-console/tabula/web/auth"
	"github.com/tabula-console/tabula/web/bulk"
	"github.com/tabula-console/tabula/web/changes"
	"github.com/tabula-console/tabula/web/edit"
	"github.com/tabula-console/tabula/web/exec"
	"github.com/tabula-console/tabula/web/fleet"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/logs"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/problems"
	"github.com/tabula-console/tabula/web/seal"
	"github.com/tabula-console/tabula/web/search"
)

// Clusters is what the console needs from apiclient.
type Clusters = page.Clusters

// Deps are the collaborators a Server is wired with.
type Deps struct {
	Clusters Clusters
	Metrics  *Metrics
	Static   fs.FS
	Log      *slog.Logger
	// RequestTimeout bounds the upstream work of one page (default 30 s),
	// so a hung API server gives a 504 page rather than a hung tab.
	RequestTimeout time.Duration
	// AllowedHosts are the host names, besides IP addresses and localhost,
	// that requests may address.
	AllowedHosts []string
	// InCluster trusts in-cluster Service names (*.svc, *.svc.cluster.local)
	// as hosts: only a console running in a cluster is reached by them.
	InCluster bool
	// ExternalOrigins pin the browser origins (scheme://host[:port]) that
	// may open live streams; empty means the origin of each request.
	ExternalOrigins []string
	// MaxStreams caps concurrent upstream log streams (default
	// page.DefaultMaxStreams).
	MaxStreams int
	// Auth is how users sign in; the zero value is kubeconfig mode.
	Auth AuthConfig
	// BasePath is the prefix of every console URL ("" or "/tabula", no
	// trailing slash), for an ingress that forwards the prefix unchanged:
	// the console strips it itself, and answers 404 outside it.
	BasePath string
	// MetricsListen, when set, is the address Serve serves /metrics on,
	// alone; the console's own listener then does not serve it.
	MetricsListen string
	// MaxStreamsPerUser caps those one identity may hold (default
	// page.DefaultMaxStreamsPerUser).
	MaxStreamsPerUser int
	// Terminal tunes terminals: idle timeout, terminals per user.
	Terminal TerminalConfig
	// ReleaseIdleMemory is how long after the last page request the heap's
	// spare memory goes back to the OS (0: DefaultReleaseIdleMemory;
	// negative: never).
	ReleaseIdleMemory time.Duration
	// DisableCompression sends pages and assets uncompressed whatever the
	// browser accepts (--compress=false).
	DisableCompression bool
	// Changes bounds each recent-changes page (zero: changes.DefaultBudget()).
	Changes ChangesBudget
	// Problems bounds each Problems page and the home page's health (zero:
	// problems.DefaultBudget()).
	Problems ProblemsBudget
	// FleetRefresh is how often a live fleet home asks every cluster
	// again (zero: fleet.RefreshEvery).
	FleetRefresh time.Duration
	// Search bounds each search (zero: search.DefaultBudget()).
	Search SearchBudget
	// Relate bounds each relation scan of an object page and map (zero
	// fields: apiclient.DefaultRelateBudget()).
	Relate apiclient.RelateBudget
	// List bounds what a list page reads and waits for (zero: the
	// console's, list.DefaultScanBudget and a one-second wait for usage).
	List ListLimits
}

// ListLimits bound what a list page reads and waits for (web/list).
type ListLimits = list.Limits

// ChangesBudget bounds one recent-changes page (web/changes).
type ChangesBudget = changes.Budget

// ProblemsBudget bounds one Problems page (web/problems).
type ProblemsBudget = problems.Budget

// SearchBudget bounds one search (web/search).
type SearchBudget = search.Budget

// DefaultReleaseIdleMemory is how quiet the console must be before it
// returns spare heap memory.
const DefaultReleaseIdleMemory = 5 * time.Second

// TerminalConfig tunes terminals (web/exec).
type TerminalConfig = exec.Config

// Server is the console's HTTP application.
type Server struct {
	env     *page.Env
	idle    *idleRelease
	metrics *Metrics
	assets  *assets
	log     *slog.Logger
	echo    *echo.Echo
	handler http.Handler
	hosts   hostPolicy
	ready   *readiness
	// basePath, metricsListen and origins are Deps.BasePath,
	// Deps.MetricsListen and Deps.ExternalOrigins.
	basePath      string
	metricsListen string
	origins       []string
	// bodyTimeout is how long a request body may take to arrive.
	bodyTimeout time.Duration
	// ownCredentialServes: the console's own credential acts for its users
	// (kubeconfig mode, OIDC impersonation), so its refusal is not ready.
	ownCredentialServes bool

	auth   *auth.Handler
	list   *list.Handler
	object *object.Handler
	logs   *logs.Handler
	edit   *edit.Handler
	// bulk serves the review and apply of a list's checked rows.
	bulk   *bulk.Handler
	exec   *exec.Handler
	search *search.Handler
	// changes serves the recent changes of a namespace.
	changes  *changes.Handler
	problems *problems.Handler
	fleet    *fleet.Handler
	// dispatch is what the /api/* and /apis/* routes lead to.
	dispatch resourceRoutes
}

// New builds the server and its routes.
func New(d Deps) (*Server, error) {
	if d.Clusters == nil || d.Metrics == nil || d.Static == nil {
		return nil, errors.New("web: Clusters, Metrics and Static are required")
	}
	if d.BasePath != "" && (!strings.HasPrefix(d.BasePath, "/") || strings.HasSuffix(d.BasePath, "/")) {
		return nil, fmt.Errorf("web: BasePath %q must start with / and not end with one", d.BasePath)
	}
	a, err := newAssets(d.Static, d.BasePath)
	if err != nil {
		return nil, err
	}
	// One session key seals the sessions (web/auth) and the notices
	// (web/page), so every replica given the key reads the others'.
	keys := d.Auth.Keys
	if len(keys) == 0 {
		k := make([]byte, seal.MinKeyBytes)
		if _, err := rand.Read(k); err != nil {
			return nil, err
		}
		keys = [][]byte{k}
		if d.Log != nil && d.Auth.Mode != "" && d.Auth.Mode != ModeKubeconfig {
			d.Log.Warn("no session key given (--session-key-file or TABULA_SESSION_KEY): using a random one, so a restart signs everyone out and other replicas cannot read this one's sessions")
		}
	}
	env, err := page.New(page.Config{
		Clusters: d.Clusters,
		Log:      d.Log,
		Timeout:  d.RequestTimeout,
		Assets: views.Assets{Styles: a.Styles(), JS: a.URL("app.bundle.js"), Live: a.URL("live.bundle.js"), Editor: a.URL("editor.js"), Bulk: a.URL("bulk.js"),
			Terminal: a.URL("terminal.js"), TerminalCSS: a.URL("terminal.css"), ImportMap: a.ImportMap()},
		Origins:    d.ExternalOrigins,
		MaxStreams: d.MaxStreams,
		Access:     access.New(access.Options{Log: d.Log}),
		// Per-user and sign-in settings.
		MaxStreamsPerUser: d.MaxStreamsPerUser,
		Mode:              d.Auth.Mode,
		// Compression of what the console writes.
		DisableCompression: d.DisableCompression,
		Keys:               keys,
	})
	if err != nil {
		return nil, err
	}
	a.encoding = env.Encoding
	// Operations and static assets need no session; the route table says
	// which paths they are.
	authCfg := d.Auth
	authCfg.Keys = keys
	authCfg.Public = append(authCfg.Public, publicPaths...)
	signIn, err := auth.New(env, authCfg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		env:           env,
		metrics:       d.Metrics,
		assets:        a,
		log:           env.Log,
		hosts:         newHostPolicy(d.AllowedHosts, d.InCluster),
		basePath:      d.BasePath,
		metricsListen: d.MetricsListen,
		origins:       d.ExternalOrigins,
		bodyTimeout:   bodyTimeout,
		ownCredentialServes: d.Auth.Mode == "" || d.Auth.Mode == ModeKubeconfig ||
			d.Auth.Mode == ModeOIDC && d.Auth.OIDC.Identity == OIDCImpersonate,
		auth:     signIn,
		list:     list.New(env, d.List),
		object:   object.New(env, d.Relate),
		logs:     logs.New(env),
		edit:     edit.New(env),
		bulk:     bulk.New(env),
		exec:     exec.New(env, d.Terminal),
		search:   search.New(env, cmp.Or(d.Search, search.DefaultBudget())),
		changes:  changes.New(env, cmp.Or(d.Changes, changes.DefaultBudget())),
		problems: problems.New(env, cmp.Or(d.Problems, problems.DefaultBudget())),
	}
	// The fleet's home shows each cluster's health as its own home does;
	// the fleet feature is handed it, and imports no other feature.
	s.fleet = fleet.New(env, s.problems.Health, fleet.DefaultPerCluster, cmp.Or(d.FleetRefresh, fleet.RefreshEvery))
	quiet := d.ReleaseIdleMemory
	if quiet == 0 {
		quiet = DefaultReleaseIdleMemory
	}
	s.idle = newIdleRelease(quiet, env.Log)
	s.ready = &readiness{ping: s.ping, now: time.Now, log: func(err error) {
		s.log.Warn("not ready", "context", env.Clusters.Current(), "error", err)
	}}
	// The pooled compressors are garbage before the collection, not after.
	free := s.idle.release
	s.idle.release = func() { env.ReleasePooled(); free() }
	s.metrics.upstreamWatches(func() float64 { return float64(s.list.Upstreams()) })
	s.metrics.streamSlots(env.StreamSlots)
	s.metrics.openSockets(env.OpenSockets)
	s.dispatch = s.resourceRoutes()
	s.echo = s.routes()
	s.handler = s.echo
	if s.basePath != "" {
		s.handler = underBase(s.basePath, s.echo)
	}
	return s, nil
}

// AuthConfig and OIDCConfig configure sign-in (web/auth).
type (
	AuthConfig = auth.Config
	OIDCConfig = auth.OIDC
)

// Sign-in modes and OIDC identities, as flags name them.
const (
	ModeKubeconfig     = page.ModeKubeconfig
	ModeOIDC           = page.ModeOIDC
	ModeToken          = page.ModeToken
	OIDCPassthrough    = auth.IdentityPassthrough
	OIDCImpersonate    = auth.IdentityImpersonate
	MinSessionKeyBytes = seal.MinKeyBytes
	// The headers trusted proxies may name the client in.
	HeaderXForwardedFor = auth.HeaderXForwardedFor
	HeaderForwarded     = auth.HeaderForwarded
	// DefaultStateSecret names the Secret replicas share session state
	// through.
	DefaultStateSecret = auth.DefaultStateSecret
	// DefaultImpersonationPrefix is put before impersonated OIDC users
	// and groups unless configured otherwise.
	DefaultImpersonationPrefix = auth.DefaultImpersonationPrefix
)

// DiscoverSignIn reaches the OIDC provider, if sign-in uses one, so a
// misconfiguration shows at start-up.
func (s *Server) DiscoverSignIn(ctx context.Context) error { return s.auth.Discover(ctx) }

// SyncSessions keeps the session state the console's replicas share
// (logouts, refreshes; AuthConfig.StateNamespace) in step until ctx ends.
// Without shared state it returns at once.
func (s *Server) SyncSessions(ctx context.Context) { s.auth.SyncSessions(ctx) }

// Handler is the server's root http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// underBase serves h under base: a request for base or below loses the
// prefix before routing, so routes and handlers never see it, and carries
// it in its context to the URL builders. Anything else is a bare 404 that
// names nothing behind the console.
func underBase(base string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, ok := stripBase(base, r.URL.Path)
		raw := ""
		if ok && r.URL.RawPath != "" {
			// echo routes on the escaped path when there is one; a prefix
			// spelled with escapes ("/tab%75la") is not the prefix.
			raw, ok = stripBase(base, r.URL.RawPath)
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		u := *r.URL
		u.Path, u.RawPath = path, raw
		r = r.WithContext(page.WithBasePath(r.Context(), base))
		r.URL = &u
		h.ServeHTTP(w, r)
	})
}

// stripBase removes base from p: "/tabula" and "/tabula/x" are under
// "/tabula", "/tabulax" is not.
func stripBase(base, p string) (string, bool) {
	if p == base {
		return "/", true
	}
	if rest, ok := strings.CutPrefix(p, base); ok && strings.HasPrefix(rest, "/") {
		return rest, true
	}
	return "", false
}

// AssetURL is the fingerprinted URL the server serves the static file name
// at ("" for none): pages carry the stylesheet inline, so its URL is not in
// them.
func (s *Server) AssetURL(name string) string { return s.assets.URL(name) }
