package apiclient_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// gvrs names resources as group/version/name.
func gvrs(rs []apiclient.Resource) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Group+"/"+r.Version+"/"+r.Name)
	}
	return out
}

// A resource the server does not serve is a NotFound that says what the
// server serves instead: the versions serving it, the group's resources,
// the names a typo is nearest to, other groups serving the name, or the
// groups an unknown group's name is nearest to.
func TestResourceNotServedSaysWhatIsServed(t *testing.T) {
	fake := apitest.NewServer(t, append([]apitest.GroupVersion{apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1(), apitest.MaritimeV1Alpha1()}, widgetGroup()...)...)
	c := clientFor(t, fake)
	ctx := context.Background()
	for _, tc := range []struct {
		name                   string
		group, version, res    string
		groupServed            bool
		served, closest, other []string
		available              []string // checked when set
		groups                 []string
	}{
		{name: "unserved version", group: "apps", version: "v1beta1", res: "deployments", groupServed: true,
			served:    []string{"apps/v1/deployments"},
			available: []string{"apps/v1/daemonsets", "apps/v1/deployments", "apps/v1/replicasets", "apps/v1/statefulsets"}},
		{name: "served at two versions, preferred first", group: "widgets.example.com", version: "v2", res: "gadgets", groupServed: true,
			served: []string{"widgets.example.com/v1alpha2/gadgets", "widgets.example.com/v1alpha1/gadgets"}},
		{name: "a version the group serves, without the resource", group: "widgets.example.com", version: "v1beta1", res: "sprockets", groupServed: true,
			served: []string{"widgets.example.com/v1alpha1/sprockets"}, available: []string{"widgets.example.com/v1beta1/widgets"}},
		{name: "typo", group: "apps", version: "v1", res: "deploymnets", groupServed: true,
			closest: []string{"apps/v1/deployments"}},
		{name: "singular", group: "", version: "v1", res: "pod", groupServed: true,
			closest: []string{"/v1/pods"}},
		{name: "kind", group: "apps", version: "v1", res: "StatefulSet", groupServed: true,
			closest: []string{"apps/v1/statefulsets"}},
		{name: "short name", group: "apps", version: "v1", res: "rs", groupServed: true,
			closest: []string{"apps/v1/replicasets"}},
		{name: "prefix", group: "apps", version: "v1", res: "daemon", groupServed: true,
			closest: []string{"apps/v1/daemonsets"}},
		{name: "typo at an older version keeps that version", group: "widgets.example.com", version: "v1alpha1", res: "gadget", groupServed: true,
			closest: []string{"widgets.example.com/v1alpha1/gadgets"}},
		{name: "another group's resource", group: "apps", version: "v1", res: "pods", groupServed: true,
			other: []string{"/v1/pods"}},
		{name: "served by two other groups", group: "apps", version: "v1", res: "events", groupServed: true,
			other: []string{"/v1/events", "events.k8s.io/v1/events"}},
		{name: "unknown group", group: "extensions", version: "v1beta1", res: "deployments",
			other: []string{"apps/v1/deployments"}},
		{name: "unknown group near a served one", group: "app", version: "v1", res: "deployments",
			groups: []string{"apps"}, other: []string{"apps/v1/deployments"}},
		{name: "a served group's first label", group: "maritime", version: "v1alpha1", res: "lh",
			groups: []string{"maritime.tabula.dev"}, other: []string{"maritime.tabula.dev/v1alpha1/lighthouses"}},
		{name: "nothing near", group: "apps", version: "v1", res: "zzzzzzzzzz", groupServed: true},
		{name: "a hostile name is near nothing", group: "apps", version: "v1", res: "<script>deployments</script>" + string(make([]byte, 100)), groupServed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Resource(ctx, tc.group, tc.version, tc.res)
			if !apierrors.IsNotFound(err) {
				t.Fatalf("err = %v, want NotFound", err)
			}
			var ns *apiclient.NotServedError
			if !errors.As(err, &ns) {
				t.Fatalf("err = %T, want *NotServedError", err)
			}
			if ns.Group != tc.group || ns.Version != tc.version || ns.Resource != tc.res || ns.GroupServed != tc.groupServed {
				t.Errorf("asked %s/%s/%s served %v; want %s/%s/%s served %v", ns.Group, ns.Version, ns.Resource, ns.GroupServed, tc.group, tc.version, tc.res, tc.groupServed)
			}
			for _, check := range []struct {
				what      string
				got, want []string
			}{
				{"served", gvrs(ns.Served), tc.served},
				{"closest", gvrs(ns.Closest), tc.closest},
				{"elsewhere", gvrs(ns.Elsewhere), tc.other},
				{"closest groups", ns.ClosestGroups, tc.groups},
			} {
				if len(check.got) != len(check.want) || !slices.Equal(check.got, check.want) {
					t.Errorf("%s = %q, want %q", check.what, check.got, check.want)
				}
			}
			if tc.available != nil && !slices.Equal(gvrs(ns.Available), tc.available) {
				t.Errorf("available = %q, want %q", gvrs(ns.Available), tc.available)
			}
		})
	}
}
