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
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/compress"
	"github.com/tabula-console/tabula/web/seal"
)

// Clusters is what the console needs from apiclient: the known contexts and
// a client per request identity.
type Clusters interface {
	Current() string
	Contexts() []apiclient.Context
	Context(name string) (apiclient.Context, error)
	Client(context string, id apiclient.Identity) (*apiclient.Client, error)
	// IdentityKey keys per-identity caches: a keyed hash of the whole
	// identity, never logged.
	IdentityKey(id apiclient.Identity) string
}

// Config is what Env is built from.
type Config struct {
	Clusters Clusters
	Log      *slog.Logger
	// Timeout bounds the upstream work of one page.
	Timeout time.Duration
	// Assets are the fingerprinted URLs every page links.
	Assets views.Assets
	// Origins are the browser origins (scheme://host[:port]) allowed to open
	// WebSockets; empty means the origin the request itself was made to.
	Origins []string
	// MaxStreams caps the upstream streams (log follows and downloads, live
	// pages' watches) the console keeps open at once, across all users.
	MaxStreams int
	// MaxStreamsPerUser caps those one identity may hold (default
	// DefaultMaxStreamsPerUser; negative: no cap but MaxStreams).
	MaxStreamsPerUser int
	// Mode is the console's sign-in mode (a Mode* constant; "" is
	// ModeKubeconfig). In the others, a request that comes without a
	// signed-in identity is refused rather than served as the console.
	Mode string
	// Access answers what each user may do, for pages to disable what the
	// server would refuse; nil offers everything and lets the server decide.
	Access Access
	// DisableCompression sends every response as it is, whatever the
	// browser accepts.
	DisableCompression bool
	// Keys are the session keys (web/auth's), which seal the flash
	// cookie so every replica reads another's.
	Keys [][]byte
}

// Env is the shared state of one console: features hold a pointer to it.
type Env struct {
	Clusters Clusters
	Log      *slog.Logger
	Timeout  time.Duration

	assets views.Assets
	pages  bufferPool
	// compressor encodes finished bodies (Blob); nil when disabled.
	compressor *compress.Compressor
	sockets    atomic.Int64 // browser WebSockets open
	origins    []string
	mode       string
	streams    chan struct{}
	access     Access
	flashes    *seal.Codec

	userMu      sync.Mutex     // guards userStreams
	userStreams map[string]int // slots held, by identity key
	perUser     int            // 0: no per-identity cap
	// shared is the key of the console's own identity, which every
	// visitor in kubeconfig mode acts as: one identity there is everyone,
	// so only the console's cap applies to it.
	shared string
	// refusedUser and refusedConsole count streams refused a slot.
	refusedUser, refusedConsole atomic.Uint64
}

// DefaultMaxStreams is the default of Config.MaxStreams.
const DefaultMaxStreams = 256

// DefaultMaxStreamsPerUser is the default of Config.MaxStreamsPerUser: a
// merged log of 20 containers and a dozen live pages.
const DefaultMaxStreamsPerUser = 32

// New builds an Env; Clusters and Keys are required.
func New(cfg Config) (*Env, error) {
	if cfg.Clusters == nil || len(cfg.Keys) == 0 {
		return nil, errors.New("page: Clusters and Keys are required")
	}
	e := &Env{
		Clusters: cfg.Clusters,
		Log:      cfg.Log,
		Timeout:  cfg.Timeout,
		assets:   cfg.Assets,
		origins:  cfg.Origins,
		mode:     cfg.Mode,
		access:   cfg.Access,
	}
	if e.mode == "" {
		e.mode = ModeKubeconfig
	}
	if !cfg.DisableCompression {
		e.compressor = compress.New()
	}
	var err error
	if e.flashes, err = seal.New(cfg.Keys); err != nil {
		return nil, err
	}
	if e.Log == nil {
		e.Log = slog.New(slog.DiscardHandler)
	}
	if e.Timeout <= 0 {
		e.Timeout = 30 * time.Second
	}
	if e.access == nil {
		e.access = noAccess{}
	}
	n := cfg.MaxStreams
	if n <= 0 {
		n = DefaultMaxStreams
	}
	e.streams = make(chan struct{}, n)
	e.userStreams = map[string]int{}
	e.shared = e.Clusters.IdentityKey(apiclient.Identity{})
	switch {
	case cfg.MaxStreamsPerUser == 0:
		e.perUser = DefaultMaxStreamsPerUser
	case cfg.MaxStreamsPerUser > 0:
		e.perUser = cfg.MaxStreamsPerUser
	}
	return e, nil
}

type contextNameKey struct{}

// RequireContext resolves the {context} route parameter or fails with 404,
// and remembers it in the request's context, for Client, ContextName and
// URLsOf.
func (e *Env) RequireContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := PathParam(c, "context")
		if _, err := e.Clusters.Context(name); err != nil {
			return err
		}
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), contextNameKey{}, name)))
		return next(c)
	}
}

// contextNameOf is the context a request under /c/{context} addresses.
func contextNameOf(c echo.Context) string { return URLsOf(c.Request().Context()).ContextName() }

// Client builds the upstream client for this request's identity and context.
// In a sign-in mode a request without a signed-in identity fails closed
// (401): the zero Identity is the console's own credentials, which must
// never stand in for a user.
func (e *Env) Client(c echo.Context) (*apiclient.Client, error) {
	id := identityOf(c)
	if e.mode != ModeKubeconfig && id.BearerToken == "" && id.Impersonate.UserName == "" {
		return nil, echo.NewHTTPError(http.StatusUnauthorized, "Sign in to use this console.")
	}
	return e.Clusters.Client(contextNameOf(c), id)
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
