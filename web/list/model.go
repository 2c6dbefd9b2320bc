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
	"github.com/tabula-console/tabula/web/page"
)

// Input is everything a list page shows, fetched.
type Input struct {
	Context   string
	Resource  apiclient.Resource
	Namespace string
	Query     Query
	Table     *apiclient.Table
	Notices   []string
	// Permits answer the page's access checks (page.CreateCheck).
	Permits page.Permits
	Now     time.Time
}

// base is the page's own URL without a query.
func (in Input) base() templ.SafeURL {
	return page.ResourceURL(in.Context, in.Resource, in.Namespace, "")
}

// Model builds a list page from what was fetched; the handler adds the
// frame and the namespace picker.
func Model(_ context.Context, in Input) views.ListPage {
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
	p.Columns, p.Rows, p.HiddenColumns = tableView(in)
	if lq.Sort != "" {
		p.SortedBy = strings.TrimPrefix(lq.Sort, "-")
	}
	wide := lq
	wide.Wide = !lq.Wide
	p.WideHref = page.WithQuery(base, wide.Values())
	p.Filter = listFilter(base, lq)
	if r.Can("create") {
		p.CreateHref = page.NewObjectURL(in.Context, r, in.Namespace)
		if check, ok := page.CreateCheck(r, in.Namespace); ok {
			p.CreateDenied = in.Permits.Denied(check)
		}
	}
	p.Pager = pagerView(base, lq, in.Table)
	p.Live = views.LiveList{
		Watch:           r.Can("watch"),
		ResourceVersion: in.Table.ResourceVersion,
		ReloadHref:      page.WithQuery(base, lq.Values()),
	}
	return p
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
func Rows(in Input) []views.ListRow {
	_, rows, _ := tableView(in)
	return rows
}

// tableView turns the server's Table into visible columns and rows: priority
// columns only when wide, the name column linked, dates as ages.
func tableView(in Input) ([]views.ListColumn, []views.ListRow, int) {
	r, namespace, t, lq := in.Resource, in.Namespace, in.Table, in.Query
	fallback := t.Served == apiclient.JSONFallback || t.Served == apiclient.MetadataList
	allNamespaces := r.Namespaced && namespace == ""
	var visible []int
	hidden := 0
	nameCol := -1
	for i, col := range t.Columns {
		if col.Format == "name" && nameCol < 0 {
			nameCol = i
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
		visible = append(visible, i)
	}
	// Like kubectl -A: an all-namespaces list shows each row's namespace.
	withNamespace := allNamespaces && !fallback
	sortCol, desc := sortColumn(t.Columns, lq.Sort)
	base := in.base()
	cols := make([]views.ListColumn, 0, len(visible)+1)
	if withNamespace {
		cols = append(cols, views.ListColumn{Name: "Namespace", Description: "Namespace of the object"})
	}
	for _, i := range visible {
		col := t.Columns[i]
		next := lq
		next.Sort = col.Name
		if i == sortCol && !desc {
			next.Sort = "-" + col.Name
		}
		cols = append(cols, views.ListColumn{
			Name:        col.Name,
			Description: col.Description,
			Numeric:     page.Numeric(col.Type),
			SortHref:    page.WithQuery(base, next.Values()),
			Sort:        sortState(i == sortCol, desc),
		})
	}
	rows := t.Rows
	if sortCol >= 0 {
		rows = sortedRows(rows, sortCol, t.Columns[sortCol].Type, desc)
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	// Rows of a one-namespace (or cluster-scoped) list share their link prefix.
	rowBase := base + "/"
	out := make([]views.ListRow, len(rows))
	width := len(visible)
	if withNamespace {
		width++
	}
	// One allocation for every cell of the page, sliced per row.
	cells := make([]views.Cell, 0, len(rows)*width)
	for ri, row := range rows {
		vr := views.ListRow{Cells: cells[len(cells) : len(cells) : len(cells)+width]}
		name, ns := "", namespace
		if nameCol >= 0 && nameCol < len(row.Cells) {
			name, _ = row.Cells[nameCol].(string)
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
		if withNamespace {
			vr.Cells = append(vr.Cells, views.Cell{Text: ns, Href: page.ResourceURL(in.Context, r, ns, "")})
		}
		for _, i := range visible {
			var v any
			if i < len(row.Cells) {
				v = row.Cells[i]
			}
			cell := page.FormatCell(v, t.Columns[i].Type, now)
			if cell.Time && t.Columns[i].Name == "Age" && row.Object != nil && !row.Object.CreationTimestamp.IsZero() {
				cell.Title = row.Object.CreationTimestamp.UTC().Format(time.RFC3339)
			}
			if i == nameCol && name != "" {
				if ns == namespace {
					cell.Href = rowBase + templ.SafeURL(url.PathEscape(name))
				} else {
					cell.Href = page.ResourceURL(in.Context, r, ns, name)
				}
			}
			vr.Cells = append(vr.Cells, cell)
		}
		for _, cond := range row.Conditions {
			if cond.Status == "True" {
				vr.Conditions = append(vr.Conditions, string(cond.Type))
			}
		}
		cells = cells[:len(cells)+len(vr.Cells)]
		out[ri] = vr
	}
	return cols, out, hidden
}

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
