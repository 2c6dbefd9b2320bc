package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// config is everything the console is started with. Every flag can also be
// set through a TABULA_* environment variable; a flag wins over the variable.
type config struct {
	Kubeconfig string
	Context    string
	Listen     string
	LogLevel   slog.Level
	LogFormat  string
	// RequestTimeout bounds the upstream work of one page.
	RequestTimeout time.Duration
	// AllowedHosts are extra host names requests may address.
	AllowedHosts []string
	// ExternalURL is how browsers reach the console (behind a proxy, say):
	// its scheme, host and port are the only origin live streams accept,
	// and its host is allowed.
	ExternalURL string
	// InCluster is set when the console runs in a pod: only then are
	// in-cluster Service names trusted as hosts.
	InCluster bool
	// MaxStreams caps concurrent upstream log streams.
	MaxStreams int
	// MaxStreamsPerUser caps those one identity may hold.
	MaxStreamsPerUser int
	// Auth is the sign-in mode: kubeconfig, oidc or token.
	Auth string
	// Contexts are the kubeconfig contexts offered; nil means the default
	// of the mode (see offeredContexts).
	Contexts []string
	// ShareKubeconfigIdentity allows a non-loopback Listen in kubeconfig
	// mode, where everyone who reaches the console acts as its user.
	ShareKubeconfigIdentity bool
}

// signIn says whether users sign in (every mode but kubeconfig).
func (c config) signIn() bool { return c.Auth != authKubeconfig }

// Sign-in modes (--auth).
const (
	authKubeconfig = "kubeconfig"
	authOIDC       = "oidc"
	authToken      = "token"
)

// ExternalOrigin is the browser origin of ExternalURL, or "".
func (c config) ExternalOrigin() string {
	if c.ExternalURL == "" {
		return ""
	}
	u, _ := url.Parse(c.ExternalURL) // validated by parseConfig
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

func parseConfig(args []string, getenv func(string) string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("tabula", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig path (default $KUBECONFIG, then ~/.kube/config, then in-cluster config)")
	fs.StringVar(&cfg.Context, "context", "", "kubeconfig context that / opens (default: the current-context)")
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "address to serve HTTP on")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&cfg.LogFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 30*time.Second, "how long one page may wait for the API server")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated host names the console is reached by, besides IP addresses, localhost and, in a cluster, *.svc (guards against DNS rebinding)")
	fs.StringVar(&cfg.ExternalURL, "external-url", "", "the URL browsers reach the console at, e.g. https://tabula.example.com (pins the origin live streams accept; needed behind a TLS-terminating proxy)")
	fs.IntVar(&cfg.MaxStreams, "max-streams", 256, "most upstream log streams open at once, across all users")
	fs.IntVar(&cfg.MaxStreamsPerUser, "max-streams-per-user", 32, "most upstream log streams and live pages one identity may hold open at once")
	fs.StringVar(&cfg.Auth, "auth", authKubeconfig, "sign-in mode: kubeconfig (everyone acts as the kubeconfig's user), oidc or token")
	contexts := fs.String("contexts", "", "comma-separated kubeconfig contexts the console offers (default: in sign-in modes only the --context or current-context one, in kubeconfig mode all)")
	fs.BoolVar(&cfg.ShareKubeconfigIdentity, "share-kubeconfig-identity", false, "in kubeconfig mode, allow a --listen address other than loopback: everyone who reaches the console acts as the kubeconfig's user")

	// Environment first, so explicit flags override it.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "TABULA_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" {
			if err := f.Value.Set(v); err != nil {
				envErr = errors.Join(envErr, fmt.Errorf("%s: %w", name, err))
			}
		}
	})
	if envErr != nil {
		return config{}, envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, fmt.Errorf("usage:\n%s", usage(fs))
		}
		return config{}, fmt.Errorf("%w\nusage:\n%s", err, usage(fs))
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return config{}, fmt.Errorf("--log-level: %w", err)
	}
	for _, h := range strings.Split(*allowedHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.AllowedHosts = append(cfg.AllowedHosts, h)
		}
	}
	if cfg.ExternalURL != "" {
		u, err := url.Parse(cfg.ExternalURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return config{}, fmt.Errorf("--external-url: want an http or https URL of the console's root, such as https://tabula.example.com, got %q", cfg.ExternalURL)
		}
		cfg.AllowedHosts = append(cfg.AllowedHosts, u.Hostname())
	}
	if cfg.MaxStreams < 1 {
		return config{}, fmt.Errorf("--max-streams: want at least 1, got %d", cfg.MaxStreams)
	}
	if cfg.MaxStreamsPerUser < 1 {
		return config{}, fmt.Errorf("--max-streams-per-user: want at least 1, got %d", cfg.MaxStreamsPerUser)
	}
	switch cfg.Auth {
	case authKubeconfig, authOIDC, authToken:
	default:
		return config{}, fmt.Errorf("--auth: want kubeconfig, oidc or token, got %q", cfg.Auth)
	}
	for _, name := range strings.Split(*contexts, ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(cfg.Contexts, name) {
			cfg.Contexts = append(cfg.Contexts, name)
		}
	}
	if !cfg.signIn() && !cfg.ShareKubeconfigIdentity && !loopback(cfg.Listen) {
		return config{}, fmt.Errorf("--listen %s is not a loopback address, and in --auth=kubeconfig mode everyone who reaches the console acts as the kubeconfig's user: "+
			"listen on 127.0.0.1, sign users in with --auth=oidc or --auth=token, or pass --share-kubeconfig-identity to share that identity on purpose", cfg.Listen)
	}
	// Every pod has this variable; a laptop does not.
	cfg.InCluster = getenv("KUBERNETES_SERVICE_HOST") != ""
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return config{}, fmt.Errorf("--log-format: want text or json, got %q", cfg.LogFormat)
	}
	return cfg, nil
}

// loopback says whether a --listen address accepts only connections from
// this machine: an IP loopback address or localhost. An empty host (":8080")
// is every interface; another host name may resolve anywhere.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func usage(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}
