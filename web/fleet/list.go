package fleet

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
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
	// Each section pages on its own: continue.{context} is where it is.
	fleetQuery := url.Values{}
	for k, vs := range c.QueryParams() {
		if k == "labelSelector" || k == "fieldSelector" || strings.HasPrefix(k, continuePrefix) {
			fleetQuery[k] = vs
		}
	}
	here := u.Resource(apiclient.Resource{Group: p.Group, Version: p.Version, Name: p.Resource, Namespaced: p.Namespace != ""}, p.Namespace, "")
	what := p.Resource
	if p.Group != "" {
		what += "." + p.Group
	}
	lp := views.FleetListPage{Layout: h.env.Layout(ctx, u, what), Title: what + " in " + page.FleetLabel(u.ContextName()),
		Selectors: strings.TrimSpace(query.Get("labelSelector") + " " + query.Get("fieldSelector"))}
	// sections asks every cluster, handing each section on as it answers.
	sections := func(yield func(clusterSection) bool) {
		for name, why := range left {
			if !yield(clusterSection{FleetListSection: views.FleetListSection{Context: name, Href: u.In(name).Home(), Error: "Does not take part: " + errorText(why)}}) {
				return
			}
		}
		paging := sectionPaging{here: here, query: fleetQuery}
		for s := range streaming.Answers(ctx, clients, len(clients), h.perCluster, func(ctx context.Context, client *apiclient.Client) clusterSection {
			return h.section(ctx, u.In(client.ContextName()), client, p, query, paging)
		}, func(client *apiclient.Client) clusterSection {
			return clusterSection{FleetListSection: views.FleetListSection{Context: client.ContextName(), Href: u.In(client.ContextName()).Home(), Error: "Not asked: the page's time ran out."}}
		}) {
			if !yield(s) {
				return
			}
		}
	}
	merge := c.QueryParam("merge") == "1"
	toggle := url.Values{}
	for k, vs := range query {
		toggle[k] = vs
	}
	lp.MergeLabel = "Show as one table, with a Cluster column"
	if merge {
		lp.MergeLabel = "Show a section per cluster, live"
	} else {
		toggle.Set("merge", "1")
	}
	lp.MergeHref = page.WithQuery(here, toggle)
	if merge {
		var all []clusterSection
		for s := range sections {
			all = append(all, s)
		}
		sortSections(all, names)
		if m, ok := merged(all); ok {
			lp.Merged = m
		} else {
			lp.MergeNote = "The clusters answer in different columns (different versions, or no Table): they are shown a section each."
			lp.Sections = func(yield func(views.FleetListSection) bool) {
				for _, s := range all {
					if !yield(s.FleetListSection) {
						return
					}
				}
			}
		}
	} else {
		lp.Sections = func(yield func(views.FleetListSection) bool) {
			for s := range sections {
				if !yield(s.FleetListSection) {
					return
				}
			}
		}
	}
	return h.env.Stream(c, http.StatusOK, views.FleetList(lp))
}

// clusterSection is a cluster's section, with its rows for a merged table.
type clusterSection struct {
	views.FleetListSection
	rows []views.ListRow
}

// continuePrefix names a section's place in a fleet list's URL:
// continue.{context}.
const continuePrefix = "continue."

// sectionPaging is where a fleet list is (its URL and query), for each
// section's links to its next and first pages.
type sectionPaging struct {
	here  templ.SafeURL
	query url.Values
}

// with is the fleet list's URL with the context's place set to cont ("":
// its first page).
func (sp sectionPaging) with(context, cont string) templ.SafeURL {
	q := url.Values{}
	for k, vs := range sp.query {
		q[k] = vs
	}
	q.Del(continuePrefix + context)
	if cont != "" {
		q.Set(continuePrefix+context, cont)
	}
	return page.WithQuery(sp.here, q)
}

// section asks one cluster for its page of the list: the first, or where
// the URL's continue.{context} says.
func (h *Handler) section(ctx context.Context, u page.URLs, client *apiclient.Client, p page.APIPath, query url.Values, sp sectionPaging) clusterSection {
	var cs clusterSection
	s := &cs.FleetListSection
	s.Context, s.Href = client.ContextName(), u.Home()
	r, err := client.Resource(ctx, p.Group, p.Version, p.Resource)
	if err != nil {
		s.Error = unreachable(ctx, err, h.perCluster)
		return cs
	}
	s.Href = page.WithQuery(u.Resource(r, p.Namespace, ""), query)
	cont := sp.query.Get(continuePrefix + s.Context)
	opts := apiclient.ListOptions{Namespace: p.Namespace, LabelSelector: query.Get("labelSelector"), FieldSelector: query.Get("fieldSelector"), Limit: sectionRows, Continue: cont}
	if cont != "" {
		s.FirstHref = sp.with(s.Context, "")
	}
	if p.Namespace == "" && r.Namespaced {
		// The rows' namespaces, for their links.
		opts.IncludeObject = apiclient.IncludeMetadata
	}
	t, err := client.ListTable(ctx, r, opts)
	if err != nil {
		s.Error = unreachable(ctx, err, h.perCluster)
		return cs
	}
	v := kube.NewListView(kube.ListTable{URLs: u, Resource: r, Namespace: p.Namespace, Table: t})
	cs.rows = v.Rows(t.Rows)
	s.Served, s.Columns, s.Rows = string(t.Served), v.Columns, views.StaticRows(cs.rows)
	s.Live, s.ResourceVersion = r.Can("watch"), t.ResourceVersion
	if t.Continue != "" {
		s.NextHref = sp.with(s.Context, t.Continue)
	}
	return cs
}

// merged is every cluster's rows in one table with a Cluster column, if
// the clusters that answered agree on their columns.
func merged(all []clusterSection) (*views.FleetMerged, bool) {
	m := &views.FleetMerged{}
	var columns []views.ListColumn
	var rows []views.ListRow
	for _, s := range all {
		if s.Error != "" {
			m.Errors = append(m.Errors, s.FleetListSection)
			continue
		}
		if columns == nil {
			columns = s.Columns
		} else if !slices.EqualFunc(columns, s.Columns, func(a, b views.ListColumn) bool {
			return a.Name == b.Name && a.Numeric == b.Numeric && a.NameColumn == b.NameColumn
		}) {
			return nil, false
		}
		for _, r := range s.rows {
			r.Key = s.Context + "/" + r.Key
			r.Cells = append([]views.Cell{{Text: s.Context, Href: s.Href}}, r.Cells...)
			rows = append(rows, r)
		}
	}
	m.Columns = append([]views.ListColumn{{Name: "Cluster", Description: "The context the row comes from"}}, columns...)
	m.Rows = views.StaticRows(rows)
	return m, true
}

// sortSections puts sections in the URL's order of contexts.
func sortSections(all []clusterSection, names []string) {
	slices.SortStableFunc(all, func(a, b clusterSection) int {
		return slices.Index(names, a.Context) - slices.Index(names, b.Context)
	})
}
