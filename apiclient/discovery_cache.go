package apiclient

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultDiscoveryTTL is how long discovery is trusted before it is fetched again.
const DefaultDiscoveryTTL = 2 * time.Minute

// discoveryTimeout bounds one discovery fetch.
const discoveryTimeout = 30 * time.Second

// minRefreshInterval bounds refreshes forced by unknown resources, so a
// stream of bad URLs cannot turn into a stream of discovery requests.
const minRefreshInterval = 5 * time.Second

// discoveryCache keeps one Discovery per context. Discovery documents are the
// same for every authenticated user of a cluster, so they are shared; every
// other request is made with the requester's own identity.
type discoveryCache struct {
	ttl     time.Duration
	now     func() time.Time
	flight  singleflight.Group
	mu      sync.Mutex
	entries map[string]discoveryEntry
}

type discoveryEntry struct {
	discovery *Discovery
	fetched   time.Time
}

func newDiscoveryCache(ttl time.Duration) *discoveryCache {
	if ttl <= 0 {
		ttl = DefaultDiscoveryTTL
	}
	return &discoveryCache{ttl: ttl, now: time.Now, entries: map[string]discoveryEntry{}}
}

func (dc *discoveryCache) get(contextName string) (discoveryEntry, bool) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	e, ok := dc.entries[contextName]
	return e, ok
}

// load returns the cached discovery, fetching it when missing, stale or
// when force is set and the entry is older than minRefreshInterval.
func (dc *discoveryCache) load(ctx context.Context, contextName string, force bool, fetch func(context.Context) (*Discovery, error)) (*Discovery, error) {
	if e, ok := dc.get(contextName); ok {
		age := dc.now().Sub(e.fetched)
		if age < dc.ttl && (!force || age < minRefreshInterval) {
			return e.discovery, nil
		}
	}
	v, err, _ := dc.flight.Do(contextName, func() (any, error) {
		// Others may be waiting on this fetch: the first caller leaving (a
		// closed tab) must not fail them, so it gets its own deadline.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discoveryTimeout)
		defer cancel()
		d, err := fetch(fctx)
		if err != nil {
			return nil, err
		}
		dc.mu.Lock()
		dc.entries[contextName] = discoveryEntry{discovery: d, fetched: dc.now()}
		dc.mu.Unlock()
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Discovery), nil
}

// Discovery returns what the server serves, from the per-cluster cache.
func (c *Client) Discovery(ctx context.Context) (*Discovery, error) {
	return c.cache.load(ctx, c.context, false, c.Discover)
}

// Resource finds group/version/name, refreshing discovery once when it is
// unknown (a CRD created a minute ago must not wait for the TTL).
func (c *Client) Resource(ctx context.Context, group, version, name string) (Resource, error) {
	d, err := c.Discovery(ctx)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := d.Lookup(group, version, name); ok {
		return r, nil
	}
	d, err = c.cache.load(ctx, c.context, true, c.Discover)
	if err != nil {
		return Resource{}, err
	}
	if r, ok := d.Lookup(group, version, name); ok {
		return r, nil
	}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	return Resource{}, &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: fmt.Sprintf("the server does not serve the resource %q in %s", name, gv),
		Details: &metav1.StatusDetails{Group: group, Kind: name},
	}}
}
