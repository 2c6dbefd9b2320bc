// Package list serves resource lists: the page (from the server-side
// Table), its live follower, and the namespace picker.
package list

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves list pages and their live streams.
type Handler struct {
	env        *page.Env
	namespaces *namespaceCache
	watches    *watchHub
	// scanBudget bounds what a filtered page reads (filter.go).
	scanBudget ScanBudget
	// usageWait bounds how long a page waits for its usage (usage.go).
	usageWait time.Duration
}

// Limits bound what a list page reads and waits for.
type Limits struct {
	// Scan bounds what a filtered page reads (zero: DefaultScanBudget).
	Scan ScanBudget
	// UsageWait bounds how long a pod or node page waits for its CPU and
	// memory once the Table's head has arrived (zero: one second): rows
	// are never held back long for it.
	UsageWait time.Duration
}

// New builds the list feature.
func New(env *page.Env, limits Limits) *Handler {
	return &Handler{
		env: env, namespaces: newNamespaceCache(), watches: newWatchHub(env.Log),
		scanBudget: cmp.Or(limits.Scan, DefaultScanBudget()),
		usageWait:  cmp.Or(limits.UsageWait, time.Second),
	}
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
	lq, err := ParseQuery(c.QueryParams())
	if err != nil {
		return err
	}
	if lq.FromChooser {
		// The column chooser's choice, as the URL that keeps it.
		return c.Redirect(http.StatusSeeOther, string(page.WithQuery(t.URLs.Resource(r, ns, ""), lq.FirstPage().Values())))
	}
	ctx := c.Request().Context()
	// What the page shows besides the list is fetched while the server
	// lists; everything is waited for, so nothing outlives the page.
	checks := slices.Concat(createChecks(r, ns), bulkChecks(r, ns), exportChecks(r, ns))
	// Pods and nodes: where the server serves their usage, whether the
	// user may read it is asked with the page's other checks.
	metrics, hasUsage := t.Client.UsageResource(ctx, r)
	if hasUsage {
		checks = append(checks, usageCheck(metrics, ns))
	}
	permits := make(chan kube.Permits, 1)
	go func() { permits <- h.env.Permits(ctx, t.Client, checks) }()
	picker := make(chan views.NamespacePicker, 1)
	if r.Namespaced {
		// The query as parsed: open below may restart lq at the first page.
		go func(lq Query) { picker <- h.namespacePicker(ctx, t, ns, lq) }(lq)
	} else {
		picker <- views.NamespacePicker{}
	}
	layout := h.env.StartContextLayout(ctx, t.Client, r.Kind+" list", &r, ns)
	if len(lq.Filter) > 0 {
		return h.filteredPage(c, t, lq, permits, picker, layout, hasUsage, metrics)
	}
	stream, lq, notices, err := open(ctx, t.Client, r, ns, lq)
	in := Input{URLs: t.URLs, Resource: r, Namespace: ns, Query: lq, Notices: notices, Permits: <-permits, Kubectl: h.env.Kubectl(ctx, t.Client, r)}
	namespaces := <-picker
	if err == nil && hasUsage && in.Permits.Denied(usageCheck(metrics, ns)) == "" {
		// Merged into the rows by name, so read before the first row is
		// written, once the head says how long the list is.
		in.Usage = pageUsage(ctx, h.usageWait, t.Client, r, metrics, ns, lq, &stream.Head)
	}
	// The frame comes last: it shows the warnings of every call above.
	frame := layout()
	if err != nil {
		return page.WithAction(err, "list", r, ns, "")
	}
	defer stream.Close()
	in.Table = &stream.Head
	if lq.Sort != "" {
		// Sorting needs the whole page first.
		if in.Table.Rows, err = collect(stream); err != nil {
			return page.WithAction(err, "list", r, ns, "")
		}
	} else {
		in.Rows = stream
	}
	model := Model(ctx, in)
	if model.Select != nil {
		frame = h.env.WithBulk(frame)
	}
	model.Picker, model.Layout = namespaces, frame
	// Rows are decoded as the page is written, and the page is sent from
	// its first screen of rows on, so a long list from a slow server shows
	// at once. A body that breaks off before that fails the render: the
	// whole page is then an error page; after, the page says it broke off.
	if err := h.env.RenderStreamed(c, http.StatusOK, views.List(model)); err != nil {
		return page.WithAction(err, "list", r, ns, "")
	}
	if err := model.Rows.BrokenOff(); err != nil {
		h.env.Log.Warn("a list broke off while it was sent", "resource", r.Name, "namespace", ns, "rows", model.Rows.Written(), "error", err)
	}
	return nil
}

// collect reads every row of a stream.
func collect(s *apiclient.TableStream) ([]apiclient.Row, error) {
	var rows []apiclient.Row
	for s.Next() {
		rows = append(rows, s.Row().Clone())
	}
	return rows, s.Err()
}

// bulkChecks are the access checks of a one-namespace (or cluster-scoped)
// list's bulk actions, each on the whole namespace, so a user who may do
// none of them gets no checkboxes. Across namespaces the review asks per
// namespace: a user may act in some and not in others.
func bulkChecks(r apiclient.Resource, ns string) []apiclient.AccessCheck {
	if r.Namespaced && ns == "" {
		return nil
	}
	var checks []apiclient.AccessCheck
	for _, o := range kube.BulkOptions(r) {
		if check := kube.BulkCheck(o.Op, r, ns, ""); !slices.Contains(checks, check) {
			checks = append(checks, check)
		}
	}
	return checks
}

// createChecks are the access checks of a list page: its Create button's,
// when it has one.
func createChecks(r apiclient.Resource, ns string) []apiclient.AccessCheck {
	if check, ok := kube.CreateCheck(r, ns); ok && r.Can("create") {
		return []apiclient.AccessCheck{check}
	}
	return nil
}

// open starts reading one page; an expired continue token restarts from
// the first page, which the page says.
func open(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns string, lq Query) (*apiclient.TableStream, Query, []string, error) {
	opts := Options(lq, r, ns)
	stream, err := client.OpenTable(ctx, r, opts)
	if err != nil && lq.Continue != "" && apiclient.IsExpired(err) {
		lq = lq.FirstPage()
		opts.Continue = ""
		stream, err = client.OpenTable(ctx, r, opts)
		return stream, lq, []string{"The continue token expired, so the list restarted from the first page."}, err
	}
	return stream, lq, nil, err
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
	target := page.URLsOf(c.Request().Context()).Resource(r, strings.TrimSpace(q.Get("namespace")), "")
	return c.Redirect(http.StatusSeeOther, string(page.WithQuery(target, lq.FirstPage().Values())))
}

// namespacePicker lists the namespaces the user may list; a user who may not
// gets a free-text field instead of an error.
func (h *Handler) namespacePicker(ctx context.Context, t page.Target, current string, lq Query) views.NamespacePicker {
	client, r := t.Client, t.Resource
	carried := lq.FirstPage().Values()
	carried.Set("group", r.Group)
	carried.Set("version", r.Version)
	carried.Set("resource", r.Name)
	picker := views.NamespacePicker{
		Action:  t.URLs.Path("/namespace"),
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
