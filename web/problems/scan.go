// Package problems serves what is broken now, for any kind: objects kstatus
// calls Failed, or in progress for longer than a threshold; pods that
// crash-loop, cannot pull or start, were OOM-killed, restart, or are not
// ready; and Warning events grouped by object and reason. The kinds it asks
// are chosen from discovery and the kinds' schemas within a stated budget,
// and the page follows them live.
package problems

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
)

// Budget bounds one Problems page (and the counts on the home page).
type Budget struct {
	// Concurrency is how many kinds are listed at once.
	Concurrency int
	// PerKind bounds each kind's list, Total the page's.
	PerKind, Total time.Duration
	// PageSize is the list page size; MaxObjects how many objects of one
	// kind are read, at most.
	PageSize, MaxObjects int
	// MaxKinds bounds the kinds asked.
	MaxKinds int
	// Tracked bounds the problems (and Warning events) the page keeps;
	// Shown the rows of a section.
	Tracked, Shown int
	// LiveKinds bounds the kinds a live page watches (one upstream watch
	// each, plus one for events).
	LiveKinds int
}

// DefaultBudget is the console's: 8 kinds at a time, 5 s each, 10 s in
// all, pages of 500, 50,000 objects a kind, 300 kinds, 5,000 problems and
// 5,000 Warning events tracked, 200 rows a section, 64 kinds live.
func DefaultBudget() Budget {
	return Budget{Concurrency: 8, PerKind: 5 * time.Second, Total: 10 * time.Second, PageSize: 500, MaxObjects: 50000,
		MaxKinds: 300, Tracked: 5000, Shown: 200, LiveKinds: 64}
}

// Skipped is a kind not asked, or asked without a whole answer, and why.
type Skipped struct {
	Resource apiclient.Resource
	Reason   string
}

// Result is what a scan asked and what it cost; what it found is on its
// board.
type Result struct {
	// Asked are the kinds listed, most telling first; NotAsked those that
	// say nothing of health; Skipped those that could not be listed, or
	// not in full. Versions are the asked kinds' list versions, to
	// watch from.
	Asked    []apiclient.Resource
	NotAsked []Skipped
	Skipped  []Skipped
	Versions map[objectKey]string
	// Events is the events resource listed (zero when the server has none,
	// or it was refused: EventsNote says why).
	Events        apiclient.Resource
	EventsVersion string
	// EventsSelector is the field selector the events were listed with:
	// warningsOnly, or none on a server that refuses it.
	EventsSelector string
	EventsNote     string
	// NodesRead says the nodes were listed: Nodes of them, NodesReady
	// with Ready=True.
	NodesRead         bool
	Nodes, NodesReady int
	// Objects is how many objects were read; Requests the upstream
	// requests made.
	Objects, Requests int
	Elapsed           time.Duration
}

// kindOrder ranks a kind for asking and watching: pods, then workloads,
// then the rest.
func kindOrder(r apiclient.Resource, workload bool) int {
	switch {
	case r.Group == "" && r.Name == "pods":
		return 0
	case workload:
		return 1
	}
	return 2
}

// pickKinds chooses the kinds to ask in namespace ("" for the cluster):
// pods, kubectl's "all" category, and kinds with a status subresource whose
// schema declares conditions or a template (or whose schema cannot be
// read, so is not known not to). The others are notAsked, and those that
// cannot be listed or are past MaxKinds skipped, each with the reason.
func pickKinds(ctx context.Context, client *apiclient.Client, d *apiclient.Discovery, namespace string, b Budget) (kinds []apiclient.Resource, notAsked, skipped []Skipped) {
	type candidate struct {
		r        apiclient.Resource
		workload bool
		order    int
	}
	var looked []apiclient.Resource
	for _, g := range d.Groups {
		for _, r := range g.Resources {
			isPods := r.Group == "" && r.Name == "pods"
			switch {
			case namespace != "" && !r.Namespaced:
			case apiclient.IsEventsResource(r):
			case !isPods && !slices.Contains(r.Categories, "all") && !slices.Contains(r.Subresources, "status"):
				notAsked = append(notAsked, Skipped{Resource: r, Reason: "no status: nothing to judge it by"})
			case !r.Can("list"):
				skipped = append(skipped, Skipped{Resource: r, Reason: "cannot be listed"})
			default:
				looked = append(looked, r)
			}
		}
	}
	// Each kind's schema says whether to ask it; the schemas are cached.
	var cands []candidate
	var mu sync.Mutex
	streaming.FanOut(ctx, looked, b.Concurrency, b.PerKind, func(ctx context.Context, r apiclient.Resource) {
		links, err := client.KindLinks(ctx, r)
		all := slices.Contains(r.Categories, "all")
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil, all, r.Group == "" && r.Name == "pods", links.Conditions, links.Workload:
			workload := all || (links != nil && links.Workload)
			cands = append(cands, candidate{r: r, workload: workload, order: kindOrder(r, workload)})
		default:
			notAsked = append(notAsked, Skipped{Resource: r, Reason: "its schema declares no conditions and no template"})
		}
	}, func(r apiclient.Resource) {
		mu.Lock()
		defer mu.Unlock()
		skipped = append(skipped, Skipped{Resource: r, Reason: fmt.Sprintf("not asked: the page's %s ran out", b.Total)})
	})
	slices.SortFunc(cands, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(x.order, y.order), cmp.Compare(x.r.Group, y.r.Group), cmp.Compare(x.r.Name, y.r.Name))
	})
	for i, c := range cands {
		if i >= b.MaxKinds {
			skipped = append(skipped, Skipped{Resource: c.r, Reason: fmt.Sprintf("not asked: past the page's %d kinds", b.MaxKinds)})
			continue
		}
		kinds = append(kinds, c.r)
	}
	byName := func(a, b Skipped) int {
		return cmp.Or(cmp.Compare(a.Resource.Group, b.Resource.Group), cmp.Compare(a.Resource.Name, b.Resource.Name))
	}
	slices.SortFunc(notAsked, byName)
	return kinds, notAsked, skipped
}

// scan lists the kinds pickKinds chooses, and the Warning events, into bd.
func scan(ctx context.Context, client *apiclient.Client, d *apiclient.Discovery, namespace string, bd *board, b Budget) Result {
	start := time.Now()
	var count apiclient.RequestCount
	ctx = apiclient.CountRequests(ctx, &count)
	ctx, cancel := context.WithTimeout(ctx, b.Total)
	defer cancel()
	kinds, notAsked, skipped := pickKinds(ctx, client, d, namespace, b)
	res := Result{Asked: kinds, NotAsked: notAsked, Skipped: skipped, Versions: map[objectKey]string{}}
	var mu sync.Mutex
	var objects int
	skip := func(r apiclient.Resource, reason string) {
		mu.Lock()
		defer mu.Unlock()
		res.Skipped = append(res.Skipped, Skipped{Resource: r, Reason: reason})
	}
	// Events first: one list, often the longest after pods.
	items := kinds
	if ev, ok := d.EventsResource(); ok {
		items = append([]apiclient.Resource{ev}, kinds...)
	} else {
		res.EventsNote = "The server serves no events API: problems come from the objects' status alone."
	}
	streaming.FanOut(ctx, items, b.Concurrency, b.PerKind, func(ctx context.Context, r apiclient.Resource) {
		if apiclient.IsEventsResource(r) {
			version, selector, note := listWarnings(ctx, client, r, namespace, bd, b)
			mu.Lock()
			defer mu.Unlock()
			res.EventsNote = note
			if note == "" {
				res.Events, res.EventsVersion, res.EventsSelector = r, version, selector
			}
			return
		}
		now := time.Now()
		isNodes := r.Group == "" && r.Name == "nodes"
		var nodes, ready int
		read, err := client.EachObject(ctx, r, namespace, listQuery(r, b), func(obj *unstructured.Unstructured) error {
			bd.observe(r, obj, now)
			if isNodes {
				nodes++
				if s, _ := condition(nested(obj.Object, "status"), "Ready"); s == "True" {
					ready++
				}
			}
			return nil
		})
		mu.Lock()
		defer mu.Unlock()
		objects += read.Objects
		switch {
		case err != nil:
			res.Skipped = append(res.Skipped, Skipped{Resource: r, Reason: apiclient.ListFailure(err, read.Objects, b.PerKind, "the page")})
		default:
			res.Versions[keyOf(r, "", "")] = read.ResourceVersion
			if isNodes {
				res.NodesRead, res.Nodes, res.NodesReady = true, nodes, ready
			}
		}
	}, func(r apiclient.Resource) {
		reason := fmt.Sprintf("not asked: the page's %s ran out", b.Total)
		if apiclient.IsEventsResource(r) {
			mu.Lock()
			defer mu.Unlock()
			res.EventsNote = "Warning events: " + reason + "."
			return
		}
		skip(r, reason)
	})
	slices.SortStableFunc(res.Skipped, func(a, b Skipped) int {
		return cmp.Or(cmp.Compare(a.Resource.Group, b.Resource.Group), cmp.Compare(a.Resource.Name, b.Resource.Name))
	})
	res.Objects = objects
	res.Requests = int(count.Load())
	res.Elapsed = time.Since(start)
	return res
}

// listQuery is how the scan lists r: whole objects but for what no verdict
// reads (who wrote which field, annotations, and a pod's spec), which is
// most of what a list weighs.
func listQuery(r apiclient.Resource, b Budget) apiclient.ListQuery {
	q := apiclient.ListQuery{PageSize: b.PageSize, MaxObjects: b.MaxObjects, Omit: []string{"metadata.managedFields", "metadata.annotations"}}
	if r.Group == "" && r.Name == "pods" {
		q.Omit = append(q.Omit, "spec")
	}
	return q
}

// listWarnings lists the Warning events of namespace into bd. A server
// that refuses the type field selector is asked for every event, and the
// Normal ones dropped. It returns the list's version and the selector it
// used, or a note saying why there are no events on the page.
func listWarnings(ctx context.Context, client *apiclient.Client, ev apiclient.Resource, namespace string, bd *board, b Budget) (version, selector, note string) {
	each := func(obj *unstructured.Unstructured) error {
		bd.observeEvent(ev, obj)
		return nil
	}
	q := apiclient.ListQuery{FieldSelector: warningsOnly, PageSize: b.PageSize, MaxObjects: b.MaxObjects, Omit: []string{"metadata.managedFields"}}
	read, err := client.EachObject(ctx, ev, namespace, q, each)
	if apierrors.IsBadRequest(err) {
		q.FieldSelector = ""
		read, err = client.EachObject(ctx, ev, namespace, q, each)
	}
	switch {
	case err == nil:
		return read.ResourceVersion, q.FieldSelector, ""
	case apierrors.IsForbidden(err):
		return "", "", "Warning events are hidden: you may not list " + ev.Name + "."
	case errors.Is(err, apiclient.ErrListCut):
		return "", "", fmt.Sprintf("Warning events: only the first %d were read.", read.Objects)
	}
	return "", "", "Warning events: " + apiclient.ListFailure(err, read.Objects, b.PerKind, "the page") + "."
}

// warningsOnly is the field selector of Warning events, in both events APIs.
var warningsOnly = fields.OneTermEqualSelector("type", "Warning").String()
