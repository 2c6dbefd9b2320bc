package list

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

const (
	// usageTimeout bounds a live list's metrics request.
	usageTimeout = 2 * time.Second
	// usageRefresh is how old a live list's usage may get before a changed
	// row asks again: about metrics-server's resolution, so a busy list
	// costs at most one metrics request per period.
	usageRefresh = 30 * time.Second
	// maxUsageObjects bounds the lists longer than their page that get
	// usage. metrics-server does not page: its answer holds every pod of
	// the namespace (or every node) that the label selector matches,
	// however many pages the list has, so a page of a long list would cost
	// a metrics answer many times its size.
	maxUsageObjects = 2000
)

// pageUsage is the usage of the rows of a list page whose Table head has
// arrived: one list of m, pods.metrics.k8s.io (same namespace, same label
// selector) or nodes.metrics.k8s.io, asked once the head shows the list is
// short enough (so a page of 20,000 pods asks metrics-server nothing).
func pageUsage(ctx context.Context, wait time.Duration, client *apiclient.Client, r, m apiclient.Resource, ns string, lq Query, head *apiclient.Table) *kube.Usage {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if reason := usageTooLong(ctx, client, r, ns, lq, head); reason != "" {
		return &kube.Usage{Omitted: reason}
	}
	return fetchUsage(ctx, client, m, ns, lq.LabelSelector)
}

// usageCheck is the access check behind a list's usage columns: listing
// m, the metrics resource, in ns.
func usageCheck(m apiclient.Resource, ns string) apiclient.AccessCheck {
	return kube.UsageCheck(m, "list", ns, "")
}

// usageTooLong says why the list is too long for usage ("" when it is
// not): whether metrics-server's answer would hold more objects than the
// page and more than maxUsageObjects. A first page's Table head tells:
// the whole list is on the page, or remainingItemCount more follow.
// Otherwise a one-row list counts: a later page's head counts only what
// follows it, a field selector narrows the list but not metrics-server's
// answer, and kube-apiserver does not count a selected list.
func usageTooLong(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns string, lq Query, head *apiclient.Table) string {
	if lq.Continue == "" && lq.FieldSelector == "" {
		if head.Continue == "" {
			// The whole list is on this page: the answer is the page's size.
			return ""
		}
		if head.RemainingItemCount != nil {
			return usageBound(lq.Limit + *head.RemainingItemCount)
		}
	}
	// Count what the label selector matches, or, where the server does not
	// count a selected list, the whole namespace, which holds at least as
	// many.
	selectors := []string{lq.LabelSelector}
	if lq.LabelSelector != "" {
		selectors = append(selectors, "")
	}
	for _, sel := range selectors {
		t, err := client.ListTable(ctx, r, Options(Query{LabelSelector: sel, Limit: 1}, r, ns))
		switch {
		case err != nil:
			return "CPU and memory are left out: the console could not tell how long the list is (" + page.StatusFor(err).Message + ")"
		case t.Continue == "":
			return ""
		case t.RemainingItemCount != nil:
			return usageBound(1 + *t.RemainingItemCount)
		}
	}
	return fmt.Sprintf("CPU and memory are shown for lists of up to %d objects, as metrics.k8s.io cannot page, and the server does not say how long this one is", maxUsageObjects)
}

// usageBound is why a list of n objects is too long for usage, "" when it
// is not.
func usageBound(n int64) string {
	if n <= maxUsageObjects {
		return ""
	}
	return fmt.Sprintf("CPU and memory are shown for lists of up to %d objects, as metrics.k8s.io cannot page, and this one holds more: narrow it with a label selector", maxUsageObjects)
}

// fetchUsage lists the samples and indexes them by row key.
func fetchUsage(ctx context.Context, client *apiclient.Client, m apiclient.Resource, ns, labelSelector string) *kube.Usage {
	samples, err := client.ListUsage(ctx, m, ns, labelSelector)
	switch {
	case err == nil:
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &kube.Usage{Unavailable: "metrics.k8s.io did not answer in time"}
	default:
		return &kube.Usage{Unavailable: "metrics.k8s.io: " + page.StatusFor(err).Message}
	}
	u := &kube.Usage{ByKey: make(map[string]apiclient.Usage, len(samples))}
	for _, s := range samples {
		u.ByKey[s.Namespace+"/"+s.Name] = s.Usage
	}
	return u
}

// liveUsage keeps a live list's usage current enough for the rows it
// pushes: it asks again when a row changes and the last answer is older
// than usageRefresh. It belongs to one follower, so to one identity.
type liveUsage struct {
	client *apiclient.Client
	// m is the metrics resource asked; zero when nothing is to be asked,
	// and usage says why.
	m       apiclient.Resource
	ns, sel string
	usage   *kube.Usage
	fetched time.Time
}

// newLiveUsage is nil when the page has no usage columns (shown is the
// page's own word, its data-usage): pushed rows must match the page, so a
// live list never decides otherwise. Where the server no longer serves the
// usage, or the user may no longer read it, the rows carry dashes.
func newLiveUsage(ctx context.Context, env *page.Env, client *apiclient.Client, r apiclient.Resource, ns string, lq Query, shown bool) *liveUsage {
	if !shown {
		return nil
	}
	l := &liveUsage{client: client, ns: ns, sel: lq.LabelSelector}
	m, ok := client.UsageResource(ctx, r)
	switch {
	case !ok:
		l.usage = &kube.Usage{Unavailable: "the server no longer serves metrics.k8s.io"}
	case env.UsageDenied(ctx, client, usageCheck(m, ns)):
		l.usage = &kube.Usage{Unavailable: "you may no longer list " + m.Name + "." + m.Group}
	default:
		l.m = m
	}
	return l
}

// current returns the usage, asking again when it is older than maxAge;
// a failed request keeps the last good answer.
func (l *liveUsage) current(ctx context.Context, maxAge time.Duration) *kube.Usage {
	if l == nil {
		return nil
	}
	if l.m.Name == "" || (l.usage != nil && time.Since(l.fetched) < maxAge) {
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
