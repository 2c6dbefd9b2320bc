package web

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/page"
)

// routes is the one route table. Every page is bounded by the page
// deadline; only the streaming handlers (marked "stream") are not, and
// nothing a request sends can change which is which.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.Pre(headAsGet)
	e.HidePort = true
	e.HTTPErrorHandler = s.env.HandleError
	// headRestored comes first: handlers see a HEAD as its GET, and
	// net/http still sends no body. Logging and metrics wrap panic
	// recovery, so a recovered panic is still logged and counted with the
	// status of the error page it became. The host check comes before
	// anything that reads a cluster.
	// Sign-in (web/auth) decides who every request acts for, after the
	// host check and before any feature; it binds the CSRF token to the
	// session, so it runs before CSRF. Sign-in attempts are rate-limited
	// before CSRF reads anything of their bodies. CSRF guards every request
	// that is not a read, so no write can be routed around it, and
	// UpgradeOrigin every WebSocket handshake, so no stream can; both run
	// after the host check so their Origin checks compare with a
	// vouched-for Host. A body is bounded and timed from its first byte,
	// before the host check or anything after it may answer (limitBody),
	// and read whole only once CSRF vouched for it (readForm).
	e.Use(headRestored, requestLog(s.log), s.metrics.middleware, s.idle.middleware, recoverPanics(s.log), securityHeaders(s.auth.FormActions()), s.limitBody, s.hosts.check, s.env.UpgradeOrigin, s.auth.Middleware, s.limitSignIn, csrf.Protect(s.origins), s.readForm, s.env.Flashes, page.Theme, page.CollectWarnings)
	bounded := s.env.Bounded

	// Operations.
	e.GET("/healthz", s.healthz)        // liveness
	e.GET("/readyz", bounded(s.readyz)) // readiness: the current context's API server answers
	if s.metricsListen == "" {
		e.GET("/metrics", echo.WrapHandler(s.metrics.Handler())) // Prometheus exposition (else on its own listener: Serve)
	}
	e.GET(assetPrefix+"*", s.assets.handle(s.log)) // fingerprinted static files (modules in folders too), cached forever, compressed once

	// Sign-in (web/auth): open to whoever is not signed in, except the
	// session probe; login, callback and token are rate-limited per client
	// (limitSignIn).
	e.GET(signInLogin, s.auth.Login)                // OIDC: → the provider (PKCE, state, nonce); token mode: the paste-a-token form
	e.GET(signInCallback, bounded(s.auth.Callback)) // OIDC: code exchange, ID token checks → the return path
	e.POST(signInToken, bounded(s.auth.Token))      // token mode: SelfSubjectReview of the pasted token → the return path
	e.POST("/auth/logout", s.auth.Logout)           // ends the session (RP-initiated logout when the provider has it)
	e.GET("/auth/signed-out", s.auth.SignedOut)     // "You are signed out"
	e.GET("/auth/session", s.auth.Session)          // 204 while signed in, else 401: asked by live pages whose stream was refused

	// Pages.
	e.GET("/", s.root)              // → the current context's home
	e.GET("/fleet", s.fleet.Choose) // ?context=a&context=b (the switcher's form) → /c/a,b/
	// /c/{context}: 404 for a context the console does not offer; /c/_all
	// and /c/a,b (fleet contexts) only for the routes fleetRoutes names,
	// else a 400.
	c := e.Group("/c/:context", s.env.RequireFleet(func(path string) bool { return fleetRoutes[path] }))
	c.GET("", s.contextRoot)                       // → /c/{context}/
	c.GET("/", s.homeOrLive)                       // health, then API groups and resources, from discovery; a fleet's: a row per cluster (stream: a live fleet home)
	c.GET("/jump", bounded(s.jump))                // kubectl-style name ("deploy", "sts.apps") → its list; anything else → search
	c.GET("/search", bounded(s.search.Page))       // ?q=: objects of every kind the user may list, streamed kind by kind (web/search)
	c.GET("/changes", bounded(s.changes.Page))     // ?namespace=&since=: objects newest written to first, by manager (web/changes)
	c.GET("/problems", s.problems.Serve)           // stream: ?namespace=&after=: what is broken now, any kind (page bounded; WebSocket follows it) (web/problems)
	c.GET("/namespace", bounded(s.list.Namespace)) // namespace picker → the same list in another namespace
	c.GET("/logs/:namespace", s.logs.Selector)     // stream: merged logs of ?labelSelector= (page, WebSocket, ?download=1)
	c.POST("/bulk", bounded(s.bulk.Review))        // a list's checked rows (form: resource, op, item=ns/name…): each one's change, permission (access reviews) and dry run
	c.POST("/bulk/apply", s.bulk.Apply)            // stream: the reviewed items (item, rv), at most 8 writes in flight, each guarded by its resourceVersion; a result row per item as it finishes
	c.GET("/schema/*", bounded(s.schema))          // the OpenAPI v3 schema of a collection's kind, trimmed for the editor (JSON)
	c.GET("/api/*", s.resource)                    // the API server's own paths, dispatched below
	c.GET("/apis/*", s.resource)
	c.POST("/api/*", s.resource) // writes: the actions below, behind CSRF
	c.POST("/apis/*", s.resource)
	return e
}

// fleetRoutes are the routes that run over several contexts (/c/_all/…,
// /c/a,b/…).
var fleetRoutes = map[string]bool{
	"/c/:context":          true, // → the fleet's home
	"/c/:context/":         true, // one row per cluster (web/fleet)
	"/c/:context/problems": true, // each cluster's problems (web/problems)
	"/c/:context/search":   true, // each cluster's results, then by kind (web/search)
	"/c/:context/api/*":    true, // lists: a section per cluster (web/fleet)
	"/c/:context/apis/*":   true,
}

// The sign-in routes, rate-limited per client.
const (
	signInLogin    = "/auth/login"
	signInCallback = "/auth/callback"
	signInToken    = "/auth/token"
)

// limitSignIn rate-limits sign-in attempts per client (web/auth), before
// anything reads their bodies: a stalled or large body never gets past it.
func (s *Server) limitSignIn(next echo.HandlerFunc) echo.HandlerFunc {
	limited := s.auth.Limit(next)
	return func(c echo.Context) error {
		switch c.Path() {
		case signInLogin, signInCallback, signInToken:
			return limited(c)
		}
		return next(c)
	}
}

// readForm reads a write's form whole once CSRF has vouched for it, up to
// what its route allows (the editor's pages take large forms), so that a
// form too large or too slow is a 413 or 408 that says so before any
// handler sees half of it.
func (s *Server) readForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if csrf.SafeMethod(req.Method) {
			return next(c)
		}
		// The console's pages send forms as this, and nothing else: any
		// other body (multipart, JSON) is refused, never read by a parser
		// that would ignore its bound.
		if mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); req.ContentLength != 0 && mt != echo.MIMEApplicationForm {
			return echo.NewHTTPError(http.StatusUnsupportedMediaType, "The console takes forms as "+echo.MIMEApplicationForm+"; nothing was sent to the API server.")
		}
		limit := int64(maxSmallForm)
		if s.largeForm(c) {
			limit = maxRequestBody
		}
		// A MaxBytesReader also lifts ParseForm's own cap of 10 MB.
		req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
		if err := csrf.ReadForm(req); err != nil {
			return err
		}
		return next(c)
	}
}

// largeForm says whether the route table lets the request's form be large.
func (s *Server) largeForm(c echo.Context) bool {
	_, rest, ok := strings.Cut(strings.TrimPrefix(c.Request().URL.EscapedPath(), "/c/"), "/")
	if !ok || !strings.HasPrefix(c.Path(), "/c/:context/api") {
		return false
	}
	p, err := parseAPIPath("/" + rest)
	if err != nil {
		return false
	}
	rt, err := s.dispatch.route(c.Request().Method, p, false)
	return err == nil && rt.largeForm
}

// publicPaths need no session: operations and static assets (a path
// ending in "/" covers everything below it).
var publicPaths = []string{"/healthz", "/readyz", "/metrics", assetPrefix}

// resourceRoutes is what /c/{context}/api/* and /apis/* dispatch to, by the
// shape of the API path after it was resolved through discovery. Each row
// names the verb the server must allow on the resource for it, checked
// once in resource, and whether it streams: every other row is bounded by
// the page deadline.
type resourceRoutes struct {
	list, liveList     route
	export             route // …/{resource}?export=…, whatever the list's route
	object, liveObject route
	// subresources are served by name; any other subresource goes to
	// otherSubresource.
	subresources     map[string]route
	otherSubresource route
	// create is …/{resource}/new; actions are …/{name}/{action}, pages
	// that change an object. They are served by method; another method
	// gets 405.
	create  methods
	actions map[string]methods
	// liveEdit follows the object an editor has open.
	liveEdit route
}

// route is one row of the table.
type route struct {
	serve page.ResourceHandler
	// verb is what the server must allow on the resource ("" for none the
	// console can tell from discovery): otherwise 405, before the handler.
	verb string
	// stream: the handler bounds only its setup, not the stream itself.
	stream bool
	// largeForm: its form may be as large as maxRequestBody, not
	// maxSmallForm (an editor's text).
	largeForm bool
}

// methods are the routes of one action path by HTTP method.
type methods struct{ get, post route }

func (s *Server) resourceRoutes() resourceRoutes {
	return resourceRoutes{
		list:       route{serve: s.list.Page, verb: "list"},                  // …/{resource}: one page of the list, in the server's Table columns
		liveList:   route{serve: s.list.Live, verb: "watch", stream: true},   // …/{resource} over WebSocket: changed rows, rendered as the page renders them
		export:     route{serve: s.list.Export, verb: "list", stream: true},  // …/{resource}?export=csv|tsv|json|yaml: the whole collection as a download; setup has the page deadline, the export its own (web/list/export.go)
		object:     route{serve: s.object.Page, verb: "get"},                 // …/{resource}/{name}: overview (server or generic describe), ?view=yaml
		liveObject: route{serve: s.object.Live, verb: "watch", stream: true}, // …/{resource}/{name} over WebSocket: the page's live sections
		subresources: map[string]route{
			"log":    {serve: s.logs.Object, stream: true}, // …/pods/{name}/log and …/{workload}/{name}/log (page bounded; WebSocket; ?download=1)
			"exec":   {serve: s.exec.Exec, stream: true},   // …/pods/{name}/exec: terminal page (bounded), session over WebSocket; …/{workload}/{name}/exec: pick a pod
			"attach": {serve: s.exec.Attach, stream: true}, // …/pods/{name}/attach: terminal joined to the container's process
			// …/pods/{name}/usage and …/nodes/{name}/usage: the object page's usage chart, redrawn with
			// metrics.k8s.io's current sample added to the page's ?history=; 404 without metrics
			"usage": {serve: s.object.Usage},
		},
		otherSubresource: route{serve: s.object.Subresource}, // …/{name}/status: the status; other served ones 405; else 404
		create: methods{ // …/{resource}/new: YAML editor → dry-run review → POST; apiVersion/kind pick the collection
			get:  route{serve: s.edit.New, verb: "create"},
			post: route{serve: s.edit.Create, verb: "create", largeForm: true},
		},
		actions: map[string]methods{
			"edit": { // …/{name}/edit: YAML editor → dry-run review → merge patch with resourceVersion; 409 → conflict page
				get:  route{serve: s.edit.Edit, verb: "patch"},
				post: route{serve: s.edit.Save, verb: "patch", largeForm: true},
			},
			"delete": { // …/{name}/delete: confirmation (propagation, grace period) → DELETE; shows the server's answer
				get:  route{serve: s.edit.ConfirmDelete, verb: "delete"},
				post: route{serve: s.edit.Delete, verb: "delete"},
			},
			"scale": { // …/{name}/scale: replicas through the generic scale subresource, for any resource that has one
				get:  route{serve: s.edit.ScaleForm},
				post: route{serve: s.edit.Scale},
			},
			"restart": { // …/{name}/restart: pod-template annotation patch, as kubectl rollout restart
				post: route{serve: s.edit.Restart, verb: "patch"},
			},
			"debug": { // …/pods/{name}/debug: add an ephemeral container (image, target), guarded by resourceVersion → its terminal; 404 where the server has no pods/ephemeralcontainers
				get:  route{serve: s.exec.DebugForm},
				post: route{serve: s.exec.Debug},
			},
		},
		liveEdit: route{serve: s.edit.Live, verb: "watch", stream: true}, // …/{name}/edit over WebSocket: "changed on the server by …" while an editor is open
	}
}

// resource resolves an API path under a context through discovery and
// hands it to its route.
func (s *Server) resource(c echo.Context) error {
	if page.FleetOf(c.Request().Context()) != nil {
		return s.fleetResource(c)
	}
	t, err := s.target(c, "/c/{context}")
	if err != nil {
		return err
	}
	req := c.Request()
	live := req.Method == http.MethodGet && streaming.IsUpgrade(req)
	rt, err := s.dispatch.route(req.Method, t.Path, live)
	if err != nil {
		return err
	}
	if t.Path.Name == "" && req.Method == http.MethodGet && !live && list.IsExport(req.URL.Query()) {
		rt = s.dispatch.export
	}
	if rt.verb != "" && !t.Resource.Can(rt.verb) {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("The server does not allow %s %s.", gerund(rt.verb), t.Resource.Name))
	}
	if rt.stream {
		return rt.serve(c, t)
	}
	return s.env.Bounded(func(c echo.Context) error { return rt.serve(c, t) })(c)
}

// fleetResource serves an API path over fleet contexts: a list, a section
// per cluster (web/fleet), within the page deadline.
func (s *Server) fleetResource(c echo.Context) error {
	if list.IsExport(c.QueryParams()) {
		return echo.NewHTTPError(http.StatusBadRequest, "An export is one cluster's collection: export from each context's own list.")
	}
	parts := strings.SplitN(c.Request().URL.EscapedPath(), "/", 4)
	if len(parts) < 4 {
		return echo.ErrNotFound
	}
	p, err := parseAPIPath("/" + parts[3])
	if err != nil {
		return err
	}
	return s.env.Bounded(func(c echo.Context) error { return s.fleet.List(c, p) })(c)
}

// schema serves the editor's schema of a collection's kind (web/edit).
func (s *Server) schema(c echo.Context) error {
	t, err := s.target(c, "/c/{context}/schema")
	if err != nil {
		return err
	}
	if t.Path.Name != "" {
		return echo.NewHTTPError(http.StatusNotFound, "Not a collection path.")
	}
	return s.edit.Schema(c, t)
}

// target resolves the API path that follows prefix's segments in the
// request's escaped path through discovery. The context segment is
// skipped as sent, however the browser escaped it.
func (s *Server) target(c echo.Context, prefix string) (page.Target, error) {
	skip := strings.Count(prefix, "/") + 1
	parts := strings.SplitN(c.Request().URL.EscapedPath(), "/", skip+1)
	if len(parts) <= skip {
		return page.Target{}, echo.ErrNotFound
	}
	p, err := parseAPIPath("/" + parts[skip])
	if err != nil {
		return page.Target{}, err
	}
	client, err := s.env.Client(c)
	if err != nil {
		return page.Target{}, err
	}
	resolveCtx, cancel := s.env.WithDeadline(c.Request().Context())
	r, err := client.Resource(resolveCtx, p.Group, p.Version, p.Resource)
	cancel()
	urls := page.URLsOf(c.Request().Context())
	if err != nil {
		return page.Target{}, unserved(urls, p, c.QueryParams(), err)
	}
	if p.Namespace != "" && !r.Namespaced {
		return page.Target{}, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s is cluster-scoped and has no namespace %q", r.Name, p.Namespace))
	}
	return page.Target{Client: client, Resource: r, Path: p, URLs: urls}, nil
}

// route picks the row of an API path, asked with method, live when it is
// a WebSocket handshake.
func (rr resourceRoutes) route(method string, p page.APIPath, live bool) (route, error) {
	switch {
	case p.Name == newObject && p.Subresource == "":
		return rr.create.route(method)
	case live && p.Subresource == "edit":
		return rr.liveEdit, nil
	}
	if action, ok := rr.actions[p.Subresource]; ok && p.Subresource != "" {
		return action.route(method)
	}
	switch {
	case method != http.MethodGet:
		return route{}, echo.NewHTTPError(http.StatusMethodNotAllowed, "Only the edit, delete, scale, restart and debug pages of an object, and the new page of a collection, accept forms.")
	case p.Name == "" && live:
		return rr.liveList, nil
	case p.Name == "":
		return rr.list, nil
	case p.Subresource == "" && live:
		return rr.liveObject, nil
	case p.Subresource == "":
		return rr.object, nil
	}
	if rt, ok := rr.subresources[p.Subresource]; ok {
		return rt, nil
	}
	return rr.otherSubresource, nil
}

// newObject is the name segment of the create page, …/{resource}/new. An
// object named "new" is still reachable through its actions (…/new/edit).
const newObject = "new"

func (m methods) route(method string) (route, error) {
	rt := m.get
	if method == http.MethodPost {
		rt = m.post
	}
	if rt.serve == nil {
		return route{}, echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("%s is not served here.", method))
	}
	return rt, nil
}

// gerund names what a verb does, for the 405 of a resource whose server
// does not allow it ("The server does not allow watching pods.").
func gerund(verb string) string {
	switch verb {
	case "get":
		return "reading"
	case "list", "watch", "patch":
		return verb + "ing"
	}
	return strings.TrimSuffix(verb, "e") + "ing" // create, delete
}

// headAsGet serves HEAD as the GET of the same URL, as RFC 9110 asks
// (curl -I, uptime checks), and every middleware (sign-in, CSRF, headers)
// runs as for the GET. It runs before routing; headRestored, the first step
// after it, gives net/http back its HEAD (page.MarkHead says why).
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodHead {
			page.MarkHead(c)
		}
		return next(c)
	}
}

func headRestored(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		page.RestoreHead(c)
		return next(c)
	}
}
