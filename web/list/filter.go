package list

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Column filters, as kube-web-view's filter=: the server cannot select on
// a printed column, so a filtered page reads the collection page by page,
// builds each row as the page shows it, and keeps the rows that match,
// within a budget (ScanBudget).

const (
	// maxFilters and maxFilterLen bound ?filter= where it is parsed.
	maxFilters   = 10
	maxFilterLen = 256
)

// Filter is one ?filter= term: Column=Value, Column!=Value, or free text
// (Column "") found in any cell.
type Filter struct {
	// Raw is the term as sent, written back to links unchanged.
	Raw    string
	Column string
	Value  string
	Not    bool
}

// parseFilters reads the ?filter= terms, bounded; empty ones (an empty
// form field) are dropped.
func parseFilters(values []string) ([]Filter, error) {
	var out []Filter
	for _, raw := range values {
		if len(raw) > maxFilterLen {
			return nil, echo.NewHTTPError(http.StatusBadRequest,
				fmt.Sprintf("A filter may be at most %d characters long; this one has %d: %q", maxFilterLen, len(raw), raw[:maxFilterLen]+"…"))
		}
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if len(out) == maxFilters {
			return nil, echo.NewHTTPError(http.StatusBadRequest,
				fmt.Sprintf("At most %d filters may be given; %d were sent.", maxFilters, countNonEmpty(values)))
		}
		out = append(out, parseFilter(raw))
	}
	return out, nil
}

func countNonEmpty(values []string) int {
	n := 0
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

// parseFilter reads one term: "!=" first, as "Status!=Running" also holds
// an "=".
func parseFilter(raw string) Filter {
	f := Filter{Raw: raw}
	if col, val, ok := strings.Cut(raw, "!="); ok {
		f.Column, f.Value, f.Not = strings.TrimSpace(col), strings.TrimSpace(val), true
	} else if col, val, ok := strings.Cut(raw, "="); ok {
		f.Column, f.Value = strings.TrimSpace(col), strings.TrimSpace(val)
	} else {
		f.Value = strings.TrimSpace(raw)
	}
	if f.Column == "" {
		// "=x" or "!=x": free text, as written.
		f.Column, f.Value, f.Not = "", strings.TrimSpace(raw), false
	}
	return f
}

// rowFilter is the filters bound to the columns of a view.
type rowFilter struct {
	terms []boundFilter
}

type boundFilter struct {
	col   int // index in the row's cells; -1 for free text
	value string
	lower string // value, lower-cased, for free text
	not   bool
}

// bindFilters binds filters to the visible columns, by name, ignoring
// case; a column the page does not show is a 400 naming those it does.
func bindFilters(filters []Filter, columns []views.ListColumn) (*rowFilter, error) {
	rf := &rowFilter{}
	for _, f := range filters {
		b := boundFilter{col: -1, value: f.Value, lower: strings.ToLower(f.Value), not: f.Not}
		if f.Column != "" {
			for i, c := range columns {
				if strings.EqualFold(c.Name, f.Column) {
					b.col = i
					break
				}
			}
			if b.col < 0 {
				names := make([]string, len(columns))
				for i, c := range columns {
					names[i] = c.Name
				}
				return nil, echo.NewHTTPError(http.StatusBadRequest,
					fmt.Sprintf("The filter %q names a column this list does not show, %q. Its columns are: %s.", f.Raw, f.Column, strings.Join(names, ", ")))
			}
		}
		rf.terms = append(rf.terms, b)
	}
	return rf, nil
}

// Match says whether a built row passes every term: a column term compares
// the cell's text as shown; free text is found in any cell, ignoring case.
func (rf *rowFilter) Match(row views.ListRow) bool {
	for _, t := range rf.terms {
		if t.col < 0 {
			found := false
			for _, c := range row.Cells {
				if strings.Contains(strings.ToLower(c.Text), t.lower) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
			continue
		}
		text := ""
		if t.col < len(row.Cells) {
			text = row.Cells[t.col].Text
		}
		if (text == t.value) == t.not {
			return false
		}
	}
	return true
}

// ScanBudget bounds what one filtered page reads of the collection.
type ScanBudget struct {
	// PageSize is the limit of each upstream list request.
	PageSize int64
	// MaxPages bounds the upstream requests of one page.
	MaxPages int
	// MaxObjects bounds the objects read (decoded and built) for one page.
	MaxObjects int
	// Time bounds the scan; it is cut to half the page deadline, so the page
	// can still be written.
	Time time.Duration
}

// DefaultScanBudget is what a filtered page reads at most: 20 upstream
// pages of 500, at most 10,000 objects, in at most 10 s.
func DefaultScanBudget() ScanBudget {
	return ScanBudget{PageSize: 500, MaxPages: 20, MaxObjects: 10_000, Time: 10 * time.Second}
}

// Describe says the budget in words, for the page.
func (b ScanBudget) Describe() string {
	return fmt.Sprintf("at most %s objects, in at most %d requests of %d, within %s", thousands(b.MaxObjects), b.MaxPages, b.PageSize, b.Time)
}

// position is where a filtered page starts: the upstream page starting at
// Continue ("" the first), of which Skip rows were already read. Scanned
// counts the objects earlier pages read, so a page can say which objects
// it covered. It travels in the continue parameter, so Back and First work
// as they do unfiltered.
type position struct {
	Continue string
	Skip     int
	Scanned  int
}

// String encodes the position; the token comes last, as it may hold any
// character.
func (p position) String() string {
	if p == (position{}) {
		return ""
	}
	return strconv.Itoa(p.Scanned) + "." + strconv.Itoa(p.Skip) + "." + p.Continue
}

func parsePosition(s string) (position, error) {
	if s == "" {
		return position{}, nil
	}
	scanned, rest, ok1 := strings.Cut(s, ".")
	skip, token, ok2 := strings.Cut(rest, ".")
	p := position{Continue: token}
	var err1, err2 error
	p.Scanned, err1 = strconv.Atoi(scanned)
	p.Skip, err2 = strconv.Atoi(skip)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || p.Scanned < 0 || p.Skip < 0 || p.Skip > maxLimit || p.Scanned > 1_000_000_000 {
		return position{}, echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("The position of a filtered page is not valid: %q. Start again from the first page.", s))
	}
	return p, nil
}

// scanResult is what a filtered page read.
type scanResult struct {
	// Head is the first upstream page's, without rows: columns,
	// representation, resourceVersion.
	Head apiclient.Table
	// Matches are the rows that passed, at most the page's limit.
	Matches []apiclient.Row
	// From is the position scanned from; Scanned counts the objects read.
	From    position
	Scanned int
	// Next is where the next page starts; nil at the end of the list.
	Next *position
	// Stopped says why the budget ended the scan ("" when it did not).
	Stopped string
	// Budget is the budget the scan had.
	Budget ScanBudget
	// FirstKey and LastKey are the keys of the first and last objects
	// read, in the server's order: live updates count a row that starts
	// to match only when it falls within them.
	FirstKey, LastKey string
}

// viewFor lays out the page's columns once the first upstream page's head
// says what they are; the scan builds every row through it.
type viewFor func(head *apiclient.Table) (*kube.ListView, error)

// scan reads the list from lq's position, page by page, building each row
// through the view and keeping those the filters pass, until the page has
// lq.Limit of them, the list ends, or the budget runs out. It holds at most
// the page's matches, and one upstream row being read.
func scan(ctx context.Context, client *apiclient.Client, r apiclient.Resource, ns string, lq Query, from position, b ScanBudget, layout viewFor) (scanResult, error) {
	res := scanResult{From: from, Budget: b}
	ctx, cancel := context.WithTimeout(ctx, b.Time)
	defer cancel()
	opts := Options(lq, r, ns)
	pos := from
	var view *kube.ListView
	var filter *rowFilter
	for pages := 0; ; pages++ {
		if pages == b.MaxPages || res.Scanned >= b.MaxObjects {
			res.Next = &position{Continue: pos.Continue, Skip: pos.Skip, Scanned: from.Scanned + res.Scanned}
			res.Stopped = "The scan stopped at its budget of " + budgetLimit(b, pages, res.Scanned) + "; More goes on from there."
			return res, nil
		}
		opts.Continue = pos.Continue
		// Rows of an upstream page that an earlier page read are decoded
		// again, to be skipped: they do not count against the budget.
		opts.Limit = min(b.PageSize, int64(b.MaxObjects-res.Scanned+pos.Skip))
		stream, err := client.OpenTable(ctx, r, opts)
		if err != nil {
			if pages > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				res.Next = &position{Continue: pos.Continue, Skip: pos.Skip, Scanned: from.Scanned + res.Scanned}
				res.Stopped = fmt.Sprintf("The scan stopped at its time budget of %s; More goes on from there.", b.Time)
				return res, nil
			}
			if pages > 0 && apiclient.IsExpired(err) {
				// The snapshot the scan read was compacted away: what was
				// found stands, but there is no position to go on from.
				res.Stopped = "The scan stopped: the API server's continue token expired while it read (410 Gone). Start again from the first page to read on."
				return res, nil
			}
			return res, err
		}
		if view == nil {
			res.Head = stream.Head
			if view, err = layout(&res.Head); err == nil {
				filter, err = bindFilters(lq.Filter, view.Columns)
			}
			if err != nil {
				stream.Close()
				return res, err
			}
		}
		rows := view.Stream(stream)
		read := 0
		for rows.Next() {
			read++
			if read <= pos.Skip {
				continue
			}
			res.Scanned++
			if res.FirstKey == "" {
				res.FirstKey = rows.Row().Key
			}
			res.LastKey = rows.Row().Key
			if !filter.Match(rows.Row()) {
				continue
			}
			res.Matches = append(res.Matches, stream.Row().Clone())
			if int64(len(res.Matches)) == lq.Limit {
				break
			}
		}
		full := int64(len(res.Matches)) == lq.Limit
		// A full page peeks at the next row: if this upstream page ended
		// there, the next filtered page starts at the next upstream page.
		ended := !full || !stream.Next()
		err = stream.Err()
		stream.Close()
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				res.Next = &position{Continue: pos.Continue, Skip: read, Scanned: from.Scanned + res.Scanned}
				res.Stopped = fmt.Sprintf("The scan stopped at its time budget of %s; More goes on from there.", b.Time)
				return res, nil
			}
			return res, err
		}
		if !ended {
			res.Next = &position{Continue: pos.Continue, Skip: read, Scanned: from.Scanned + res.Scanned}
			return res, nil
		}
		if stream.Head.Continue == "" {
			return res, nil
		}
		pos = position{Continue: stream.Head.Continue}
		if full {
			res.Next = &position{Continue: pos.Continue, Scanned: from.Scanned + res.Scanned}
			return res, nil
		}
	}
}

// budgetLimit names the limit the scan reached, and what it read by then.
func budgetLimit(b ScanBudget, pages, scanned int) string {
	if pages == b.MaxPages {
		return fmt.Sprintf("%d requests (it read %s)", b.MaxPages, plural(scanned, "object"))
	}
	return fmt.Sprintf("%s objects (in %s)", thousands(b.MaxObjects), plural(pages, "request"))
}

// thousands writes n with thousands separators, as the page's other
// figures.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// scanPage reads a filtered page from lq's position; an expired continue
// token restarts from the first page, which the page says, as open does.
func scanPage(ctx context.Context, env *page.Env, b ScanBudget, client *apiclient.Client, r apiclient.Resource, ns string, lq Query, layout viewFor) (*scanResult, Query, []string, error) {
	if limit := env.Timeout / 2; limit > 0 && b.Time > limit {
		b.Time = limit
	}
	from, err := parsePosition(lq.Continue)
	if err != nil {
		return nil, lq, nil, err
	}
	res, err := scan(ctx, client, r, ns, lq, from, b, layout)
	if err != nil && from.Continue != "" && apiclient.IsExpired(err) {
		lq = lq.FirstPage()
		res, err = scan(ctx, client, r, ns, lq, position{}, b, layout)
		return &res, lq, []string{"The continue token expired, so the list restarted from the first page."}, err
	}
	return &res, lq, nil, err
}

// filteredPage serves a page with ?filter=: the matches of a scan from the
// page's position, in the page's columns, sorted within them if asked.
func (h *Handler) filteredPage(c echo.Context, t page.Target, lq Query, permits <-chan kube.Permits, picker <-chan views.NamespacePicker, layout func() views.Layout, hasUsage bool, metrics apiclient.Resource) error {
	ctx := c.Request().Context()
	r, ns := t.Resource, t.Path.Namespace
	in := Input{URLs: t.URLs, Resource: r, Namespace: ns, Query: lq, Permits: <-permits, Kubectl: h.env.Kubectl(ctx, t.Client, r)}
	found, lq, notices, err := scanPage(ctx, h.env, h.scanBudget, t.Client, r, ns, lq, func(head *apiclient.Table) (*kube.ListView, error) {
		if hasUsage && in.Permits.Denied(usageCheck(metrics, ns)) == "" {
			// Usage is merged into rows by name, so it is read before the
			// first row is built, once the head says how long the list is.
			sized := Query{LabelSelector: lq.LabelSelector, FieldSelector: lq.FieldSelector, Limit: h.scanBudget.PageSize, Continue: lq.Continue}
			in.Usage = pageUsage(ctx, h.usageWait, t.Client, r, metrics, ns, sized, head)
		}
		in.Table = head
		return kube.NewListView(in.table()), nil
	})
	namespaces := <-picker
	// The frame comes last: it shows the warnings of every call above.
	frame := layout()
	if err != nil {
		if _, bad := errors.AsType[*echo.HTTPError](err); bad {
			return err
		}
		return page.WithAction(err, "list", r, ns, "")
	}
	in.Query, in.Notices, in.Scan = lq, notices, found
	table := found.Head
	table.Rows = found.Matches
	in.Table = &table
	model := Model(ctx, in)
	model.Picker, model.Layout = namespaces, frame
	return h.env.Render(c, http.StatusOK, views.List(model))
}

// filterTexts are the terms as sent, for the form.
func filterTexts(filters []Filter) []string {
	out := make([]string, len(filters))
	for i, f := range filters {
		out[i] = f.Raw
	}
	return out
}

// scanView says what a filtered page read: how many rows matched in which
// objects, and where and why the budget stopped it.
func scanView(p *views.ListPage, s *scanResult) {
	objects := "the first " + plural(s.Scanned, "object")
	if s.From.Scanned > 0 {
		objects = fmt.Sprintf("objects %s–%s", thousands(s.From.Scanned+1), thousands(s.From.Scanned+s.Scanned))
		if s.Scanned == 0 {
			objects = "no further object"
		}
	}
	p.Pager.Matches = plural(len(s.Matches), "match") + " in " + objects
	if s.Next == nil && s.Stopped == "" {
		p.Pager.Matches += ", the end of the list"
	}
	p.Pager.ScanStopped = s.Stopped
	// The range a live page counts new matches in: open at the list's
	// start and end.
	if s.From != (position{}) {
		p.Live.ScanFrom = s.FirstKey
	}
	if s.Next != nil {
		p.Live.ScanTo = s.LastKey
	}
	p.Pager.ScanBudget = "Each filtered page reads " + s.Budget.Describe() + "."
	p.NoMatch = "No row matched the filters in " + objects + "."
	if s.Next != nil {
		p.NoMatch += " The list goes on: More reads the next objects."
	}
}

// plural is "1 match", "2 matches", "1,000 objects".
func plural(n int, noun string) string {
	if n != 1 {
		if strings.HasSuffix(noun, "ch") {
			noun += "es"
		} else {
			noun += "s"
		}
	}
	return thousands(n) + " " + noun
}

// filteredOut says whether a row pushed to a filtered live page fails its
// filters: the page then marks it rather than showing it as a match.
func filteredOut(in Input, row views.ListRow) bool {
	view := kube.NewListView(in.table())
	filter, err := bindFilters(in.Query.Filter, view.Columns)
	return err != nil || !filter.Match(row)
}
