package kube

import (
	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// Usage is what metrics.k8s.io says the rows of a pod or node list use,
// shown as CPU and memory columns. A list has them where discovery lists
// the metrics API, the user may read it, and the list is short enough for
// metrics-server's unpaged answer; a request that failed leaves the cells
// muted.
type Usage struct {
	// ByKey is each row's usage by its key (namespace/name); a row without
	// a sample (a pod not scraped yet) has none.
	ByKey map[string]apiclient.Usage
	// Unavailable says why there is no usage at all, for the columns'
	// titles: the page stays quiet about it otherwise.
	Unavailable string
	// Omitted says why a list too long for metrics.k8s.io has no usage
	// columns, for a remark beside the page count.
	Omitted string
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
		{Text: FormatCPU(v.CPUMilli), Numeric: true},
		{Text: FormatMemory(v.MemoryBytes), Numeric: true},
	}
}
