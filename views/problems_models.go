package views

import (
	"iter"

	"github.com/a-h/templ"
)

// ProblemsPage is what is broken now in a namespace or the cluster.
type ProblemsPage struct {
	Layout Layout
	Form   ProblemsForm
	// Error is why the request was refused (a 4xx); the form keeps it.
	Error string
	// Live: the page follows the cluster over a WebSocket.
	Live   bool
	Report ProblemsReport
}

// ProblemsForm is the page's form: a namespace ("" for the cluster) and
// how long an object may be in progress before it is a problem.
type ProblemsForm struct {
	Action    templ.SafeURL
	Namespace string
	After     string
	// Afters are the thresholds offered ("1m", "5m", …).
	Afters []string
}

// ProblemsReport is the page's live part: counts, sections and what the
// scan cost and skipped.
type ProblemsReport struct {
	// Scope is "in namespace demo" or "in the cluster".
	Scope string
	// IDPrefix keeps the sections' ids apart where several reports share
	// a page (one per cluster).
	IDPrefix string
	Counts   []ProblemCount
	Sections []ProblemSection
	Warnings WarningsSection
	// Cost is "24 kinds asked in 31 requests, 1,204 objects read, 0.21 s".
	Cost string
	// Notes say what the page could not see (events hidden, the board
	// full).
	Notes []string
	// Skipped are the kinds that could not be read, or not in full;
	// NotAsked those that say nothing of health.
	Skipped  []SkippedKind
	NotAsked []SkippedKind
	// NotLive are the asked kinds the live page does not watch.
	NotLive []SkippedKind
}

// ProblemCount is one kind of problem's count, linked to its section.
type ProblemCount struct {
	// ID names the category ("failed", "stuck", "pods", "warnings") and
	// its section's anchor.
	ID, Label string
	N         int
	Href      templ.SafeURL
}

// ProblemSection lists one category's problems.
type ProblemSection struct {
	ID, Title string
	// Help says what the section holds; Empty what an empty one means.
	Help, Empty string
	Total       int
	// Pods: the rows are pods (a container and restarts column).
	Pods bool
	Rows []ProblemRow
	// More is how many problems are not shown.
	More int
}

// ProblemRow is one object in trouble.
type ProblemRow struct {
	Kind, Namespace, Name string
	// Href is the object's page.
	Href            templ.SafeURL
	Reason, Message string
	Container       string
	Restarts        string
	// Age and Time say since when ("" when the object does not tell).
	Age, Time string
}

// WarningsSection is the Warning events, grouped by object and reason.
type WarningsSection struct {
	Total int
	Rows  []WarningRow
	More  int
	// Note says why there are no events (no events API, hidden).
	Note string
}

// WarningRow is the Warning events about one object with one reason.
type WarningRow struct {
	Kind, Namespace, Name string
	// Href is the object's page ("" when its kind is not served).
	Href            templ.SafeURL
	Reason, Message string
	Count           int
	FirstAge        string
	FirstTime       string
	LastAge         string
	LastTime        string
}

// HomeHealth opens the context's home page: the server, its nodes and the
// Problems counts.
type HomeHealth struct {
	ServerVersion string
	// Nodes is "2 of 3 ready" ("" when the nodes could not be read); NodesOK
	// says all are.
	Nodes   string
	NodesOK bool
	// Scope is what the counts cover ("in the cluster").
	Counts       []ProblemCount
	ProblemsHref templ.SafeURL
	// Note says what the counts could not cover.
	Note string
}

// FleetHomePage is the home of several contexts: one row per cluster.
type FleetHomePage struct {
	Layout Layout
	// Title is "All contexts" or the contexts chosen.
	Title        string
	Rows         []FleetRow
	ProblemsHref templ.SafeURL
}

// FleetRow is one cluster of a fleet.
type FleetRow struct {
	Context string
	// Href is the context's own home.
	Href templ.SafeURL
	// Reachable: the cluster answered; Error says why not, or why it does
	// not take part.
	Reachable bool
	Error     string
	Version   string
	// Nodes is "2 of 3 ready"; NodesOK says all are.
	Nodes         string
	NodesOK       bool
	PodsInTrouble int
	// Problems sums the cluster's Problems counts, linked to its page.
	Problems     int
	ProblemsHref templ.SafeURL
	// Identity is who the user is there (SelfSubjectReview).
	Identity string
	// Note says what the counts could not cover.
	Note string
}

// FleetProblemsPage is the Problems of several contexts.
type FleetProblemsPage struct {
	Layout Layout
	Form   ProblemsForm
	// Error is why the request was refused (a 4xx).
	Error    string
	Sections []FleetProblemsSection
}

// FleetProblemsSection is one cluster's Problems, or why there are none.
type FleetProblemsSection struct {
	Context string
	// Href is the cluster's own (live) Problems page.
	Href   templ.SafeURL
	Error  string
	Report ProblemsReport
}

// FleetListPage is one list over several contexts: a section per cluster,
// written as each answers.
type FleetListPage struct {
	Layout Layout
	// Title is "deployments.apps in All contexts".
	Title string
	// Selectors says what the sections are narrowed by ("" for nothing).
	Selectors string
	// Sections yields each cluster's section as it answers; ranging over
	// it asks the clusters, and the page is flushed after each.
	Sections iter.Seq[FleetListSection]
	// Merged is the flat table of ?merge=1 (nil otherwise, or when the
	// clusters' columns differ: MergeNote says so).
	Merged    *FleetMerged
	MergeNote string
	// MergeHref switches between the sections and the flat table.
	MergeHref  templ.SafeURL
	MergeLabel string
}

// FleetMerged is every cluster's rows in one table, a Cluster column
// first, in the columns the clusters agree on.
type FleetMerged struct {
	Columns []ListColumn
	Rows    *ListRows
	// Errors are the clusters with no rows, and why.
	Errors []FleetListSection
}

// FleetListSection is one cluster's page of the list.
type FleetListSection struct {
	Context string
	// Href is the cluster's own list page (and where its live rows come
	// from).
	Href templ.SafeURL
	// Error says why there are no rows: not served there, refused, no
	// answer in time.
	Error   string
	Served  string
	Columns []ListColumn
	Rows    *ListRows
	// Live: the rows follow the cluster (the list's own live stream, one
	// upstream watch per cluster and list shared by every page).
	Live            bool
	ResourceVersion string
	// NextHref is the section's next page on this fleet page ("" for the
	// last), FirstHref its first ("" on it).
	NextHref, FirstHref templ.SafeURL
}
