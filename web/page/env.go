// Package page is what every feature of the console needs to serve a page
// or a stream: the per-request client and identity, rendering into a pooled
// buffer, the page frame, the one error mapper, console URL builders,
// WebSocket upgrades and upstream watch helpers. It depends on no feature;
// features (list, object, logs, …) depend on it.
package page

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
)

// Clusters is what the console needs from apiclient: the known contexts and
// a client per request identity.
type Clusters interface {
	Current() string
	Contexts() []apiclient.Context
	Context(name string) (apiclient.Context, error)
	Client(context string, id apiclient.Identity) (*apiclient.Client, error)
}

// Gauge is the part of a Prometheus gauge the WebSocket helpers use.
type Gauge interface {
	Inc()
	Dec()
}

// Config is what Env is built from.
type Config struct {
	Clusters Clusters
	Log      *slog.Logger
	// Timeout bounds the upstream work of one page.
	Timeout time.Duration
	// Assets are the fingerprinted URLs every page links.
	Assets views.Assets
	// WebSockets counts open browser WebSockets.
	WebSockets Gauge
	// Origins are the browser origins (scheme://host[:port]) allowed to open
	// WebSockets; empty means the origin the request itself was made to.
	Origins []string
	// MaxStreams caps the upstream streams (log follows, downloads) the
	// console keeps open at once, across all users.
	MaxStreams int
	// Access answers what each user may do, for pages to disable what the
	// server would refuse; nil offers everything and lets the server decide.
	Access Access
}

// Env is the shared state of one console: features hold a pointer to it.
type Env struct {
	Clusters Clusters
	Log      *slog.Logger
	Timeout  time.Duration

	assets  views.Assets
	pages   bufferPool
	sockets Gauge
	origins []string
	streams chan struct{}
	access  Access
}

// DefaultMaxStreams is the default of Config.MaxStreams.
const DefaultMaxStreams = 256

// New builds an Env; Clusters is required.
func New(cfg Config) (*Env, error) {
	if cfg.Clusters == nil {
		return nil, errors.New("page: Clusters is required")
	}
	e := &Env{
		Clusters: cfg.Clusters,
		Log:      cfg.Log,
		Timeout:  cfg.Timeout,
		assets:   cfg.Assets,
		sockets:  cfg.WebSockets,
		origins:  cfg.Origins,
		access:   cfg.Access,
	}
	if e.Log == nil {
		e.Log = slog.New(slog.DiscardHandler)
	}
	if e.Timeout <= 0 {
		e.Timeout = 30 * time.Second
	}
	if e.sockets == nil {
		e.sockets = nopGauge{}
	}
	if e.access == nil {
		e.access = noAccess{}
	}
	n := cfg.MaxStreams
	if n <= 0 {
		n = DefaultMaxStreams
	}
	e.streams = make(chan struct{}, n)
	return e, nil
}

type nopGauge struct{}

func (nopGauge) Inc() {}
func (nopGauge) Dec() {}

const ctxKeyContextName = "tabula.context"

// RequireContext resolves the {context} route parameter or fails with 404,
// and remembers it for Client and ContextName, and the request's AccessKey
// for the builders of its page.
func (e *Env) RequireContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := PathParam(c, "context")
		if _, err := e.Clusters.Context(name); err != nil {
			return err
		}
		c.Set(ctxKeyContextName, name)
		withAccessKey(c)
		return next(c)
	}
}

// ContextName is the context a request under /c/{context} addresses.
func ContextName(c echo.Context) string {
	name, _ := c.Get(ctxKeyContextName).(string)
	return name
}

// Client builds the upstream client for this request's identity and context.
func (e *Env) Client(c echo.Context) (*apiclient.Client, error) {
	return e.Clusters.Client(ContextName(c), IdentityOf(c))
}

// Bounded gives a handler's upstream calls the page deadline. Every route
// is bounded except the real streaming handlers, which the route table
// names; nothing a request sends can lift it.
func (e *Env) Bounded(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), e.Timeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// WithDeadline bounds the setup of a stream (the calls before the first
// byte) as a page is bounded.
func (e *Env) WithDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.Timeout)
}

// streamOptions are the WebSocket options of a stream; input says whether
// the endpoint reads what the browser sends.
func (e *Env) streamOptions(input bool) streaming.Options {
	return streaming.Options{Origins: e.origins, NoInput: !input}
}
