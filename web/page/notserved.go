package page

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// UnservedError is an API path discovery did not resolve, with ways onward
// built from what the server serves instead (the apiclient.NotServedError
// it wraps): the error mapper makes them the 404 page's links.
type UnservedError struct {
	// Links lead to the page asked for where it is served: at the versions
	// serving the resource, under the names a typo is nearest to, in other
	// groups; or to the groups nearest an unknown group.
	Links []views.Link
	// Available are the lists of the group's resources, AvailableLabel
	// saying whose.
	Available      []views.Link
	AvailableLabel string
	err            error
}

func (e *UnservedError) Error() string { return e.err.Error() }
func (e *UnservedError) Unwrap() error { return e.err }

// GroupAnchor is the id of a group's section on a context's home page.
func GroupAnchor(group string) string {
	return "group-" + strings.ReplaceAll(kube.GroupLabel(group), ".", "-")
}

// Unserved adds ways onward to err when it says the API path p is not
// served (an apiclient.NotServedError); any other error is returned as is.
// Each link shows the same page (list, object, subresource) in the same
// namespace with the same query, for the resource it suggests.
func Unserved(u URLs, p APIPath, query url.Values, err error) error {
	var ns *apiclient.NotServedError
	if !errors.As(err, &ns) {
		return err
	}
	out := &UnservedError{err: err}
	same := func(r apiclient.Resource, testID string) views.Link {
		name := p.Name
		if r.Namespaced && p.Namespace == "" && name != "" {
			// A namespaced object's URL needs its namespace: offer the list.
			name = ""
		}
		href := u.Resource(r, p.Namespace, name)
		if name != "" && p.Subresource != "" {
			href += "/" + templ.SafeURL(url.PathEscape(p.Subresource))
		}
		return views.Link{Label: r.Name + " in " + r.GroupVersion().String(), Href: WithQuery(href, query), TestID: testID}
	}
	for _, r := range ns.Served {
		out.Links = append(out.Links, same(r, "served-version"))
	}
	for _, r := range append(ns.Closest, ns.Elsewhere...) {
		out.Links = append(out.Links, same(r, "did-you-mean"))
	}
	for _, g := range ns.ClosestGroups {
		out.Links = append(out.Links, views.Link{
			Label: "API group " + g, Href: u.Home() + "#" + templ.SafeURL(GroupAnchor(g)), TestID: "closest-group",
		})
	}
	if len(ns.Available) > 0 {
		out.AvailableLabel = "What " + ns.Available[0].GroupVersion().String() + " serves"
		if ns.Available[0].Group == "" {
			out.AvailableLabel = "What the core group " + ns.Available[0].Version + " serves"
		}
	}
	for _, r := range ns.Available {
		out.Available = append(out.Available, views.Link{Label: r.Name, Href: u.Resource(r, p.Namespace, "")})
	}
	return out
}

// notServedMessage says what was asked and what the server serves instead.
func notServedMessage(e *apiclient.NotServedError) string {
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
