package views

import (
	"iter"
	"strconv"

	"github.com/a-h/templ"
)

// BulkFormID is the id of a list page's bulk form: each row's checkbox
// names it (form=), so the table stays outside the form.
const BulkFormID = "bulk-form"

// ListSelect is a list page's bulk action bar: a checkbox per row, and the
// form that sends the checked rows to the review.
type ListSelect struct {
	// Action is the review (POST).
	Action templ.SafeURL
	// Hidden names the list: its resource and namespace.
	Hidden []HiddenField
	// Ops are the actions offered (value, label), the first preselected.
	Ops []BulkOp
	// Max is how many objects one review takes.
	Max int
	// SelectAllHref is this page with every row checked, and ClearHref
	// without: "select all on this page" without JavaScript (with it, the
	// header's box does it). A page with every row checked has its action
	// fields shown from the first paint (bulk-active).
	SelectAllHref, ClearHref templ.SafeURL
}

// BulkOp is one action of the bulk form.
type BulkOp struct {
	Value string
	Label string
}

// BulkAction is the action of a review or an apply, as its forms carry
// it: Op, and what it needs (propagation policy, replicas, key and value).
type BulkAction struct {
	Op          string
	Propagation string
	Replicas    string
	Key         string
	Value       string
	// Summary says what it does, for headings: "Delete (propagation
	// Background)", "Scale to 3 replicas".
	Summary string
}

// BulkReviewPage lists every selected object with what will happen to it,
// whether the user may do it and what the server's dry run said, and the
// form that applies it to the objects that passed.
type BulkReviewPage struct {
	Layout Layout
	Kind   string
	// Resource is the plural; ListHref goes back to the list.
	Resource string
	ListHref templ.SafeURL
	Action   BulkAction
	Items    []BulkReviewItem
	// Ready counts the items the apply form carries; Forbidden and Failed
	// those it leaves out.
	Ready, Forbidden, Failed int
	// Apply is the apply form (POST); Hidden names the resource.
	Apply  templ.SafeURL
	Hidden []HiddenField
	// Review is where the review is asked again (POST), for the items
	// that failed.
	Review templ.SafeURL
	// Notices say what the review could not do (access reviews
	// unavailable).
	Notices []string
}

// BulkReviewItem is one object of a review.
type BulkReviewItem struct {
	Namespace string
	Name      string
	Href      templ.SafeURL
	// Key is the form value naming it: namespace/name.
	Key string
	// ResourceVersion is what the review read, carried to the apply.
	ResourceVersion string
	// Change says what the action will do to it.
	Change string
	// State is "ready", "forbidden" or "failed".
	State string
	// Permission is "allowed", "forbidden" or "unknown"; Reason says why
	// (the authorizer's reason for a refusal).
	Permission string
	Reason     string
	// DryRun is the server's dry run: "" when none was sent, else what it
	// answered ("accepted", or the Status's code, reason and message in
	// Error).
	DryRun string
	Error  *BulkError
}

// BulkError is the server's refusal of one item: a metav1.Status.
type BulkError struct {
	Code    int
	Reason  string
	Message string
}

// Label is the refusal's code and reason: "409 Conflict".
func (e *BulkError) Label() string {
	switch {
	case e.Code == 0:
		return e.Reason
	case e.Reason == "":
		return strconv.Itoa(e.Code)
	}
	return strconv.Itoa(e.Code) + " " + e.Reason
}

// BulkResultsPage streams the apply's results as the writes finish, then
// a summary.
type BulkResultsPage struct {
	Layout   Layout
	Kind     string
	Resource string
	ListHref templ.SafeURL
	Action   BulkAction
	// Total is how many items were sent.
	Total int
	// Results yields each item's result as it is known.
	Results iter.Seq[BulkResult]
	// Summary is complete once Results is drained.
	Summary *BulkSummary
	// Review asks a review again (POST) of a conflicted item; Hidden names
	// the resource and the action.
	Review templ.SafeURL
	Hidden []HiddenField
}

// BulkResult is one item's outcome: "done", "conflict", "forbidden",
// "failed" or "skipped" (not sent: the request ended first).
type BulkResult struct {
	Namespace string
	Name      string
	Key       string
	Href      templ.SafeURL
	Outcome   string
	// Detail says what was done ("deleted", "marked for deletion") or why
	// not.
	Detail string
	Error  *BulkError
}

// BulkSummary counts the outcomes.
type BulkSummary struct {
	Done, Conflict, Forbidden, Failed, Skipped int
	// Conflicts are the keys of the conflicted items, to review again.
	Conflicts []string
}
