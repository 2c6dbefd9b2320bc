// Package web is Tabula's HTTP layer: the echo server, its middleware, routes
// and handlers. Handlers parse the request, call apiclient, build a typed view
// model and render a views component.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
)

// Clusters is what the web layer needs from apiclient: the known contexts and
// a client per request identity.
type Clusters interface {
	Current() string
	Contexts() []apiclient.Context
	Context(name string) (apiclient.Context, error)
	Client(context string, id apiclient.Identity) (*apiclient.Client, error)
}

// Deps are the collaborators a Server is wired with.
type Deps struct {
	Clusters Clusters
	Metrics  *Metrics
	Static   fs.FS
	Log      *slog.Logger
	// RequestTimeout bounds the upstream work of one page (default 30 s),
	// so a hung API server gives a 504 page rather than a hung tab.
	RequestTimeout time.Duration
	// AllowedHosts are the host names, besides IP addresses, localhost and
	// in-cluster Service names, that requests may address.
	AllowedHosts []string
}

// Server is the console's HTTP application.
type Server struct {
	clusters Clusters
	metrics  *Metrics
	assets   *assets
	log      *slog.Logger
	echo     *echo.Echo
	nsCache  *namespaceCache
	pages    sync.Pool
	timeout  time.Duration
	hosts    []string
	// watches shares upstream list watches among live pages.
	watches   *watchHub
	wsOptions streaming.Options
}

// New builds the server and its routes.
func New(d Deps) (*Server, error) {
	if d.Clusters == nil || d.Metrics == nil || d.Static == nil {
		return nil, errors.New("web: Clusters, Metrics and Static are required")
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a, err := newAssets(d.Static)
	if err != nil {
		return nil, err
	}
	s := &Server{clusters: d.Clusters, metrics: d.Metrics, assets: a, log: log, nsCache: newNamespaceCache()}
	s.pages.New = func() any { return new(bytes.Buffer) }
	s.timeout = d.RequestTimeout
	s.hosts = d.AllowedHosts
	if s.timeout <= 0 {
		s.timeout = 30 * time.Second
	}
	s.watches = newWatchHub(log)
	s.metrics.upstreamWatches(func() float64 { return float64(s.watches.Upstreams()) })
	s.echo = s.routes()
	return s, nil
}

// Handler is the server's root http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	// Logging and metrics wrap panic recovery, so a recovered panic is still
	// logged and counted with the status of the error page it became.
	e.Use(requestLog(s.log), s.metrics.middleware, recoverPanics(s.log), securityHeaders, hostCheck(s.hosts))

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(s.metrics.Handler()))
	e.GET(assetPrefix+"*", s.assets.handle)

	e.GET("/", s.root)
	c := e.Group("/c/:context", s.withTimeout, s.requireContext)
	c.GET("", s.contextRoot)
	c.GET("/", s.home)
	c.GET("/jump", s.jump)
	c.GET("/namespace", s.namespace)
	c.GET("/logs/:namespace", s.selectorLogs)
	c.GET("/api/*", s.resource)
	c.GET("/apis/*", s.resource)
	return e
}

// Serve listens on addr until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, addr string, ready func(addr string)) error {
	srv := &http.Server{
		Addr:              addr,
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down HTTP server: %w", err)
	}
	return nil
}

// withTimeout gives a page's upstream calls one deadline. Streams (live
// pages, log downloads) last as long as the browser wants them.
func (s *Server) withTimeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if streaming.IsUpgrade(c.Request()) || c.QueryParam("download") == "1" {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.timeout)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}
