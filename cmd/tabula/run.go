package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
)

func run(ctx context.Context, cfg config, logOut io.Writer) error {
	log := newLogger(cfg, logOut)
	routeClientGoLogs(log)
	if os.Getenv("GOGC") == "" {
		// The console's heap is small (tens of MB) and every page allocates
		// its Table and HTML afresh; collecting at 4× the live heap rather
		// than 2× halves GC work per page for a few MB. GOGC still wins.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" && cfg.MemoryLimit > 0 {
		// The limit bounds what GOGC=400 would let a burst of large pages
		// grow the heap to; below it, pages pay no extra collections.
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	metrics := web.NewMetrics()
	clusters, err := apiclient.Load(apiclient.LoadOptions{
		Kubeconfig: cfg.Kubeconfig,
		Context:    cfg.Context,
		// In a pod: the service account's files, read as client-go does.
		ServiceAccountDir: cfg.ServiceAccountDir,
		// Users who sign in are offered the clusters the console is
		// configured for, not the operator's whole kubeconfig.
		Contexts:    cfg.Contexts,
		OnlyCurrent: cfg.signIn(),
		Observer:    metrics,
		UserAgent:   "tabula",
		Log:         log,
		// Writes are recorded under it in managedFields.
		FieldManager: cfg.FieldManager,
	})
	if err != nil {
		return err
	}
	for _, c := range clusters.Contexts() {
		log.Info("context", "name", c.Name, "cluster", c.Cluster, "server", c.Server, "current", c.Name == clusters.Current())
		switch {
		case c.CredentialsDropped:
			log.Warn("context's server is plain HTTP: its kubeconfig credentials are not sent, so its requests are anonymous",
				"name", c.Name, "server", c.Server, "user", c.User)
		case c.PlainHTTP:
			log.Warn("context's server is plain HTTP: requests are not encrypted", "name", c.Name, "server", c.Server)
		}
	}
	si := cfg.SignIn
	keys, err := si.sessionKeys(os.ReadFile)
	if err != nil {
		return err
	}
	stateNS := si.stateNamespace(clusters.Current(), cfg.ServiceAccountDir, os.ReadFile)
	if si.Mode != web.ModeKubeconfig {
		if stateNS != "" {
			log.Info("replicas share logouts and token refreshes", "secret", stateNS+"/"+si.StateSecret)
		} else {
			log.Info("logouts and token refreshes are known to this console only: replicas do not share them (--session-state-namespace)")
		}
	}
	if si.SecretOnCommandLine {
		log.Warn("--oidc-client-secret was given as a flag, which every user of this machine can read in the process list; prefer TABULA_OIDC_CLIENT_SECRET")
	}
	deps := web.Deps{
		Clusters:       clusters,
		Metrics:        metrics,
		Static:         static.FS,
		Log:            log,
		RequestTimeout: cfg.RequestTimeout,
		AllowedHosts:   cfg.AllowedHosts,
		InCluster:      cfg.InCluster,
		MaxStreams:     cfg.MaxStreams,
		Auth: web.AuthConfig{
			Mode: si.Mode, OIDC: si.OIDC, Keys: keys,
			IdleTimeout: si.IdleTimeout, MaxAge: si.MaxAge, ExternalURL: cfg.ExternalURL,
			TrustedProxies: cfg.TrustedProxies, ProxyHeader: cfg.ProxyHeader,
			StateNamespace: stateNS, StateSecret: si.StateSecret,
		},
		BasePath:      cfg.BasePath,
		MetricsListen: cfg.MetricsListen,
		// Per-user limits and the sign-in mode.
		MaxStreamsPerUser: cfg.MaxStreamsPerUser,
		ReleaseIdleMemory: cfg.ReleaseIdleMemory,
		Terminal:          web.TerminalConfig{IdleTimeout: terminalIdle(cfg.TerminalIdleTimeout), MaxPerUser: cfg.MaxTerminalsPerUser},
		// Compression toward the browser.
		DisableCompression: !cfg.Compress,
	}
	if origin := cfg.ExternalOrigin(); origin != "" {
		deps.ExternalOrigins = []string{origin}
	}
	srv, err := web.New(deps)
	if err != nil {
		return err
	}
	log.Info("sign-in", "mode", si.Mode)
	if si.Mode == web.ModeOIDC {
		log.Info("OIDC", "issuer", si.OIDC.IssuerURL, "clientID", si.OIDC.ClientID, "identity", si.OIDC.Identity, "scopes", si.OIDC.Scopes)
		discoverCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := srv.DiscoverSignIn(discoverCtx); err != nil {
			log.Warn("the OIDC provider could not be reached; sign-in will try again", "error", err)
		}
		cancel()
	}
	syncCtx, stopSync := context.WithCancel(ctx)
	synced := make(chan struct{})
	go func() {
		defer close(synced)
		srv.SyncSessions(syncCtx)
	}()
	// The shared session state's watch ends with the server, before run
	// returns.
	defer func() { stopSync(); <-synced }()
	return srv.Serve(ctx, web.Listen{Addr: cfg.Listen, CertFile: cfg.TLSCert, KeyFile: cfg.TLSKey}, func(s web.Serving) {
		log.Info("serving", "url", s.URL)
		if s.MetricsURL != "" {
			log.Info("serving metrics", "url", s.MetricsURL)
		}
	})
}

func newLogger(cfg config, out io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(out, opts))
	}
	return slog.New(slog.NewTextHandler(out, opts))
}

// routeClientGoLogs sends what client-go logs to log. client-go logs
// through klog, in klog's own format on stderr, so --log-format json would
// not give only JSON otherwise. Its default warning handler also logs
// through klog: apiclient's clients hand warnings to the page or to
// LoadOptions.Log, and this covers any other client-go request.
func routeClientGoLogs(log *slog.Logger) {
	klog.SetSlogLogger(log.With("component", "client-go"))
	rest.SetDefaultWarningHandlerWithContext(slogWarnings{log: log})
}

// slogWarnings logs API server warnings (code 299) at Warn level.
type slogWarnings struct{ log *slog.Logger }

func (w slogWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	if code != 299 || text == "" {
		return
	}
	w.log.LogAttrs(ctx, slog.LevelWarn, "API server warning", slog.String("agent", agent), slog.String("warning", text))
}

// terminalIdle maps the flag's 0 (never) to web/exec's negative.
func terminalIdle(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
