package kube

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
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

	// LabelColumns adds a column per label key, as kubectl -L, from each
	// row's object metadata (apiclient.IncludeMetadata).
	LabelColumns []string
	// CustomColumns adds kubectl custom columns, evaluated on each row's
	// whole object (apiclient.IncludeFullObject).
	CustomColumns []CustomColumn
	// ShowLabels adds a Labels column of chips, as kubectl --show-labels.
	ShowLabels bool
	// Hide names columns not to show, and Show priority columns to show
	// without Wide, case-insensitively. The name column is always shown:
	// it links the row and keys it for live updates.
	Hide, Show []string
	// LabelFilterHref and LabelColumnHref link a label chip's menu: the
	// list filtered by the label, and with the label as a column. Nil
	// leaves the chip without that entry.
	LabelFilterHref func(key, value string) templ.SafeURL
	LabelColumnHref func(key string) templ.SafeURL
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
	// Choices are every column the list can show, shown or not, for the
	// column chooser.
	Choices []views.ColumnChoice

	t             ListTable
	visible       []int
	nameCol       int
	withNamespace bool
	rowBase       templ.SafeURL
	now           time.Time
	usage         *Usage // nil: no usage columns
	extras        []extraColumn
	shownExtras   int
	chips         map[string]views.Chip // label chips by k=v
	tops          []string              // members the custom columns read (customTops)
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
	}
	if v.withNamespace {
		hidden := containsFold(t.Hide, "Namespace")
		v.withNamespace = !hidden
		v.Choices = append(v.Choices, views.ColumnChoice{Name: "Namespace", Shown: !hidden, Kind: "server"})
	}
	for i, col := range table.Columns {
		// A fallback list's generic Namespace column says something only
		// across namespaces, as kubectl prints NAMESPACE only with -A.
		if fallback && col.Name == "Namespace" && !allNamespaces {
			continue
		}
		choice := views.ColumnChoice{Name: col.Name, Kind: "server", Priority: col.Priority > 0, Optional: col.Priority > 0 && !t.Wide, Locked: i == v.nameCol}
		switch {
		case i == v.nameCol:
		case containsFold(t.Hide, col.Name):
			v.Choices = append(v.Choices, choice)
			continue
		case col.Priority > 0 && !t.Wide && !containsFold(t.Show, col.Name):
			v.HiddenColumns++
			v.Choices = append(v.Choices, choice)
			continue
		}
		choice.Shown = true
		v.Choices = append(v.Choices, choice)
		v.visible = append(v.visible, i)
	}
	v.extras = extraColumns(t)
	for i := range v.extras {
		c := &v.extras[i]
		c.shown = !containsFold(t.Hide, c.name)
		if c.shown {
			v.shownExtras++
		}
		v.Choices = append(v.Choices, views.ColumnChoice{Name: c.name, Shown: c.shown, Kind: c.choiceKind()})
	}
	sortCol, desc := v.sortColumn()
	v.Columns = make([]views.ListColumn, 0, len(v.visible)+len(v.extras)+3)
	if v.withNamespace {
		v.Columns = append(v.Columns, views.ListColumn{Name: "Namespace", Description: "Namespace of the object"})
	}
	header := func(c views.ListColumn, sorted bool) views.ListColumn {
		c.Sort = sortState(sorted, desc)
		if t.SortHref != nil {
			next := c.Name
			if sorted && !desc {
				next = "-" + c.Name
			}
			c.SortHref = t.SortHref(next)
		}
		return c
	}
	for _, i := range v.visible {
		col := table.Columns[i]
		v.Columns = append(v.Columns, header(views.ListColumn{
			Name:        col.Name,
			Description: col.Description,
			Numeric:     Numeric(col.Type),
			NameColumn:  i == v.nameCol,
		}, i == sortCol))
	}
	for i, c := range v.extras {
		if c.shown {
			v.Columns = append(v.Columns, header(c.header(), sortCol == len(table.Columns)+i))
		}
	}
	if v.usage != nil {
		v.Columns = append(v.Columns, usageColumns(v.usage)...)
	}
	return v
}

// sortColumn is the column the view is sorted by: an index of the
// Table's columns, or past them, len(columns)+i for extras[i]; -1 for none.
// The server's columns win over added ones of the same name.
func (v *ListView) sortColumn() (int, bool) {
	columns := v.t.Table.Columns
	if i, desc := sortColumn(columns, v.t.Sort); i >= 0 {
		return i, desc
	}
	desc := strings.HasPrefix(v.t.Sort, "-")
	name := strings.TrimPrefix(v.t.Sort, "-")
	for i, c := range v.extras {
		if name != "" && c.shown && strings.EqualFold(c.name, name) {
			return len(columns) + i, desc
		}
	}
	return -1, false
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
	return n + v.shownExtras
}

// Rows builds every row of a page, sorted as the ListTable asks.
func (v *ListView) Rows(rows []apiclient.Row) []views.ListRow {
	columns := v.t.Table.Columns
	sortCol, desc := v.sortColumn()
	if sortCol >= 0 && sortCol < len(columns) {
		rows = sortedRows(rows, sortCol, columns[sortCol].Type, desc)
	}
	out := make([]views.ListRow, len(rows))
	// One allocation for every cell of the page, sliced per row.
	width := v.width()
	cells := make([]views.Cell, len(rows)*width)
	for i := range rows {
		out[i] = v.row(&rows[i], cells[i*width:i*width:(i+1)*width])
	}
	if sortCol >= len(columns) {
		// An added column sorts the built rows by its cells' text.
		sortBuiltRows(out, v.cellIndex(sortCol-len(columns)), desc)
	}
	return out
}

// cellIndex is where extras[i]'s cell sits in a row.
func (v *ListView) cellIndex(extra int) int {
	n := len(v.visible)
	if v.withNamespace {
		n++
	}
	for _, c := range v.extras[:extra] {
		if c.shown {
			n++
		}
	}
	return n
}

// sortBuiltRows orders rows by one cell's text, numbers as numbers; rows
// without the cell's value (a missing label) go last either way.
func sortBuiltRows(rows []views.ListRow, cell int, desc bool) {
	text := func(r views.ListRow) string {
		if cell < len(r.Cells) && !r.Cells[cell].Muted {
			return r.Cells[cell].Text
		}
		return ""
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := text(rows[i]), text(rows[j])
		if a == "" || b == "" {
			return a != "" && b == ""
		}
		if desc {
			a, b = b, a
		}
		af, aerr := strconv.ParseFloat(a, 64)
		bf, berr := strconv.ParseFloat(b, 64)
		if aerr == nil && berr == nil {
			return af < bf
		}
		return a < b
	})
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
	if v.shownExtras > 0 {
		vr.Cells = v.extraCells(row, vr.Cells)
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
