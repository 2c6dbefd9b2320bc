package views

import (
	"iter"

	"github.com/a-h/templ"
)

// SearchPage is a search across kinds: its form, what it will ask, and its
// results, written as each kind answers.
type SearchPage struct {
	Layout Layout
	Form   SearchForm
	// Error is why the query was refused; the form keeps its text.
	Error string
	// Running says a search runs: Plan, Groups and Summary are set.
	Running bool
	Plan    SearchPlan
	// Groups yields the kinds with matches as they finish, those finished
	// together in one batch; ranging over it runs the search, and the page
	// is flushed after each batch.
	Groups iter.Seq[[]SearchGroup]
	// Summary is what the search cost and skipped; called once Groups is
	// done.
	Summary func() SearchSummary
}

// SearchForm is the search box of the page.
type SearchForm struct {
	Action templ.SafeURL
	Query  string
	// Namespace is the namespace picker's, carried for a query that names
	// none ("" for all).
	Namespace string
}

// SearchPlan is what a search is about to ask, and its budget.
type SearchPlan struct {
	// Scope is "namespace demo" or "all namespaces".
	Scope string
	Kinds int
	// Budget states the bounds: concurrency, deadlines, objects per kind.
	Budget string
	// OutOfScope counts the cluster-scoped kinds a namespace leaves out;
	// WiderHref is the same search across all namespaces.
	OutOfScope int
	WiderHref  templ.SafeURL
}

// SearchGroup is one kind's matches.
type SearchGroup struct {
	// IDPrefix keeps the group's ids apart where several clusters' groups
	// share a page.
	IDPrefix string
	Kind     string
	// Resource is "deployments.apps" ("pods" in the core group).
	Resource     string
	GroupVersion string
	// ListHref is the kind's list with the search's selectors and scope.
	ListHref   templ.SafeURL
	Namespaced bool
	// Count is how many objects matched; Rows are the first of them.
	Count int
	Rows  []SearchRow
	// StatusColumn names the Table column Rows' Status comes from.
	StatusColumn string
	// MoreHref shows all Count matches, MoreLabel says where.
	MoreHref  templ.SafeURL
	MoreLabel string
	// Note says why Count may be short (the kind was cut).
	Note string
	// First marks the page's first group: its first row is timed.
	First bool
}

// SearchRow is one object found.
type SearchRow struct {
	Namespace string
	Name      string
	Href      templ.SafeURL
	Status    string
	Age       Cell
}

// SearchSummary is what a search did and cost.
type SearchSummary struct {
	// IDPrefix keeps its ids apart where several clusters' summaries share
	// a page.
	IDPrefix         string
	KindsAsked       int
	KindsWithMatches int
	Matches          int
	Requests         int64
	Reviews          int64
	Bytes            int64
	BytesText        string
	ElapsedMS        int64
	Elapsed          string
	// Skipped are the kinds not searched, or not searched through, by
	// reason, in the order the page shows them.
	Skipped []SearchSkipGroup
	// Cost says it in a sentence.
	Cost string
	// Shared says the search joined an identical one already running for
	// the same identity, whose requests it shared.
	Shared bool
}

// SearchSkipGroup is the kinds skipped for one reason.
type SearchSkipGroup struct {
	// Reason is a stable code: forbidden, too-many, timeout, no-list,
	// field-refused, expired, failed or same-objects.
	Reason string
	Label  string
	// Open shows the kinds without a click: every reason but no-list and
	// same-objects, which are expected and say nothing is missing.
	Open  bool
	Kinds []SearchSkip
}

// SearchSkip is one kind skipped, and why.
type SearchSkip struct {
	Kind     string
	Resource string
	Detail   string
	ListHref templ.SafeURL
}

// SkippedCount is how many kinds were skipped, for any reason.
func (s SearchSummary) SkippedCount() int {
	n := 0
	for _, g := range s.Skipped {
		n += len(g.Kinds)
	}
	return n
}

// FleetSearchPage is a search over several contexts.
type FleetSearchPage struct {
	Layout Layout
	// Scope is "in All contexts".
	Scope string
	Form  SearchForm
	// Error is why the query was refused (a 400; the form keeps it).
	Error string
	// Sections yields each cluster's results as it finishes; ranging
	// over it runs the searches.
	Sections iter.Seq[FleetSearchSection]
}

// FleetSearchSection is one cluster's search.
type FleetSearchSection struct {
	Context string
	// Href is the same search in that context alone.
	Href    templ.SafeURL
	Error   string
	Groups  []SearchGroup
	Summary SearchSummary
}
