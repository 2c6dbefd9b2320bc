// Package search serves the search page: every kind the user may list,
// read now from the server with the query's selectors, filtered by name as
// the rows are decoded, within a stated budget, and written to the page
// kind by kind as each answers.
package search

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves the search page.
type Handler struct {
	env    *page.Env
	budget Budget
}

// New builds the search feature with a budget (DefaultBudget for the
// console's).
func New(env *page.Env, budget Budget) *Handler {
	return &Handler{env: env, budget: budget}
}

// Page serves /c/{context}/search?q=…&namespace=…: the form alone for no
// query, a 400 that keeps the text for one it cannot run, else the search,
// streamed.
func (h *Handler) Page(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	text := c.QueryParam("q")
	picker := c.QueryParam("namespace")
	if !apiclient.ValidPathSegment(picker) {
		picker = ""
	}
	p := views.SearchPage{Form: views.SearchForm{Action: u.Path("/search"), Query: text, Namespace: picker}}
	q, err := ParseQuery(text)
	var plan Plan
	ns := picker
	if err == nil && !q.Empty() {
		ns = scope(q, picker)
		plan, err = h.plan(ctx, client, q, ns)
	}
	title := "Search"
	if text != "" && len(text) <= 80 {
		title = "Search “" + text + "”"
	}
	p.Layout = h.env.ContextLayout(ctx, client, title, nil, ns)
	var qe *QueryError
	switch {
	case errors.As(err, &qe):
		p.Error = qe.Reason
		return h.env.Render(c, http.StatusBadRequest, views.Search(p))
	case err != nil:
		return err
	case q.Empty():
		return h.env.Render(c, http.StatusOK, views.Search(p))
	}
	p.Running = true
	l := links{urls: u, query: q, namespace: picker, budget: h.budget, single: len(plan.Kinds) == 1}
	p.Plan = views.SearchPlan{Scope: scopeText(ns), Kinds: len(plan.Kinds), Budget: budgetText(h.budget), OutOfScope: plan.OutOfScope}
	if plan.OutOfScope > 0 {
		wider := q
		wider.Namespace = AllNamespaces
		p.Plan.WiderHref = l.search(wider.textWith(q.Kinds))
	}
	s := &searcher{
		client: client,
		denied: func(ctx context.Context, check apiclient.AccessCheck) string {
			return h.env.Permits(ctx, client, []apiclient.AccessCheck{check}).Denied(check)
		},
		query:  q,
		budget: h.budget,
		shown:  h.budget.Shown,
	}
	if l.single {
		s.shown = h.budget.ShownOne
	}
	r := &results{searcher: s, links: l, plan: plan, ctx: ctx, now: time.Now()}
	p.Groups, p.Summary = r.groups, r.summary
	return h.env.Stream(c, http.StatusOK, views.Search(p))
}

// plan is what a query will ask: discovery's kinds, decided against the
// user's rules in the scope.
func (h *Handler) plan(ctx context.Context, client *apiclient.Client, q Query, ns string) (Plan, error) {
	d, err := client.Discovery(ctx)
	if err != nil {
		return Plan{}, err
	}
	return MakePlan(d, q, ns, h.env.Rules(ctx, client, ns))
}

// scope is the namespace a query searches ("" for all): its ns: term, or
// the picker's.
func scope(q Query, picker string) string {
	switch q.Namespace {
	case "":
		return picker
	case AllNamespaces:
		return ""
	}
	return q.Namespace
}

func scopeText(ns string) string {
	if ns == "" {
		return "all namespaces"
	}
	return "namespace " + ns
}

// results runs a search as the page ranges over its groups.
type results struct {
	*searcher
	links links
	plan  Plan
	ctx   context.Context
	now   time.Time
	tally tally
	took  time.Duration
}

// groups runs the search, yielding each kind with matches as it finishes.
// Should the page stop (the browser went away), the rest is cancelled and
// drained, so no goroutine outlives the page.
func (r *results) groups(yield func(views.SearchGroup) bool) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.ctx, r.budget.Total)
	defer cancel()
	out := make(chan outcome)
	go r.run(ctx, r.plan.Kinds, out)
	first, stopped := true, false
	shown := map[types.UID]string{} // the group each shown object is in
	for o := range out {
		r.tally.add(o)
		if stopped || o.Matches == 0 {
			continue
		}
		g := r.links.groupView(o, first, r.now)
		if same := sameObjects(o, shown); same != "" {
			// One object served by two APIs (core and events.k8s.io
			// Events): its UID says so, whatever the kinds.
			g.Rows, g.SameAs, g.MoreHref = nil, same, ""
			r.tally.duplicates += o.Matches
		} else {
			for _, m := range o.Rows {
				if m.UID != "" {
					shown[m.UID] = g.Kind + " (" + g.Resource + ")"
				}
			}
		}
		if !yield(g) {
			stopped = true
			cancel()
		}
		first = first && g.SameAs != ""
	}
	r.took = time.Since(start)
}

// sameObjects names the group that already shows every object o matched,
// if one does.
func sameObjects(o outcome, shown map[types.UID]string) string {
	if len(o.Rows) != o.Matches {
		return ""
	}
	same := ""
	for _, m := range o.Rows {
		g, ok := shown[m.UID]
		if m.UID == "" || !ok || same != "" && g != same {
			return ""
		}
		same = g
	}
	return same
}

func (r *results) summary() views.SearchSummary {
	return r.links.summaryView(r.tally, r.plan, r.took)
}
