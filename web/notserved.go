package web

import (
	"errors"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// groupAnchor is the id of a group's section on a context's home page.
func groupAnchor(group string) string {
	return "group-" + strings.ReplaceAll(kube.GroupLabel(group), ".", "-")
}

// unserved adds ways onward to err when it says the API path p is not
// served (an apiclient.NotServedError); any other error is returned as is.
// Each link shows the same page (list, object, subresource) in the same
// namespace with the same query, for the resource it suggests.
func unserved(u page.URLs, p page.APIPath, query url.Values, err error) error {
	var ns *apiclient.NotServedError
	if !errors.As(err, &ns) {
		return err
	}
	out := &page.UnservedError{Err: err}
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
		return views.Link{Label: r.Name + " in " + r.GroupVersion().String(), Href: page.WithQuery(href, query), TestID: testID}
	}
	for _, r := range ns.Served {
		out.Links = append(out.Links, same(r, "served-version"))
	}
	for _, r := range append(ns.Closest, ns.Elsewhere...) {
		out.Links = append(out.Links, same(r, "did-you-mean"))
	}
	for _, g := range ns.ClosestGroups {
		out.Links = append(out.Links, views.Link{
			Label: "API group " + g, Href: u.Home() + "#" + templ.SafeURL(groupAnchor(g)), TestID: "closest-group",
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
