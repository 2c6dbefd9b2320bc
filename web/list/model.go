package list

import (
	"context"
	"fmt"
	"net/url"
	"slices"
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
	Rows    kube.TableRows
	Notices []string
	// Permits answer the page's access checks (kube.CreateCheck).
	Permits kube.Permits
	// Kubectl starts the page's kubectl command (page.Env.Kubectl); zero,
	// it names Resource alone.
	Kubectl kube.KubectlGet
	// Usage, for pods and nodes where the server serves metrics.k8s.io,
	// adds CPU and memory columns; nil adds none.
	Usage *kube.Usage
	Now   time.Time
	// Scan is what a filtered page read (filter.go); Table.Rows are its
	// matches. Nil for a page without filters.
	Scan *scanResult
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
	view := kube.NewListView(in.table())
	p.Columns, p.HiddenColumns = view.Columns, view.HiddenColumns
	p.Chooser = chooserView(base, lq, view.Choices)
	p.ColumnNotes = columnNotes(lq, in.Resource, in.Namespace)
	if in.Rows != nil && lq.Sort == "" {
		p.Rows = views.StreamRows(view.Stream(in.Rows))
	} else {
		p.Rows = views.StaticRows(view.Rows(in.Table.Rows))
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
	p.Pager = pagerView(base, lq, in.Table, in.Scan)
	p.Kubectl = kubectl(in).String()
	p.Exports = exportLinks(base, lq, in.Permits, r, in.Namespace)
	p.Live = views.LiveList{
		Watch:           r.Can("watch"),
		ResourceVersion: in.Table.ResourceVersion,
		ReloadHref:      page.WithQuery(base, lq.Values()),
		Filtered:        len(lq.Filter) > 0,
	}
	if in.Scan != nil {
		scanView(&p, in.Scan)
	}
	if view.HasUsage() {
		p.Live.Usage = "on"
	}
	if ops := permittedOps(in, kube.BulkOptions(r)); len(ops) > 0 {
		p.Select = bulkSelect(in, ops)
		p.Rows = p.Rows.Selectable(lq.SelectAll)
		p.Live.Select = "on"
	}
	return p
}

// permittedOps leaves out the bulk actions the server refused on the
// whole namespace (bulkChecks); what it could not say stays, for the
// review to ask object by object.
func permittedOps(in Input, ops []kube.BulkOption) []kube.BulkOption {
	r := in.Resource
	if r.Namespaced && in.Namespace == "" {
		return ops
	}
	return slices.DeleteFunc(ops, func(o kube.BulkOption) bool {
		return in.Permits.Denied(kube.BulkCheck(o.Op, r, in.Namespace, "")) != ""
	})
}

// withSelectAll is a page's query with every row checked.
func withSelectAll(v url.Values) url.Values {
	v.Set("selectAll", "1")
	return v
}

// bulkSelect is the list's bulk action bar (web/bulk serves its review):
// the checked rows, of this resource, go there with the action picked.
func bulkSelect(in Input, ops []kube.BulkOption) *views.ListSelect {
	s := &views.ListSelect{
		Action: in.URLs.Path("/bulk"),
		Max:    kube.MaxBulkItems,
		Hidden: []views.HiddenField{
			{Name: "group", Value: in.Resource.Group},
			{Name: "version", Value: in.Resource.Version},
			{Name: "resource", Value: in.Resource.Name},
			{Name: "namespace", Value: in.Namespace},
		},
	}
	for _, o := range ops {
		s.Ops = append(s.Ops, views.BulkOp{Value: o.Op, Label: o.Label})
	}
	// The page itself, with or without every row checked: Values keeps the
	// position and the view, and leaves SelectAll out.
	here := page.WithQuery(in.base(), in.Query.Values())
	if in.Query.SelectAll {
		s.ClearHref = here
	} else {
		s.SelectAllHref = page.WithQuery(in.base(), withSelectAll(in.Query.Values()))
	}
	return s
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
	k.LabelColumns, k.ShowLabels = strings.Join(in.Query.LabelColumns, ","), in.Query.ShowLabels
	if len(in.Query.CustomColumns) > 0 {
		// kubectl prints custom columns instead of the server's, the page
		// after them: the command shows the custom ones.
		k.Output = "custom-columns=" + kube.CustomColumnsSpec(in.Query.CustomColumns)
	}
	return k
}

// columnNotes say what the page's added columns cost.
func columnNotes(lq Query, r apiclient.Resource, ns string) []string {
	var notes []string
	switch opts := Options(lq, r, ns); {
	case opts.IncludeObject == apiclient.IncludeFullObject:
		notes = append(notes, fmt.Sprintf("Custom columns are read from each row's whole object, so this list asks the server for its Table with includeObject=Object and shows at most %d rows a page.", kube.MaxObjectRows))
	case len(lq.LabelColumns) > 0 || lq.ShowLabels:
		notes = append(notes, "Label columns are read from each row's labels, so this list asks the server for its Table with includeObject=Metadata (about ten times the bytes of the plain Table).")
	}
	return notes
}

// chooserView is the "Columns" panel: every column with its checkbox, the
// label and custom columns to edit, and the rest of the query carried.
func chooserView(base templ.SafeURL, lq Query, choices []views.ColumnChoice) views.ColumnChooser {
	rest := lq.FirstPage()
	rest.LabelColumns, rest.CustomColumns, rest.ShowLabels, rest.Hide, rest.Show = nil, nil, false, nil, nil
	hidden := rest.Values()
	hidden.Set("chooser", "1")
	return views.ColumnChooser{
		Action:        base,
		Choices:       choices,
		LabelColumns:  strings.Join(lq.LabelColumns, ","),
		CustomColumns: kube.CustomColumnsSpec(lq.CustomColumns),
		ShowLabels:    lq.ShowLabels,
		Hidden:        page.HiddenFields(hidden),
		SaveHref:      page.WithQuery(base, lq.Values()),
	}
}

func listFilter(base templ.SafeURL, lq Query) views.ListFilter {
	f := views.ListFilter{Action: base, LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector}
	cleared := lq.FirstPage()
	cleared.LabelSelector, cleared.FieldSelector, cleared.Filter = "", "", nil
	f.ClearHref = page.WithQuery(base, cleared.Values())
	f.Hidden = page.HiddenFields(cleared.Values())
	f.Filters, f.AddFilter = filterTexts(lq.Filter), len(lq.Filter) < maxFilters
	if len(lq.Filter) > 0 {
		rows := lq.FirstPage()
		rows.Filter = nil
		f.ClearFiltersHref = page.WithQuery(base, rows.Values())
	}
	return f
}

func pagerView(base templ.SafeURL, lq Query, t *apiclient.Table, scanned *scanResult) views.Pager {
	p := views.Pager{Page: lq.Page, Remaining: -1}
	if t.RemainingItemCount != nil && scanned == nil {
		p.Remaining = *t.RemainingItemCount
	}
	nextPage := t.Continue
	if scanned != nil {
		// A filtered page goes on where its scan stopped.
		nextPage = ""
		if scanned.Next != nil {
			nextPage = scanned.Next.String()
		}
	}
	if nextPage != "" {
		next := lq
		next.Continue, next.Page = nextPage, lq.Page+1
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
	return kube.NewListView(in.table()).Rows(in.Table.Rows)
}

// table is what the page's table shows: the Table in the page's columns,
// its headers linked to the page sorted by each.
func (in Input) table() kube.ListTable {
	lq, base := in.Query, in.base()
	return kube.ListTable{
		URLs: in.URLs, Resource: in.Resource, Namespace: in.Namespace, Table: in.Table,
		Wide: lq.Wide, Sort: lq.Sort, Usage: in.Usage, Now: in.Now,
		SortHref: func(sort string) templ.SafeURL {
			next := lq
			next.Sort = sort
			return page.WithQuery(base, next.Values())
		},
		LabelColumns: lq.LabelColumns, CustomColumns: lq.CustomColumns, ShowLabels: lq.ShowLabels,
		Hide: lq.Hide, Show: lq.Show,
		LabelFilterHref: func(key, value string) templ.SafeURL {
			next := lq.FirstPage()
			next.LabelSelector = key + "=" + value
			return page.WithQuery(base, next.Values())
		},
		LabelColumnHref: func(key string) templ.SafeURL {
			next := lq.FirstPage()
			next.LabelColumns = append(slices.Clip(next.LabelColumns), key)
			return page.WithQuery(base, next.Values())
		},
	}
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
		// Priority columns the chooser shows need their cells.
		Wide: lq.Wide || len(lq.Show) > 0,
	}
	if r.Namespaced && namespace == "" || len(lq.LabelColumns) > 0 || lq.ShowLabels {
		// Rows of an all-namespaces list need their namespace to be
		// linked, label columns their labels.
		opts.IncludeObject = apiclient.IncludeMetadata
	}
	if len(lq.CustomColumns) > 0 {
		opts.IncludeObject = apiclient.IncludeFullObject
		opts.Limit = min(opts.Limit, kube.MaxObjectRows)
	}
	return opts
}
