package apiclient

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Identity is who a request acts as upstream. The zero value acts with the
// credentials of the kubeconfig context itself.
type Identity struct {
	// BearerToken replaces the context's credentials (for example an OIDC ID token).
	BearerToken string
	// Contexts, when set, are the only contexts BearerToken may be sent
	// to: the clusters it was issued for, or checked against. A client for
	// any other is refused (*TokenNotForContextError) rather than built
	// with the token or without it. Empty sends it to any context.
	Contexts []string
	// Impersonate, when its UserName is set, impersonates that user with the
	// context's own credentials.
	Impersonate Impersonation
}

// ErrPlainHTTP is returned for a client that would send a user's token to
// a server reached over plain HTTP.
var ErrPlainHTTP = errors.New("refusing to send a token over plain HTTP")

// PlainHTTPError names the context whose server is plain HTTP.
type PlainHTTPError struct{ Context, Server string }

func (e *PlainHTTPError) Error() string {
	return fmt.Sprintf("context %q: the API server %s is reached over plain HTTP, and a user's token is never sent unencrypted", e.Context, e.Server)
}

// Is makes errors.Is(err, ErrPlainHTTP) true.
func (e *PlainHTTPError) Is(target error) bool { return target == ErrPlainHTTP }

// ErrTokenNotForContext is returned for a client that would send a user's
// token to a context it is not meant for (Identity.Contexts).
var ErrTokenNotForContext = errors.New("the token is not for this context")

// TokenNotForContextError names the context a token was withheld from,
// and those it is for. It is a 403 Forbidden Status (apierrors.APIStatus),
// so it reads as the refusal it is wherever Statuses are shown.
type TokenNotForContextError struct {
	Context string
	Allowed []string
}

func (e *TokenNotForContextError) Error() string {
	return fmt.Sprintf("your sign-in's token is only sent to context %s, the cluster it is meant for: "+
		"the console does not send it to context %q, whose API server it was not issued for or checked against",
		strings.Join(e.Allowed, ", "), e.Context)
}

// Is makes errors.Is(err, ErrTokenNotForContext) true.
func (e *TokenNotForContextError) Is(target error) bool { return target == ErrTokenNotForContext }

// Status is the refusal as a Status, as a server would word it.
func (e *TokenNotForContextError) Status() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: strings.ToUpper(e.Error()[:1]) + e.Error()[1:] + ".",
	}
}

// Impersonation names the user a privileged context acts on behalf of.
type Impersonation struct {
	UserName string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// Client is a set of upstream clients bound to one context and one identity.
// Build one per request; the underlying TLS transports are shared by client-go.
type Client struct {
	context   string
	idKey     string
	cache     *discoveryCache
	schemas   *kindSchemaCache
	relations *relateMemory
	pools     *decodePools
	// fieldManager names the writes (LoadOptions.FieldManager).
	fieldManager string
	rest         *rest.RESTClient
	discovery    *discovery.DiscoveryClient
	// config is what rest was built from, for the clients that build
	// their own transports (exec and attach).
	config *rest.Config

	// indexMu guards index, the OpenAPI index KindLinks reuses, fetched
	// at indexAt.
	indexMu sync.Mutex
	index   map[string]string
	indexAt time.Time
}

// Client builds the clients that act as id against the named context.
func (cs *Clusters) Client(contextName string, id Identity) (*Client, error) {
	base, ok := cs.configs[contextName]
	if !ok {
		return nil, &UnknownContextError{Name: contextName}
	}
	if id.BearerToken != "" && len(id.Contexts) > 0 && !slices.Contains(id.Contexts, contextName) {
		// Neither the token (a credential for another cluster) nor the
		// context's own credentials (not the user's): no client at all.
		return nil, &TokenNotForContextError{Context: contextName, Allowed: slices.Clone(id.Contexts)}
	}
	if id.BearerToken != "" && !rest.IsConfigTransportTLS(*base) {
		// client-go would send it: a user's token must not cross the
		// network in the clear.
		return nil, &PlainHTTPError{Context: contextName, Server: base.Host}
	}
	cfg := rest.CopyConfig(base)
	// No client-side throttling: a page may make a burst of calls for one
	// user, and the server's priority and fairness is what should decide.
	cfg.QPS, cfg.Burst, cfg.RateLimiter = -1, 0, nil
	applyIdentity(cfg, id)
	// Warnings go to the request's collector or the log, never to klog.
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = warningHandler{log: cs.log, context: contextName}
	if cs.observer != nil {
		cfg.Wrap(observeTransport(cs.observer))
	}
	cfg.Wrap(countRequests)
	cfg.GroupVersion = nil
	cfg.APIPath = ""
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	restClient, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %q: building client: %w", contextName, err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %q: building discovery client: %w", contextName, err)
	}
	return &Client{context: contextName, idKey: cs.IdentityKey(id), cache: cs.discovery, schemas: cs.schemas, relations: cs.relations, pools: cs.pools, fieldManager: cs.fieldManager, rest: restClient, discovery: disco, config: cfg}, nil
}

func applyIdentity(cfg *rest.Config, id Identity) {
	if id.BearerToken != "" {
		// The user's token is the whole identity: drop every credential of the context.
		cfg.BearerToken = id.BearerToken
		cfg.BearerTokenFile = ""
		cfg.Username, cfg.Password = "", ""
		cfg.CertData, cfg.CertFile, cfg.KeyData, cfg.KeyFile = nil, "", nil, ""
		cfg.ExecProvider = nil
		cfg.AuthProvider = nil
		cfg.Impersonate = rest.ImpersonationConfig{}
	}
	if id.Impersonate.UserName != "" {
		cfg.Impersonate = rest.ImpersonationConfig{
			UserName: id.Impersonate.UserName,
			UID:      id.Impersonate.UID,
			Groups:   id.Impersonate.Groups,
			Extra:    id.Impersonate.Extra,
		}
	}
}

// ContextName is the context this client talks to.
func (c *Client) ContextName() string { return c.context }

// IdentityKey is the key of the identity this client acts as (see
// Clusters.IdentityKey).
func (c *Client) IdentityKey() string { return c.idKey }

// identitySecretSize is the size of the per-process HMAC key of identity keys.
const identitySecretSize = 32

func newIdentitySecret() []byte {
	b := make([]byte, identitySecretSize)
	_, _ = rand.Read(b) // never fails (crypto/rand crashes the program instead)
	return b
}

// IdentityKey identifies id for caches and shared upstreams of per-user
// answers: an HMAC-SHA256 of the whole identity, the exact credential
// included, under a secret drawn when the Clusters were built. Unlike a
// plain hash it cannot be checked against a guessed or leaked token
// outside this process, and it changes with the process. Two tokens of one
// user (a refreshed one) have different keys, so nothing one token opened
// is ever shared with a request carrying the other. Keys are for maps, not
// for logs.
func (cs *Clusters) IdentityKey(id Identity) string {
	h := hmac.New(sha256.New, cs.secret)
	fmt.Fprintf(h, "%q|%q|%q|%q|", id.BearerToken, id.Impersonate.UserName, id.Impersonate.UID, id.Impersonate.Groups)
	for _, k := range slices.Sorted(maps.Keys(id.Impersonate.Extra)) {
		fmt.Fprintf(h, "%q=%q|", k, id.Impersonate.Extra[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}
