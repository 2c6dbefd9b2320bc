package fleet

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// sectionRows is how many rows a cluster's section shows; the rest are a
// link to the cluster's own list, which pages on.
const sectionRows = 100

// List serves a list URL over fleet contexts (/c/_all/apis/apps/v1/
// deployments?labelSelector=app=web): one section per cluster in the order
// they answer, each in the cluster's own Table columns, its first page, and
// live rows from the cluster's own list stream. A cluster that does not
// serve the resource, refuses or does not answer within its deadline says
// so in its section, and holds up no other.
func (h *Handler) List(c echo.Context, p page.APIPath) error {
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	names := page.FleetOf(ctx)
	if p.Name != "" || p.Subresource != "" || c.Request().Method != http.MethodGet || streaming.IsUpgrade(c.Request()) {
		return echo.NewHTTPError(http.StatusBadRequest, "Over several contexts, only lists are shown: open an object in its own context.")
	}
	clients, left, err := h.env.FleetClients(c, names)
	if err != nil {
		return err
	}
	query := url.Values{}
	for _, k := range []string{"labelSelector", "fieldSelector"} {
		if v := c.QueryParam(k); v != "" {
			query.Set(k, v)
		}
	}
	what := p.Resource
	if p.Group != "" {
		what += "." + p.Group
	}
	lp := views.FleetListPage{Layout: h.env.Layout(ctx, u, what), Title: what + " in " + page.FleetLabel(u.ContextName()),
		Selectors: strings.TrimSpace(query.Get("labelSelector") + " " + query.Get("fieldSelector"))}
	lp.Sections = func(yield func(views.FleetListSection) bool) {
		out := make(chan views.FleetListSection, len(names))
		for name, why := range left {
			out <- views.FleetListSection{Context: name, Href: u.In(name).Home(), Error: "Does not take part: " + errorText(why)}
		}
		go func() {
			streaming.FanOut(ctx, clients, len(clients), h.perCluster, func(ctx context.Context, client *apiclient.Client) {
				out <- h.section(ctx, u.In(client.ContextName()), client, p, query)
			}, func(client *apiclient.Client) {
				out <- views.FleetListSection{Context: client.ContextName(), Href: u.In(client.ContextName()).Home(), Error: "Not asked: the page's time ran out."}
			})
			close(out)
		}()
		for s := range out {
			if !yield(s) {
				// The browser went away: the rest end with the request.
				go func() {
					for range out {
					}
				}()
				return
			}
		}
	}
	return h.env.Stream(c, http.StatusOK, views.FleetList(lp))
}

// section asks one cluster for the list's first page.
func (h *Handler) section(ctx context.Context, u page.URLs, client *apiclient.Client, p page.APIPath, query url.Values) views.FleetListSection {
	s := views.FleetListSection{Context: client.ContextName(), Href: u.Home()}
	r, err := client.Resource(ctx, p.Group, p.Version, p.Resource)
	if err != nil {
		s.Error = unreachable(ctx, err, h.perCluster)
		return s
	}
	s.Href = page.WithQuery(u.Resource(r, p.Namespace, ""), query)
	opts := apiclient.ListOptions{Namespace: p.Namespace, LabelSelector: query.Get("labelSelector"), FieldSelector: query.Get("fieldSelector"), Limit: sectionRows}
	if p.Namespace == "" && r.Namespaced {
		// The rows' namespaces, for their links.
		opts.IncludeObject = apiclient.IncludeMetadata
	}
	t, err := client.ListTable(ctx, r, opts)
	if err != nil {
		s.Error = unreachable(ctx, err, h.perCluster)
		return s
	}
	v := kube.NewListView(kube.ListTable{URLs: u, Resource: r, Namespace: p.Namespace, Table: t})
	s.Served, s.Columns, s.Rows = string(t.Served), v.Columns, views.StaticRows(v.Rows(t.Rows))
	s.Live, s.ResourceVersion = r.Can("watch"), t.ResourceVersion
	if t.Continue != "" {
		next := url.Values{"continue": {t.Continue}}
		for k, vs := range query {
			next[k] = vs
		}
		s.NextHref = page.WithQuery(u.Resource(r, p.Namespace, ""), next)
	}
	return s
}
