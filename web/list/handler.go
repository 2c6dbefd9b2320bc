// Package list serves resource lists: the page (from the server-side
// Table), its live follower, and the namespace picker.
package list

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves list pages and their live streams.
type Handler struct {
	env        *page.Env
	namespaces *namespaceCache
	watches    *watchHub
}

// New builds the list feature.
func New(env *page.Env) *Handler {
	return &Handler{env: env, namespaces: newNamespaceCache(), watches: newWatchHub(env.Log)}
}

// Upstreams is how many upstream watches live lists share, for metrics.
func (h *Handler) Upstreams() int { return h.watches.Upstreams() }

// Close stops the shared upstream watches; live lists end with a Status
// the page treats as "try again". Hijacked WebSockets outlive an HTTP
// server's Shutdown, so the server calls this when it stops.
func (h *Handler) Close() { h.watches.Close() }

// Page serves …/{resource}: one page of the list in the server's columns.
func (h *Handler) Page(c echo.Context, t page.Target) error {
	r, ns := t.Resource, t.Path.Namespace
	if !r.Can("list") {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("The server does not allow listing %s.", r.Name))
	}
	lq, err := ParseQuery(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// The create check runs while the page is listed; both are waited
	// for, so no review outlives the page.
	permits := make(chan page.Permits, 1)
	go func() { permits <- h.env.Permits(ctx, t.Client, createChecks(r, ns)) }()
	table, lq, notices, err := fetch(ctx, t.Client, r, ns, lq)
	in := Input{Context: t.Client.ContextName(), Resource: r, Namespace: ns, Query: lq, Table: table, Notices: notices, Permits: <-permits}
	if err != nil {
		return page.WithAction(err, "list", r, ns, "")
	}
	p := Model(ctx, in)
	if r.Namespaced {
		p.Picker = h.namespacePicker(ctx, c, t.Client, r, ns, lq)
	}
	// The frame comes last: it shows the warnings of every call above.
	p.Layout = h.env.ContextLayout(ctx, t.Client, r.Kind+" list", &r, ns)
	return h.env.Render(c, http.StatusOK, views.List(p))
}

// createChecks are the access checks of a list page: its Create button's,
// when it has one.
func createChecks(r apiclient.Resource, ns string) []apiclient.AccessCheck {
	if check, ok := page.CreateCheck(r, ns); ok && r.Can("create") {
		return []apiclient.AccessCheck{check}
	}
	return nil
}

// fetch lists one page; an expired continue token restarts from the first
// page, which the page says.
func fetch(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns string, lq Query) (*apiclient.Table, Query, []string, error) {
	opts := Options(lq, r, ns)
	table, err := client.ListTable(ctx, r, opts)
	if err != nil && lq.Continue != "" && apiclient.IsExpired(err) {
		lq = lq.FirstPage()
		opts.Continue = ""
		table, err = client.ListTable(ctx, r, opts)
		return table, lq, []string{"The continue token expired, so the list restarted from the first page."}, err
	}
	return table, lq, nil, err
}

// Namespace is the namespace picker's form target: it redirects to the same
// list in the chosen namespace ("" for all), carrying the filters over.
func (h *Handler) Namespace(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	r, err := client.Resource(c.Request().Context(), q.Get("group"), q.Get("version"), q.Get("resource"))
	if err != nil {
		return err
	}
	lq, err := ParseQuery(q)
	if err != nil {
		return err
	}
	target := page.ResourceURL(c.Request().Context(), client.ContextName(), r, strings.TrimSpace(q.Get("namespace")), "")
	return c.Redirect(http.StatusSeeOther, string(page.WithQuery(target, lq.FirstPage().Values())))
}

// namespacePicker lists the namespaces the user may list; a user who may not
// gets a free-text field instead of an error.
func (h *Handler) namespacePicker(ctx context.Context, c echo.Context, client *apiclient.Client, r apiclient.Resource, current string, lq Query) views.NamespacePicker {
	carried := lq.FirstPage().Values()
	carried.Set("group", r.Group)
	carried.Set("version", r.Version)
	carried.Set("resource", r.Name)
	picker := views.NamespacePicker{
		Action:  page.ContextURL(ctx, client.ContextName(), "/namespace"),
		Current: current,
		Hidden:  page.HiddenFields(carried),
	}
	names, ok := h.namespaceNames(ctx, client)
	// The cached slice is shared between requests: never append to it.
	picker.Options, picker.FreeText = names[:len(names):len(names)], !ok
	if current != "" && !slices.Contains(picker.Options, current) {
		picker.Options = append(picker.Options, current)
	}
	return picker
}

// namespaceNames lists the namespaces the user may list, from a short-lived
// cache per context and identity; ok is false when they may not list them.
func (h *Handler) namespaceNames(ctx context.Context, client *apiclient.Client) (names []string, ok bool) {
	key := client.ContextName() + "|" + client.IdentityKey()
	now := time.Now()
	if e, hit := h.namespaces.get(key, now); hit {
		return e.names, e.allowed
	}
	e := namespaceEntry{fetched: now}
	d, err := client.Discovery(ctx)
	if err != nil {
		return nil, false
	}
	// A server without a core group (or its namespaces) has no picker to
	// offer; asking discovery, not Resource, spares it a refresh per page.
	nsRes, served := d.Lookup("", "v1", "namespaces")
	if !served {
		h.namespaces.put(key, e)
		return nil, false
	}
	t, err := client.ListTable(ctx, nsRes, apiclient.ListOptions{Limit: 1000, IncludeObject: apiclient.IncludeNone})
	if err != nil {
		// Only a refusal is worth remembering; a passing failure is retried
		// by the next page.
		if page.StatusOf(err) == http.StatusForbidden {
			h.namespaces.put(key, e)
		} else {
			h.env.Log.Debug("listing namespaces for the picker", slog.Any("error", err))
		}
		return nil, false
	}
	e.allowed = true
	for _, row := range t.Rows {
		if len(row.Cells) > 0 {
			if name, isString := row.Cells[0].(string); isString {
				e.names = append(e.names, name)
			}
		}
	}
	h.namespaces.put(key, e)
	return e.names, e.allowed
}
