package page

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/compress"
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

// Stream writes a page as it renders, for a page whose parts arrive over
// seconds (a search): each part the component flushes (templ.Flush) is
// shown at once, compressed as the request accepts (a sync flush per
// part). What can fail must fail before Stream is called: once the head is
// sent, the status is too, so the component reports its parts' failures in
// the page itself. A write that fails means the browser went away; it is
// logged, not answered.
func (e *Env) Stream(c echo.Context, status int, component templ.Component) error {
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	// A buffering proxy (nginx) would hold the parts back until the end.
	w.Header().Set("X-Accel-Buffering", "no")
	// A streamed page is never under MinSize: its frame alone is larger.
	enc := e.Encoding(c, compress.MinSize)
	if enc != compress.Identity {
		w.Header().Set(echo.HeaderContentEncoding, string(enc))
	}
	w.WriteHeader(status)
	if isHead(c) {
		return nil
	}
	out := io.Writer(w)
	if enc != compress.Identity { // so e.compressor is set
		z := e.compressor.Stream(w, enc)
		defer func() {
			if err := z.Close(); err != nil {
				e.Log.Debug("ending a streamed page", "path", c.Request().URL.Path, "error", err)
			}
		}()
		out = flushing{z: z, w: w}
	}
	if err := component.Render(c.Request().Context(), out); err != nil {
		e.Log.Debug("streaming page", "path", c.Request().URL.Path, "error", err)
	}
	return nil
}

// flushing is a compressed stream that templ's Flush sends on: the coding's
// pending bytes, then the response's.
type flushing struct {
	z *compress.Stream
	w *echo.Response
}

func (f flushing) Write(p []byte) (int, error) { return f.z.Write(p) }

func (f flushing) Flush() {
	if f.z.Flush() == nil {
		f.w.Flush()
	}
}
