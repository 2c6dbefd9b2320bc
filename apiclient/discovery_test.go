package apiclient_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// widgetGroup is a group preferring v1beta1 whose older versions serve
// resources v1beta1 does not: gadgets (v1alpha1 and v1alpha2) and
// sprockets (v1alpha1 only). The versions are declared preferred first and
// then not in priority order, so the client must rank them itself.
func widgetGroup() []apitest.GroupVersion {
	res := func(name, kind string) metav1.APIResource {
		return metav1.APIResource{Name: name, SingularName: name[:len(name)-1], Kind: kind, Namespaced: true, Verbs: []string{"get", "list"}, Categories: []string{"widgety"}}
	}
	return []apitest.GroupVersion{
		{Group: "widgets.example.com", Version: "v1beta1", Resources: []metav1.APIResource{res("widgets", "Widget")}},
		{Group: "widgets.example.com", Version: "v1alpha1", Resources: []metav1.APIResource{res("widgets", "Widget"), res("gadgets", "Gadget"), res("sprockets", "Sprocket")}},
		{Group: "widgets.example.com", Version: "v1alpha2", Resources: []metav1.APIResource{res("gadgets", "Gadget")}},
	}
}

func TestDiscoveryListsResourcesServedOnlyInNonPreferredVersions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts apitest.Options
	}{
		{"aggregated discovery", apitest.Options{}},
		{"legacy discovery", apitest.Options{LegacyDiscovery: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, tc.opts, append([]apitest.GroupVersion{apitest.CoreV1()}, widgetGroup()...)...)
			d, err := clientFor(t, fake).Discover(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var g apiclient.Group
			for _, gg := range d.Groups {
				if gg.Name == "widgets.example.com" {
					g = gg
				}
			}
			if g.PreferredVersion != "v1beta1" {
				t.Fatalf("preferred version %q, want v1beta1", g.PreferredVersion)
			}
			var got []string
			for _, r := range g.Resources {
				got = append(got, r.Name+"@"+r.Version)
			}
			// Sorted by name, each once: the preferred version when it serves
			// the name, else the highest-priority version (v1alpha2 > v1alpha1).
			if want := []string{"gadgets@v1alpha2", "sprockets@v1alpha1", "widgets@v1beta1"}; !slices.Equal(got, want) {
				t.Errorf("Resources = %v, want %v", got, want)
			}
			var alt []string
			for _, r := range g.Alternates {
				alt = append(alt, r.Name+"@"+r.Version)
			}
			slices.Sort(alt)
			if want := []string{"gadgets@v1alpha1", "widgets@v1alpha1"}; !slices.Equal(alt, want) {
				t.Errorf("Alternates = %v, want %v", alt, want)
			}
			for _, v := range []string{"v1alpha1", "v1alpha2"} {
				if _, ok := d.Lookup("widgets.example.com", v, "gadgets"); !ok {
					t.Errorf("gadgets at %s does not Lookup", v)
				}
			}
			if rs := d.Resolve("sprocket"); len(rs) != 1 || rs[0].Version != "v1alpha1" {
				t.Errorf("Resolve(sprocket) = %+v", rs)
			}
			if rs := d.Resolve("gadgets.widgets.example.com"); len(rs) != 1 || rs[0].Version != "v1alpha2" {
				t.Errorf("Resolve(gadgets.widgets.example.com) = %+v", rs)
			}
			if rs := d.Resolve("widgety"); len(rs) != 3 {
				t.Errorf("category widgety = %d resources, want 3 (one per name)", len(rs))
			}
			if !slices.Contains(d.Names(), "sprockets.widgets.example.com") {
				t.Errorf("Names() lacks sprockets: %v", d.Names())
			}
		})
	}
}

// codeCounter counts discovery calls by status code.
type codeCounter struct {
	mu    sync.Mutex
	codes map[string]int
}

func (o *codeCounter) ObserveAPICall(_, resource, code string, _ time.Duration) {
	if resource != "discovery" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.codes == nil {
		o.codes = map[string]int{}
	}
	o.codes[code]++
}

// take returns the counts so far and starts again.
func (o *codeCounter) take() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.codes
	o.codes = nil
	return c
}

func lighthouses() apitest.GroupVersion {
	return apitest.GroupVersion{Group: "maritime.tabula.dev", Version: "v1alpha1", Resources: []metav1.APIResource{
		{Name: "lighthouses", SingularName: "lighthouse", Kind: "Lighthouse", Namespaced: true, Verbs: []string{"get", "list"}, ShortNames: []string{"lh"}},
	}}
}

func TestResourceSeesANewCRDAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts apitest.Options
		// want are the discovery calls, by code, of the refresh that finds
		// the CRD and of each later refresh for an unknown resource.
		wantFound, wantUnknown map[string]int
	}{
		{"aggregated discovery with ETags", apitest.Options{},
			map[string]int{"304": 1, "200": 1}, map[string]int{"304": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, tc.opts, apitest.CoreV1())
			c, obs := countedClient(t, fake)
			ctx := context.Background()
			if _, err := c.Discovery(ctx); err != nil {
				t.Fatal(err)
			}
			obs.take()

			fake.AddGroupVersions(lighthouses())
			r, err := c.Resource(ctx, "maritime.tabula.dev", "v1alpha1", "lighthouses")
			if err != nil || r.Kind != "Lighthouse" {
				t.Fatalf("a CRD created after discovery was cached: %+v %v", r, err)
			}
			if got := obs.take(); !maps.Equal(got, tc.wantFound) {
				t.Errorf("refresh that found the CRD: discovery calls %v, want %v", got, tc.wantFound)
			}
			if _, err := c.Resource(ctx, "maritime.tabula.dev", "v1alpha1", "nosuch"); !apierrors.IsNotFound(err) {
				t.Errorf("unknown resource: %v", err)
			}
			if got := obs.take(); !maps.Equal(got, tc.wantUnknown) {
				t.Errorf("refresh for an unknown resource: discovery calls %v, want %v", got, tc.wantUnknown)
			}

			// A storm of unknown URLs: every caller is answered NotFound, and
			// with ETags it costs only 304s.
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Go(func() {
					if _, err := c.Resource(ctx, "", "v1", fmt.Sprintf("nosuch%d", i)); !apierrors.IsNotFound(err) {
						t.Errorf("storm: %v", err)
					}
				})
			}
			wg.Wait()
			if got := obs.take(); got["200"] != 0 || got["304"] == 0 {
				t.Errorf("storm of unknown resources: discovery calls %v, want only 304s", got)
			}
		})
	}
}

// A server that cannot answer discovery with a 304 pays a full fetch per
// refresh, so unknown URLs refresh it at most once per costlyRefreshFloor;
// a new CRD is still found within that floor.
func TestCostlyDiscoveryRefreshesAtMostOncePerFloor(t *testing.T) {
	for name, opts := range map[string]apitest.Options{
		"aggregated discovery without ETags": {NoDiscoveryETag: true},
		"legacy discovery":                   {LegacyDiscovery: true},
	} {
		t.Run(name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, opts, apitest.CoreV1())
			c, obs := countedClient(t, fake)
			ctx := context.Background()
			if _, err := c.Discovery(ctx); err != nil {
				t.Fatal(err)
			}
			oneFetch := sum(obs.take())

			// Sequential unknown URLs within the floor share the last fetch.
			for i := range 20 {
				if _, err := c.Resource(ctx, "", "v1", fmt.Sprintf("nosuch%d", i)); !apierrors.IsNotFound(err) {
					t.Fatalf("unknown resource: %v", err)
				}
			}
			if got := sum(obs.take()); got > 2*oneFetch {
				t.Errorf("20 unknown URLs cost %d discovery calls, want at most %d (two fetches)", got, 2*oneFetch)
			}

			fake.AddGroupVersions(lighthouses())
			apitest.WaitFor(t, 5*time.Second, func() error {
				r, err := c.Resource(ctx, "maritime.tabula.dev", "v1alpha1", "lighthouses")
				if err == nil && r.Kind != "Lighthouse" {
					err = fmt.Errorf("the new CRD's kind is %q", r.Kind)
				}
				return err
			})
		})
	}
}

func countedClient(t *testing.T, fake *apitest.Server) (*apiclient.Client, *codeCounter) {
	t.Helper()
	obs := &codeCounter{}
	return clientWith(t, fake, apiclient.LoadOptions{Observer: obs}), obs
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// A user only ever sees what discovery told their own identity: whichever
// identity asks first, another never gets a resource only it may discover.
// Identities that the server shows the same documents share them through
// 304s rather than each downloading and keeping a copy.
func TestDiscoveryIsCachedPerIdentity(t *testing.T) {
	for _, first := range []string{"alice", "bob"} {
		t.Run(first+" first", func(t *testing.T) {
			fake := apitest.NewServer(t, apitest.CoreV1())
			fake.AddGroupVersions(lighthouses())
			// Only alice may discover the lighthouses.
			fake.SetDiscoveryFilter(func(r *http.Request, gv apitest.GroupVersion) bool {
				return gv.Group != "maritime.tabula.dev" || r.Header.Get("Authorization") == "Bearer alice-token"
			})
			obs := &codeCounter{}
			cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{Observer: obs})
			if err != nil {
				t.Fatal(err)
			}
			client := func(token string) *apiclient.Client {
				c, err := cs.Client("dev", apiclient.Identity{BearerToken: token})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			ctx := context.Background()
			sees := func(c *apiclient.Client) bool {
				t.Helper()
				d, err := c.Discovery(ctx)
				if err != nil {
					t.Fatal(err)
				}
				_, ok := d.Lookup("maritime.tabula.dev", "v1alpha1", "lighthouses")
				return ok
			}
			alice, bob := client("alice-token"), client("bob-token")
			order := []*apiclient.Client{alice, bob}
			if first == "bob" {
				order = []*apiclient.Client{bob, alice}
			}
			for _, c := range order {
				sees(c)
			}
			for range 2 { // fetched, then cached
				if !sees(alice) {
					t.Error("alice does not see the lighthouses she may discover")
				}
				if sees(bob) {
					t.Error("bob sees the lighthouses only alice may discover")
				}
			}
			if _, err := bob.Resource(ctx, "maritime.tabula.dev", "v1alpha1", "lighthouses"); !apierrors.IsNotFound(err) {
				t.Errorf("bob resolves the lighthouses: %v", err)
			}
			if r, err := alice.Resource(ctx, "maritime.tabula.dev", "v1alpha1", "lighthouses"); err != nil || r.Kind != "Lighthouse" {
				t.Errorf("alice cannot resolve the lighthouses: %+v %v", r, err)
			}

			// carol is shown what bob is shown: her first fetch costs two
			// 304s and she gets bob's very answer, not a copy.
			bobs, err := bob.Discovery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if first == "bob" {
				// Make bob's the context's latest fetch.
				if _, err := bob.Resource(ctx, "", "v1", "nosuch"); !apierrors.IsNotFound(err) {
					t.Fatal(err)
				}
			}
			obs.take()
			carol := client("carol-token")
			carols, err := carol.Discovery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := obs.take(); !maps.Equal(got, map[string]int{"304": 2}) {
				t.Errorf("a new identity's first fetch: discovery calls %v, want two 304s", got)
			}
			if carols != bobs {
				t.Error("carol's discovery is a copy of bob's identical one")
			}
		})
	}
}
