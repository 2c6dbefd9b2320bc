package page

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// maxPooledPage is the largest page buffer kept for reuse: a 5,000-row page
// is several megabytes and must not stay pinned by the pool.
const maxPooledPage = 4 << 20

// bufferPool reuses page buffers: a list page is about 100 KB, and
// allocating it afresh per request feeds the collector.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) get() *bytes.Buffer {
	if buf, ok := b.p.Get().(*bytes.Buffer); ok {
		return buf
	}
	return new(bytes.Buffer)
}

func (b *bufferPool) put(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledPage {
		buf.Reset()
		b.p.Put(buf)
	}
}

// Render writes a component only after it rendered completely, so a
// failure never leaves half a page, and the finished page is compressed in
// one go (Blob). The page deadline bounds upstream work,
// not rendering: what was fetched in time is shown.
func (e *Env) Render(c echo.Context, status int, component templ.Component) error {
	buf := e.pages.get()
	defer e.pages.put(buf)
	if err := component.Render(context.WithoutCancel(c.Request().Context()), buf); err != nil {
		return fmt.Errorf("rendering page: %w", err)
	}
	return e.Blob(c, status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}
