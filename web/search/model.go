package search

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// links builds a search's URLs.
type links struct {
	urls  page.URLs
	query Query
	// namespace is the picker's, carried by the search's own links.
	namespace string
	budget    Budget
	// single says the search asks one kind, so shows more of it.
	single bool
}

// list is a kind's list with the search's selectors, in its scope.
func (l links) list(k Kind) templ.SafeURL {
	v := url.Values{}
	if l.query.LabelSelector != "" {
		v.Set("labelSelector", l.query.LabelSelector)
	}
	if l.query.FieldSelector != "" {
		v.Set("fieldSelector", l.query.FieldSelector)
	}
	return page.WithQuery(l.urls.Resource(k.Resource, k.Namespace, ""), v)
}

// search is the search page for a query's text.
func (l links) search(text string) templ.SafeURL {
	v := url.Values{"q": {text}}
	if l.namespace != "" {
		v.Set("namespace", l.namespace)
	}
	return page.WithQuery(l.urls.Path("/search"), v)
}

// groupView is one kind's matches as the page shows them.
func (l links) groupView(o outcome, first bool, now time.Time) views.SearchGroup {
	r := o.Kind.Resource
	g := views.SearchGroup{
		Kind:         r.Kind,
		Resource:     kube.ResourceName(r),
		GroupVersion: r.GroupVersion().String(),
		ListHref:     l.list(o.Kind),
		Namespaced:   r.Namespaced,
		Count:        o.Matches,
		StatusColumn: o.StatusColumn,
		First:        first,
	}
	for _, m := range o.Rows {
		row := views.SearchRow{Name: m.Name, Namespace: m.Namespace, Href: l.urls.Resource(r, m.Namespace, m.Name), Status: m.Status}
		if !m.Created.IsZero() {
			row.Age = kube.FormatCell(m.Created.UTC().Format(time.RFC3339), "date", now)
		}
		g.Rows = append(g.Rows, row)
	}
	if o.Matches > len(o.Rows) {
		switch {
		case len(l.query.Words) == 0:
			// The list's selectors are the search's: it holds exactly these.
			g.MoreHref, g.MoreLabel = g.ListHref, fmt.Sprintf("All %s in the list", count(int64(o.Matches)))
		case !l.single && o.Matches <= l.budget.ShownOne:
			g.MoreHref, g.MoreLabel = l.search(l.query.narrowedTo(g.Resource)), fmt.Sprintf("All %s matches", count(int64(o.Matches)))
		case !l.single:
			g.MoreHref, g.MoreLabel = l.search(l.query.narrowedTo(g.Resource)), fmt.Sprintf("The first %s of %s matches", count(int64(l.budget.ShownOne)), count(int64(o.Matches)))
		default:
			g.MoreHref, g.MoreLabel = g.ListHref, fmt.Sprintf("The whole list (%s matched; the list does not filter names)", count(int64(o.Matches)))
		}
	}
	if o.Skip != nil {
		g.Note = "Cut short, so more may match: " + o.Skip.Detail + "."
	}
	return g
}

// narrowedTo is the query's text asking one kind instead of its kinds.
func (q Query) narrowedTo(resource string) string { return q.textWith([]string{resource}) }

// textWith is the query's text with kinds for its kind: term.
func (q Query) textWith(kinds []string) string {
	parts := append([]string(nil), q.Words...)
	if q.LabelSelector != "" {
		parts = append(parts, q.LabelSelector)
	}
	if q.FieldSelector != "" {
		parts = append(parts, "field:"+q.FieldSelector)
	}
	if q.Namespace != "" {
		parts = append(parts, "ns:"+q.Namespace)
	}
	if len(kinds) > 0 {
		parts = append(parts, "kind:"+strings.Join(kinds, ","))
	}
	return strings.Join(parts, " ")
}

// tally adds up a search's outcomes as they arrive.
type tally struct {
	asked, withMatches, matches int
	requests, reviews, bytes    int64
	skipped                     []Skip
}

func (t *tally) add(o outcome) {
	t.requests += o.Requests + o.Reviews
	t.reviews += o.Reviews
	if o.overhead {
		return
	}
	t.asked++
	if o.Matches > 0 {
		t.withMatches++
	}
	t.matches += o.Matches
	t.bytes += o.Bytes
	if o.Skip != nil {
		t.skipped = append(t.skipped, *o.Skip)
	}
}

// summaryView is what the search did and cost. Kinds the plan skipped
// (no list verb, denied by the rules) cost nothing and are listed too.
func (l links) summaryView(t tally, p Plan, elapsed time.Duration) views.SearchSummary {
	s := views.SearchSummary{
		KindsAsked:       t.asked,
		KindsWithMatches: t.withMatches,
		Matches:          t.matches,
		Requests:         t.requests,
		Reviews:          t.reviews,
		Bytes:            t.bytes,
		BytesText:        kube.FormatMemory(t.bytes),
		ElapsedMS:        elapsed.Milliseconds(),
		Elapsed:          elapsedText(elapsed),
	}
	s.Cost = fmt.Sprintf("Asked %s %s with %s %s (%s of them access %s) and read %s in %s. Nothing was cached: every list was read from the server now. Budget: %s",
		count(int64(t.asked)), plural(int64(t.asked), "kind", "kinds"), count(t.requests), plural(t.requests, "request", "requests"),
		count(t.reviews), plural(t.reviews, "review", "reviews"), s.BytesText, s.Elapsed, budgetText(l.budget))
	all := append(append([]Skip(nil), p.Skipped...), t.skipped...)
	for _, r := range reasons {
		grp := views.SearchSkipGroup{Reason: string(r.reason), Label: r.label, Open: r.reason != NoList && r.reason != SameObjects}
		for _, sk := range all {
			if sk.Reason != r.reason {
				continue
			}
			r := sk.Kind.Resource
			k := views.SearchSkip{Kind: r.Kind, Resource: kube.ResourceName(r), Detail: sk.Detail}
			if r.Can("list") && sk.Reason != Forbidden {
				k.ListHref = l.list(sk.Kind)
			}
			grp.Kinds = append(grp.Kinds, k)
		}
		if r.reason == Failed {
			for _, gv := range slices.Sorted(maps.Keys(p.Undiscovered)) {
				grp.Kinds = append(grp.Kinds, views.SearchSkip{Kind: gv, Resource: gv, Detail: "discovery of this group version failed, so its kinds are unknown: " + p.Undiscovered[gv]})
			}
		}
		if len(grp.Kinds) > 0 {
			s.Skipped = append(s.Skipped, grp)
		}
	}
	return s
}

// budgetText states a budget in a sentence.
func budgetText(b Budget) string {
	return fmt.Sprintf("%d kinds at a time, each within %s and the search within %s; %s objects a request, at most %s per kind.",
		b.Concurrency, seconds(b.PerKind), seconds(b.Total), count(b.PageSize), count(b.MaxObjects))
}

// count writes n with thousands separators, as the pages do.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func elapsedText(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
