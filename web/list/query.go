package list

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

const (
	defaultLimit = 500
	maxLimit     = 5000
	// maxBack bounds the paging history carried in the URL: Back goes at
	// most this many pages back, then to the first page.
	maxBack = 20
	// maxToken bounds one continue token: kube-apiserver's are about 100
	// bytes; a longer one comes from no server.
	maxToken = 4 << 10
)

// Query is a list page's query string, parsed once.
type Query struct {
	LabelSelector string
	FieldSelector string
	Limit         int64
	Continue      string
	Wide          bool
	Sort          string // column name; "-" prefix sorts descending
	Page          int
	Back          []string // continue tokens of the previous pages, oldest first
	// Filter keeps the rows whose cells match every term (filter.go); a
	// filtered page's Continue and Back hold positions (position), not
	// upstream tokens.
	Filter []Filter
	// Export downloads the whole collection in this format (csv, tsv,
	// json, yaml) instead of showing a page (export.go).
	Export string
	// Reveal asks an export to keep Secret values, for a user who may get
	// them.
	Reveal bool

	// Columns the list adds or leaves out (kube.ListTable has the details).
	LabelColumns  []string
	CustomColumns []kube.CustomColumn
	ShowLabels    bool
	Hide, Show    []string
	// SelectAll checks every row's bulk checkbox, the page's "select all"
	// without JavaScript. It is the page's state, not the view's: Values
	// leaves it out, so no link of the page carries it on.
	SelectAll bool
	// FromChooser marks a query sent by the column chooser's form, which
	// the page redirects to its own URL (Values) so that a view is a link.
	FromChooser bool
}

// ParseQuery reads a list page's query. The paging history is bounded here,
// where it enters, so no link of the page can grow with it.
func ParseQuery(q url.Values) (lq Query, err error) {
	lq = Query{
		LabelSelector: q.Get("labelSelector"),
		FieldSelector: q.Get("fieldSelector"),
		Limit:         defaultLimit,
		Continue:      q.Get("continue"),
		Wide:          page.Bool(q, "wide"),
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
	if len(lq.Continue) > maxToken {
		return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The continue token is longer than %d bytes; no API server issues such tokens.", maxToken))
	}
	// Each earlier page's token is its own "back" value: tokens of servers
	// other than kube-apiserver may contain any character. Only the most
	// recent maxBack are kept; oversized ones end the history there.
	back := q["back"]
	if len(back) > maxBack {
		back = back[len(back)-maxBack:]
	}
	for i := len(back) - 1; i >= 0; i-- {
		if len(back[i]) > maxToken {
			back = back[i+1:]
			break
		}
	}
	lq.Back = back
	if lq.Filter, err = parseFilters(q["filter"]); err != nil {
		return lq, err
	}
	if len(lq.Filter) > 0 {
		if _, err := parsePosition(lq.Continue); err != nil {
			return lq, err
		}
	}
	if lq.Export, err = parseExport(q); err != nil {
		return lq, err
	}
	lq.Reveal = page.Bool(q, "reveal")
	lq.SelectAll = page.Bool(q, "selectAll")
	if lq.Continue == "" {
		lq.Page, lq.Back = 1, nil
	}
	if err := lq.parseColumns(q); err != nil {
		return lq, err
	}
	return lq, nil
}

// maxColumnNames bounds hide and show: a Table has a few dozen columns.
const maxColumnNames = 64

// parseColumns reads the added and chosen columns; a bad value is a 400
// that says what is wrong and shows what was sent.
func (lq *Query) parseColumns(q url.Values) error {
	var err error
	// A parameter given more than once adds up, as its commas do.
	joined := func(name string) string { return strings.Join(q[name], ",") }
	if lq.LabelColumns, err = kube.ParseLabelColumns(joined("labelColumns")); err != nil {
		return badColumns("labelColumns", joined("labelColumns"), err)
	}
	if lq.CustomColumns, err = kube.ParseCustomColumns(joined("columns")); err != nil {
		return badColumns("columns", joined("columns"), err)
	}
	lq.ShowLabels = page.Bool(q, "showLabels")
	if lq.Hide, err = kube.SplitNames(joined("hide"), "hidden columns", maxColumnNames); err != nil {
		return badColumns("hide", joined("hide"), err)
	}
	if lq.Show, err = kube.SplitNames(joined("show"), "shown columns", maxColumnNames); err != nil {
		return badColumns("show", joined("show"), err)
	}
	if !page.Bool(q, "chooser") {
		return nil
	}
	// The chooser's form lists its columns (shown by default: "dflt";
	// only when asked for: "opt") and checks those to show ("col").
	lq.FromChooser = true
	for _, name := range []string{"dflt", "opt", "col"} {
		if len(q[name]) > maxColumnNames+kube.MaxLabelColumns+kube.MaxCustomColumns+1 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The column chooser sent %d %q fields; a list has far fewer columns.", len(q[name]), name))
		}
	}
	checked := q["col"]
	lq.Hide, lq.Show = nil, nil
	for _, name := range q["dflt"] {
		if !slices.ContainsFunc(checked, func(c string) bool { return strings.EqualFold(c, name) }) {
			lq.Hide = append(lq.Hide, name)
		}
	}
	for _, name := range q["opt"] {
		if slices.ContainsFunc(checked, func(c string) bool { return strings.EqualFold(c, name) }) {
			lq.Show = append(lq.Show, name)
		}
	}
	return nil
}

// badColumns is the 400 of a column parameter: what is wrong, and the
// text sent, cut short when it is very long.
func badColumns(param, sent string, err error) error {
	const shown = 300
	text := sent
	if len(text) > shown {
		text = strings.ToValidUTF8(text[:shown], "") + fmt.Sprintf("… (%d bytes in all)", len(sent))
	}
	return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The %s parameter is not valid: %v. It was: %s", param, err, text))
}

// Values encodes the query; continue/page/back only when paging.
func (lq Query) Values() url.Values {
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
	for _, f := range lq.Filter {
		v.Add("filter", f.Raw)
	}
	set("export", lq.Export)
	if lq.Reveal {
		v.Set("reveal", "1")
	}
	set("labelColumns", strings.Join(lq.LabelColumns, ","))
	set("columns", kube.CustomColumnsSpec(lq.CustomColumns))
	if lq.ShowLabels {
		v.Set("showLabels", "1")
	}
	set("hide", strings.Join(lq.Hide, ","))
	set("show", strings.Join(lq.Show, ","))
	if lq.Continue != "" {
		v.Set("continue", lq.Continue)
		v.Set("page", strconv.Itoa(lq.Page))
		for _, b := range lq.Back {
			v.Add("back", b)
		}
	}
	return v
}

// FirstPage is the query without paging state.
func (lq Query) FirstPage() Query {
	lq.Continue, lq.Page, lq.Back = "", 1, nil
	return lq
}
