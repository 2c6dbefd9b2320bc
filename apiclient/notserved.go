package apiclient

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// maxSuggestions bounds each list of near names a NotServedError offers.
const maxSuggestions = 3

// NotServedError is a resource the server does not serve at the group
// version asked for, with what discovery says it does serve nearby, so
// that a 404 can lead somewhere. It is a NotFound Status
// (apierrors.IsNotFound holds).
type NotServedError struct {
	Group, Version, Resource string
	// GroupServed says the server serves the group at some version;
	// GroupVersions are those versions, preferred first.
	GroupServed   bool
	GroupVersions []string
	// Served is the resource at each version of the group serving it,
	// preferred first: the URL had a version the group does not serve it at.
	Served []Resource
	// Available are the group's resources at Version, or at its preferred
	// version when it does not serve Version, by name.
	Available []Resource
	// Closest are the group's resources the name is nearest to, best first:
	// a singular, kind or short name, or a typo of one ("deploymnets").
	Closest []Resource
	// Elsewhere are other groups' resources the name names exactly
	// (extensions/v1beta1 ingresses → networking.k8s.io/v1 ingresses).
	Elsewhere []Resource
	// ClosestGroups are served group names nearest an unknown group's.
	ClosestGroups []string
	// DiscoveryFailed is why the server could not describe the group
	// version, when it could not: its resources are then unknown.
	DiscoveryFailed error
}

// GroupVersion is the group version asked for, "v1" or "apps/v1".
func (e *NotServedError) GroupVersion() string {
	if e.Group == "" {
		return e.Version
	}
	return e.Group + "/" + e.Version
}

func (e *NotServedError) Error() string {
	return fmt.Sprintf("the server does not serve the resource %q in %s", e.Resource, e.GroupVersion())
}

// Status is the error as a NotFound Status.
func (e *NotServedError) Status() metav1.Status {
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: e.Error(),
		Details: &metav1.StatusDetails{Group: e.Group, Kind: e.Resource},
	}
}

// NotServed explains why group/version/name is not served, from what d
// serves. It looks only at d: a caller that just refreshed discovery
// passes the fresh one.
func (d *Discovery) NotServed(group, version, name string) *NotServedError {
	e := &NotServedError{Group: group, Version: version, Resource: name}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	e.DiscoveryFailed = d.Failed[gv]
	q := strings.ToLower(name)
	g, ok := d.group(group)
	if !ok {
		e.ClosestGroups = d.closestGroups(group)
		e.Elsewhere = d.named(q, group)
		return e
	}
	e.GroupServed = true
	e.GroupVersions = g.versionOrder()
	at := version
	if !slices.Contains(g.Versions, version) {
		at = g.PreferredVersion
	}
	byVersion := map[string][]Resource{}
	for _, rs := range [][]Resource{g.Resources, g.Alternates} {
		for _, r := range rs {
			byVersion[r.Version] = append(byVersion[r.Version], r)
		}
	}
	for _, v := range e.GroupVersions {
		for _, r := range byVersion[v] {
			if r.Name == name {
				e.Served = append(e.Served, r)
			}
		}
	}
	e.Available = slices.SortedFunc(slices.Values(byVersion[at]), func(a, b Resource) int { return cmp.Compare(a.Name, b.Name) })
	if len(e.Served) > 0 {
		return e
	}
	e.Closest = closest(q, g.Resources)
	// A suggestion served at the version asked for keeps that version.
	for i, r := range e.Closest {
		for _, alt := range byVersion[version] {
			if alt.Name == r.Name {
				e.Closest[i] = alt
			}
		}
	}
	e.Elsewhere = d.named(q, group)
	return e
}

// group finds a served group by name.
func (d *Discovery) group(name string) (Group, bool) {
	for _, g := range d.Groups {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// versionOrder is the group's versions, preferred first, then by
// Kubernetes version priority (v2, v1, v1beta1, …), as Resources chose.
func (g Group) versionOrder() []string {
	order := slices.Clone(g.Versions)
	slices.SortStableFunc(order, func(a, b string) int {
		switch {
		case a == g.PreferredVersion:
			return -1
		case b == g.PreferredVersion:
			return 1
		}
		return version.CompareKubeAwareVersionStrings(b, a)
	})
	return order
}

// named are the resources of groups other than except that name (lower
// case) names exactly, as kubectl would resolve it.
func (d *Discovery) named(name, except string) []Resource {
	var out []Resource
	for _, r := range d.match(name, "") {
		if r.Group != except && len(out) < maxSuggestions {
			out = append(out, r)
		}
	}
	return out
}

// closest ranks the resources by how near name (lower case) is to their
// names: exactly a plural, singular, kind or short name first (and then
// only those), else a prefix of, or a typo of, a plural, singular or kind.
// Short names match only exactly: two letters are near too many others.
// At most maxSuggestions.
func closest(name string, rs []Resource) []Resource {
	type scored struct {
		r     Resource
		score int
	}
	var found []scored
	for _, r := range rs {
		best := -1
		if slices.Contains(r.ShortNames, name) {
			best = 0
		}
		for _, n := range []string{r.Name, r.SingularName, strings.ToLower(r.Kind)} {
			if s, ok := nearness(name, n); n != "" && ok && (best < 0 || s < best) {
				best = s
			}
		}
		if best >= 0 {
			found = append(found, scored{r, best})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.r.Name, b.r.Name))
	})
	var out []Resource
	for _, f := range found {
		if len(out) == maxSuggestions || f.score > 0 && found[0].score == 0 {
			break
		}
		out = append(out, f.r)
	}
	return out
}

// nearness scores how near typed is to name: 0 equal, 1 a prefix of it
// (at least three letters), else 1 + the edit distance, within a bound
// set by the shorter of the two.
func nearness(typed, name string) (int, bool) {
	switch {
	case typed == name:
		return 0, true
	case len(typed) >= 3 && strings.HasPrefix(name, typed):
		return 1, true
	}
	d := editDistance(typed, name)
	return 1 + d, d <= maxEdits(min(len(typed), len(name)))
}

// maxEdits is how many edits a typo of a name this long may have.
func maxEdits(n int) int {
	switch {
	case n <= 3:
		return 1
	case n <= 7:
		return 2
	}
	return 3
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes each cost
// one ("deploymnets" is one from "deployments"). Names are short ASCII.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// A hostile URL's name is no typo of a resource's.
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// closestGroups ranks served group names by nearness to name, whole or by
// its first label ("networking" is near "networking.k8s.io").
func (d *Discovery) closestGroups(name string) []string {
	q := strings.ToLower(name)
	type scored struct {
		name  string
		score int
	}
	var found []scored
	for _, g := range d.Groups {
		if g.Name == "" {
			continue
		}
		first, _, _ := strings.Cut(g.Name, ".")
		best := -1
		for _, n := range []string{g.Name, first} {
			if s, ok := nearness(q, n); ok && (best < 0 || s < best) {
				best = s
			}
		}
		if best >= 0 {
			found = append(found, scored{g.Name, best})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.name, b.name))
	})
	var out []string
	for _, f := range found[:min(len(found), maxSuggestions)] {
		out = append(out, f.name)
	}
	return out
}
