package page

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/views"
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
// failure never leaves half a page, and compresses it in one go (Blob).
// The page deadline bounds upstream work, not rendering.
func (e *Env) Render(c echo.Context, status int, component templ.Component) error {
	buf := e.pages.get()
	defer e.pages.put(buf)
	if err := component.Render(context.WithoutCancel(c.Request().Context()), buf); err != nil {
		return fmt.Errorf("rendering page: %w", err)
	}
	return e.Blob(c, status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
}

// RenderStreamed writes a page whose end may take long to arrive (a list
// whose rows are read from the server as they are written). What the
// component writes is held until it flushes its first screen
// (views.WithStream): a failure before that is still a whole error page,
// with its status, as Render's. From then on the page is sent as it
// renders, compressed as the request accepts, and a failure is the
// component's to show in the page; a failed write (the browser went away)
// is logged, not answered.
func (e *Env) RenderStreamed(c echo.Context, status int, component templ.Component) error {
	if isHead(c) {
		return e.Render(c, status, component)
	}
	buf := e.pages.get()
	defer e.pages.put(buf)
	w := &heldWriter{env: e, c: c, status: status, held: buf}
	ctx := views.WithStream(context.WithoutCancel(c.Request().Context()), w)
	err := component.Render(ctx, w)
	if w.out == nil {
		if err != nil {
			return fmt.Errorf("rendering page: %w", err)
		}
		return e.Blob(c, status, echo.MIMETextHTMLCharsetUTF8, buf.Bytes())
	}
	if w.z != nil {
		err = errors.Join(err, w.z.Close())
	}
	e.logStreamError(c.Request().URL.Path, errors.Join(err, w.err))
	return nil
}

// heldWriter holds a page until its first flush, then sends it and
// everything after.
type heldWriter struct {
	env    *Env
	c      echo.Context
	status int
	held   *bytes.Buffer
	out    io.Writer        // nil until the first flush
	z      *compress.Stream // out, when compressed
	err    error            // the first failed write of the held page
}

func (w *heldWriter) Write(p []byte) (int, error) {
	if w.out == nil {
		return w.held.Write(p)
	}
	return w.out.Write(p)
}

// Send sends the head and what was held at the first call, and what was
// written since at each.
func (w *heldWriter) Send() {
	resp := w.c.Response()
	if w.out == nil {
		h := resp.Header()
		h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		h.Set("X-Accel-Buffering", "no") // nginx would hold the rest back
		w.out = resp
		if w.z = w.env.CompressStream(w.c); w.z != nil {
			w.out = w.z
		}
		resp.WriteHeader(w.status)
		if _, err := w.out.Write(w.held.Bytes()); err != nil {
			w.err = err
		}
	}
	w.Flush()
}

// Flush sends what was written since the page was first sent; before, it
// holds it (templ flushes its buffer into the page at the end of every
// component, which must not send the page).
func (w *heldWriter) Flush() {
	switch {
	case w.z != nil:
		w.z.Flush()
	case w.out != nil:
		w.c.Response().Flush()
	}
}

// Sent says whether any of the page has been sent.
func (w *heldWriter) Sent() bool { return w.out != nil }

// Stream writes a page as it renders, for a page whose parts arrive over
// seconds (a search): each part the component flushes (templ.Flush) is
// shown at once, compressed as the request accepts. Once the head is sent
// the status is too, so what can fail must fail before, and the component
// reports its parts' failures in the page itself; a failed write (the
// browser went away) is logged, not answered.
func (e *Env) Stream(c echo.Context, status int, component templ.Component) error {
	w, path := c.Response(), c.Request().URL.Path
	w.Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	w.Header().Set("X-Accel-Buffering", "no") // nginx would hold the parts back
	enc := e.Encoding(c, compress.MinSize)    // the frame alone is larger
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
		defer func() { e.logStreamError(path, z.Close()) }()
		out = z
	}
	e.logStreamError(path, component.Render(c.Request().Context(), out))
	return nil
}

// CompressStream starts compressing a streamed body (a download) as the
// request accepts, setting Content-Encoding, before the head is written;
// nil when it is sent as it is. The caller Closes it to end the body.
func (e *Env) CompressStream(c echo.Context) *compress.Stream {
	enc := e.Encoding(c, compress.MinSize)
	if enc == compress.Identity { // else e.compressor is set
		return nil
	}
	c.Response().Header().Set(echo.HeaderContentEncoding, string(enc))
	return e.compressor.Stream(c.Response(), enc)
}

func (e *Env) logStreamError(path string, err error) {
	if err != nil {
		e.Log.Debug("streaming a page", "path", path, "error", err)
	}
}
