package views

import (
	"context"
	"html"
	"io"
	"time"

	"github.com/a-h/templ"
)

// writeListRows writes a list's table rows directly. It is the console's
// one hot loop (a page may hold 5,000 rows, read from the server as they
// are written), so it skips templ's per-attribute machinery and writes
// straight into the page buffer; every value is still HTML-escaped, and
// hrefs are the console's own paths.
//
// A source that fails fails the page, unless the page streams and its
// first screen was sent: then the rows end there, and the page says that
// they broke off (ListRows.BrokenOff).
func writeListRows(rows *ListRows) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if rows.Empty() {
			return nil
		}
		stream := streamOf(ctx)
		var sent time.Time
		out := rowWriter{w: w, selectable: rows.selectable, checked: rows.checked}
		for more := true; more && out.err == nil; more = rows.src.Next() {
			out.row(rows.src.Row(), rows.written == 0)
			rows.written++
			if stream != nil && (rows.written == FirstScreenRows ||
				rows.written > FirstScreenRows && time.Since(sent) >= streamSendEvery) {
				if out.err = flush(w); out.err == nil {
					stream.Send()
				}
				sent = time.Now()
			}
		}
		if out.err != nil {
			return out.err
		}
		err := rows.src.Err()
		if err != nil && stream != nil && stream.Sent() {
			rows.brokenOff = err
			return nil
		}
		return err
	})
}

// WriteRows writes rows exactly as a list page does, for live updates that
// replace or add single rows, but unmarked: a live row is not the first paint.
func WriteRows(_ context.Context, w io.Writer, rows []ListRow) error {
	out := rowWriter{w: w}
	for _, r := range rows {
		out.row(r, false)
	}
	return out.err
}

// WriteSelectableRows is WriteRows for a list page whose rows have
// checkboxes (ListPage.Select): pushed rows must carry them too.
func WriteSelectableRows(_ context.Context, w io.Writer, rows []ListRow) error {
	out := rowWriter{w: w, selectable: true}
	for _, r := range rows {
		out.row(r, false)
	}
	return out.err
}

// firstRowTiming marks the page's first row for the Element Timing API, so
// make bench can read when the first row was painted. Chromium reports a
// text paint on the cell holding the text, not on the row or the link.
const firstRowTiming = ` elementtiming="list-first-row"`

func (out *rowWriter) row(r ListRow, first bool) {
	out.s(`<tr data-key="`)
	out.esc(r.Key)
	if len(r.Conditions) > 0 {
		out.s(`" class="row-done`)
	}
	out.s(`">`)
	if out.selectable {
		// The checkbox joins the bulk form above the table (form=), so the
		// table is no form; its value is the row's key, namespace/name.
		out.s(`<td class="select-col"><input type="checkbox" name="item" form="` + BulkFormID + `" data-bulk-item="" value="`)
		out.esc(r.Key)
		out.s(`" aria-label="Select `)
		out.esc(r.Key)
		if out.checked {
			out.s(`" checked="`)
		}
		out.s(`"/></td>`)
	}
	tags := 0 // the name's cell, else the first
	for i, c := range r.Cells {
		if c.Name {
			tags = i
			break
		}
	}
	for i, c := range r.Cells {
		out.s(`<td`)
		if first && i == 0 {
			out.s(firstRowTiming)
		}
		if c.Title != "" && !c.Time {
			// Why a custom column's cell is empty.
			out.s(` title="`)
			out.esc(c.Title)
			out.s(`"`)
		}
		switch {
		case c.Numeric && c.Muted:
			out.s(` class="num muted">`)
		case c.Numeric:
			out.s(` class="num">`)
		case c.Name:
			out.s(` class="col-name">`)
		case c.Muted:
			out.s(` class="muted">`)
		default:
			out.s(`>`)
		}
		switch {
		case len(c.Labels) > 0:
			out.chips(c.Labels)
		case c.Href != "":
			out.s(`<a href="`)
			out.esc(string(c.Href))
			out.s(`">`)
			out.esc(c.Text)
			out.s(`</a>`)
		case c.Time:
			out.s(`<time title="`)
			out.esc(c.Title)
			out.s(`">`)
			out.esc(c.Text)
			out.s(`</time>`)
		default:
			out.esc(c.Text)
		}
		if i == tags {
			for _, cond := range r.Conditions {
				out.s(` <span class="tag tag-cond">`)
				out.esc(cond)
				out.s(`</span>`)
			}
		}
		out.s(`</td>`)
	}
	// No newline between rows: it would be one more DOM node per row.
	out.s("</tr>")
}

// chips writes label chips as the object page's labelChip does: a
// disclosure menu (details/summary: keyboard accessible, no script).
func (out *rowWriter) chips(chips []Chip) {
	out.s(`<span class="chips">`)
	for _, c := range chips {
		if c.Href == "" && c.ColumnHref == "" {
			out.s(`<span class="chip">`)
			out.esc(c.Text)
			out.s(`</span>`)
			continue
		}
		out.s(`<details class="chip-menu"><summary class="chip" data-testid="label-chip">`)
		out.esc(c.Text)
		out.s(`</summary><span class="chip-menu-items">`)
		if c.Href != "" {
			out.s(`<a href="`)
			out.esc(string(c.Href))
			out.s(`" data-testid="chip-filter">Filter by this</a>`)
		}
		if c.ColumnHref != "" {
			out.s(`<a href="`)
			out.esc(string(c.ColumnHref))
			out.s(`" data-testid="chip-column">Show as column</a>`)
		}
		out.s(`</span></details>`)
	}
	out.s(`</span>`)
}

// rowWriter keeps the first write error, so the loop stays readable.
type rowWriter struct {
	w   io.Writer
	err error
	// selectable writes a checkbox cell first, checked when checked is set.
	selectable, checked bool
}

func (o *rowWriter) s(s string) {
	if o.err == nil {
		_, o.err = io.WriteString(o.w, s)
	}
}

func (o *rowWriter) esc(s string) { o.s(html.EscapeString(s)) }
