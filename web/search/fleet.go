package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// fleet serves /c/_all/search and /c/a,b/search: the query run in every
// cluster at once, each as the user's identity there and within the
// budget's Total, written a cluster at a time as each finishes, its kinds
// in it.
func (h *Handler) fleet(c echo.Context, names []string) error {
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	text := c.QueryParam("q")
	picker := c.QueryParam("namespace")
	if len(validation.IsDNS1123Label(picker)) > 0 {
		picker = ""
	}
	p := views.FleetSearchPage{Layout: h.env.Layout(ctx, u, "Search"), Scope: "in " + page.FleetLabel(u.ContextName()),
		Form: views.SearchForm{Action: u.Path("/search"), Query: text, Namespace: picker}}
	q, err := ParseQuery(text)
	var qe *QueryError
	switch {
	case errors.As(err, &qe):
		p.Error = qe.Reason
		return h.env.Render(c, http.StatusBadRequest, views.FleetSearch(p))
	case err != nil:
		return err
	case q.Empty():
		return h.env.Render(c, http.StatusOK, views.FleetSearch(p))
	}
	clients, left, err := h.env.FleetClients(c, names)
	if err != nil {
		return err
	}
	same := url.Values{"q": {text}}
	if picker != "" {
		same.Set("namespace", picker)
	}
	index := map[string]int{}
	for i, name := range names {
		index[name] = i
	}
	p.Sections = func(yield func(views.FleetSearchSection) bool) {
		for name, why := range left {
			if !yield(views.FleetSearchSection{Context: name, Href: u.In(name).Home(), Error: "Does not take part: " + page.Classify(why).Message}) {
				return
			}
		}
		for s := range streaming.Answers(ctx, clients, len(clients), h.budget.Total, func(ctx context.Context, client *apiclient.Client) views.FleetSearchSection {
			cu := u.In(client.ContextName())
			s := views.FleetSearchSection{Context: client.ContextName(), Href: page.WithQuery(cu.Path("/search"), same)}
			if err := h.clusterSearch(ctx, cu, client, q, picker, fmt.Sprintf("c%d-", index[client.ContextName()]), &s); err != nil {
				s.Error = page.Classify(err).Message
			}
			return s
		}, func(client *apiclient.Client) views.FleetSearchSection {
			return views.FleetSearchSection{Context: client.ContextName(), Href: u.In(client.ContextName()).Home(), Error: "Not asked: the page's time ran out."}
		}) {
			if !yield(s) {
				return
			}
		}
	}
	return h.env.Stream(c, http.StatusOK, views.FleetSearch(p))
}

// clusterSearch runs the query in one cluster, as its own page would, and
// keeps all its groups and its summary in s.
func (h *Handler) clusterSearch(ctx context.Context, u page.URLs, client *apiclient.Client, q Query, picker, idPrefix string, s *views.FleetSearchSection) error {
	ns := scope(q, picker)
	plan, err := h.plan(ctx, client, q, ns)
	if err != nil {
		return err
	}
	l := links{urls: u, query: q, namespace: picker, budget: h.budget, single: len(plan.Kinds) == 1}
	r := h.start(ctx, client, q, ns, plan, l)
	for batch := range r.groups {
		for _, g := range batch {
			g.IDPrefix = idPrefix
			s.Groups = append(s.Groups, g)
		}
	}
	s.Summary = r.summary()
	s.Summary.IDPrefix = idPrefix
	return nil
}
