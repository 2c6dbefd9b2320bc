package kube

import (
	"fmt"
	"strings"

	"github.com/tabula-console/tabula/apiclient"
)

// NotServedMessage says what was asked of a server that does not serve it,
// and what the server serves instead.
func NotServedMessage(e *apiclient.NotServedError) string {
	group := "The API group " + e.Group
	if e.Group == "" {
		group = "The core API group"
	}
	var s string
	switch {
	case e.DiscoveryFailed != nil:
		return fmt.Sprintf("The server could not describe %s (%v), so whether it serves %q is unknown.", e.GroupVersion(), e.DiscoveryFailed, e.Resource)
	case !e.GroupServed:
		s = fmt.Sprintf("The server does not serve the API group %q.", e.Group)
	case len(e.Served) > 0:
		var versions []string
		for _, r := range e.Served {
			versions = append(versions, r.Version)
		}
		return fmt.Sprintf("%s serves %s in %s, not in %s.", group, e.Resource, joinList(versions, "and"), e.Version)
	default:
		s = fmt.Sprintf("%s serves no resource %q in %s.", group, e.Resource, e.Version)
	}
	var near []string
	for _, r := range append(e.Closest, e.Elsewhere...) {
		near = append(near, r.Name+" in "+r.GroupVersion().String())
	}
	for _, g := range e.ClosestGroups {
		near = append(near, "the group "+g)
	}
	if len(near) > 0 {
		s += " Did you mean " + joinList(near, "or") + "?"
	}
	return s
}

// joinList joins "a", "a or b", "a, b or c" (with "or" as conj).
func joinList(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
