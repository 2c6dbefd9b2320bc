package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

const (
	defaultLimit = 500
	maxLimit     = 5000
	// maxBack bounds the Back history carried in the URL.
	maxBack = 20
)

// listQuery is a list page's query string, parsed once.
type listQuery struct {
	LabelSelector string
	FieldSelector string
	Limit         int64
	Continue      string
	Wide          bool
	Sort          string // column name; "-" prefix sorts descending
	Page          int
	Back          []string // continue tokens of the previous pages, oldest first
}

func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{
		LabelSelector: q.Get("labelSelector"),
		FieldSelector: q.Get("fieldSelector"),
		Limit:         defaultLimit,
		Continue:      q.Get("continue"),
		Wide:          q.Get("wide") == "1",
		Sort:          q.Get("sort"),
		Page:          1,
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxLimit {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit must be a number from 1 to %d", maxLimit))
		}
		lq.Limit = n
	}
	if v := q.Get("page"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 1 {
			lq.Page = n
		}
	}
	// Each earlier page's token is its own "back" value: tokens of servers
	// other than kube-apiserver may contain any character.
	lq.Back = q["back"]
	if lq.Continue == "" {
		lq.Page, lq.Back = 1, nil
	}
	return lq, nil
}

// values encodes the query; continue/page/back only when paging.
func (lq listQuery) values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("labelSelector", lq.LabelSelector)
	set("fieldSelector", lq.FieldSelector)
	if lq.Limit != defaultLimit {
		v.Set("limit", strconv.FormatInt(lq.Limit, 10))
	}
	if lq.Wide {
		v.Set("wide", "1")
	}
	set("sort", lq.Sort)
	if lq.Continue != "" {
		v.Set("continue", lq.Continue)
		v.Set("page", strconv.Itoa(lq.Page))
		for _, b := range lq.Back {
			v.Add("back", b)
		}
	}
	return v
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// firstPage is the query without paging state.
func (lq listQuery) firstPage() listQuery {
	lq.Continue, lq.Page, lq.Back = "", 1, nil
	return lq
}

func (s *Server) list(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	if !r.Can("list") {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("The server does not allow listing %s.", r.Name))
	}
	lq, err := parseListQuery(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	opts := listOptions(lq, r, p.Namespace)
	var notices []string
	table, err := client.ListTable(ctx, r, opts)
	if err != nil && lq.Continue != "" && apiclient.IsExpired(err) {
		lq = lq.firstPage()
		opts.Continue = ""
		notices = append(notices, "The continue token expired, so the list restarted from the first page.")
		table, err = client.ListTable(ctx, r, opts)
	}
	if err != nil {
		return withAction(err, "list", r, p.Namespace, "")
	}
	base := consolePath(client.ContextName(), r, p.Namespace, "")
	page := views.ListPage{
		Layout:       s.contextLayout(c, client, r.Kind+" list", &r, p.Namespace),
		Kind:         r.Kind,
		Resource:     r.Name,
		GroupVersion: r.GroupVersion().String(),
		Namespaced:   r.Namespaced,
		Namespace:    p.Namespace,
		Served:       string(table.Served),
		Wide:         lq.Wide,
		Notices:      notices,
	}
	page.Columns, page.Rows, page.HiddenColumns = tableView(client.ContextName(), r, p.Namespace, table, lq, base)
	if lq.Sort != "" {
		page.SortedBy = strings.TrimPrefix(lq.Sort, "-")
	}
	wide := lq
	wide.Wide = !lq.Wide
	page.WideHref = withQuery(base, wide.values())
	page.Filter = listFilter(base, lq)
	page.Pager = pagerView(base, lq, table)
	page.Live = views.LiveList{
		Watch:           r.Can("watch"),
		ResourceVersion: table.ResourceVersion,
		ReloadHref:      withQuery(base, lq.values()),
	}
	if r.Namespaced {
		page.Picker = s.namespacePicker(c, client, r, p.Namespace, lq)
	}
	return s.render(c, http.StatusOK, views.List(page))
}

// listOptions are the upstream list call of a page.
func listOptions(lq listQuery, r apiclient.Resource, namespace string) apiclient.ListOptions {
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

func listFilter(base string, lq listQuery) views.ListFilter {
	f := views.ListFilter{Action: base, LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector}
	clear := lq.firstPage()
	clear.LabelSelector, clear.FieldSelector = "", ""
	f.ClearHref = withQuery(base, clear.values())
	f.Hidden = hiddenFields(clear.values())
	return f
}

func hiddenFields(v url.Values) []views.HiddenField {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []views.HiddenField
	for _, k := range keys {
		out = append(out, views.HiddenField{Name: k, Value: v.Get(k)})
	}
	return out
}

func pagerView(base string, lq listQuery, t *apiclient.Table) views.Pager {
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
		p.NextHref = withQuery(base, next.values())
	}
	if lq.Page > 1 {
		p.FirstHref = withQuery(base, lq.firstPage().values())
		back := lq.firstPage()
		if n := len(lq.Back); n > 0 && lq.Back[n-1] != "" {
			back.Continue, back.Page, back.Back = lq.Back[n-1], lq.Page-1, lq.Back[:n-1]
		}
		p.BackHref = withQuery(base, back.values())
	}
	return p
}

// tableView turns the server's Table into visible columns and rows: priority
// columns only when wide, the name column linked, dates as ages.
func tableView(contextName string, r apiclient.Resource, namespace string, t *apiclient.Table, lq listQuery, base string) ([]views.ListColumn, []views.ListRow, int) {
	var visible []int
	hidden := 0
	nameCol := -1
	for i, col := range t.Columns {
		if col.Format == "name" && nameCol < 0 {
			nameCol = i
		}
		if col.Priority > 0 && !lq.Wide {
			hidden++
			continue
		}
		visible = append(visible, i)
	}
	// Like kubectl -A: an all-namespaces list shows each row's namespace.
	withNamespace := r.Namespaced && namespace == "" && t.Served != apiclient.JSONFallback && t.Served != apiclient.MetadataList
	sortCol, desc := sortColumn(t.Columns, lq.Sort)
	cols := make([]views.ListColumn, 0, len(visible)+1)
	if withNamespace {
		cols = append(cols, views.ListColumn{Name: "Namespace", Description: "Namespace of the object"})
	}
	for _, i := range visible {
		col := t.Columns[i]
		next := lq.firstPage()
		next.Continue, next.Page, next.Back = lq.Continue, lq.Page, lq.Back
		next.Sort = col.Name
		if i == sortCol && !desc {
			next.Sort = "-" + col.Name
		}
		cols = append(cols, views.ListColumn{
			Name:        col.Name,
			Description: col.Description,
			Numeric:     numeric(col.Type),
			SortHref:    withQuery(base, next.values()),
			Sorted:      i == sortCol,
		})
	}
	rows := t.Rows
	if sortCol >= 0 {
		rows = sortedRows(rows, sortCol, t.Columns[sortCol].Type, desc)
	}
	now := time.Now()
	// Rows of a one-namespace (or cluster-scoped) list share their link prefix.
	rowBase := consolePath(contextName, r, namespace, "") + "/"
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
			vr.Cells = append(vr.Cells, views.Cell{Text: ns, Href: consolePath(contextName, r, ns, "")})
		}
		for _, i := range visible {
			var v any
			if i < len(row.Cells) {
				v = row.Cells[i]
			}
			cell := formatCell(v, t.Columns[i].Type, now)
			if cell.Time && t.Columns[i].Name == "Age" && row.Object != nil && !row.Object.CreationTimestamp.IsZero() {
				cell.Title = row.Object.CreationTimestamp.UTC().Format(time.RFC3339)
			}
			if i == nameCol && name != "" {
				if ns == namespace {
					cell.Href = rowBase + url.PathEscape(name)
				} else {
					cell.Href = consolePath(contextName, r, ns, name)
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

func numeric(colType string) bool { return colType == "integer" || colType == "number" }

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

// formatCell renders a Table cell value the way kubectl prints it.
func formatCell(v any, colType string, now time.Time) views.Cell {
	c := views.Cell{Numeric: numeric(colType)}
	switch val := v.(type) {
	case nil:
		c.Text = ""
	case string:
		c.Text = val
		if colType != "date" {
			break
		}
		if t, err := time.Parse(time.RFC3339, val); err == nil {
			c.Text = duration.HumanDuration(now.Sub(t))
			c.Title = t.UTC().Format(time.RFC3339)
			c.Time = true
		} else if d, ok := parseHumanDuration(val); ok {
			// kube-apiserver sends CRD date columns as ages already; the
			// time they stand for is only as exact as the age.
			c.Title = "≈ " + now.Add(-d).UTC().Truncate(time.Second).Format(time.RFC3339)
			c.Time = true
		}
	case float64:
		c.Text = strconv.FormatFloat(val, 'f', -1, 64)
	case bool:
		c.Text = strconv.FormatBool(val)
	default:
		b, err := json.Marshal(val)
		if err != nil {
			c.Text = fmt.Sprint(val)
		} else {
			c.Text = string(b)
		}
	}
	return c
}

// namespacePicker lists the namespaces the user may list; a user who may not
// gets a free-text field instead of an error.
func (s *Server) namespacePicker(c echo.Context, client *apiclient.Client, r apiclient.Resource, current string, lq listQuery) views.NamespacePicker {
	carry := lq.firstPage()
	carried := carry.values()
	carried.Set("group", r.Group)
	carried.Set("version", r.Version)
	carried.Set("resource", r.Name)
	picker := views.NamespacePicker{
		Action:  "/c/" + url.PathEscape(client.ContextName()) + "/namespace",
		Current: current,
		Hidden:  hiddenFields(carried),
	}
	names, ok := s.namespaces(c, client)
	// The cached slice is shared between requests: never append to it.
	picker.Options, picker.FreeText = slices.Clip(names), !ok
	if current != "" && !contains(picker.Options, current) {
		picker.Options = append(picker.Options, current)
	}
	return picker
}

// namespaces lists the namespaces the user may list, from a short-lived
// cache per context and identity; ok is false when they may not list them.
func (s *Server) namespaces(c echo.Context, client *apiclient.Client) (names []string, ok bool) {
	key := client.ContextName() + "|" + identityOf(c).Key()
	now := time.Now()
	if e, hit := s.nsCache.get(key, now); hit {
		return e.names, e.allowed
	}
	e := namespaceEntry{fetched: now}
	ctx := c.Request().Context()
	nsRes, err := client.Resource(ctx, "", "v1", "namespaces")
	var t *apiclient.Table
	if err == nil {
		t, err = client.ListTable(ctx, nsRes, apiclient.ListOptions{Limit: 1000, IncludeObject: apiclient.IncludeNone})
	}
	if err != nil {
		// Only a refusal is worth remembering; a passing failure is retried
		// by the next page.
		if apierrors.IsForbidden(err) {
			s.nsCache.put(key, e)
		}
		return nil, false
	}
	e.allowed = true
	for _, row := range t.Rows {
		if len(row.Cells) > 0 {
			if name, isString := row.Cells[0].(string); isString {
				e.names = append(e.names, name)
			}
		}
	}
	s.nsCache.put(key, e)
	return e.names, e.allowed
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parseHumanDuration reads the ages kubectl and kube-apiserver print
// ("45s", "5m3s", "3h", "12d", "2y51d").
func parseHumanDuration(s string) (time.Duration, bool) {
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'y': 365 * 24 * time.Hour}
	var total time.Duration
	n, digits := 0, 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= '0' && ch <= '9' {
			n = n*10 + int(ch-'0')
			digits++
			continue
		}
		unit, ok := units[ch]
		if !ok || digits == 0 {
			return 0, false
		}
		total += time.Duration(n) * unit
		n, digits = 0, 0
	}
	return total, digits == 0 && total > 0 || s == "0s"
}
