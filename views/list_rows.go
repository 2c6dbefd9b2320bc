package views

import (
	"context"
	"html"
	"io"

	"github.com/a-h/templ"
)

// listRows writes a list's table rows directly. It is the console's one hot
// loop (a page may hold 5,000 rows), so it skips templ's per-attribute
// machinery and writes straight into the page buffer; every value is still
// HTML-escaped, and hrefs are the console's own paths.
func listRows(rows []ListRow) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		out := rowWriter{w: w}
		for _, r := range rows {
			out.s(`<tr data-key="`)
			out.esc(r.Key)
			if len(r.Conditions) > 0 {
				out.s(`" class="row-done`)
			}
			out.s(`">`)
			for i, c := range r.Cells {
				if c.Numeric {
					out.s(`<td class="num">`)
				} else {
					out.s(`<td>`)
				}
				switch {
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
				if i == 0 {
					for _, cond := range r.Conditions {
						out.s(` <span class="tag tag-cond">`)
						out.esc(cond)
						out.s(`</span>`)
					}
				}
				out.s(`</td>`)
			}
			out.s("</tr>\n")
		}
		return out.err
	})
}

// WriteRows writes rows exactly as a list page does, for live updates that
// replace or add single rows.
func WriteRows(ctx context.Context, w io.Writer, rows []ListRow) error {
	return listRows(rows).Render(ctx, w)
}

// rowWriter keeps the first write error, so the loop stays readable.
type rowWriter struct {
	w   io.Writer
	err error
}

func (o *rowWriter) s(s string) {
	if o.err == nil {
		_, o.err = io.WriteString(o.w, s)
	}
}

func (o *rowWriter) esc(s string) { o.s(html.EscapeString(s)) }
