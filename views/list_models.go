package views

import "github.com/a-h/templ"

// ListPage is one page of a resource list in the server's columns.
type ListPage struct {
	Layout Layout
	// Kind and Resource name what is listed; GroupVersion is "v1" or "apps/v1".
	Kind         string
	Resource     string
	GroupVersion string
	Namespaced   bool
	// Namespace is the namespace shown, "" for all namespaces.
	Namespace string
	Picker    NamespacePicker
	// Served is the representation the server answered with, as a badge.
	Served  string
	Columns []ListColumn
	Rows    *ListRows
	Filter  ListFilter
	// Wide reveals priority > 0 columns; WideHref toggles it.
	Wide          bool
	WideHref      templ.SafeURL
	HiddenColumns int
	Pager         Pager
	// SortedBy names the column the page is sorted by, if any.
	SortedBy string
	// UsageOmitted says why a pod or node list has no usage columns,
	// when it is too long for them.
	UsageOmitted string
	Notices      []string
	Live         LiveList
	// CreateHref opens the create page, when the server allows creating.
	CreateHref templ.SafeURL
	// CreateDenied, when set, says why the user may not create here: the
	// button is shown disabled with the reason.
	CreateDenied string
	// Kubectl is the kubectl command listing what the page lists.
	Kubectl string
	// Select, when set, gives each row a checkbox and the page a bulk
	// action bar (web/bulk); Rows must then be Selectable.
	Select *ListSelect
	// Chooser is the column chooser; ColumnNotes say what added columns
	// cost (a bigger Table request, a shorter page).
	Chooser     ColumnChooser
	ColumnNotes []string
	// NoMatch is the empty state of a filtered page: no row matched in the
	// objects it read.
	NoMatch string
	// Exports download the whole collection the page's query selects, one
	// link per format.
	Exports []ExportLink
}

// ExportLink downloads the list's whole collection in one format.
type ExportLink struct {
	Format string // csv, tsv, json, yaml
	Label  string
	Href   templ.SafeURL
}

// LiveList is what the page needs to follow its list live.
type LiveList struct {
	// Watch is false for resources the server does not let anyone watch.
	Watch bool
	// ResourceVersion is the list's, where the watch starts.
	ResourceVersion string
	// ReloadHref shows rows that arrived outside the page.
	ReloadHref templ.SafeURL
	// Usage is "on" when the page has usage columns, which the rows it is
	// pushed then carry too.
	Usage string
	// Filtered pages only update the rows they show; other matching rows
	// are announced, as the page cannot tell where they would go.
	Filtered bool
	// ScanFrom and ScanTo are the keys of the first and last objects a
	// filtered page read ("": from the list's start, to its end).
	ScanFrom string
	ScanTo   string
	// Select is "on" when the rows have checkboxes, which pushed rows
	// then carry too.
	Select string
}

// NamespacePicker offers the namespaces the user may list, or a free-text
// field when the user may not list namespaces.
type NamespacePicker struct {
	Action   templ.SafeURL
	Current  string
	Options  []string
	FreeText bool
	// Hidden are fields the form carries over (filters, wide).
	Hidden []HiddenField
}

// HiddenField is a form field carried over unchanged.
type HiddenField struct {
	Name  string
	Value string
}

// ListFilter is the selector form.
type ListFilter struct {
	Action        templ.SafeURL
	LabelSelector string
	FieldSelector string
	Hidden        []HiddenField
	ClearHref     templ.SafeURL
	// Filters are the row filters (?filter=), each in its own field;
	// AddFilter offers an empty one for another.
	Filters   []string
	AddFilter bool
	// ClearFiltersHref drops the row filters, keeping the selectors.
	ClearFiltersHref templ.SafeURL
}

// ListColumn is a visible column header.
type ListColumn struct {
	Name        string
	Description string
	Numeric     bool
	// NameColumn marks the column naming the objects, which stays in view
	// while a wide table scrolls sideways.
	NameColumn bool
	SortHref   templ.SafeURL
	// Sort is the column's aria-sort: "ascending", "descending" or "none".
	Sort string
}

// RowSource yields a list page's rows one at a time, so a page can write
// each row as the server's answer is read rather than hold them all.
type RowSource interface {
	// Next moves to the next row; false at the end or on an error.
	Next() bool
	// Row is the current row, valid until the next call to Next.
	Row() ListRow
	// Err is what ended the rows early, if anything.
	Err() error
}

// ListRows are the rows of a list page, built or streamed. Whether there is
// a row is known before they are written (the empty state comes first);
// how many were written, after.
type ListRows struct {
	src     RowSource
	started bool // src is on its first row, read ahead by StreamRows
	written int
	// selectable rows start with a checkbox cell (ListPage.Select),
	// checked when checked is set.
	selectable, checked bool
	// brokenOff is what ended a streamed page's rows after its first
	// screen was sent.
	brokenOff error
}

// BrokenOff is what ended the rows of a page that was already being sent
// (page.Env.RenderStreamed), which shows what it has and says so; nil when
// the rows ended as they should.
func (l *ListRows) BrokenOff() error {
	if l == nil {
		return nil
	}
	return l.brokenOff
}

// Selectable gives every row a checkbox of the page's bulk form, checked
// when checked is set.
func (l *ListRows) Selectable(checked bool) *ListRows {
	l.selectable, l.checked = true, checked
	return l
}

// StaticRows are rows built in advance.
func StaticRows(rows []ListRow) *ListRows {
	return StreamRows(&sliceRows{rows: rows, i: -1})
}

// StreamRows are rows read as they are written. It reads the first one
// ahead, to know whether the list is empty.
func StreamRows(src RowSource) *ListRows {
	return &ListRows{src: src, started: src.Next()}
}

// Empty says whether the page has no row (or failed before its first).
func (l *ListRows) Empty() bool { return l == nil || !l.started }

// Written is how many rows were written so far.
func (l *ListRows) Written() int {
	if l == nil {
		return 0
	}
	return l.written
}

type sliceRows struct {
	rows []ListRow
	i    int
}

func (s *sliceRows) Next() bool {
	if s.i+1 >= len(s.rows) {
		return false
	}
	s.i++
	return true
}
func (s *sliceRows) Row() ListRow { return s.rows[s.i] }
func (s *sliceRows) Err() error   { return nil }

// ListRow is one row; Key identifies it (uid, or namespace/name).
type ListRow struct {
	Key        string
	Cells      []Cell
	Conditions []string
}

// Cell is one table cell.
type Cell struct {
	Text    string
	Href    templ.SafeURL
	Title   string
	Numeric bool
	// Time marks a relative age whose absolute time is in Title.
	Time bool
	// Name marks the cell naming the object: its row's condition tags sit
	// there, whatever column comes first.
	Name bool
	// Muted is a placeholder, such as the dash of a usage not known or a
	// custom column's <none>.
	Muted bool
	// Labels, in a Labels column, are the object's labels as chips, each
	// with a menu: filter by it, show it as a column.
	Labels []Chip
}

// ColumnChoice is a column the chooser offers to show or hide.
type ColumnChoice struct {
	Name  string
	Shown bool
	// Kind is "server" (the Table's), "label", "custom" or "labels".
	Kind string
	// Priority marks a column only a wide list shows by default; Optional,
	// one this list shows only when asked (priority, and the list not wide).
	Priority bool
	Optional bool
	// Locked is the name column, always shown.
	Locked bool
}

// ColumnChooser is the toolbar's "Columns" panel: a GET form whose choice
// the list page turns into hide, show, labelColumns and columns.
type ColumnChooser struct {
	Action  templ.SafeURL
	Choices []ColumnChoice
	// LabelColumns and CustomColumns are the current values, to edit.
	LabelColumns  string
	CustomColumns string
	ShowLabels    bool
	// Hidden carries the rest of the query.
	Hidden []HiddenField
	// SaveHref is the page's own URL: the view as a link.
	SaveHref templ.SafeURL
}

// Pager links pages of a list fetched with limit/continue.
type Pager struct {
	Page      int
	NextHref  templ.SafeURL
	BackHref  templ.SafeURL
	FirstHref templ.SafeURL
	// Remaining is the server's estimate of the items after this page, or -1.
	Remaining int64
	// Matches, on a filtered page, says how many rows matched in which
	// objects; ScanStopped, why the scan's budget stopped it there.
	Matches     string
	ScanStopped string
	// ScanBudget says what a filtered page reads at most.
	ScanBudget string
}
