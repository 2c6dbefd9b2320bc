package problems

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves the Problems page, its live stream, and the home page's
// health.
type Handler struct {
	env    *page.Env
	budget Budget
}

// New builds the feature with a budget (DefaultBudget for the console's).
func New(env *page.Env, budget Budget) *Handler { return &Handler{env: env, budget: budget} }

// afters are the thresholds the form offers; five minutes is the default:
// longer than a rollout of a few pods, short enough for an incident.
var afters = []string{"0s", "1m", "5m", "15m", "1h"}

const defaultAfter = "5m"

// maxAfter bounds ?after=: past a day, "in progress" is the object's state,
// not a rollout's.
const maxAfter = 24 * time.Hour

// query is what a Problems URL asks.
type query struct {
	namespace string
	after     time.Duration
	afterText string
}

// parse reads ?namespace= (or ?ns=) and ?after=; the error says why it
// cannot be used, for a 400 that keeps the form.
func parse(c echo.Context) (query, string) {
	q := query{namespace: cmp.Or(c.QueryParam("namespace"), c.QueryParam("ns")), afterText: cmp.Or(c.QueryParam("after"), defaultAfter)}
	if q.namespace != "" {
		if problem := kube.NamespaceProblem(q.namespace); problem != "" {
			return q, problem + "."
		}
	}
	after, err := time.ParseDuration(q.afterText)
	if err != nil || after < 0 || after > maxAfter {
		return q, fmt.Sprintf("%q is not a threshold: give a duration such as 1m, 5m or 1h, at most 24h.", truncate(q.afterText, 80))
	}
	q.after = after
	return q, ""
}

// Serve is /c/{context}/problems: the page, bounded by the page deadline,
// or its live stream over a WebSocket.
func (h *Handler) Serve(c echo.Context) error {
	if streaming.IsUpgrade(c.Request()) {
		return h.live(c)
	}
	return h.env.Bounded(h.page)(c)
}

func (h *Handler) page(c echo.Context) error {
	if names := page.FleetOf(c.Request().Context()); names != nil {
		return h.fleet(c, names)
	}
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	q, problem := parse(c)
	p := views.ProblemsPage{Form: views.ProblemsForm{Action: u.Path("/problems"), Namespace: q.namespace, After: q.afterText, Afters: aftersWith(q.afterText)}}
	p.Layout = h.env.ContextLayout(ctx, client, "Problems", nil, q.namespace)
	if problem != "" {
		p.Error = problem
		return h.env.Render(c, http.StatusBadRequest, views.Problems(p))
	}
	d, err := client.FreshDiscovery(ctx)
	if err != nil {
		return err
	}
	bd := newBoard(q.after, h.budget.Tracked, h.budget.Tracked)
	res := scan(ctx, client, d, q.namespace, bd, h.budget)
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	p.Live = true
	p.Report = model(u, d, q, bd.report(now, h.budget.Shown), res, nil, now, "")
	return h.env.Render(c, http.StatusOK, views.Problems(p))
}

// Health is the home page's health: the server's version, its nodes, and
// the cluster's Problems counts, at the default threshold.
func (h *Handler) Health(ctx context.Context, client *apiclient.Client, d *apiclient.Discovery) views.HomeHealth {
	u := page.URLsOf(ctx).In(client.ContextName())
	hh := views.HomeHealth{ProblemsHref: u.Path("/problems")}
	if v, err := client.ServerVersion(ctx); err == nil {
		hh.ServerVersion = v
	}
	after, _ := time.ParseDuration(defaultAfter)
	bd := newBoard(after, h.budget.Tracked, h.budget.Tracked)
	res := scan(ctx, client, d, "", bd, h.budget)
	rep := bd.report(time.Now(), 0)
	hh.Counts = counts(u, rep, url.Values{}, "")
	if res.NodesRead {
		hh.Nodes = fmt.Sprintf("%d of %d ready", res.NodesReady, res.Nodes)
		hh.NodesOK = res.NodesReady == res.Nodes
	}
	var notes []string
	if len(res.Skipped) > 0 {
		notes = append(notes, fmt.Sprintf("%d %s not counted (see Problems).", len(res.Skipped), pluralInt(len(res.Skipped), "kind", "kinds")))
	}
	if res.EventsNote != "" {
		notes = append(notes, res.EventsNote)
	}
	hh.Note = strings.Join(notes, " ")
	return hh
}

// categoryIDs name the categories in URLs and tests, labels on the page.
var (
	categoryIDs    = [categories]string{Failed: "failed", Stuck: "stuck", Pods: "pods", Warnings: "warnings"}
	categoryLabels = [categories]string{Failed: "failed", Stuck: "stuck", Pods: "pods in trouble", Warnings: "warning groups"}
)

// counts link each category's count to its section: on the page itself
// with idPrefix (where several reports share a page), or on u's page.
func counts(u page.URLs, rep Report, v url.Values, idPrefix string) []views.ProblemCount {
	out := make([]views.ProblemCount, 0, categories)
	href := page.WithQuery(u.Path("/problems"), v)
	if idPrefix != "" {
		href = ""
	}
	for c := range categories {
		out = append(out, views.ProblemCount{ID: categoryIDs[c], Label: categoryLabels[c], N: rep.Counts[c], Href: href + "#" + templ.SafeURL(idPrefix+categoryIDs[c])})
	}
	return out
}

// model is the page's live part; idPrefix keeps its ids apart from other
// reports' on the same page.
func model(u page.URLs, d *apiclient.Discovery, q query, rep Report, res Result, notLive []Skipped, now time.Time, idPrefix string) views.ProblemsReport {
	r := views.ProblemsReport{Scope: "in the cluster", IDPrefix: idPrefix}
	v := url.Values{"after": {q.afterText}}
	if q.namespace != "" {
		r.Scope = "in namespace " + q.namespace
		v.Set("namespace", q.namespace)
	}
	r.Counts = counts(u, rep, v, idPrefix)
	sections := []struct {
		c                 Category
		title, help, none string
	}{
		{Failed, "Failed", "Objects whose status says they failed (kstatus: Stalled, a Deployment past its progress deadline, a failed Job).", "Nothing has failed."},
		{Stuck, "Stuck", "Objects in progress, or being deleted, for over " + q.afterText + ": a Ready or Available condition that stays False, a generation not yet observed, finalizers that do not finish.", "Nothing is stuck."},
		{Pods, "Pods in trouble", "Pods crash-looping, failing to pull or start, OOM-killed, restarted in the last 15 minutes, failed, or not ready for over " + q.afterText + ".", "Every pod is running or done."},
	}
	for _, s := range sections {
		sec := views.ProblemSection{ID: categoryIDs[s.c], Title: s.title, Help: s.help, Empty: s.none, Total: rep.Counts[s.c], Pods: s.c == Pods}
		for _, p := range rep.Problems[s.c] {
			row := views.ProblemRow{Kind: p.Resource.Kind, Namespace: p.Namespace, Name: p.Name, Href: u.Resource(p.Resource, p.Namespace, p.Name),
				Reason: p.Reason, Message: p.Message, Container: p.Container}
			if s.c == Pods {
				row.Restarts = strconv.FormatInt(p.Restarts, 10)
			}
			if !p.Since.IsZero() {
				row.Age, row.Time = duration.HumanDuration(now.Sub(p.Since))+" ago", p.Since.UTC().Format(time.RFC3339)
			}
			sec.Rows = append(sec.Rows, row)
		}
		sec.More = sec.Total - len(sec.Rows)
		r.Sections = append(r.Sections, sec)
	}
	r.Warnings = views.WarningsSection{Total: rep.Counts[Warnings], Note: res.EventsNote}
	for _, g := range rep.Warnings {
		row := views.WarningRow{Kind: g.Regarding.Kind, Namespace: g.Regarding.Namespace, Name: g.Regarding.Name, Reason: g.Reason, Message: g.Message, Count: g.Count}
		if res, ok := d.ForKind(g.Regarding.APIVersion, g.Regarding.Kind); ok && apiclient.ValidPathSegment(g.Regarding.Name) {
			row.Href = u.Resource(res, g.Regarding.Namespace, g.Regarding.Name)
		}
		if !g.First.IsZero() {
			row.FirstAge, row.FirstTime = duration.HumanDuration(now.Sub(g.First))+" ago", g.First.UTC().Format(time.RFC3339)
		}
		if !g.Last.IsZero() {
			row.LastAge, row.LastTime = duration.HumanDuration(now.Sub(g.Last))+" ago", g.Last.UTC().Format(time.RFC3339)
		}
		r.Warnings.Rows = append(r.Warnings.Rows, row)
	}
	r.Warnings.More = r.Warnings.Total - len(r.Warnings.Rows)
	r.Cost = fmt.Sprintf("%d %s asked in %d %s, %d %s read, %s s. Kinds asked: pods, kubectl's \"all\" category, and kinds with a status whose schema declares conditions or a template.",
		len(res.Asked), pluralInt(len(res.Asked), "kind", "kinds"), res.Requests, pluralInt(res.Requests, "request", "requests"),
		res.Objects, pluralInt(res.Objects, "object", "objects"), strconv.FormatFloat(res.Elapsed.Seconds(), 'f', 2, 64))
	if rep.Lost > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("The page keeps %d problems: %d more were not kept, so the counts are low. Choose a namespace.", rep.Limit, rep.Lost))
	}
	if rep.LostWarnings > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d more Warning events were not kept. Choose a namespace.", rep.LostWarnings))
	}
	r.Skipped = skippedKinds(res.Skipped)
	r.NotAsked = skippedKinds(res.NotAsked)
	r.NotLive = skippedKinds(notLive)
	return r
}

func skippedKinds(in []Skipped) []views.SkippedKind {
	out := make([]views.SkippedKind, 0, len(in))
	for _, k := range in {
		out = append(out, views.SkippedKind{Kind: k.Resource.Kind, Resource: kube.ResourceName(k.Resource), Reason: k.Reason})
	}
	return out
}

func aftersWith(after string) []string {
	if slices.Contains(afters, after) {
		return afters
	}
	return append(slices.Clone(afters), after)
}

func pluralInt(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fleet serves /c/_all/problems and /c/a,b/problems: every cluster scanned
// at once, each with its own credentials and within the budget's Total, one
// section each in the URL's order; a cluster that fails or does not answer
// says so in its section. It is not live: each section links to the
// cluster's own page, which is.
func (h *Handler) fleet(c echo.Context, names []string) error {
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	q, problem := parse(c)
	p := views.FleetProblemsPage{Layout: h.env.Layout(ctx, u, "Problems"),
		Form: views.ProblemsForm{Action: u.Path("/problems"), Namespace: q.namespace, After: q.afterText, Afters: aftersWith(q.afterText)}}
	if problem != "" {
		p.Error = problem
		return h.env.Render(c, http.StatusBadRequest, views.FleetProblems(p))
	}
	clients, left, err := h.env.FleetClients(c, names)
	if err != nil {
		return err
	}
	v := url.Values{"after": {q.afterText}}
	if q.namespace != "" {
		v.Set("namespace", q.namespace)
	}
	sections := make([]views.FleetProblemsSection, len(names))
	index := map[string]int{}
	for i, name := range names {
		index[name] = i
		sections[i] = views.FleetProblemsSection{Context: name, Href: page.WithQuery(u.In(name).Path("/problems"), v)}
		if why, ok := left[name]; ok {
			sections[i].Error = "Does not take part: " + page.Classify(why).Message
		}
	}
	var mu sync.Mutex
	streaming.FanOut(ctx, clients, len(clients), h.budget.Total+fleetSlack, func(ctx context.Context, client *apiclient.Client) {
		i := index[client.ContextName()]
		cu := u.In(client.ContextName())
		report, err := h.clusterReport(ctx, cu, client, q, fmt.Sprintf("c%d-", i))
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			sections[i].Error = page.Classify(err).Message
			return
		}
		sections[i].Report = report
	}, func(client *apiclient.Client) {
		mu.Lock()
		defer mu.Unlock()
		sections[index[client.ContextName()]].Error = "Not asked: the page's time ran out."
	})
	p.Sections = sections
	return h.env.Render(c, http.StatusOK, views.FleetProblems(p))
}

// fleetSlack is a fleet section's time past its scan's budget: for its
// discovery and rendering.
const fleetSlack = 2 * time.Second

// clusterReport scans one cluster of a fleet page.
func (h *Handler) clusterReport(ctx context.Context, u page.URLs, client *apiclient.Client, q query, idPrefix string) (views.ProblemsReport, error) {
	d, err := client.FreshDiscovery(ctx)
	if err != nil {
		return views.ProblemsReport{}, err
	}
	bd := newBoard(q.after, h.budget.Tracked, h.budget.Tracked)
	res := scan(ctx, client, d, q.namespace, bd, h.budget)
	if err := ctx.Err(); err != nil {
		return views.ProblemsReport{}, fmt.Errorf("no answer within %s: %w", h.budget.Total+fleetSlack, err)
	}
	now := time.Now()
	return model(u, d, q, bd.report(now, h.budget.Shown), res, nil, now, idPrefix), nil
}
