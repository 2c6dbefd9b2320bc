package logs

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// download streams the log as a file. It never follows (ParseQuery sees to
// that), so it ends when the log read so far does. Nothing is buffered: a
// failure after the first bytes can only cut the file short.
func (h *Handler) download(c echo.Context, client *apiclient.Client, t Target, lq Query) error {
	ctx := c.Request().Context()
	filename := downloadName(t, lq)
	if !t.multi() {
		rc, err := h.openLog(ctx, client, t.Namespace, t.Pod, lq.upstream(lq.Container, false))
		if err != nil {
			return err
		}
		defer rc.Close()
		startDownload(c, filename)
		_, err = io.Copy(c.Response(), rc)
		return h.endDownload(err)
	}
	sources, _ := h.mergeSources(client, t, lq)
	if len(sources) > maxSources {
		sources = sources[:maxSources]
	}
	w := c.Response()
	started := false
	write := func(batch []byte) error {
		if !started {
			startDownload(c, filename)
			started = true
		}
		_, err := w.Write(batch)
		w.Flush()
		return err
	}
	m := newLogMerger(write, func(dst []byte, src string, line []byte) []byte {
		dst = append(dst, src...)
		dst = append(dst, ' ')
		if !lq.Timestamps {
			if sp := bytes.IndexByte(line, ' '); sp >= 0 {
				line = line[sp+1:]
			}
		}
		return append(dst, line...)
	})
	// A container whose log could not be read says so in the file, rather
	// than vanishing from it.
	m.notify = func(msg string) { _ = write([]byte("# tabula: " + msg + "\n")) }
	err := m.Run(ctx, sources)
	if !started && err == nil {
		startDownload(c, filename)
	}
	return h.endDownload(err)
}

func downloadName(t Target, lq Query) string {
	name := t.Pod
	if t.multi() {
		name = strings.ToLower(t.Kind) + "-" + t.Name
	}
	if lq.Container != "" && !t.multi() {
		name += "-" + lq.Container
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '"' || r < ' ' {
			return '_'
		}
		return r
	}, name) + ".log"
}

func startDownload(c echo.Context, filename string) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/plain; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	c.Response().WriteHeader(http.StatusOK)
}

// endDownload logs a failure after the headers went out; the error mapper
// can no longer turn it into a page.
func (h *Handler) endDownload(err error) error {
	if err != nil {
		h.env.Log.Warn("log download cut short", "error", err)
	}
	return nil
}
