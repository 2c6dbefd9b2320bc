package list

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Input is everything a list page shows, fetched.
type Input struct {
	URLs      page.URLs
	Resource  apiclient.Resource
	Namespace string
	Query     Query
	// Table is the page; its rows are Table.Rows, or, when Rows is set,
	// read from Rows as the page is written.
	Table   *apiclient.Table
	Rows    TableRows
	Notices []string
	// Permits answer the page's access checks (kube.CreateCheck).
	Permits kube.Permits
	// Kubectl starts the page's kubectl command (page.Env.Kubectl); zero,
	// it names Resource alone.
	Kubectl kube.KubectlGet
	// Usage, for pods and nodes where the server serves metrics.k8s.io,
	// adds CPU and memory columns; nil adds none.
	Usage *Usage
	Now   time.Time
}

// TableRows are a page's rows as they are read (*apiclient.TableStream).
type TableRows interface {
	Next() bool
	Row() *apiclient.Row
	Err() error
}

// base is the page's own URL without a query.
func (in Input) base() templ.SafeURL {
	return in.URLs.Resource(in.Resource, in.Namespace, "")
}

// Model builds a list page from what was fetched; the handler adds the
// frame and the namespace picker.
func Model(ctx context.Context, in Input) views.ListPage {
	r, lq, base := in.Resource, in.Query, in.base()
	p := views.ListPage{
		Kind:         r.Kind,
		Resource:     r.Name,
		GroupVersion: r.GroupVersion().String(),
		Namespaced:   r.Namespaced,
		Namespace:    in.Namespace,
		Served:       string(in.Table.Served),
		Wide:         lq.Wide,
		Notices:      in.Notices,
	}
	if in.Usage != nil {
		p.UsageOmitted = in.Usage.Omitted
	}
	var rv *rowView
	p.Columns, rv, p.HiddenColumns = tableView(in)
	if in.Rows != nil && lq.Sort == "" {
		p.Rows = views.StreamRows(&streamedRows{src: in.Rows, view: rv})
	} else {
		p.Rows = views.StaticRows(rv.rows(in.Table.Rows, lq))
	}
	if lq.Sort != "" {
		p.SortedBy = strings.TrimPrefix(lq.Sort, "-")
	}
	wide := lq
	wide.Wide = !lq.Wide
	p.WideHref = page.WithQuery(base, wide.Values())
	p.Filter = listFilter(base, lq)
	if r.Can("create") {
		p.CreateHref = in.URLs.New(r, in.Namespace)
		if check, ok := kube.CreateCheck(r, in.Namespace); ok {
			p.CreateDenied = in.Permits.Denied(check)
		}
	}
	p.Pager = pagerView(base, lq, in.Table)
	p.Kubectl = kubectl(in).String()
	p.Live = views.LiveList{
		Watch:           r.Can("watch"),
		ResourceVersion: in.Table.ResourceVersion,
		ReloadHref:      page.WithQuery(base, lq.Values()),
	}
	if rv.usage != nil {
		p.Live.Usage = "on"
	}
	return p
}

// kubectl is the kubectl command listing what the page lists.
func kubectl(in Input) kube.KubectlGet {
	k := in.Kubectl
	if k.Resource == "" {
		k = kube.KubectlGet{Resource: kube.KubectlResource(nil, in.Resource), Namespaced: in.Resource.Namespaced}
	}
	k.Namespace, k.LabelSelector, k.FieldSelector = in.Namespace, in.Query.LabelSelector, in.Query.FieldSelector
	if in.Query.Wide {
		k.Output = "wide"
	}
	return k
}

func listFilter(base templ.SafeURL, lq Query) views.ListFilter {
	f := views.ListFilter{Action: base, LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector}
	cleared := lq.FirstPage()
	cleared.LabelSelector, cleared.FieldSelector = "", ""
	f.ClearHref = page.WithQuery(base, cleared.Values())
	f.Hidden = page.HiddenFields(cleared.Values())
	return f
}

func pagerView(base templ.SafeURL, lq Query, t *apiclient.Table) views.Pager {
	p := views.Pager{Page: lq.Page, Remaining: -1}
	if t.RemainingItemCount != nil {
		p.Remaining = *t.RemainingItemCount
	}
	if t.Continue != "" {
		next := lq
		next.Continue, next.Page = t.Continue, lq.Page+1
		next.Back = append(append([]string(nil), lq.Back...), lq.Continue)
		if len(next.Back) > maxBack {
			next.Back = next.Back[len(next.Back)-maxBack:]
		}
		p.NextHref = page.WithQuery(base, next.Values())
	}
	if lq.Page > 1 {
		p.FirstHref = page.WithQuery(base, lq.FirstPage().Values())
		back := lq.FirstPage()
		if n := len(lq.Back); n > 0 && lq.Back[n-1] != "" {
			back.Continue, back.Page, back.Back = lq.Back[n-1], lq.Page-1, lq.Back[:n-1]
		}
		p.BackHref = page.WithQuery(base, back.Values())
	}
	return p
}

// Rows renders the rows of a Table as a page of this list shows them; live
// updates use it for single rows.
func Rows(ctx context.Context, in Input) []views.ListRow {
	_, rv, _ := tableView(in)
	return rv.rows(in.Table.Rows, in.Query)
}

// tableView turns the server's Table into visible columns, and the builder
// of its rows: priority columns only when wide, the name column linked,
// dates as ages.
func tableView(in Input) ([]views.ListColumn, *rowView, int) {
	r, namespace, t, lq := in.Resource, in.Namespace, in.Table, in.Query
	fallback := t.Served == apiclient.JSONFallback || t.Served == apiclient.MetadataList
	allNamespaces := r.Namespaced && namespace == ""
	base := in.base()
	rv := &rowView{
		in: in, columns: t.Columns, nameCol: -1, now: in.Now,
		// Like kubectl -A: an all-namespaces list shows each row's namespace.
		withNamespace: allNamespaces && !fallback,
		// Rows of a one-namespace (or cluster-scoped) list share their link prefix.
		rowBase: base + "/",
	}
	if in.Usage != nil && in.Usage.Omitted == "" {
		rv.usage = in.Usage
	}
	if rv.now.IsZero() {
		rv.now = time.Now()
	}
	hidden := 0
	for i, col := range t.Columns {
		if col.Format == "name" && rv.nameCol < 0 {
			rv.nameCol = i
		}
		// A fallback list's generic Namespace column says something only
		// across namespaces, as kubectl prints NAMESPACE only with -A.
		if fallback && col.Name == "Namespace" && !allNamespaces {
			continue
		}
		if col.Priority > 0 && !lq.Wide {
			hidden++
			continue
		}
		rv.visible = append(rv.visible, i)
	}
	sortCol, desc := sortColumn(t.Columns, lq.Sort)
	cols := make([]views.ListColumn, 0, len(rv.visible)+3)
	if rv.withNamespace {
		cols = append(cols, views.ListColumn{Name: "Namespace", Description: "Namespace of the object"})
	}
	for _, i := range rv.visible {
		col := t.Columns[i]
		next := lq
		next.Sort = col.Name
		if i == sortCol && !desc {
			next.Sort = "-" + col.Name
		}
		cols = append(cols, views.ListColumn{
			Name:        col.Name,
			Description: col.Description,
			Numeric:     kube.Numeric(col.Type),
			NameColumn:  i == rv.nameCol,
			SortHref:    page.WithQuery(base, next.Values()),
			Sort:        sortState(i == sortCol, desc),
		})
	}
	if rv.usage != nil {
		cols = append(cols, usageColumns(rv.usage)...)
	}
	return cols, rv, hidden
}

// rowView builds a page's rows from the server's.
type rowView struct {
	in            Input
	columns       []apiclient.Column
	visible       []int
	nameCol       int
	withNamespace bool
	rowBase       templ.SafeURL
	now           time.Time
	usage         *Usage // nil: no usage columns
}

// width is the number of cells of a row.
func (v *rowView) width() int {
	n := len(v.visible)
	if v.withNamespace {
		n++
	}
	if v.usage != nil {
		n += 2
	}
	return n
}

// rows builds every row of a page, sorted as asked.
func (v *rowView) rows(rows []apiclient.Row, lq Query) []views.ListRow {
	if sortCol, desc := sortColumn(v.columns, lq.Sort); sortCol >= 0 {
		rows = sortedRows(rows, sortCol, v.columns[sortCol].Type, desc)
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

// row builds one row, appending its cells to cells.
func (v *rowView) row(row *apiclient.Row, cells []views.Cell) views.ListRow {
	namespace := v.in.Namespace
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
		vr.Cells = append(vr.Cells, views.Cell{Text: ns, Href: v.in.URLs.Resource(v.in.Resource, ns, "")})
	}
	for _, i := range v.visible {
		var val any
		if i < len(row.Cells) {
			val = row.Cells[i]
		}
		col := v.columns[i]
		cell := kube.FormatCell(val, col.Type, v.now)
		if cell.Time && col.Name == "Age" && row.Object != nil && !row.Object.CreationTimestamp.IsZero() {
			cell.Title = row.Object.CreationTimestamp.UTC().Format(time.RFC3339)
		}
		cell.Name = i == v.nameCol
		if i == v.nameCol && name != "" {
			if ns == namespace {
				cell.Href = v.rowBase + templ.SafeURL(url.PathEscape(name))
			} else {
				cell.Href = v.in.URLs.Resource(v.in.Resource, ns, name)
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
	view  *rowView
	cells []views.Cell
	conds []string
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

// Options are the upstream list call of a page.
func Options(lq Query, r apiclient.Resource, namespace string) apiclient.ListOptions {
	opts := apiclient.ListOptions{
		Namespace:     namespace,
		LabelSelector: lq.LabelSelector,
		FieldSelector: lq.FieldSelector,
		Limit:         lq.Limit,
		Continue:      lq.Continue,
		IncludeObject: apiclient.IncludeNone,
		Wide:          lq.Wide,
	}
	if r.Namespaced && namespace == "" {
		// Rows of an all-namespaces list need their namespace to be linked.
		opts.IncludeObject = apiclient.IncludeMetadata
	}
	return opts
}
