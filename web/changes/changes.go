// Package changes serves the recent changes of a namespace: objects of
// every kind the user may list, newest write first, each with who wrote
// (the managers in its managedFields) and which top-level fields, read from
// metadata lists within a stated budget.
package changes

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/kube"
)

// Budget bounds one recent-changes page.
type Budget struct {
	// Concurrency is how many kinds are listed at once.
	Concurrency int
	// PerKind bounds each kind's list, Total the page's.
	PerKind, Total time.Duration
	// PageSize is the list page size; MaxObjects how many objects of one
	// kind are read, at most.
	PageSize, MaxObjects int
	// Shown is how many changed objects the page lists, newest first.
	Shown int
}

// DefaultBudget is the console's: 8 kinds at a time, 10 s each, 15 s in
// all, pages of 500, 50,000 objects a kind, 200 objects shown.
func DefaultBudget() Budget {
	return Budget{Concurrency: 8, PerKind: 10 * time.Second, Total: 15 * time.Second, PageSize: 500, MaxObjects: 50000, Shown: 200}
}

// Write is one manager's write to an object within the window.
type Write struct {
	Manager, Operation, Subresource string
	Time                            time.Time
	// Fields are the top-level fields it owns ("spec", "metadata").
	Fields []string
}

// Change is an object written to within the window.
type Change struct {
	Resource        apiclient.Resource
	Namespace, Name string
	// Newest is its newest write's time; Writes are its writes within the
	// window, newest first.
	Newest time.Time
	Writes []Write
}

// Skipped is a kind not listed, or listed without a whole answer, and why.
type Skipped struct {
	Resource apiclient.Resource
	Reason   string
}

// Result is what a recent-changes scan found and what it cost.
type Result struct {
	// Changes are the newest Budget.Shown changed objects, newest first.
	Changes []Change
	// More is how many more objects changed within the window.
	More int
	// Asked are the kinds listed; Skipped those not listed or cut.
	Asked   []apiclient.Resource
	Skipped []Skipped
	// Objects is how many objects were read; Requests the upstream
	// requests made; Unreadable the objects whose managedFields could not
	// be read.
	Objects, Requests, Unreadable int
	Elapsed                       time.Duration
}

// changesHeap keeps the newest changes: a min-heap by time, so the oldest
// kept is the first to go.
type changesHeap []Change

func (h changesHeap) Len() int           { return len(h) }
func (h changesHeap) Less(i, j int) bool { return h[i].Newest.Before(h[j].Newest) }
func (h changesHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *changesHeap) Push(x any)        { *h = append(*h, x.(Change)) }
func (h *changesHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// collector keeps the newest changes of many concurrent lists, within
// Shown: never more than that many objects, whatever the lists hold.
type collector struct {
	mu         sync.Mutex
	shown      int
	kept       changesHeap
	more       int
	objects    int
	unreadable int
}

func (c *collector) add(ch Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.kept) < c.shown {
		heap.Push(&c.kept, ch)
		return
	}
	c.more++
	if c.shown > 0 && ch.Newest.After(c.kept[0].Newest) {
		heap.Pop(&c.kept)
		heap.Push(&c.kept, ch)
	}
}

// changeOf is obj's writes since since, newest first; ok is false when it
// has none.
func changeOf(r apiclient.Resource, obj *unstructured.Unstructured, since time.Time) (Change, bool, bool) {
	entries, notes := kube.ManagedEntries(obj)
	ch := Change{Resource: r, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	for _, e := range entries {
		if e.Time.IsZero() || e.Time.Before(since) {
			continue
		}
		ch.Writes = append(ch.Writes, Write{Manager: e.Manager, Operation: e.Operation, Subresource: e.Subresource, Time: e.Time, Fields: e.TopLevel()})
		if e.Time.After(ch.Newest) {
			ch.Newest = e.Time
		}
	}
	slices.SortStableFunc(ch.Writes, func(a, b Write) int { return b.Time.Compare(a.Time) })
	return ch, len(ch.Writes) > 0, len(notes) > 0
}

// Scan lists the namespace's kinds (those d serves there with list, but
// events, which are about changes rather than changed) as metadata, and
// keeps the objects written to since since.
func Scan(ctx context.Context, client *apiclient.Client, d *apiclient.Discovery, namespace string, since time.Time, b Budget) Result {
	start := time.Now()
	var count apiclient.RequestCount
	ctx = apiclient.CountRequests(ctx, &count)
	ctx, cancel := context.WithTimeout(ctx, b.Total)
	defer cancel()
	var res Result
	var kinds []apiclient.Resource
	for _, g := range d.Groups {
		for _, r := range g.Resources {
			switch {
			case !r.Namespaced:
			case apiclient.IsEventsResource(r):
			case !r.Can("list"):
				res.Skipped = append(res.Skipped, Skipped{Resource: r, Reason: "cannot be listed"})
			default:
				kinds = append(kinds, r)
			}
		}
	}
	res.Asked = kinds
	col := &collector{shown: b.Shown}
	var mu sync.Mutex
	skip := func(r apiclient.Resource, reason string) {
		mu.Lock()
		defer mu.Unlock()
		res.Skipped = append(res.Skipped, Skipped{Resource: r, Reason: reason})
	}
	streaming.FanOut(ctx, kinds, b.Concurrency, b.PerKind, func(ctx context.Context, r apiclient.Resource) {
		n, err := client.EachMetadata(ctx, r, namespace, b.PageSize, b.MaxObjects, func(obj *unstructured.Unstructured) error {
			ch, changed, unreadable := changeOf(r, obj, since)
			col.mu.Lock()
			col.objects++
			if unreadable {
				col.unreadable++
			}
			col.mu.Unlock()
			if changed {
				col.add(ch)
			}
			return nil
		})
		if err != nil {
			skip(r, apiclient.ListFailure(err, n, b.PerKind, "the page"))
		}
	}, func(r apiclient.Resource) { skip(r, fmt.Sprintf("not asked: the page's %s ran out", b.Total)) })
	res.Changes = slices.Clone([]Change(col.kept))
	slices.SortStableFunc(res.Changes, func(a, b Change) int {
		return cmp.Or(b.Newest.Compare(a.Newest), cmp.Compare(a.Resource.Name, b.Resource.Name), cmp.Compare(a.Name, b.Name))
	})
	slices.SortStableFunc(res.Skipped, func(a, b Skipped) int { return cmp.Compare(a.Resource.Name, b.Resource.Name) })
	res.More, res.Objects, res.Unreadable = col.more, col.objects, col.unreadable
	res.Requests = int(count.Load())
	res.Elapsed = time.Since(start)
	return res
}
