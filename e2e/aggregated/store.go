package aggregated

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// store holds the fixed probes, sorted by namespace then name, which is the
// order lists return them in and what continue tokens point into.
// It is read-only after construction, so it needs no lock.
type store struct {
	probes []Probe
	// resourceVersion of every list: the highest object resourceVersion.
	resourceVersion string
}

// fixture is the data of one seeded probe.
type fixture struct {
	namespace, name, uid, target string
	labels                       map[string]string
	interval, latency            int64
	healthy                      bool
	age                          time.Duration
}

// fixtures are the probes every server serves: three in demo, one in team-a.
func fixtures() []fixture {
	return []fixture{
		{"demo", "api-latency", "6f0c2a8e-3b61-4d7e-9a52-1c9b8e0d4f11", "https://api.demo.svc/healthz",
			map[string]string{"app": "api", "tier": "backend"}, 30, 42, true, 72 * time.Hour},
		{"demo", "db-reachable", "0b7d9c3a-58e2-4f4b-8d1e-6a2f3c9b7e22", "tcp://db.demo.svc:5432",
			map[string]string{"app": "db", "tier": "backend"}, 60, 1250, false, 48 * time.Hour},
		{"demo", "dns", "c4e1f7b2-9d35-4a68-b0c7-2e8d5a1f9c33", "dns://kube-dns.kube-system.svc/demo.svc.cluster.local",
			map[string]string{"app": "dns", "tier": "infra"}, 10, 3, true, 90 * time.Minute},
		{"team-a", "checkout", "9a3b5e7d-1c2f-4e60-a8b4-7d6c0e2f1a44", "https://checkout.team-a.svc/ready",
			map[string]string{"app": "checkout", "tier": "frontend"}, 15, 87, true, 5 * time.Hour},
	}
}

// newStore builds the probes relative to now, so that ages look natural.
func newStore(now time.Time) *store {
	s := &store{}
	for i, f := range fixtures() {
		rv := strconv.Itoa(100 + i)
		s.probes = append(s.probes, Probe{
			TypeMeta: metav1.TypeMeta{APIVersion: groupVersion.String(), Kind: Kind},
			ObjectMeta: metav1.ObjectMeta{
				Name:              f.name,
				Namespace:         f.namespace,
				UID:               types.UID(f.uid),
				ResourceVersion:   rv,
				Generation:        1,
				CreationTimestamp: metav1.NewTime(now.Add(-f.age).Truncate(time.Second)),
				Labels:            f.labels,
			},
			Spec: ProbeSpec{Target: f.target, IntervalSeconds: f.interval},
			Status: ProbeStatus{
				Healthy:       f.healthy,
				LatencyMillis: f.latency,
				LastProbeTime: metav1.NewTime(now.Add(-time.Duration(f.interval) * time.Second / 2).Truncate(time.Second)),
			},
		})
		s.resourceVersion = rv
	}
	sort.Slice(s.probes, func(i, j int) bool { return key(&s.probes[i]) < key(&s.probes[j]) })
	return s
}

func key(p *Probe) string { return p.Namespace + "/" + p.Name }

// get returns the probe namespace/name, or false.
func (s *store) get(namespace, name string) (Probe, bool) {
	for _, p := range s.probes {
		if p.Namespace == namespace && p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

// listOptions are the list query parameters this server honours.
type listOptions struct {
	namespace string // empty: all namespaces
	selector  labels.Selector
	limit     int64 // 0: no limit
	cont      string
}

// page is one page of a list.
type page struct {
	items     []Probe
	cont      string
	remaining *int64
}

// continueToken is what a continue string encodes: the key of the last
// item returned. Like kube-apiserver's, it is opaque to clients.
type continueToken struct {
	ResourceVersion string `json:"rv"`
	StartAfter      string `json:"start"`
}

// list filters by namespace and selector, then pages.
func (s *store) list(opts listOptions) (page, error) {
	startAfter := ""
	if opts.cont != "" {
		tok, err := decodeContinue(opts.cont)
		if err != nil {
			return page{}, err
		}
		startAfter = tok.StartAfter
	}
	var matched []Probe
	for _, p := range s.probes {
		if opts.namespace != "" && p.Namespace != opts.namespace {
			continue
		}
		if opts.selector != nil && !opts.selector.Matches(labels.Set(p.Labels)) {
			continue
		}
		if startAfter != "" && key(&p) <= startAfter {
			continue
		}
		matched = append(matched, p)
	}
	if opts.limit <= 0 || int64(len(matched)) <= opts.limit {
		return page{items: matched}, nil
	}
	items := matched[:opts.limit]
	remaining := int64(len(matched)) - opts.limit
	next, err := json.Marshal(continueToken{ResourceVersion: s.resourceVersion, StartAfter: key(&items[len(items)-1])})
	if err != nil {
		return page{}, err
	}
	return page{items: items, cont: base64.RawURLEncoding.EncodeToString(next), remaining: &remaining}, nil
}

func decodeContinue(s string) (continueToken, error) {
	var tok continueToken
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(raw, &tok)
	}
	if err != nil || tok.StartAfter == "" {
		return tok, fmt.Errorf("invalid continue token %q", s)
	}
	return tok, nil
}
