// Package web is the console's composition root: the echo server, its
// middleware, the one route table and the few pages that belong to no
// feature (home, jump, health). Features live in web/list, web/object,
// web/logs, web/edit and web/access; what they share lives in web/page.
package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/access"
	"github.com/tabula-console/tabula/web/edit"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/logs"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/page"
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
	// MaxStreamsPerUser caps those one identity may hold (default
	// page.DefaultMaxStreamsPerUser).
	MaxStreamsPerUser int
	// Mode is the sign-in mode (page.Mode*; "" is kubeconfig). In a
	// sign-in mode no request acts with the kubeconfig's own credentials.
	Mode string
}

// Server is the console's HTTP application.
type Server struct {
	env     *page.Env
	metrics *Metrics
	assets  *assets
	log     *slog.Logger
	echo    *echo.Echo
	hosts   hostPolicy

	list   *list.Handler
	object *object.Handler
	logs   *logs.Handler
	edit   *edit.Handler
	// dispatch is what the /api/* and /apis/* routes lead to.
	dispatch resourceRoutes
}

// New builds the server and its routes.
func New(d Deps) (*Server, error) {
	if d.Clusters == nil || d.Metrics == nil || d.Static == nil {
		return nil, errors.New("web: Clusters, Metrics and Static are required")
	}
	a, err := newAssets(d.Static)
	if err != nil {
		return nil, err
	}
	env, err := page.New(page.Config{
		Clusters:   d.Clusters,
		Log:        d.Log,
		Timeout:    d.RequestTimeout,
		Assets:     views.Assets{CSS: a.URL("app.css"), JS: a.URL("app.js"), Live: a.URL("live.js"), Editor: a.URL("editor.js"), ImportMap: a.ImportMap()},
		WebSockets: d.Metrics.WebSockets,
		Origins:    d.ExternalOrigins,
		MaxStreams: d.MaxStreams,
		Access:     access.New(access.Options{Log: d.Log}),
		// Per-user and sign-in settings.
		MaxStreamsPerUser: d.MaxStreamsPerUser,
		Mode:              d.Mode,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{
		env:     env,
		metrics: d.Metrics,
		assets:  a,
		log:     env.Log,
		hosts:   newHostPolicy(d.AllowedHosts, d.InCluster),
		list:    list.New(env),
		object:  object.New(env),
		logs:    logs.New(env),
		edit:    edit.New(env),
	}
	s.metrics.upstreamWatches(func() float64 { return float64(s.list.Upstreams()) })
	s.dispatch = s.resourceRoutes()
	s.echo = s.routes()
	return s, nil
}

// Handler is the server's root http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve listens on addr until ctx ends, then shuts down gracefully.
func (s *Server) Serve(ctx context.Context, addr string, ready func(addr string)) error {
	srv := &http.Server{
		Addr:              addr,
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	defer s.list.Close()
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
