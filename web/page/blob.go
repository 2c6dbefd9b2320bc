package page

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/compress"
)

type headKey struct{}

// MarkHead serves a HEAD request as its GET, as RFC 9110 asks: echo routes
// the very request net/http handed it, so that one becomes a GET, and the
// handlers get a copy that remembers it (isHead). RestoreHead gives it back
// its HEAD after routing: net/http reads the method of its own request to
// send no body, even when a handler flushes.
func MarkHead(c echo.Context) {
	served := c.Request()
	served.Method = http.MethodGet
	c.SetRequest(served.WithContext(context.WithValue(served.Context(), headKey{}, served)))
}

// RestoreHead gives the request MarkHead marked its HEAD back, once routed.
func RestoreHead(c echo.Context) {
	if served, ok := c.Request().Context().Value(headKey{}).(*http.Request); ok {
		served.Method = http.MethodHead
	}
}

// isHead says whether MarkHead marked the request: its body is dropped,
// so there is nothing to compress.
func isHead(c echo.Context) bool { return c.Request().Context().Value(headKey{}) != nil }

// ReleasePooled drops what the Env keeps only for speed (pooled
// compressors), before the console hands its spare memory back.
func (e *Env) ReleasePooled() {
	if e.compressor != nil {
		e.compressor.Drop()
	}
}

// Encoding decides the coding of a response body of size bytes, and says
// so in Vary whatever it decides; a body another layer encoded, a HEAD's,
// or one under compress.MinSize is sent as it is.
func (e *Env) Encoding(c echo.Context, size int) compress.Encoding {
	if e.compressor == nil {
		return compress.Identity
	}
	h := c.Response().Header()
	if !slices.Contains(h.Values(echo.HeaderVary), echo.HeaderAcceptEncoding) {
		h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	}
	if size < compress.MinSize || h.Get(echo.HeaderContentEncoding) != "" || isHead(c) {
		return compress.Identity
	}
	return compress.Negotiate(c.Request().Header.Get(echo.HeaderAcceptEncoding))
}

// Blob writes a finished body, compressed as the request accepts, with
// its Content-Length. Pages, error pages and JSON go through it; streams
// that flush as they go never do.
func (e *Env) Blob(c echo.Context, status int, contentType string, body []byte) error {
	enc := e.Encoding(c, len(body))
	h := c.Response().Header()
	if enc == compress.Identity {
		h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
		return c.Blob(status, contentType, body)
	}
	out := e.pages.get()
	defer e.pages.put(out)
	if err := e.compressor.Compress(out, enc, body); err != nil {
		return err
	}
	h.Set(echo.HeaderContentEncoding, string(enc))
	h.Set(echo.HeaderContentLength, strconv.Itoa(out.Len()))
	return c.Blob(status, contentType, out.Bytes())
}
