package kube

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// ResourceURLs builds the console URL of a resource's list (name "") or of
// one object, in one cluster's context. page.URLs is the console's; kube
// sits below web/page, so it names only the method it links rows with.
type ResourceURLs interface {
	Resource(r apiclient.Resource, namespace, name string) templ.SafeURL
}

// ListTable is one server-side Table to show as a resource list shows it,
// with what its columns, links and order depend on. The list page fills it
// from its query; a page about several clusters fills one per cluster, so
// each shows its rows exactly as that cluster's list page does.
type ListTable struct {
	// URLs links the rows in the Table's own context.
	URLs     ResourceURLs
	Resource apiclient.Resource
	// Namespace is the namespace listed, "" for all namespaces; the rows of
	// an all-namespaces list are linked from their object metadata
	// (apiclient.IncludeMetadata).
	Namespace string
	// Table gives the columns and the representation served. Its rows are
	// not read: they are handed to ListView.Rows or ListView.Stream.
	Table *apiclient.Table
	// Wide shows the columns of priority > 0, as kubectl -o wide does.
	Wide bool
	// Sort names the column the rows are sorted by, "-" first for
	// descending; "" keeps the server's order.
	Sort string
	// SortHref is where a column's header links, given the Sort value that
	// header asks for; nil links no header.
	SortHref func(sort string) templ.SafeURL
	// Usage adds CPU and memory columns to a pod or node list; nil, or one
	// that is Omitted, adds none.
	Usage *Usage
	// Now is when ages are counted from; zero is time.Now().
	Now time.Time
}

// TableRows are a Table's rows as they are read (*apiclient.TableStream).
type TableRows interface {
	Next() bool
	Row() *apiclient.Row
	Err() error
}

// ListView is a Table's visible columns, and the builder of its rows:
// priority columns only when wide, the name column linked, dates as ages,
// and each row keyed as live updates find it.
type ListView struct {
	Columns []views.ListColumn
	// HiddenColumns counts the columns only a wide list shows.
	HiddenColumns int

	t             ListTable
	visible       []int
	nameCol       int
	withNamespace bool
	rowBase       templ.SafeURL
	now           time.Time
	usage         *Usage // nil: no usage columns
}

// NewListView lays out t's columns; its rows are built by Rows or Stream.
func NewListView(t ListTable) *ListView {
	table := t.Table
	fallback := table.Served == apiclient.JSONFallback || table.Served == apiclient.MetadataList
	allNamespaces := t.Resource.Namespaced && t.Namespace == ""
	v := &ListView{
		t: t, nameCol: -1, now: t.Now,
		// Like kubectl -A: an all-namespaces list shows each row's namespace.
		withNamespace: allNamespaces && !fallback,
		// Rows of a one-namespace (or cluster-scoped) list share their link prefix.
		rowBase: t.URLs.Resource(t.Resource, t.Namespace, "") + "/",
	}
	if t.Usage != nil && t.Usage.Omitted == "" {
		v.usage = t.Usage
	}
	if v.now.IsZero() {
		v.now = time.Now()
	}
	for i, col := range table.Columns {
		if col.Format == "name" && v.nameCol < 0 {
			v.nameCol = i
		}
		// A fallback list's generic Namespace column says something only
		// across namespaces, as kubectl prints NAMESPACE only with -A.
		if fallback && col.Name == "Namespace" && !allNamespaces {
			continue
		}
		if col.Priority > 0 && !t.Wide {
			v.HiddenColumns++
			continue
		}
		v.visible = append(v.visible, i)
	}
	sortCol, desc := sortColumn(table.Columns, t.Sort)
	v.Columns = make([]views.ListColumn, 0, len(v.visible)+3)
	if v.withNamespace {
		v.Columns = append(v.Columns, views.ListColumn{Name: "Namespace", Description: "Namespace of the object"})
	}
	for _, i := range v.visible {
		col := table.Columns[i]
		c := views.ListColumn{
			Name:        col.Name,
			Description: col.Description,
			Numeric:     Numeric(col.Type),
			NameColumn:  i == v.nameCol,
			Sort:        sortState(i == sortCol, desc),
		}
		if t.SortHref != nil {
			next := col.Name
			if i == sortCol && !desc {
				next = "-" + col.Name
			}
			c.SortHref = t.SortHref(next)
		}
		v.Columns = append(v.Columns, c)
	}
	if v.usage != nil {
		v.Columns = append(v.Columns, usageColumns(v.usage)...)
	}
	return v
}

// HasUsage says whether the rows carry CPU and memory cells: rows pushed
// to a live list must carry them exactly when its page does.
func (v *ListView) HasUsage() bool { return v.usage != nil }

// width is the number of cells of a row.
func (v *ListView) width() int {
	n := len(v.visible)
	if v.withNamespace {
		n++
	}
	if v.usage != nil {
		n += 2
	}
	return n
}

// Rows builds every row of a page, sorted as the ListTable asks.
func (v *ListView) Rows(rows []apiclient.Row) []views.ListRow {
	columns := v.t.Table.Columns
	if sortCol, desc := sortColumn(columns, v.t.Sort); sortCol >= 0 {
		rows = sortedRows(rows, sortCol, columns[sortCol].Type, desc)
	}
	out := make([]views.ListRow, len(rows))
	// One allocation for every cell of the page, sliced per row.
	width := v.width()
	cells := make([]views.Cell, len(rows)*width)
	for i := range rows {
		out[i] = v.row(&rows[i], cells[i*width:i*width:(i+1)*width])
	}
	return out
}

// Stream builds each row of src as it is read, in the server's order, so
// a page can write a long list without holding it.
func (v *ListView) Stream(src TableRows) views.RowSource {
	return &streamedRows{src: src, view: v}
}

// row builds one row, appending its cells to cells.
func (v *ListView) row(row *apiclient.Row, cells []views.Cell) views.ListRow {
	namespace := v.t.Namespace
	vr := views.ListRow{Cells: cells}
	name, ns := "", namespace
	if v.nameCol >= 0 && v.nameCol < len(row.Cells) {
		name, _ = row.Cells[v.nameCol].(string)
	}
	if row.Object != nil {
		if name == "" {
			name = row.Object.Name
		}
		if row.Object.Namespace != "" {
			ns = row.Object.Namespace
		}
	}
	// Live updates find rows by this key, with or without object metadata.
	vr.Key = ns + "/" + name
	if v.withNamespace {
		vr.Cells = append(vr.Cells, views.Cell{Text: ns, Href: v.t.URLs.Resource(v.t.Resource, ns, "")})
	}
	columns := v.t.Table.Columns
	for _, i := range v.visible {
		var val any
		if i < len(row.Cells) {
			val = row.Cells[i]
		}
		col := columns[i]
		cell := FormatCell(val, col.Type, v.now)
		if cell.Time && col.Name == "Age" && row.Object != nil && !row.Object.CreationTimestamp.IsZero() {
			cell.Title = row.Object.CreationTimestamp.UTC().Format(time.RFC3339)
		}
		cell.Name = i == v.nameCol
		if i == v.nameCol && name != "" {
			if ns == namespace {
				cell.Href = v.rowBase + templ.SafeURL(url.PathEscape(name))
			} else {
				cell.Href = v.t.URLs.Resource(v.t.Resource, ns, name)
			}
		}
		vr.Cells = append(vr.Cells, cell)
	}
	if v.usage != nil {
		// Usage is merged by the row's key, namespace/name, as metrics.k8s.io
		// names its samples after their pods and nodes.
		usage := usageCells(v.usage, vr.Key)
		vr.Cells = append(vr.Cells, usage[:]...)
	}
	for _, cond := range row.Conditions {
		if cond.Status == "True" {
			vr.Conditions = append(vr.Conditions, string(cond.Type))
		}
	}
	return vr
}

// streamedRows builds each row as it is read, reusing one row's memory:
// the page writes a row before asking for the next.
type streamedRows struct {
	src   TableRows
	view  *ListView
	cells []views.Cell
	cur   views.ListRow
}

func (s *streamedRows) Next() bool {
	if !s.src.Next() {
		return false
	}
	s.cur = s.view.row(s.src.Row(), s.cells[:0])
	s.cells = s.cur.Cells
	return true
}

func (s *streamedRows) Row() views.ListRow { return s.cur }
func (s *streamedRows) Err() error         { return s.src.Err() }

// sortState is a column header's aria-sort.
func sortState(sorted, desc bool) string {
	switch {
	case !sorted:
		return "none"
	case desc:
		return "descending"
	}
	return "ascending"
}

func sortColumn(cols []apiclient.Column, sortBy string) (int, bool) {
	desc := strings.HasPrefix(sortBy, "-")
	name := strings.TrimPrefix(sortBy, "-")
	for i, c := range cols {
		if name != "" && strings.EqualFold(c.Name, name) {
			return i, desc
		}
	}
	return -1, false
}

// sortedRows sorts a copy of the page's rows; the server's order is the
// list's order, so sorting never reaches beyond this page.
func sortedRows(rows []apiclient.Row, col int, colType string, desc bool) []apiclient.Row {
	out := append([]apiclient.Row(nil), rows...)
	less := func(a, b any) bool {
		switch av := a.(type) {
		case float64:
			bv, ok := b.(float64)
			return ok && av < bv
		case bool:
			bv, _ := b.(bool)
			return !av && bv
		}
		as, bs := fmt.Sprint(a), fmt.Sprint(b)
		if colType == "date" {
			at, aerr := time.Parse(time.RFC3339, as)
			bt, berr := time.Parse(time.RFC3339, bs)
			if aerr == nil && berr == nil {
				return at.Before(bt)
			}
		}
		return as < bs
	}
	cell := func(r apiclient.Row) any {
		if col < len(r.Cells) {
			return r.Cells[col]
		}
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool {
		if desc {
			return less(cell(out[j]), cell(out[i]))
		}
		return less(cell(out[i]), cell(out[j]))
	})
	return out
}
