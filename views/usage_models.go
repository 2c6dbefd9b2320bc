package views

import "github.com/a-h/templ"

// UsageSection is the usage of a pod, node or workload, from
// metrics.k8s.io: a chart of recent samples for pods and nodes, sums for
// workloads.
type UsageSection struct {
	Title string
	// Chart is a pod's or node's recent usage, kept current while the page
	// is open; nil for a workload.
	Chart *UsageChart
	// Fields are a workload's sums, or what a pod requests and a node offers.
	Fields []Field
	Note   string
}

// UsageChart is a pod's or node's usage over the samples the page has
// seen. The element carries its own history: the page's script sends it
// back to Src, which answers with the chart redrawn with one more sample.
type UsageChart struct {
	Src templ.SafeURL
	// History is the samples drawn, encoded; Samples counts them.
	History string
	Samples int
	// Every is how often to ask again, in milliseconds.
	Every       string
	CPU, Memory Sparkline
	// Updated is when the latest sample was taken (RFC 3339), if any;
	// UpdatedText the same for reading.
	Updated, UpdatedText string
	Note                 string
}

// Sparkline is one series of a chart, drawn as inline SVG. Its coordinates
// are numbers the model formatted.
type Sparkline struct {
	Label string
	// Latest and Peak are the series' values, formatted ("12m", "64Mi").
	Latest, Peak string
	// Description says the same for screen readers.
	Description   string
	Width, Height string
	// Points is the line ("x,y x,y …"), Area the same closed down to the
	// baseline; empty without samples. DotX, DotY mark the latest.
	Points, Area string
	DotX, DotY   string
}
