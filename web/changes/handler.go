package changes

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves the recent-changes page.
type Handler struct {
	env    *page.Env
	budget Budget
}

// New builds the feature with a budget (DefaultBudget for the console's).
func New(env *page.Env, budget Budget) *Handler { return &Handler{env: env, budget: budget} }

// windows are the windows the form offers; the first hour is the default.
var windows = []string{"5m", "15m", "1h", "6h", "24h", "168h"}

const defaultWindow = "1h"

// maxWindow bounds ?since=: a longer window is the objects' history, not
// their recent changes.
const maxWindow = 30 * 24 * time.Hour

// Page serves /c/{context}/changes?namespace=…&since=…: the form alone
// without a namespace, a 400 that keeps the form for a namespace or window
// it cannot use, else the namespace's changes within the window.
func (h *Handler) Page(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	ns := c.QueryParam("namespace")
	since := cmp.Or(c.QueryParam("since"), defaultWindow)
	p := views.ChangesPage{Form: views.ChangesForm{Action: u.Path("/changes"), Namespace: ns, Since: since, Windows: windowsWith(since)}}
	p.Layout = h.env.ContextLayout(ctx, client, "Recent changes", nil, ns)
	window, werr := time.ParseDuration(since)
	switch {
	case ns == "":
		return h.env.Render(c, http.StatusOK, views.Changes(p))
	case len(validation.IsDNS1123Label(ns)) > 0:
		p.Error = fmt.Sprintf("%q cannot be a namespace: a namespace's name is a DNS label (lowercase letters, digits and '-', at most 63).", truncate(ns))
		return h.env.Render(c, http.StatusBadRequest, views.Changes(p))
	case werr != nil || window <= 0 || window > maxWindow:
		p.Error = fmt.Sprintf("%q is not a window: give a duration such as 15m, 1h or 24h, at most %s.", truncate(since), "720h")
		return h.env.Render(c, http.StatusBadRequest, views.Changes(p))
	}
	d, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	res := Scan(ctx, client, d, ns, now.Add(-window), h.budget)
	if err := ctx.Err(); err != nil {
		return err
	}
	p.Ran = true
	p.Rows, p.Summary = model(u, res, ns, since, now)
	return h.env.Render(c, http.StatusOK, views.Changes(p))
}

// model is the page's rows and summary.
func model(u page.URLs, res Result, ns, since string, now time.Time) ([]views.RecentChangeRow, views.ChangesSummary) {
	rows := make([]views.RecentChangeRow, 0, len(res.Changes))
	for _, ch := range res.Changes {
		row := views.RecentChangeRow{Kind: ch.Resource.Kind, Name: ch.Name, Href: u.Resource(ch.Resource, ch.Namespace, ch.Name),
			Age: duration.HumanDuration(now.Sub(ch.Newest)), Time: ch.Newest.UTC().Format(time.RFC3339)}
		for _, w := range ch.Writes {
			row.Writes = append(row.Writes, views.RecentChangeWrite{Manager: w.Manager, Operation: w.Operation, Subresource: w.Subresource,
				Age: duration.HumanDuration(now.Sub(w.Time)), Time: w.Time.UTC().Format(time.RFC3339), Fields: strings.Join(w.Fields, ", ")})
		}
		rows = append(rows, row)
	}
	n := len(res.Changes) + res.More
	s := views.ChangesSummary{
		Line: fmt.Sprintf("%d %s changed in the last %s in %s", n, plural(n, "object", "objects"), since, ns),
		Cost: fmt.Sprintf("%d %s asked in %d %s, %d %s read, %s s.", len(res.Asked), plural(len(res.Asked), "kind", "kinds"),
			res.Requests, plural(res.Requests, "request", "requests"), res.Objects, plural(res.Objects, "object", "objects"),
			strconv.FormatFloat(res.Elapsed.Seconds(), 'f', 2, 64)),
		More: res.More, Unreadable: res.Unreadable,
	}
	for _, k := range res.Skipped {
		s.Skipped = append(s.Skipped, views.SkippedKind{Kind: k.Resource.Kind, Resource: kube.ResourceName(k.Resource), Reason: k.Reason})
	}
	return rows, s
}

func windowsWith(since string) []string {
	if slices.Contains(windows, since) {
		return windows
	}
	return append(slices.Clone(windows), since)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
