package list

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

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
	if lq.Continue == "" {
		lq.Page, lq.Back = 1, nil
	}
	return lq, nil
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
