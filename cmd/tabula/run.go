package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
)

func run(ctx context.Context, cfg config, logOut io.Writer) error {
	log := newLogger(cfg, logOut)
	if os.Getenv("GOGC") == "" {
		// The console's heap is small (tens of MB) and every page allocates
		// its Table and HTML afresh; collecting at 4× the live heap rather
		// than 2× halves GC work per page for a few MB. GOGC still wins.
		debug.SetGCPercent(400)
	}
	metrics := web.NewMetrics()
	clusters, err := apiclient.Load(apiclient.LoadOptions{
		Kubeconfig: cfg.Kubeconfig,
		Context:    cfg.Context,
		Observer:   metrics,
		UserAgent:  "tabula",
	})
	if err != nil {
		return err
	}
	for _, c := range clusters.Contexts() {
		log.Info("context", "name", c.Name, "cluster", c.Cluster, "server", c.Server, "current", c.Name == clusters.Current())
	}
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: metrics, Static: static.FS, Log: log, RequestTimeout: cfg.RequestTimeout, AllowedHosts: cfg.AllowedHosts})
	if err != nil {
		return err
	}
	return srv.Serve(ctx, cfg.Listen, func(addr string) {
		log.Info("serving", "url", "http://"+addr+"/")
	})
}

func newLogger(cfg config, out io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(out, opts))
	}
	return slog.New(slog.NewTextHandler(out, opts))
}
