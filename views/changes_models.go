package views

import "github.com/a-h/templ"

// ChangesPage is the recent changes of a namespace.
type ChangesPage struct {
	Layout Layout
	Form   ChangesForm
	// Error is why the request was refused (a 4xx); the form keeps it.
	Error string
	// Ran says a scan ran: Rows and Summary are set.
	Ran     bool
	Rows    []RecentChangeRow
	Summary ChangesSummary
}

// ChangesForm is the page's form: a namespace and a window.
type ChangesForm struct {
	Action    templ.SafeURL
	Namespace string
	Since     string
	// Windows are the windows offered ("15m", "1h", …).
	Windows []string
}

// RecentChangeRow is an object written to within the window.
type RecentChangeRow struct {
	Kind string
	Name string
	// Href is the object's page.
	Href      templ.SafeURL
	Age, Time string
	Writes    []RecentChangeWrite
}

// RecentChangeWrite is one manager's write.
type RecentChangeWrite struct {
	Manager, Operation, Subresource string
	Age, Time                       string
	Fields                          string
}

// ChangesSummary is what the scan found and cost, and what it skipped.
type ChangesSummary struct {
	// Line is "12 objects changed in the last 1h in demo".
	Line string
	// Cost is "17 kinds asked in 18 requests, 1,204 objects read, 0.08 s".
	Cost string
	// More is how many changed objects are not shown.
	More    int
	Skipped []SkippedKind
	// Unreadable counts objects whose managedFields could not be read.
	Unreadable int
}
