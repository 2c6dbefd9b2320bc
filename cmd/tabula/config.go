package main

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web"
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
	// BasePath is the path prefix every console URL carries ("" or
	// "/tabula"), for an ingress that forwards a prefix unchanged.
	BasePath string
	// TLSCert and TLSKey, both or neither, serve HTTPS from PEM files.
	TLSCert, TLSKey string
	// MetricsListen, when set, is the only address /metrics is served on.
	MetricsListen string
	// ServiceAccountDir holds the in-cluster token and ca.crt ("" is the
	// pod's standard path).
	ServiceAccountDir string
	// MaxStreamsPerUser caps those one identity may hold.
	MaxStreamsPerUser int
	// TerminalIdleTimeout ends a terminal without keystrokes (0: never);
	// MaxTerminalsPerUser caps one identity's open terminals.
	TerminalIdleTimeout time.Duration
	MaxTerminalsPerUser int
	// MemoryLimit is the Go runtime's soft memory limit in bytes (0: none).
	MemoryLimit int64
	// ReleaseIdleMemory returns spare heap memory this long after the last
	// page (negative: never).
	ReleaseIdleMemory time.Duration
	// Contexts are the kubeconfig contexts offered; nil means the default
	// of the mode (see offeredContexts).
	Contexts []string
	// ShareKubeconfigIdentity allows a non-loopback Listen in kubeconfig
	// mode, where everyone who reaches the console acts as its user.
	ShareKubeconfigIdentity bool
	// Compress sends pages and assets brotli- or gzip-compressed to
	// browsers that accept it.
	Compress bool
	// FieldManager names the console's writes in managedFields.
	FieldManager string
	// TrustedProxies are the proxies whose ProxyHeader names the client
	// (for the sign-in rate limit).
	TrustedProxies []netip.Prefix
	ProxyHeader    string
	// SignIn is how users sign in (web/auth).
	SignIn signInConfig
}

// signInConfig is the sign-in part of the configuration.
type signInConfig struct {
	// Mode is kubeconfig, oidc or token.
	Mode string
	OIDC web.OIDCConfig
	// SecretOnCommandLine says --oidc-client-secret was a flag, which
	// every user of the machine can read in the process list.
	SecretOnCommandLine bool
	// SessionKeyFile holds base64 session keys; SessionKey is the value of
	// TABULA_SESSION_KEY (base64 keys themselves). The file wins.
	SessionKeyFile string
	SessionKey     string
	IdleTimeout    time.Duration
	MaxAge         time.Duration
	// StateNamespace and StateSecret name the Secret replicas share
	// logouts and refreshes through ("" namespace: the pod's own, in a
	// pod; "-": none).
	StateNamespace string
	StateSecret    string
}

// signIn says whether users sign in (every mode but kubeconfig).
func (c config) signIn() bool { return c.SignIn.Mode != web.ModeKubeconfig }

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
	fs.IntVar(&cfg.MaxStreams, "max-streams", 256, "most upstream streams (log follows, live pages) open at once, across all users")
	si, oidc := &cfg.SignIn, &cfg.SignIn.OIDC
	fs.StringVar(&si.Mode, "auth", "kubeconfig", "how users sign in: kubeconfig (everyone acts as the kubeconfig's user), oidc or token (paste a bearer token)")
	fs.StringVar(&oidc.IssuerURL, "oidc-issuer-url", "", "OIDC provider's issuer URL (--auth oidc)")
	fs.StringVar(&oidc.ClientID, "oidc-client-id", "", "OIDC client ID; ID tokens must name it as audience")
	fs.StringVar(&oidc.ClientSecret, "oidc-client-secret", "", "OIDC client secret (prefer TABULA_OIDC_CLIENT_SECRET: flags show in the process list)")
	fs.StringVar(&oidc.CAFile, "oidc-ca-file", "", "PEM file of CA certificates the provider's TLS is checked against, besides the system's")
	scopes := fs.String("oidc-scopes", "openid,email,profile,groups", "comma-separated OIDC scopes to ask for; openid is always first")
	oidcContexts := fs.String("oidc-contexts", "", "comma-separated contexts whose API servers accept the provider's ID tokens (--oidc-identity passthrough): the ID token is sent to these only, other contexts' pages are refused (default: the --context one)")
	offlineAccess := fs.Bool("oidc-offline-access", true, "also ask for the offline_access scope when the provider lists it (discovery's scopes_supported): Dex and zitadel give refresh tokens only for it")
	fs.StringVar(&oidc.UsernameClaim, "oidc-username-claim", "email", "ID token claim naming the user")
	fs.StringVar(&oidc.GroupsClaim, "oidc-groups-claim", "groups", "ID token claim listing the user's groups")
	fs.StringVar(&oidc.Identity, "oidc-identity", web.OIDCPassthrough, "how an OIDC user acts toward the API server: passthrough (their ID token is the bearer token) or impersonate (the console's own credentials with Impersonate-User/-Group)")
	fs.StringVar(&oidc.UsernamePrefix, "oidc-username-prefix", web.DefaultImpersonationPrefix, "put before the user name when impersonating (match the API server's --oidc-username-prefix); - for none")
	fs.StringVar(&oidc.GroupsPrefix, "oidc-groups-prefix", web.DefaultImpersonationPrefix, "put before each group when impersonating (match the API server's --oidc-groups-prefix); - for none")
	fs.StringVar(&si.SessionKeyFile, "session-key-file", "", "file holding the base64 session key (32 bytes or more; more keys, one a line, are still accepted: rotation); replicas must share it. Also TABULA_SESSION_KEY, the key itself")
	fs.StringVar(&si.StateNamespace, "session-state-namespace", "", "namespace of the Secret (--session-state-secret) through which replicas share logouts and token refreshes (default: in a pod, the pod's own namespace; elsewhere none, and each console keeps them to itself); - for none")
	fs.StringVar(&si.StateSecret, "session-state-secret", web.DefaultStateSecret, "name of that Secret, which must exist (deploy/session-state.yaml)")
	fs.DurationVar(&si.IdleTimeout, "session-idle-timeout", time.Hour, "sign out a session unused for this long")
	fs.DurationVar(&si.MaxAge, "session-max-age", 12*time.Hour, "sign out a session this long after it signed in")
	fs.StringVar(&cfg.BasePath, "base-path", "", "path prefix of every console URL, e.g. /tabula, for an ingress that forwards the prefix unchanged")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate (chain) file: serve HTTPS (with --tls-key); re-read when it changes")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key file of --tls-cert")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", "", "address to serve /metrics on, alone; when set, the console's own address does not serve it")
	fs.StringVar(&cfg.ServiceAccountDir, "service-account-dir", "", "directory of the in-cluster service account's token and ca.crt (default "+apiclient.DefaultServiceAccountDir+")")
	fs.IntVar(&cfg.MaxStreamsPerUser, "max-streams-per-user", 32, "most upstream log streams and live pages one identity may hold open at once")
	fs.DurationVar(&cfg.TerminalIdleTimeout, "terminal-idle-timeout", 30*time.Minute, "end a terminal (and its process) after this long without a keystroke; 0 never does")
	fs.IntVar(&cfg.MaxTerminalsPerUser, "max-terminals-per-user", 8, "most terminals (exec and attach sessions) one identity may hold open at once")
	memoryLimit := fs.String("memory-limit", defaultMemoryLimit, "soft limit of the Go runtime's memory, as a quantity (48Mi, 1Gi); the collector works harder near it, so keep it well above the live heap (an idle console holds about 10Mi). 0 for none. GOMEMLIMIT, when set, wins")
	fs.DurationVar(&cfg.ReleaseIdleMemory, "release-idle-memory", web.DefaultReleaseIdleMemory, "return spare heap memory to the OS this long after the last page request; 0 never does")
	contexts := fs.String("contexts", "", "comma-separated kubeconfig contexts the console offers (default: in sign-in modes only the --context or current-context one, in kubeconfig mode all)")
	fs.BoolVar(&cfg.ShareKubeconfigIdentity, "share-kubeconfig-identity", false, "in kubeconfig mode, allow a --listen address other than loopback: everyone who reaches the console acts as the kubeconfig's user")
	trustedProxies := fs.String("trusted-proxies", "", "comma-separated CIDRs (or addresses) of the proxies in front of the console, such as the Ingress controller's pods: only their --trusted-proxy-header is believed to name the client, for the sign-in rate limit")
	fs.StringVar(&cfg.ProxyHeader, "trusted-proxy-header", web.HeaderXForwardedFor, "the header the trusted proxies name the client in: "+web.HeaderXForwardedFor+" or "+web.HeaderForwarded+" (RFC 7239)")
	fs.BoolVar(&cfg.Compress, "compress", true, "compress pages and static assets (brotli or gzip) for browsers that accept it; false sends them as they are")
	fs.StringVar(&cfg.FieldManager, "field-manager", apiclient.DefaultFieldManager, "the field manager the console's writes are recorded under in managedFields (the YAML view's owners show it); which user wrote is in the API server's audit log and the console's write log")

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
	fs.Visit(func(f *flag.Flag) { si.SecretOnCommandLine = si.SecretOnCommandLine || f.Name == "oidc-client-secret" })
	si.SessionKey = getenv("TABULA_SESSION_KEY")
	for _, sc := range strings.Split(*scopes, ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			oidc.Scopes = append(oidc.Scopes, sc)
		}
	}
	oidc.NoOfflineAccess = !*offlineAccess
	for _, name := range strings.Split(*oidcContexts, ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(oidc.Contexts, name) {
			oidc.Contexts = append(oidc.Contexts, name)
		}
	}
	if err := si.validate(); err != nil {
		return config{}, err
	}
	if err := apiclient.ValidFieldManager(cfg.FieldManager); err != nil {
		return config{}, fmt.Errorf("--field-manager: %w", err)
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
			return config{}, fmt.Errorf("--external-url: want an http or https URL of the console's root, such as https://tabula.example.com (a path prefix goes in --base-path), got %q", cfg.ExternalURL)
		}
		cfg.AllowedHosts = append(cfg.AllowedHosts, u.Hostname())
	}
	base, err := basePath(cfg.BasePath)
	if err != nil {
		return config{}, err
	}
	cfg.BasePath = base
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return config{}, errors.New("--tls-cert and --tls-key go together: give both to serve HTTPS, or neither")
	}
	if cfg.MetricsListen != "" && cfg.MetricsListen == cfg.Listen {
		return config{}, fmt.Errorf("--metrics-listen: %s is the console's own --listen address; name another, or leave it empty to serve /metrics there", cfg.MetricsListen)
	}
	if cfg.MaxStreams < 1 {
		return config{}, fmt.Errorf("--max-streams: want at least 1, got %d", cfg.MaxStreams)
	}
	if cfg.MaxStreamsPerUser < 1 {
		return config{}, fmt.Errorf("--max-streams-per-user: want at least 1, got %d", cfg.MaxStreamsPerUser)
	}
	if cfg.MaxTerminalsPerUser < 1 {
		return config{}, fmt.Errorf("--max-terminals-per-user: want at least 1, got %d", cfg.MaxTerminalsPerUser)
	}
	if cfg.TerminalIdleTimeout < 0 {
		return config{}, fmt.Errorf("--terminal-idle-timeout: want 0 (never) or more, got %v", cfg.TerminalIdleTimeout)
	}
	if cfg.MemoryLimit, err = parseMemoryLimit(*memoryLimit); err != nil {
		return config{}, err
	}
	if cfg.ReleaseIdleMemory < 0 {
		return config{}, fmt.Errorf("--release-idle-memory: want 0 (never) or more, got %v", cfg.ReleaseIdleMemory)
	}
	if cfg.ReleaseIdleMemory == 0 {
		cfg.ReleaseIdleMemory = -1
	}
	if cfg.TrustedProxies, err = parsePrefixes(*trustedProxies); err != nil {
		return config{}, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if !strings.EqualFold(cfg.ProxyHeader, web.HeaderXForwardedFor) && !strings.EqualFold(cfg.ProxyHeader, web.HeaderForwarded) {
		return config{}, fmt.Errorf("--trusted-proxy-header: want %s or %s, got %q", web.HeaderXForwardedFor, web.HeaderForwarded, cfg.ProxyHeader)
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

// basePath validates and normalises --base-path: "" or "/a/b", without a
// trailing slash. Segments are limited to characters that need no escaping,
// so the prefix is the same in a path, an escaped path and a URL.
func basePath(p string) (string, error) {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return "", nil
	}
	bad := fmt.Errorf("--base-path: want a path such as /tabula (letters, digits, '-', '_', '.', '~' between slashes), got %q", p)
	if !strings.HasPrefix(p, "/") {
		return "", bad
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", bad
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.~", r)) {
				return "", bad
			}
		}
	}
	return p, nil
}

// parsePrefixes reads comma-separated CIDRs; a bare address is its own
// /32 or /128.
func parsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("want CIDRs such as 10.0.0.0/8 or addresses, got %q", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
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

func (si signInConfig) validate() error {
	switch si.Mode {
	case web.ModeKubeconfig, web.ModeToken:
	case web.ModeOIDC:
		o := si.OIDC
		u, err := url.Parse(o.IssuerURL)
		switch {
		case o.IssuerURL == "":
			return errors.New("--auth oidc needs --oidc-issuer-url")
		case err != nil || u.Host == "" || u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
			return fmt.Errorf("--oidc-issuer-url: want an https URL (http only on loopback), got %q", o.IssuerURL)
		case o.ClientID == "":
			return errors.New("--auth oidc needs --oidc-client-id")
		case o.Identity != web.OIDCPassthrough && o.Identity != web.OIDCImpersonate:
			return fmt.Errorf("--oidc-identity: want %s or %s, got %q", web.OIDCPassthrough, web.OIDCImpersonate, o.Identity)
		case o.UsernameClaim == "" || o.GroupsClaim == "":
			return errors.New("--oidc-username-claim and --oidc-groups-claim may not be empty")
		case strings.HasPrefix(o.UsernamePrefix, "system:") || strings.HasPrefix(o.GroupsPrefix, "system:"):
			return errors.New("--oidc-username-prefix and --oidc-groups-prefix may not begin with system:, which names Kubernetes' own users and groups")
		}
	default:
		return fmt.Errorf("--auth: want kubeconfig, oidc or token, got %q", si.Mode)
	}
	if si.IdleTimeout <= 0 || si.MaxAge <= 0 {
		return errors.New("--session-idle-timeout and --session-max-age must be positive")
	}
	if si.SessionKey != "" {
		if _, err := parseSessionKeys(si.SessionKey); err != nil {
			return fmt.Errorf("TABULA_SESSION_KEY: %w", err)
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// stateNamespace is where the replicas' shared session state lives: the
// flag's namespace, else, for a console running in a pod with its service
// account (current is the in-cluster context), the pod's own namespace as
// the service account's files say; "" shares nothing.
func (si signInConfig) stateNamespace(current, serviceAccountDir string, readFile func(string) ([]byte, error)) string {
	switch {
	case si.Mode == web.ModeKubeconfig || si.StateNamespace == "-":
		return ""
	case si.StateNamespace != "":
		return si.StateNamespace
	case current != apiclient.InClusterContext:
		return ""
	}
	if serviceAccountDir == "" {
		serviceAccountDir = apiclient.DefaultServiceAccountDir
	}
	b, err := readFile(filepath.Join(serviceAccountDir, "namespace"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// sessionKeys are the session keys: from --session-key-file, else from
// TABULA_SESSION_KEY; none means a random one (web/auth warns).
func (si signInConfig) sessionKeys(readFile func(string) ([]byte, error)) ([][]byte, error) {
	if si.SessionKeyFile != "" {
		b, err := readFile(si.SessionKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--session-key-file: %w", err)
		}
		keys, err := parseSessionKeys(string(b))
		if err != nil {
			return nil, fmt.Errorf("--session-key-file %s: %w", si.SessionKeyFile, err)
		}
		return keys, nil
	}
	if si.SessionKey != "" {
		return parseSessionKeys(si.SessionKey)
	}
	return nil, nil
}

// parseSessionKeys reads base64 keys separated by white space or commas;
// the first seals, every one opens.
func parseSessionKeys(text string) ([][]byte, error) {
	var keys [][]byte
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		k, err := base64.StdEncoding.DecodeString(f)
		if err != nil {
			if k, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(f, "=")); err != nil {
				return nil, fmt.Errorf("key %d is not base64", len(keys)+1)
			}
		}
		if len(k) < web.MinSessionKeyBytes {
			return nil, fmt.Errorf("key %d has %d bytes, want at least %d (openssl rand -base64 32)", len(keys)+1, len(k), web.MinSessionKeyBytes)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key in it")
	}
	return keys, nil
}

// defaultMemoryLimit keeps a console that served 5,000-row pages within
// 64 MiB of resident memory (the binary's own pages take about 20 MiB).
const defaultMemoryLimit = "40Mi"

// parseMemoryLimit reads --memory-limit: a Kubernetes quantity of bytes.
func parseMemoryLimit(s string) (int64, error) {
	q, err := resource.ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("--memory-limit: want a quantity of bytes such as 48Mi or 1Gi, or 0, got %q", s)
	}
	n, ok := q.AsInt64()
	if !ok || n < 0 {
		return 0, fmt.Errorf("--memory-limit: want a quantity of bytes such as 48Mi or 1Gi, or 0, got %q", s)
	}
	return n, nil
}
