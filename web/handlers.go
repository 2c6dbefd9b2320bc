package web

import (
	"bytes"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

const ctxKeyContextName = "tabula.context"

// pathParam returns a route parameter decoded exactly once: echo routes on the
// escaped path when the URL has one, so names with "/" or ":" survive.
func pathParam(c echo.Context, name string) string {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v
	}
	if dec, err := url.PathUnescape(v); err == nil {
		return dec
	}
	return v
}

func contextHome(name string) string { return "/c/" + url.PathEscape(name) + "/" }

// requireContext resolves the {context} route parameter or fails with 404.
func (s *Server) requireContext(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := pathParam(c, "context")
		if _, err := s.clusters.Context(name); err != nil {
			return err
		}
		c.Set(ctxKeyContextName, name)
		return next(c)
	}
}

// client builds the upstream client for this request's identity and context.
func (s *Server) client(c echo.Context) (*apiclient.Client, error) {
	name, _ := c.Get(ctxKeyContextName).(string)
	return s.clusters.Client(name, identityOf(c))
}

// identityOf is who the request acts as upstream. Until sign-in exists every
// request uses the kubeconfig context's own identity; this is the one place
// that will change.
func identityOf(echo.Context) apiclient.Identity { return apiclient.Identity{} }

// render writes a component only after it rendered completely, so a failure
// never leaves half a page. Page buffers are reused: a list page is about
// 100 KB, and allocating it afresh per request feeds the collector.
func (s *Server) render(c echo.Context, status int, component templ.Component) error {
	buf := s.pages.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledPage {
			buf.Reset()
			s.pages.Put(buf)
		}
	}()
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// maxPooledPage is the largest page buffer kept for reuse.
const maxPooledPage = 4 << 20

func (s *Server) layout(c echo.Context, contextName, title string) views.Layout {
	l := views.Layout{
		Title:  title,
		Assets: views.Assets{CSS: s.assets.URL("app.css"), JS: s.assets.URL("app.js"), Live: s.assets.URL("live.js"), ImportMap: s.assets.ImportMap()},
	}
	if cookie, err := c.Cookie("tabula-theme"); err == nil {
		l.Theme = cookie.Value
	}
	if contextName == "" {
		return l
	}
	current, err := s.clusters.Context(contextName)
	if err != nil {
		return l
	}
	l.Context = views.ContextBar{Current: current.Name, Cluster: current.Cluster, Server: current.Server}
	for _, ctx := range s.clusters.Contexts() {
		l.Context.Options = append(l.Context.Options, views.ContextOption{
			Name:    ctx.Name,
			Cluster: ctx.Cluster,
			Href:    contextHome(ctx.Name),
			Current: ctx.Name == current.Name,
		})
	}
	return l
}

func (s *Server) root(c echo.Context) error {
	return c.Redirect(http.StatusFound, contextHome(s.clusters.Current()))
}

func (s *Server) contextRoot(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, contextHome(pathParam(c, "context")))
}

func (s *Server) home(c echo.Context) error {
	client, err := s.client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	disco, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	name := client.ContextName()
	page := views.HomePage{Layout: s.contextLayout(c, client, "API resources", nil, "")}
	if v, err := client.ServerVersion(ctx); err == nil {
		page.ServerVersion = v
	}
	for gv := range disco.Failed {
		page.Unavailable = append(page.Unavailable, gv)
	}
	sort.Strings(page.Unavailable)
	for _, g := range disco.Groups {
		page.Groups = append(page.Groups, groupView(name, g))
	}
	return s.render(c, http.StatusOK, views.Home(page))
}

func groupView(contextName string, g apiclient.Group) views.APIGroup {
	display := groupLabel(g.Name)
	vg := views.APIGroup{
		Anchor:   "group-" + strings.ReplaceAll(display, ".", "-"),
		Name:     display,
		Version:  g.PreferredVersion,
		Versions: g.Versions,
	}
	for _, r := range g.Resources {
		vg.Resources = append(vg.Resources, views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Href:       consolePath(contextName, r, "", ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
			Search:     strings.ToLower(strings.Join(append([]string{r.Name, r.Kind, r.SingularName, display}, r.ShortNames...), " ")),
		})
	}
	return vg
}

func (s *Server) notBuilt(c echo.Context) error {
	name, _ := c.Get(ctxKeyContextName).(string)
	prefix := "/c/" + url.PathEscape(name)
	apiPath := strings.TrimPrefix(c.Request().URL.EscapedPath(), prefix)
	page := views.NotBuiltPage{
		Layout:   s.layout(c, name, "Not built yet"),
		APIPath:  apiPath,
		HomeHref: contextHome(name),
	}
	return s.render(c, http.StatusNotImplemented, views.NotBuilt(page))
}

func (s *Server) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// readyz reports whether the current context's API server answers.
func (s *Server) readyz(c echo.Context) error {
	client, err := s.clusters.Client(s.clusters.Current(), apiclient.Identity{})
	if err != nil {
		return c.String(http.StatusServiceUnavailable, err.Error())
	}
	if err := client.Ping(c.Request().Context()); err != nil {
		return c.String(http.StatusServiceUnavailable, err.Error())
	}
	return c.String(http.StatusOK, "ok")
}
