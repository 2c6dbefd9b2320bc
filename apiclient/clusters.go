// Package apiclient talks to API servers that follow the Kubernetes API
// conventions. It never shares one privileged client across users: every call
// goes through a Client built for one request's Identity.
package apiclient

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// InClusterContext is the context name used when Tabula runs inside a cluster
// without a kubeconfig.
const InClusterContext = "in-cluster"

// Context describes one reachable cluster context.
type Context struct {
	Name      string
	Cluster   string
	Server    string
	User      string
	Namespace string
	// PlainHTTP says the server's URL is http://: requests, and the
	// credentials and tokens they carry, travel unencrypted.
	PlainHTTP bool
	// CredentialsDropped says the context's kubeconfig user has credentials
	// (a token, a token file, basic auth, a client certificate, an exec or
	// auth provider) that are never sent because the server is plain HTTP:
	// client-go's clientcmd merges the user's credentials into the config
	// only when rest.IsConfigTransportTLS holds (tools/clientcmd
	// client_config.go, DirectClientConfig.ClientConfig), so the context's
	// requests are anonymous. A bearer token set through Identity would not
	// be dropped (client-go's round trippers send it over http:// too), so
	// Client refuses one with a PlainHTTPError.
	CredentialsDropped bool
}

// LoadOptions selects where cluster credentials come from.
type LoadOptions struct {
	// Kubeconfig is an explicit kubeconfig path. Empty means $KUBECONFIG, then
	// ~/.kube/config, then in-cluster config.
	Kubeconfig string
	// Context overrides the kubeconfig's current-context.
	Context string
	// Contexts, when set, are the only contexts loaded: the others are
	// neither offered nor reachable. Each must exist. The current context
	// (Context, else the kubeconfig's current-context) must be among them
	// when Context is set; otherwise it falls back to the first of them.
	Contexts []string
	// OnlyCurrent, when Contexts is empty, loads only the current context:
	// a console whose users sign in offers the cluster it is configured
	// for, not whatever else the operator's kubeconfig holds.
	OnlyCurrent bool
	// Observer, when set, sees every upstream API call.
	Observer Observer
	// UserAgent is sent with every upstream request.
	UserAgent string
	// FieldManager names every write in the objects' managedFields
	// (default DefaultFieldManager).
	FieldManager string
	// DiscoveryTTL is how long discovery is cached per context and identity
	// (default DefaultDiscoveryTTL).
	DiscoveryTTL time.Duration
	// ServiceAccountDir holds the in-cluster credentials, token and ca.crt,
	// used with KUBERNETES_SERVICE_HOST and _PORT when no kubeconfig is
	// found. Empty means DefaultServiceAccountDir, whose absence is not an
	// error; a directory named here must be usable.
	ServiceAccountDir string
	// Log receives, at Warn level, the API servers' warnings on requests
	// whose context has no Warnings collector (see WithWarnings). Nil
	// discards them.
	Log *slog.Logger
}

// Clusters holds the base configuration of every known context. It holds no
// clients: those are built per request by Client.
type Clusters struct {
	contexts  map[string]Context
	configs   map[string]*rest.Config
	order     []string
	current   string
	observer  Observer
	discovery *discoveryCache
	schemas   *kindSchemaCache
	relations *relateMemory
	pools     *decodePools
	// fieldManager names the writes (LoadOptions.FieldManager).
	fieldManager string
	log          *slog.Logger
	// secret keys IdentityKey's HMAC; drawn per process, never shown.
	secret []byte
}

// ErrUnknownContext is returned for a context name the configuration does not have.
var ErrUnknownContext = errors.New("unknown context")

// UnknownContextError names the context that does not exist.
type UnknownContextError struct{ Name string }

func (e *UnknownContextError) Error() string {
	return fmt.Sprintf("there is no context named %q", e.Name)
}

// Is makes errors.Is(err, ErrUnknownContext) true.
func (e *UnknownContextError) Is(target error) bool { return target == ErrUnknownContext }

// Load reads the kubeconfig (or the in-cluster configuration) described by opts.
func Load(opts LoadOptions) (*Clusters, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if opts.Kubeconfig != "" {
		rules.ExplicitPath = opts.Kubeconfig
	}
	if opts.Kubeconfig == "" && !anyFileExists(rules.GetLoadingPrecedence()) {
		cfg, ok, err := loadInCluster(opts)
		if err != nil {
			return nil, err
		}
		if ok {
			for _, name := range opts.Contexts {
				if name != InClusterContext {
					return nil, &UnknownContextError{Name: name}
				}
			}
			return inCluster(cfg, opts), nil
		}
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	return fromKubeconfig(*raw, opts)
}

// AllContexts is what a console URL names every offered context by
// (/c/_all/…); a comma separates a chosen set (/c/a,b/…).
const AllContexts = "_all"

// ServableContextName refuses a context name that fleet URLs could not
// tell apart from a set of contexts: "_all", or one with a comma.
func ServableContextName(name string) error {
	if name == AllContexts || strings.Contains(name, ",") {
		return fmt.Errorf("context %q cannot be served: in the console's URLs %q names every context and a comma separates contexts; rename it in the kubeconfig, or leave it out with --contexts", name, AllContexts)
	}
	return nil
}

// FromKubeconfig builds Clusters from an already loaded kubeconfig.
func FromKubeconfig(raw clientcmdapi.Config, opts LoadOptions) (*Clusters, error) {
	return fromKubeconfig(raw, opts)
}

func fromKubeconfig(raw clientcmdapi.Config, opts LoadOptions) (*Clusters, error) {
	current := raw.CurrentContext
	if opts.Context != "" {
		current = opts.Context
	}
	if len(raw.Contexts) == 0 {
		return nil, errors.New("kubeconfig has no contexts")
	}
	for _, name := range opts.Contexts {
		if _, ok := raw.Contexts[name]; !ok {
			return nil, &UnknownContextError{Name: name}
		}
	}
	if len(opts.Contexts) > 0 && !slices.Contains(opts.Contexts, current) {
		if opts.Context != "" {
			return nil, fmt.Errorf("context %q is not among the contexts offered (%s)", opts.Context, strings.Join(opts.Contexts, ", "))
		}
		current = opts.Contexts[0]
	}
	if _, ok := raw.Contexts[current]; !ok {
		if current != "" {
			return nil, &UnknownContextError{Name: current}
		}
		current = slices.Sorted(maps.Keys(raw.Contexts))[0]
	}
	offered := func(name string) bool {
		switch {
		case len(opts.Contexts) > 0:
			return slices.Contains(opts.Contexts, name)
		case opts.OnlyCurrent:
			return name == current
		}
		return true
	}
	cs := &Clusters{
		contexts:     map[string]Context{},
		configs:      map[string]*rest.Config{},
		current:      current,
		observer:     opts.Observer,
		discovery:    newDiscoveryCache(opts.DiscoveryTTL),
		schemas:      newKindSchemaCache(),
		relations:    newRelateMemory(),
		pools:        newDecodePools(),
		log:          loggerOf(opts),
		secret:       newIdentitySecret(),
		fieldManager: opts.FieldManager,
	}
	for _, name := range slices.Sorted(maps.Keys(raw.Contexts)) {
		if !offered(name) {
			continue
		}
		if err := ServableContextName(name); err != nil {
			return nil, err
		}
		kctx := raw.Contexts[name]
		cfg, err := clientcmd.NewNonInteractiveClientConfig(raw, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
		if err != nil {
			// A broken context must not take the others down; it is simply absent.
			if name == current {
				return nil, fmt.Errorf("context %q: %w", name, err)
			}
			continue
		}
		cfg.UserAgent = opts.UserAgent
		plain := !rest.IsConfigTransportTLS(*cfg)
		cs.add(Context{
			Name:               name,
			Cluster:            kctx.Cluster,
			Server:             cfg.Host,
			User:               kctx.AuthInfo,
			Namespace:          kctx.Namespace,
			PlainHTTP:          plain,
			CredentialsDropped: plain && hasCredentials(raw.AuthInfos[kctx.AuthInfo]),
		}, cfg)
	}
	return cs, nil
}

func inCluster(cfg *rest.Config, opts LoadOptions) *Clusters {
	cfg.UserAgent = opts.UserAgent
	cs := &Clusters{
		contexts:     map[string]Context{},
		configs:      map[string]*rest.Config{},
		current:      InClusterContext,
		observer:     opts.Observer,
		discovery:    newDiscoveryCache(opts.DiscoveryTTL),
		schemas:      newKindSchemaCache(),
		relations:    newRelateMemory(),
		pools:        newDecodePools(),
		log:          loggerOf(opts),
		secret:       newIdentitySecret(),
		fieldManager: opts.FieldManager,
	}
	// The service account token is set on cfg itself, not merged by
	// clientcmd, so it is never dropped (and in-cluster hosts are https).
	cs.add(Context{Name: InClusterContext, Cluster: InClusterContext, Server: cfg.Host, PlainHTTP: !rest.IsConfigTransportTLS(*cfg)}, cfg)
	return cs
}

func loggerOf(opts LoadOptions) *slog.Logger {
	if opts.Log != nil {
		return opts.Log
	}
	return slog.New(slog.DiscardHandler)
}

// hasCredentials reports whether a kubeconfig user carries any credential.
func hasCredentials(u *clientcmdapi.AuthInfo) bool {
	if u == nil {
		return false
	}
	return u.Token != "" || u.TokenFile != "" || u.Username != "" || u.Password != "" ||
		u.ClientCertificate != "" || len(u.ClientCertificateData) > 0 || u.ClientKey != "" || len(u.ClientKeyData) > 0 ||
		u.Exec != nil || u.AuthProvider != nil
}

func (cs *Clusters) add(c Context, cfg *rest.Config) {
	cs.contexts[c.Name] = c
	cs.configs[c.Name] = cfg
	cs.order = append(cs.order, c.Name)
}

// Current is the context "/" leads to.
func (cs *Clusters) Current() string { return cs.current }

// Contexts lists every usable context, sorted by name.
func (cs *Clusters) Contexts() []Context {
	out := make([]Context, 0, len(cs.order))
	for _, name := range cs.order {
		out = append(out, cs.contexts[name])
	}
	return out
}

// Context returns the named context.
func (cs *Clusters) Context(name string) (Context, error) {
	c, ok := cs.contexts[name]
	if !ok {
		return Context{}, &UnknownContextError{Name: name}
	}
	return c, nil
}

func anyFileExists(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
