// Package object serves an object's page: the server's describe or the
// generic describe, its YAML and status, and the live sections that keep
// the page current.
package object

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves object pages and their live streams.
type Handler struct {
	env    *page.Env
	relate apiclient.RelateBudget
}

// New builds the object feature; relate bounds the relation scans of the
// Related section and the map (zero fields: apiclient.DefaultRelateBudget).
func New(env *page.Env, relate apiclient.RelateBudget) *Handler {
	return &Handler{env: env, relate: relate}
}

// The views of an object page, by its ?view= value or subresource.
const (
	viewOverview = ""
	viewYAML     = "yaml"
	viewMap      = "map"
	viewHistory  = "history"
	viewStatus   = "status"
)

// Page serves …/{resource}/{name}: the overview or, with ?view=yaml, YAML,
// with ?view=map the map of its relations. ?related=0 leaves the overview's
// Related section out, and the lists it costs; ?fresh=1 lists every kind
// of the relations anew.
func (h *Handler) Page(c echo.Context, t page.Target) error {
	view := c.QueryParam("view")
	if view != viewYAML && view != viewMap && view != viewHistory {
		view = viewOverview
	}
	q := c.QueryParams()
	opts := pageOptions{managedFields: page.Bool(q, "managedFields"), related: q.Get("related") != "0", fresh: page.Bool(q, "fresh")}
	if view == viewYAML && page.Bool(q, "blame") {
		opts.blame, opts.manager = true, q.Get("manager")
	}
	if view == viewHistory {
		opts.from, opts.to = q.Get("from"), q.Get("to")
	}
	return h.serve(c, t, view, opts)
}

// pageOptions are what a request asks of an object page beyond its view.
type pageOptions struct {
	// managedFields shows metadata.managedFields in the YAML.
	managedFields bool
	// related: the overview's Related section.
	related bool
	// fresh: the relation scan reuses none of the user's lists of a
	// moment ago.
	fresh bool
	// blame shows the YAML with each field's owners, dimming the lines
	// manager does not own when it is set.
	blame   bool
	manager string
	// from and to are the revisions the History tab diffs.
	from, to string
	// later: the overview's relations and events are left to come
	// (Input.later) rather than waited for.
	later bool
}

// Subresource serves …/{resource}/{name}/{subresource}: the object's status
// for "status", a clear refusal for subresources that are not read with a
// GET (exec, eviction, …), and 404 for what the server does not serve.
func (h *Handler) Subresource(c echo.Context, t page.Target) error {
	sub := t.Path.Subresource
	switch {
	case !slices.Contains(t.Resource.Subresources, sub):
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no %q subresource for %s.", sub, t.Resource.Name))
	case sub == viewStatus:
		return h.serve(c, t, viewStatus, pageOptions{})
	}
	return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf(
		"%s/%s is served, but not as a page: the console has no view of it yet. The object's page is at %s.",
		t.Resource.Name, sub, t.URLs.Resource(t.Resource, t.Path.Namespace, t.Path.Name)))
}

func (h *Handler) serve(c echo.Context, t page.Target, view string, opts pageOptions) error {
	ctx := c.Request().Context()
	usage := &pendingUsage{cancel: func() {}}
	if view == viewOverview {
		// Live sections re-render without it: the chart keeps its own.
		usage = startUsage(ctx, h.env, t)
	}
	// The overview's relations and events, its slowest reads (events are
	// selected from every event in the namespace), come last on the page:
	// it is sent down to them while they are read.
	opts.later = view == viewOverview
	in, err := h.load(ctx, t, view, opts)
	if err != nil {
		usage.stop()
		return err
	}
	if view == viewOverview {
		in.Usage = usage.wait(ctx, h.env, t.Client, in.Object)
	}
	in.Kubectl = h.env.Kubectl(ctx, t.Client, t.Resource)
	p, err := Model(ctx, in)
	if err != nil {
		return err
	}
	p.Layout = h.env.ContextLayout(ctx, t.Client, t.Path.Name+" · "+t.Resource.Kind, &t.Resource, t.Path.Namespace)
	if in.later == nil {
		return h.env.Render(c, http.StatusOK, views.Object(p))
	}
	rest, deliver := views.Eventually[views.ObjectRest]()
	p.Rest = rest
	go func() {
		// The page waits for this: a panic must still deliver, and must not
		// take the process down outside the request's own recovery.
		defer func() {
			if v := recover(); v != nil {
				h.env.Log.Error("building an object page's related objects and events", "panic", v, "stack", string(debug.Stack()))
				deliver(views.ObjectRest{EventsNote: "Events could not be shown: the console failed building them (logged)."})
			}
		}()
		in.slowExtras = <-in.later
		deliver(objectRest(in))
	}()
	// Upstream warnings (deprecated kinds) that the relations' lists draw
	// come after the layout was built, and are not shown.
	return h.env.RenderStreamed(c, http.StatusOK, views.Object(p))
}

// Input is everything an object page shows, fetched.
type Input struct {
	URLs      page.URLs
	Resource  apiclient.Resource
	Namespace string
	Name      string
	View      string
	// ManagedFields shows metadata.managedFields in the YAML.
	ManagedFields bool
	// Blame shows each field's owners, dimming the lines BlameManager
	// does not own when it is set.
	Blame        bool
	BlameManager string
	// Revisions are the History tab's (RevisionsErr why not all were
	// read), From and To the two it diffs; HasHistory says the tab is
	// offered.
	Revisions    []apiclient.Revision
	RevisionsErr error
	From, To     string
	HasHistory   bool
	// Object is the object (YAML, status and generic views); Description
	// the server's own describe, when it serves one.
	Object      *unstructured.Unstructured
	Description *apiclient.Description
	// Summary is the object's one-row Table, when the server serves Tables.
	Summary *apiclient.Table
	Extras
	// Permits are the answers to kube.ObjectChecks: actions the user may
	// not take are shown disabled.
	Permits kube.Permits
	// NoPodExec: the server serves no pods/exec, so a workload's pods
	// have no terminal either.
	NoPodExec bool
	// slowExtras are the overview's relations (Graph: one hop, nil with
	// ?related=0) and events. Graph is also the map's: two hops, or a
	// namespace's objects.
	slowExtras
	// later, when set, delivers slowExtras, which were left to come
	// (pageOptions.later); relating says they include the relations.
	later    <-chan slowExtras
	relating bool
	// Namespaces is where the server serves namespaces, if it does: the
	// map links to the namespace's.
	Namespaces *apiclient.Resource
	// Kubectl starts the page's kubectl command (page.Env.Kubectl); zero,
	// it names Resource alone.
	Kubectl kube.KubectlGet
	// Usage is the object's usage (pods, nodes, workloads), read by the
	// page only: live sections go without.
	Usage *UsageInput
	Now   time.Time
}

// load fetches the page and, at the same time, asks the access checks of
// its actions in one batch. It waits for both, so no review outlives the
// page.
func (h *Handler) load(ctx context.Context, t page.Target, view string, opts pageOptions) (Input, error) {
	permits := make(chan kube.Permits, 1)
	go func() {
		permits <- h.env.Permits(ctx, t.Client, kube.ObjectChecks(t.Resource, t.Path.Namespace, t.Path.Name))
	}()
	in, err := fetch(ctx, t, view, opts, h.relate)
	in.Permits = <-permits
	return in, err
}

// fetch makes every upstream call an object page needs. Failures of the
// extras (related objects, events, scale) become notes on the page: the
// object itself was read.
func fetch(ctx context.Context, t page.Target, view string, opts pageOptions, budget apiclient.RelateBudget) (Input, error) {
	client, r, p := t.Client, t.Resource, t.Path
	in := Input{URLs: t.URLs, Resource: r, Namespace: p.Namespace, Name: p.Name, View: view, ManagedFields: opts.managedFields, Blame: opts.blame, BlameManager: opts.manager, From: opts.from, To: opts.to, Now: time.Now()}
	relate := apiclient.RelateOptions{Hops: 1, Budget: budget, Fresh: opts.fresh}
	listHref := in.URLs.Resource(r, p.Namespace, "")
	var err error
	switch view {
	case viewYAML, viewMap, viewHistory:
		in.Object, err = client.GetObject(ctx, r, p.Namespace, p.Name)
	case viewStatus:
		in.Object, err = client.GetSubresource(ctx, r, p.Namespace, p.Name, viewStatus)
	default:
		var res *apiclient.DescribeResult
		if res, err = client.Describe(ctx, r, p.Namespace, p.Name); err == nil {
			in.Object, in.Description = res.Object, res.Description
		}
	}
	if err != nil {
		return in, page.WithAction(err, "get", r, p.Namespace, listHref)
	}
	if table, err := client.GetTable(ctx, r, p.Namespace, p.Name); err == nil {
		in.Summary = table
	}
	if !kube.IsPods(r) && r.Namespaced {
		if pods, err := client.Resource(ctx, "", "v1", "pods"); err == nil && !apiclient.SupportsExec(pods) {
			in.NoPodExec = true
		}
	}
	if in.Object != nil {
		if d, err := client.Discovery(ctx); err == nil {
			in.HasHistory = apiclient.HasRevisions(d, r, in.Object)
			if view == viewHistory && in.HasHistory {
				in.Revisions, in.RevisionsErr = client.Revisions(ctx, d, r, in.Object)
			}
		}
	}
	switch {
	case in.Object == nil:
		return in, nil
	case view == viewMap:
		relate.Hops = 2
		in.Graph, in.Namespaces, err = mapGraph(ctx, client, r, in.Object, relate)
		return in, err
	case view == viewOverview:
		if !opts.related {
			relate.Hops = 0
		}
		var later <-chan slowExtras
		in.Extras, later = fetchExtras(ctx, client, r, in.Object, relate, in.Description == nil)
		in.Namespaces = namespacesOf(in.Discovery)
		in.relating = relate.Hops > 0
		if opts.later {
			in.later = later
		} else {
			in.slowExtras = <-later
		}
	}
	return in, nil
}

// mapGraph is the map's graph: two hops around the object or, for a
// namespace, the objects in it.
func mapGraph(ctx context.Context, client *apiclient.Client, r apiclient.Resource, obj *unstructured.Unstructured, opts apiclient.RelateOptions) (*apiclient.Graph, *apiclient.Resource, error) {
	d, err := client.Discovery(ctx)
	if err != nil {
		return nil, nil, err
	}
	namespaces := namespacesOf(d)
	if isNamespaces(r) {
		g, err := client.NamespaceGraph(ctx, d, obj.GetName(), opts)
		return g, namespaces, err
	}
	opts.ScaleSelector = scaleSelector(ctx, client, r, obj)
	g, err := client.Relate(ctx, d, r, obj, opts)
	return g, namespaces, err
}

// namespacesOf is where d serves namespaces, if it does.
func namespacesOf(d *apiclient.Discovery) *apiclient.Resource {
	if d == nil {
		return nil
	}
	if ns, ok := d.Lookup("", "v1", "namespaces"); ok {
		return &ns
	}
	return nil
}

// isNamespaces says r is the core namespaces resource, whose map is the
// namespace's objects.
func isNamespaces(r apiclient.Resource) bool { return r.Group == "" && r.Name == "namespaces" }

// scaleSelector is the selector an object's scale subresource declares
// (CRDs: labelSelectorPath), if it has one.
func scaleSelector(ctx context.Context, client *apiclient.Client, r apiclient.Resource, obj *unstructured.Unstructured) string {
	if !slices.Contains(r.Subresources, "scale") {
		return ""
	}
	if sc, err := client.GetScale(ctx, r, obj.GetNamespace(), obj.GetName()); err == nil {
		return sc.Selector
	}
	return ""
}

// fetchExtras reads the overview's scale and discovery, then starts
// reading its relations (which use the scale's selector; none when
// relate.Hops is 0) alongside its events (when events: a server's own
// describe shows none), which it delivers on the channel.
func fetchExtras(ctx context.Context, client *apiclient.Client, r apiclient.Resource, obj *unstructured.Unstructured, relate apiclient.RelateOptions, events bool) (Extras, <-chan slowExtras) {
	var x Extras
	if slices.Contains(r.Subresources, "scale") {
		if sc, err := client.GetScale(ctx, r, obj.GetNamespace(), obj.GetName()); err == nil {
			x.Scale = sc
		}
	}
	d, discoveryErr := client.Discovery(ctx)
	if discoveryErr == nil {
		x.Discovery = d
		if x.Scale != nil {
			relate.ScaleSelector = x.Scale.Selector
		}
	}
	out := make(chan slowExtras, 1)
	go func() {
		// The page waits for out: a panic must still answer on it, and
		// must not take the process down outside the request's recovery.
		defer func() {
			if v := recover(); v != nil {
				out <- slowExtras{EventsErr: fmt.Errorf("reading them failed: %v", v)}
			}
		}()
		var slow slowExtras
		var wg sync.WaitGroup
		if discoveryErr == nil && relate.Hops > 0 {
			wg.Go(func() {
				// Only ctx's own end is an error, and the page sees it anyway.
				slow.Graph, _ = client.Relate(ctx, d, r, obj, relate)
			})
		}
		if events {
			slow.Events, slow.EventsErr = client.EventsFor(ctx, obj.GetNamespace(), obj.GetUID())
			if errors.Is(slow.EventsErr, apiclient.ErrNoEventsAPI) {
				slow.NoEventsAPI, slow.EventsErr = true, nil
			}
		}
		wg.Wait()
		out <- slow
	}()
	return x, out
}

// Model builds an object page from what was fetched; the handler adds the
// frame.
func Model(ctx context.Context, in Input) (views.ObjectPage, error) {
	r := in.Resource
	base := in.URLs.Resource(r, in.Namespace, in.Name)
	p := views.ObjectPage{
		Kind:         r.Kind,
		Name:         in.Name,
		Namespace:    in.Namespace,
		GroupVersion: r.GroupVersion().String(),
		ListHref:     in.URLs.Resource(r, "", ""),
		Tabs:         tabs(base, r, in.View, in.HasHistory),
	}
	if in.Namespace != "" {
		p.NamespaceHref = in.URLs.Resource(r, in.Namespace, "")
	}
	obj := in.Object
	switch {
	case in.View == viewHistory && !in.HasHistory:
		return p, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s %q keeps no revisions the console can read: History is for Deployments and objects with a pod template whose ControllerRevisions the server serves.", r.Kind, in.Name))
	case in.View == viewHistory:
		p.History = historyView(base, in.Object, in.Revisions, in.RevisionsErr, in.From, in.To, in.Now)
		p.Source = "Revisions"
	case in.View == viewYAML && in.Blame:
		p.Blame = blameView(maskedIfSecret(obj), base, in.BlameManager, in.Now)
		p.Source = "YAML with field owners"
	case in.View == viewYAML:
		text, err := objectYAML(obj, in.ManagedFields)
		if err != nil {
			return p, err
		}
		toggle := base + "?view=yaml"
		if !in.ManagedFields {
			toggle += "&managedFields=1"
		}
		p.YAML = &views.YAMLView{Text: text, ManagedFields: in.ManagedFields, ToggleHref: toggle, BlameHref: base + "?view=yaml&blame=1"}
		p.Source = "YAML"
	case in.View == viewMap:
		p.Map = relationMap(in.URLs, in.Graph)
		p.Source = "Relations"
		if p.Map != nil {
			p.Map.Scan.RefreshHref = base + "?view=map&fresh=1"
			if p.Map.Object != nil && in.Namespaces != nil && in.Namespace != "" {
				p.Map.Object.NamespaceMapHref = in.URLs.Resource(*in.Namespaces, "", in.Namespace) + "?view=map"
			}
		}
	case in.View == viewStatus:
		status := &unstructured.Unstructured{Object: map[string]any{"status": obj.Object["status"]}}
		text, err := objectYAML(status, false)
		if err != nil {
			return p, err
		}
		p.YAML = &views.YAMLView{Text: text}
		p.Source = "Status subresource"
	case in.Description != nil:
		p.Source = "Server describe"
		p.ServerDescribe = serverSections(in.Description)
	default:
		p.Source = "Generic describe"
		p.Generic = genericDescribe(in)
	}
	if obj != nil && in.View != viewStatus {
		// Every kind's health, from the conventions (kstatus).
		h, msg := apiclient.HealthOf(obj)
		badge := healthBadge(h, msg)
		p.Health = &badge
		if h != apiclient.HealthCurrent {
			p.HealthNote = msg
		}
	}
	if obj != nil {
		if created := obj.GetCreationTimestamp().Time; !created.IsZero() {
			p.Age = duration.HumanDuration(in.Now.Sub(created))
			p.Created = created.UTC().Format(time.RFC3339)
		}
	}
	if in.later == nil {
		p.Rest = views.Ready(objectRest(in))
	}
	p.RestNote = restNote(in.Description == nil, in.relating)
	p.Summary = summaryFields(in.Summary, in.Now)
	p.Live = in.View == viewOverview && r.Can("watch")
	if hasLogs(r, obj) {
		p.LogsHref = base + "/log"
		pod := ""
		if kube.IsPods(r) {
			pod = in.Name
		}
		p.LogsDenied = in.Permits.Denied(kube.LogsCheck(in.Namespace, pod))
		// Exec is the most dangerous action: it is not even shown to a
		// user the server would refuse.
		if kube.CanExec(r) && !in.NoPodExec && in.Permits.Denied(kube.TerminalCheck("exec", in.Namespace, pod)) == "" {
			p.TerminalHref = base + "/exec"
		}
		if kube.CanDebug(r) && in.Permits.Denied(kube.DebugCheck(in.Namespace, pod)) == "" {
			p.DebugHref = base + "/debug"
		}
	}
	rv := ""
	if obj != nil {
		rv = obj.GetResourceVersion()
	}
	p.Actions = objectActions(in.URLs, r, in.Namespace, in.Name, rv, in.Permits)
	p.Kubectl = kubectl(in).String()
	p.Usage = usageSection(ctx, in)
	return p, nil
}

// objectRest is the overview's part below its first screen: the Related
// section and, for a generic describe, the events.
func objectRest(in Input) views.ObjectRest {
	var rest views.ObjectRest
	if in.View != viewOverview {
		return rest
	}
	if in.Graph != nil {
		base := in.URLs.Resource(in.Resource, in.Namespace, in.Name)
		rest.Related = relatedSection(in.URLs, in.Graph)
		rest.Related.Scan.RefreshHref = base + "?fresh=1"
		if in.Namespaces != nil && in.Namespace != "" {
			rest.Related.NamespaceMapHref = in.URLs.Resource(*in.Namespaces, "", in.Namespace) + "?view=map"
		}
	}
	if in.Description == nil {
		rest.Events, rest.EventsNote = events(in.slowExtras, in.Now)
	}
	return rest
}

// restNote says what an overview still reads while it is sent: the
// events for a generic describe, the relations unless ?related=0.
func restNote(generic, relating bool) string {
	switch {
	case generic && relating:
		return "Reading related objects and events…"
	case generic:
		return "Reading events…"
	case relating:
		return "Reading related objects…"
	}
	return ""
}

// kubectl is the kubectl command getting what the page shows, as YAML.
func kubectl(in Input) kube.KubectlGet {
	k := in.Kubectl
	if k.Resource == "" {
		k = kube.KubectlGet{Resource: kube.KubectlResource(nil, in.Resource), Namespaced: in.Resource.Namespaced}
	}
	k.Namespace, k.Name, k.Output = in.Namespace, in.Name, "yaml"
	if in.View == viewStatus {
		k.Subresource = viewStatus
	}
	return k
}

func tabs(base templ.SafeURL, r apiclient.Resource, view string, history bool) []views.Tab {
	out := []views.Tab{
		{Label: "Overview", Href: base, Current: view == viewOverview},
		{Label: "YAML", Href: base + "?view=yaml", Current: view == viewYAML},
		{Label: "Map", Href: base + "?view=map", Current: view == viewMap},
	}
	if history {
		out = append(out, views.Tab{Label: "History", Href: base + "?view=history", Current: view == viewHistory})
	}
	if slices.Contains(r.Subresources, viewStatus) {
		out = append(out, views.Tab{Label: "Status", Href: base + "/status", Current: view == viewStatus})
	}
	return out
}

// hasLogs says whether an object has logs to show: a pod, or anything that
// selects pods (workloads, Services, CRDs that follow the spec.selector
// convention).
func hasLogs(r apiclient.Resource, obj *unstructured.Unstructured) bool {
	if kube.IsPods(r) {
		return true
	}
	if obj == nil || !r.Namespaced {
		return false
	}
	_, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "selector")
	return found
}

// summaryFields are the server's printer columns for this one object, as
// kubectl get would print them (wide), minus the name.
func summaryFields(t *apiclient.Table, now time.Time) []views.Field {
	if t == nil || len(t.Rows) != 1 || t.Served == apiclient.JSONFallback || t.Served == apiclient.MetadataList {
		// The header is a convenience; the page says the rest.
		return nil
	}
	var out []views.Field
	for i, col := range t.Columns {
		if col.Format == "name" || i >= len(t.Rows[0].Cells) {
			continue
		}
		cell := kube.FormatCell(t.Rows[0].Cells[i], col.Type, now)
		out = append(out, views.Field{Name: col.Name, Value: cell.Text})
	}
	return out
}

func serverSections(d *apiclient.Description) []views.Section {
	out := make([]views.Section, 0, len(d.Sections))
	for _, s := range d.Sections {
		vs := views.Section{Title: s.Title}
		for _, f := range s.Fields {
			vs.Fields = append(vs.Fields, views.Field{Name: f.Name, Value: f.Value})
		}
		for _, t := range s.Tables {
			vs.Tables = append(vs.Tables, views.SmallTable{Title: t.Title, Columns: t.Columns, Rows: t.Rows})
		}
		out = append(out, vs)
	}
	return out
}
