package web

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

func (s *Server) root(c echo.Context) error {
	return c.Redirect(http.StatusFound, string(page.URLsOf(c.Request().Context()).In(s.env.Clusters.Current()).Home()))
}

func (s *Server) contextRoot(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, string(page.URLsOf(c.Request().Context()).Home()))
}

// home lists what the server serves, by group.
func (s *Server) home(c echo.Context) error {
	client, err := s.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	disco, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	p := views.HomePage{Layout: s.env.ContextLayout(ctx, client, "API resources", nil, "")}
	if v, err := client.ServerVersion(ctx); err == nil {
		p.ServerVersion = v
	}
	for gv := range disco.Failed {
		p.Unavailable = append(p.Unavailable, gv)
	}
	sort.Strings(p.Unavailable)
	for _, g := range disco.Groups {
		p.Groups = append(p.Groups, groupView(page.URLsOf(ctx), g))
	}
	return s.env.Render(c, http.StatusOK, views.Home(p))
}

func groupView(u page.URLs, g apiclient.Group) views.APIGroup {
	display := kube.GroupLabel(g.Name)
	vg := views.APIGroup{
		Anchor:   groupAnchor(g.Name),
		Name:     display,
		Version:  g.PreferredVersion,
		Versions: g.Versions,
	}
	for _, r := range g.Resources {
		res := views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Href:       u.Resource(r, "", ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
			Search:     strings.ToLower(strings.Join(append([]string{r.Name, r.Kind, r.SingularName, display}, r.ShortNames...), " ")),
		}
		if r.Version != g.PreferredVersion {
			// Served only in another version: say which, as the link does.
			res.Group = display + "/" + r.Version
		}
		vg.Resources = append(vg.Resources, res)
	}
	return vg
}

// jump resolves a kubectl-style name to a list, keeping the namespace.
func (s *Server) jump(c echo.Context) error {
	client, err := s.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	d, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.QueryParam("q"))
	ns := c.QueryParam("namespace")
	if ns != "" && !apiclient.ValidPathSegment(ns) {
		ns = ""
	}
	matches := d.Resolve(q)
	u := page.URLsOf(ctx)
	if len(matches) == 1 {
		return c.Redirect(http.StatusSeeOther, string(u.Resource(matches[0], ns, "")))
	}
	p := views.JumpPage{
		Layout: s.env.ContextLayout(ctx, client, "Jump", nil, ns),
		Query:  q,
	}
	p.Layout.Jump.Query = q
	for _, r := range matches {
		p.Matches = append(p.Matches, views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Group:      kube.GroupLabel(r.Group) + "/" + r.Version,
			Href:       u.Resource(r, ns, ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
		})
	}
	status := http.StatusOK
	if len(matches) == 0 {
		status = http.StatusNotFound
	}
	return s.env.Render(c, status, views.Jump(p))
}

func (s *Server) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// readyz reports whether the current context's API server answers. It is
// for probes, which are not signed in: it pings /version with the console's
// own credentials (any answer short of a 5xx will do), says only "ok" or
// "not ready", and logs why. It says nothing of any user's access, and no
// page relies on it.
func (s *Server) readyz(c echo.Context) error {
	err := s.ping(c.Request().Context())
	if err != nil {
		s.log.Warn("not ready", "context", s.env.Clusters.Current(), "error", err)
		return c.String(http.StatusServiceUnavailable, "not ready")
	}
	return c.String(http.StatusOK, "ok")
}

func (s *Server) ping(ctx context.Context) error {
	// The console's own identity, for the probe alone: never a user's.
	client, err := s.env.Clusters.Client(s.env.Clusters.Current(), apiclient.Identity{})
	if err != nil {
		return err
	}
	return client.Ping(ctx)
}
