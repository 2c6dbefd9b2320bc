package views

import "github.com/a-h/templ"

// LogPage shows the log of one pod's container, or the merged logs of the
// pods a workload or label selector picks.
type LogPage struct {
	Layout Layout
	// Kind and Name say whose log this is ("Pod web-1", "Deployment web").
	Kind      string
	Name      string
	Namespace string
	// Selector is the label selector of a multi-pod log.
	Selector string
	Multi    bool
	// BackHref is the object (or pod list) the log belongs to.
	BackHref     templ.SafeURL
	Action       templ.SafeURL
	DownloadHref templ.SafeURL
	Containers   []string
	Options      LogOptions
	// Hidden carries the selector of a multi-pod log through the form.
	Hidden  []HiddenField
	Notices []string
}

// LogOptions are the page's controls, all carried in the URL.
type LogOptions struct {
	Container  string
	Follow     bool
	TailLines  string
	Since      string
	Timestamps bool
	Previous   bool
	Wrap       bool
	Query      string
	// Filter hides lines that do not match Query.
	Filter bool
	// MaxLines bounds the lines kept in the page.
	MaxLines int
}
