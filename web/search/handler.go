// Package search serves the search page: every kind the user may list,
// read now from the server with the query's selectors, filtered by name as
// the rows are decoded, within a stated budget, and written to the page
// kind by kind as each answers.
package search

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves the search page.
type Handler struct {
	env     *page.Env
	budget  Budget
	flights flights
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
	if names := page.FleetOf(c.Request().Context()); names != nil {
		return h.fleet(c, names)
	}
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	text := c.QueryParam("q")
	picker := c.QueryParam("namespace")
	if len(validation.IsDNS1123Label(picker)) > 0 {
		picker = "" // not a namespace: all of them, as the page says
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
	p.Plan = planView(l, plan, ns)
	r := h.start(ctx, client, q, ns, plan, l)
	p.Groups, p.Summary = r.groups, r.summary
	return h.env.Stream(c, http.StatusOK, views.Search(p))
}

// planView is what the page says it will ask.
func planView(l links, plan Plan, ns string) views.SearchPlan {
	v := views.SearchPlan{Scope: scopeText(ns), Kinds: len(plan.Kinds), Budget: budgetText(l.budget), OutOfScope: plan.OutOfScope}
	if plan.OutOfScope > 0 {
		wider := l.query
		wider.Namespace = AllNamespaces
		v.WiderHref = l.search(wider.textWith(wider.Kinds))
	}
	return v
}

// start readies the search the page runs as it ranges over its groups.
func (h *Handler) start(ctx context.Context, client *apiclient.Client, q Query, ns string, plan Plan, l links) *results {
	s := &searcher{
		client: client,
		permits: func(ctx context.Context, check apiclient.AccessCheck) kube.Permits {
			return h.env.Permits(ctx, client, []apiclient.AccessCheck{check})
		},
		query:  q,
		budget: h.budget,
		shown:  h.budget.Shown,
		now:    time.Now(),
	}
	if l.single {
		s.shown = h.budget.ShownOne
	}
	return &results{
		links: l, plan: plan, ctx: ctx, now: s.now,
		key: runKey(client, ns, q), flights: &h.flights, total: h.budget.Total,
		run: func(ctx context.Context, out chan<- outcome) { s.run(ctx, plan.Kinds, out) },
	}
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

// runKey names a search for sharing: the identity and context it acts as
// and everything its run depends on.
func runKey(client *apiclient.Client, ns string, q Query) string {
	return strings.Join([]string{client.IdentityKey(), client.ContextName(), ns, q.textWith(q.Kinds)}, "\x00")
}

// results runs a search as the page ranges over its groups, or joins the
// identical one already running for the same identity.
type results struct {
	links   links
	plan    Plan
	ctx     context.Context
	now     time.Time
	key     string
	flights *flights
	total   time.Duration
	run     func(context.Context, chan<- outcome)

	tally tally
	took  time.Duration
	// joined is how long before this search the run it shared began.
	joined *time.Duration
}

// groups yields the kinds with matches as they finish: all those finished
// by then in one batch, so the page is flushed only before it would wait
// (a browser lays out a long streamed page once per flush, not once per
// kind). Should the page stop (the browser went away), it leaves the run,
// which stops when no search shares it any more.
func (r *results) groups(yield func([]views.SearchGroup) bool) {
	start := time.Now()
	f, shared := r.flights.join(r.ctx, r.key, r.total, r.run)
	defer r.flights.leave(r.key, f)
	if shared {
		ago := start.Sub(f.started)
		r.joined = &ago
	}
	first := true
	var batch []views.SearchGroup
	for i := 0; ; i++ {
		o, ok := f.next(r.ctx, i)
		if !ok {
			break
		}
		r.tally.add(o)
		if o.Matches > 0 {
			batch = append(batch, r.links.groupView(o, first, r.now))
			first = false
		}
		if len(batch) > 0 && !f.ready(i+1) {
			more := yield(batch)
			batch = nil
			if !more {
				break
			}
		}
	}
	if len(batch) > 0 { // the run ended with these (ready is true once done)
		yield(batch)
	}
	r.took = time.Since(start)
}

func (r *results) summary() views.SearchSummary {
	s := r.links.summaryView(r.tally, r.plan, r.took)
	if r.joined != nil {
		s.Shared = true
		s.Cost = fmt.Sprintf("This search shared the run of an identical one of yours that began %s before it: its requests were made once, for both. ", elapsedText(*r.joined)) + s.Cost
	}
	return s
}
