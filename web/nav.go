package web

import (
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// contextLayout is the frame of every page inside a context: the sidebar and
// jump box come from discovery. current marks the resource being shown.
func (s *Server) contextLayout(c echo.Context, client *apiclient.Client, title string, current *apiclient.Resource, namespace string) views.Layout {
	l := s.layout(c, client.ContextName(), title)
	d, err := client.Discovery(c.Request().Context())
	if err != nil {
		// The page itself reports discovery failures; the frame just goes without.
		return l
	}
	l.Nav = navGroups(client.ContextName(), d, current, namespace)
	l.Jump = views.JumpBox{
		Action:    "/c/" + url.PathEscape(client.ContextName()) + "/jump",
		Namespace: namespace,
		Names:     d.Names(),
	}
	return l
}

func navGroups(contextName string, d *apiclient.Discovery, current *apiclient.Resource, namespace string) []views.NavGroup {
	var out []views.NavGroup
	for _, g := range d.Groups {
		ng := views.NavGroup{Label: groupLabel(g.Name)}
		for _, r := range g.Resources {
			if !r.Can("list") {
				continue
			}
			isCurrent := current != nil && current.Group == r.Group && current.Name == r.Name
			ng.Open = ng.Open || isCurrent || (current == nil && g.Name == "")
			ng.Items = append(ng.Items, views.NavItem{
				Label:   r.Name,
				Href:    consolePath(contextName, r, namespace, ""),
				Current: isCurrent,
			})
		}
		if len(ng.Items) > 0 {
			out = append(out, ng)
		}
	}
	return out
}

func groupLabel(group string) string {
	if group == "" {
		return "core"
	}
	return group
}
