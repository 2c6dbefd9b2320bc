package views

import (
	"context"
	"html"
	"io"
	"strings"

	"github.com/a-h/templ"
)

// listRows writes a list's table rows directly. It is the console's one hot
// loop (a page may hold 5,000 rows), so it skips templ's per-attribute
// machinery; every value is still HTML-escaped, and hrefs are the console's
// own paths.
func listRows(rows []ListRow) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		var b strings.Builder
		for _, r := range rows {
			b.Reset()
			b.WriteString(`<tr data-key="`)
			b.WriteString(html.EscapeString(r.Key))
			if len(r.Conditions) > 0 {
				b.WriteString(`" class="row-done`)
			}
			b.WriteString(`">`)
			for i, c := range r.Cells {
				if c.Numeric {
					b.WriteString(`<td class="num">`)
				} else {
					b.WriteString(`<td>`)
				}
				text := html.EscapeString(c.Text)
				switch {
				case c.Href != "":
					b.WriteString(`<a href="`)
					b.WriteString(html.EscapeString(c.Href))
					b.WriteString(`">`)
					b.WriteString(text)
					b.WriteString(`</a>`)
				case c.Time:
					b.WriteString(`<time title="`)
					b.WriteString(html.EscapeString(c.Title))
					b.WriteString(`">`)
					b.WriteString(text)
					b.WriteString(`</time>`)
				default:
					b.WriteString(text)
				}
				if i == 0 {
					for _, cond := range r.Conditions {
						b.WriteString(` <span class="tag tag-cond">`)
						b.WriteString(html.EscapeString(cond))
						b.WriteString(`</span>`)
					}
				}
				b.WriteString(`</td>`)
			}
			b.WriteString("</tr>\n")
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
		}
		return nil
	})
}
