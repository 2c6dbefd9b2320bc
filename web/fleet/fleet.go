// Package fleet serves pages over several contexts at once (/c/_all/…,
// /c/a,b/…): each cluster with its own credentials and its own deadline, so
// a slow or stopped cluster holds up no other.
package fleet

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Health is one cluster's health as its home page opens with it (the
// Problems feature's, handed in by the route table).
type Health func(ctx context.Context, client *apiclient.Client, d *apiclient.Discovery) views.HomeHealth

// Handler serves the fleet's pages.
type Handler struct {
	env    *page.Env
	health Health
	// perCluster bounds each cluster's part of a page; refresh is how
	// often a live home asks again.
	perCluster, refresh time.Duration
}

// DefaultPerCluster is each cluster's deadline on a fleet page: well
// within the page's, so a stopped cluster shows its error while the
// others show their answers.
const DefaultPerCluster = 8 * time.Second

// New builds the feature.
func New(env *page.Env, health Health, perCluster, refresh time.Duration) *Handler {
	return &Handler{env: env, health: health, perCluster: perCluster, refresh: refresh}
}

// Home serves /c/_all/ and /c/a,b/: one row per cluster with its server
// version, whether it answers (and why not), its nodes, its problems and
// who the user is there.
func (h *Handler) Home(c echo.Context) error {
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	names := page.FleetOf(ctx)
	clients, left, err := h.env.FleetClients(c, names)
	if err != nil {
		return err
	}
	title := page.FleetLabel(u.ContextName())
	p := views.FleetHomePage{Layout: h.env.Layout(ctx, u, title), Title: title, Rows: h.rows(ctx, u, names, clients, left), ProblemsHref: u.Path("/problems")}
	return h.env.Render(c, http.StatusOK, views.FleetHome(p))
}

// rows are the home's rows, in the URL's order of contexts.
func (h *Handler) rows(ctx context.Context, u page.URLs, names []string, clients []*apiclient.Client, left map[string]error) []views.FleetRow {
	rows := Rows(ctx, u, clients, h.health, h.perCluster)
	for name, why := range left {
		rows = append(rows, views.FleetRow{Context: name, Href: u.In(name).Home(), Error: "does not take part: " + errorText(why)})
	}
	sortRows(rows, names)
	return rows
}

// RefreshEvery is how often a live fleet home asks every cluster again:
// each asking scans every cluster's problems, so not more often.
const RefreshEvery = 30 * time.Second

// Live keeps a fleet home current over a WebSocket: every RefreshEvery it
// asks every cluster again and sends the rows when they changed. It holds
// one stream slot.
func (h *Handler) Live(c echo.Context) error {
	ctx := c.Request().Context()
	u := page.URLsOf(ctx)
	names := page.FleetOf(ctx)
	clients, left, err := h.env.FleetClients(c, names)
	if err != nil {
		return err
	}
	key := ""
	if len(clients) > 0 {
		key = clients[0].IdentityKey()
	}
	return h.env.FollowInSlot(c, key, func(stream *page.Stream) error {
		tick := time.NewTicker(h.refresh)
		defer tick.Stop()
		last := ""
		for {
			select {
			case <-stream.Context.Done():
				return nil
			case <-tick.C:
			}
			rctx, cancel := h.env.WithDeadline(stream.Context)
			rows := h.rows(rctx, u, names, clients, left)
			cancel()
			var buf bytes.Buffer
			if err := views.FleetRows(rows).Render(context.Background(), &buf); err != nil {
				return fmt.Errorf("rendering the fleet: %w", err)
			}
			if html := buf.String(); html != last {
				msg := streaming.NewSections()
				msg.Sections["fleet"] = html
				if err := stream.SendJSON(stream.Context, streaming.ChannelData, msg); err != nil {
					return err
				}
				last = html
			}
		}
	})
}

// Rows asks every cluster at once, each within perCluster, for its row.
func Rows(ctx context.Context, u page.URLs, clients []*apiclient.Client, health Health, perCluster time.Duration) []views.FleetRow {
	var mu sync.Mutex
	var rows []views.FleetRow
	add := func(r views.FleetRow) {
		mu.Lock()
		defer mu.Unlock()
		rows = append(rows, r)
	}
	streaming.FanOut(ctx, clients, len(clients), perCluster, func(ctx context.Context, client *apiclient.Client) {
		add(row(ctx, u.In(client.ContextName()), client, health, perCluster))
	}, func(client *apiclient.Client) {
		name := client.ContextName()
		add(views.FleetRow{Context: name, Href: u.In(name).Home(), Error: "not asked: the page's time ran out"})
	})
	return rows
}

func row(ctx context.Context, u page.URLs, client *apiclient.Client, health Health, perCluster time.Duration) views.FleetRow {
	r := views.FleetRow{Context: client.ContextName(), Href: u.Home(), ProblemsHref: u.Path("/problems")}
	// Asked first, and never cached: whether the cluster answers now.
	if _, err := client.ServerVersion(ctx); err != nil {
		r.Error = unreachable(ctx, err, perCluster)
		return r
	}
	d, err := client.Discovery(ctx)
	if err != nil {
		r.Error = unreachable(ctx, err, perCluster)
		return r
	}
	var who apiclient.UserInfo
	var whoErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		who, whoErr = client.WhoAmI(ctx)
	}()
	hh := health(ctx, client, d)
	<-done
	if ctx.Err() != nil {
		r.Error = unreachable(ctx, ctx.Err(), perCluster)
		return r
	}
	r.Reachable = true
	r.Version, r.Nodes, r.NodesOK, r.Note = hh.ServerVersion, hh.Nodes, hh.NodesOK, hh.Note
	for _, c := range hh.Counts {
		r.Problems += c.N
		if c.ID == "pods" {
			r.PodsInTrouble = c.N
		}
	}
	switch {
	case whoErr == nil:
		r.Identity = who.Username
	default:
		r.Identity = "unknown (" + errorText(whoErr) + ")"
	}
	return r
}

func unreachable(ctx context.Context, err error, perCluster time.Duration) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("no answer within %s", perCluster)
	}
	return errorText(err)
}

// sortRows puts rows in the URL's order of contexts.
func sortRows(rows []views.FleetRow, names []string) {
	slices.SortStableFunc(rows, func(a, b views.FleetRow) int {
		return slices.Index(names, a.Context) - slices.Index(names, b.Context)
	})
}

// errorText is what a row says of a cluster's failure: what the error page
// would say.
func errorText(err error) string {
	p := page.Classify(err)
	return cmp.Or(p.Hint, p.Message, p.Title)
}

// Choose serves /fleet?context=a&context=b, the context switcher's form for
// a chosen set: it redirects to /c/a,b/ (one context: its own home). The
// contexts are checked as a fleet URL's are.
func (h *Handler) Choose(c echo.Context) error {
	ctx := c.Request().Context()
	var names []string
	for _, name := range c.QueryParams()["context"] {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return echo.NewHTTPError(http.StatusBadRequest, "Choose at least one context.")
	}
	for _, name := range names {
		if page.IsFleetSegment(name) {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("%q is not a context's name.", name))
		}
	}
	segment := strings.Join(names, ",")
	if _, err := h.env.FleetContexts(segment); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, string(page.URLsOf(ctx).In(segment).Home()))
}
