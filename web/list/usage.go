package list

import (
	"context"
	"time"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Usage is what metrics.k8s.io says the rows of a pod or node list use,
// shown as CPU and memory columns. A list has them exactly when discovery
// lists the metrics API; a request that failed leaves the cells muted.
type Usage struct {
	// ByKey is each row's usage by its key (namespace/name); a row without
	// a sample (a pod not scraped yet) has none.
	ByKey map[string]apiclient.Usage
	// Unavailable says why there is no usage at all, for the columns'
	// titles: the page stays quiet about it otherwise.
	Unavailable string
}

const (
	// usageWait bounds how long a list page waits for its usage once the
	// Table's head has arrived: rows are never held back long for it.
	usageWait = time.Second
	// usageTimeout bounds a live list's metrics request.
	usageTimeout = 2 * time.Second
	// usageRefresh is how old a live list's usage may get before a changed
	// row asks again: about metrics-server's resolution, so a busy list
	// costs at most one metrics request per period.
	usageRefresh = 30 * time.Second
)

// pendingUsage is a metrics request running alongside a list's Table.
type pendingUsage struct {
	done   chan *Usage // nil: the server serves no usage for the list
	cancel context.CancelFunc
}

// startUsage asks for the usage of a list's rows while the Table is read:
// one list of pods.metrics.k8s.io (same namespace, same label selector) or
// nodes.metrics.k8s.io. A server whose discovery lists no metrics API gets
// no request.
func startUsage(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns, labelSelector string) *pendingUsage {
	m, ok := page.UsageResource(ctx, client, r)
	if !ok {
		return &pendingUsage{cancel: func() {}}
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingUsage{done: make(chan *Usage, 1), cancel: cancel}
	go func() { p.done <- fetchUsage(ctx, client, m, ns, labelSelector) }()
	return p
}

// wait returns the usage, waiting at most usageWait; past it the request
// is given up (and waited for, so nothing outlives the page) and the
// columns show no numbers.
func (p *pendingUsage) wait() *Usage {
	defer p.cancel()
	if p.done == nil {
		return nil
	}
	timer := time.NewTimer(usageWait)
	defer timer.Stop()
	select {
	case u := <-p.done:
		return u
	case <-timer.C:
	}
	p.cancel()
	<-p.done
	return &Usage{Unavailable: "metrics.k8s.io did not answer in time"}
}

// stop gives the request up, for a page that failed.
func (p *pendingUsage) stop() {
	p.cancel()
	if p.done != nil {
		<-p.done
	}
}

// fetchUsage lists the samples and indexes them by row key.
func fetchUsage(ctx context.Context, client *apiclient.Client, m apiclient.Resource, ns, labelSelector string) *Usage {
	samples, err := client.ListUsage(ctx, m, ns, labelSelector)
	if err != nil {
		return &Usage{Unavailable: "metrics.k8s.io: " + page.StatusFor(err).Message}
	}
	u := &Usage{ByKey: make(map[string]apiclient.Usage, len(samples))}
	for _, s := range samples {
		u.ByKey[s.Namespace+"/"+s.Name] = s.Usage
	}
	return u
}

// usageColumns are the headers of the usage columns.
func usageColumns(u *Usage) []views.ListColumn {
	cpu, mem := "CPU in use (metrics.k8s.io): millicores, or cores", "Memory in use (metrics.k8s.io): the working set"
	if u.Unavailable != "" {
		cpu, mem = "Usage unavailable: "+u.Unavailable, "Usage unavailable: "+u.Unavailable
	}
	return []views.ListColumn{
		{Name: "CPU", Description: cpu, Numeric: true, Sort: "none"},
		{Name: "Memory", Description: mem, Numeric: true, Sort: "none"},
	}
}

// usageCells are a row's usage cells: a muted dash when it has none.
func usageCells(u *Usage, key string) [2]views.Cell {
	v, ok := u.ByKey[key]
	if !ok {
		none := views.Cell{Text: "—", Numeric: true, Muted: true}
		return [2]views.Cell{none, none}
	}
	return [2]views.Cell{
		{Text: page.FormatCPU(v.CPUMilli), Numeric: true},
		{Text: page.FormatMemory(v.MemoryBytes), Numeric: true},
	}
}

// liveUsage keeps a live list's usage current enough for the rows it
// pushes: it asks again when a row changes and the last answer is older
// than usageRefresh. It belongs to one follower, so to one identity.
type liveUsage struct {
	client  *apiclient.Client
	m       apiclient.Resource
	ns, sel string
	usage   *Usage
	fetched time.Time
}

// newLiveUsage is nil when the list has no usage columns.
func newLiveUsage(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns, labelSelector string) *liveUsage {
	m, ok := page.UsageResource(ctx, client, r)
	if !ok {
		return nil
	}
	return &liveUsage{client: client, m: m, ns: ns, sel: labelSelector}
}

// current returns the usage, asking again when it is older than maxAge;
// a failed request keeps the last good answer.
func (l *liveUsage) current(ctx context.Context, maxAge time.Duration) *Usage {
	if l == nil {
		return nil
	}
	if l.usage != nil && time.Since(l.fetched) < maxAge {
		return l.usage
	}
	ctx, cancel := context.WithTimeout(ctx, usageTimeout)
	defer cancel()
	u := fetchUsage(ctx, l.client, l.m, l.ns, l.sel)
	l.fetched = time.Now()
	if u.ByKey != nil || l.usage == nil {
		l.usage = u
	}
	return l.usage
}
