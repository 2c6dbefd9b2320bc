package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
)

// resource serves every /c/{context}/api/... and /apis/... page: lists and
// object pages, for any resource discovery knows.
func (s *Server) resource(c echo.Context) error {
	name, _ := c.Get(ctxKeyContextName).(string)
	rest := strings.TrimPrefix(c.Request().URL.EscapedPath(), "/c/"+url.PathEscape(name))
	p, err := parseAPIPath(rest)
	if err != nil {
		return err
	}
	client, err := s.client(c)
	if err != nil {
		return err
	}
	r, err := client.Resource(c.Request().Context(), p.Group, p.Version, p.Resource)
	if err != nil {
		return err
	}
	if p.Namespace != "" && !r.Namespaced {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s is cluster-scoped and has no namespace %q", r.Name, p.Namespace))
	}
	live := streaming.IsUpgrade(c.Request())
	switch {
	case p.Name == "" && live:
		return s.liveList(c, client, r, p)
	case p.Name == "":
		return s.list(c, client, r, p)
	case p.Subresource == "" && live:
		return s.liveObject(c, client, r, p)
	case p.Subresource == "":
		return s.object(c, client, r, p)
	case p.Subresource == "log":
		return s.logs(c, client, r, p)
	default:
		return s.notBuilt(c)
	}
}

// jump resolves a kubectl-style name to a list, keeping the namespace.
func (s *Server) jump(c echo.Context) error {
	client, err := s.client(c)
	if err != nil {
		return err
	}
	d, err := client.Discovery(c.Request().Context())
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.QueryParam("q"))
	ns := c.QueryParam("namespace")
	matches := d.Resolve(q)
	if len(matches) == 1 {
		return c.Redirect(http.StatusSeeOther, consolePath(client.ContextName(), matches[0], ns, ""))
	}
	page := views.JumpPage{
		Layout: s.contextLayout(c, client, "Jump", nil, ns),
		Query:  q,
	}
	page.Layout.Jump.Query = q
	for _, r := range matches {
		page.Matches = append(page.Matches, views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Group:      groupLabel(r.Group) + "/" + r.Version,
			Href:       consolePath(client.ContextName(), r, ns, ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
		})
	}
	status := http.StatusOK
	if len(matches) == 0 {
		status = http.StatusNotFound
	}
	return s.render(c, status, views.Jump(page))
}

// namespace is the namespace picker's form target: it redirects to the same
// list in the chosen namespace ("" for all), carrying the filters over.
func (s *Server) namespace(c echo.Context) error {
	client, err := s.client(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	r, err := client.Resource(c.Request().Context(), q.Get("group"), q.Get("version"), q.Get("resource"))
	if err != nil {
		return err
	}
	lq, err := parseListQuery(q)
	if err != nil {
		return err
	}
	target := consolePath(client.ContextName(), r, strings.TrimSpace(q.Get("namespace")), "")
	return c.Redirect(http.StatusSeeOther, withQuery(target, lq.firstPage().values()))
}

// actionError says what the user tried when the server refused, so a 403 can
// name the verb and resource and a 404 can offer the list.
type actionError struct {
	Verb      string
	Resource  apiclient.Resource
	Namespace string
	ListHref  string
	err       error
}

func (e *actionError) Error() string { return e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

func withAction(err error, verb string, r apiclient.Resource, namespace, listHref string) error {
	if err == nil {
		return nil
	}
	return &actionError{Verb: verb, Resource: r, Namespace: namespace, ListHref: listHref, err: err}
}

func (e *actionError) describe() string {
	what := e.Resource.Name
	if e.Resource.Group != "" {
		what += "." + e.Resource.Group
	}
	s := fmt.Sprintf("You may not %s %s", e.Verb, what)
	switch {
	case e.Namespace != "":
		s += " in namespace " + e.Namespace
	case e.Resource.Namespaced:
		s += " across all namespaces"
	}
	return s + "."
}
