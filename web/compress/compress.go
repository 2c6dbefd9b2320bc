// Package compress encodes the console's finished responses and static
// assets in the coding a browser accepts (RFC 9110 §12.5.3): brotli or gzip,
// with bounded pools of writers. It knows nothing of pages or echo.
package compress

import (
	"bytes"
	"cmp"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

// Encoding is a content coding the console sends: Brotli, Gzip, or
// Identity (none).
type Encoding string

const (
	Identity Encoding = ""
	Brotli   Encoding = "br"
	Gzip     Encoding = "gzip"
)

// Levels for finished pages, chosen with BenchmarkCompressList (web/list):
// table rows repeat so much that the fastest levels already shrink a
// 5,000-row page of 850 KB to 28 KB (brotli 1, 2.5–3.5 ms) and 49 KB
// (gzip 1, 1.5 ms). Brotli 4 saves 12 KB more for 9–14 ms, which pays
// only on links under ~10 Mbit/s; gzip 6 saves 3 KB for twice the time.
// klauspost's gzip writes the standard format in about half the standard
// library's time.
const (
	pageBrotliLevel = 1
	pageGzipLevel   = 1
)

// Levels for static assets, compressed once per process when first asked
// for: brotli 9 takes 0.2–0.8 s on the 500 KB editor bundle, 10 and 11
// take 5 s (the first edit page would wait for them) to save 7% more.
const (
	assetBrotliLevel = 9
	assetGzipLevel   = gzip.BestCompression
)

// MinSize is the smallest body worth compressing: below it the
// saving is a few hundred bytes, less than the response's headers, and
// fits in the packet the headers go in anyway.
const MinSize = 1024

// Compressor compresses finished bodies with pooled writers. The pools are
// bounded, and Drop empties them: a brotli writer holds 2–3 MB of tables,
// which must not stay pinned while the console rests.
type Compressor struct {
	br writerPool[*brotli.Writer]
	gz writerPool[*gzip.Writer]
}

// pooledWriters is how many writers of each coding are kept: as many as
// pages are usually finished at once; more are made, and dropped, in bursts.
const pooledWriters = 4

// New returns a Compressor with empty pools.
func New() *Compressor {
	return &Compressor{
		br: writerPool[*brotli.Writer]{max: pooledWriters, make: func() *brotli.Writer {
			return brotli.NewWriterLevel(nil, pageBrotliLevel)
		}},
		gz: writerPool[*gzip.Writer]{max: pooledWriters, make: func() *gzip.Writer {
			w, _ := gzip.NewWriterLevel(nil, pageGzipLevel) // the level is valid
			return w
		}},
	}
}

// Compress appends body, encoded in enc at the page levels, to dst.
func (c *Compressor) Compress(dst *bytes.Buffer, enc Encoding, body []byte) error {
	switch enc {
	case Brotli:
		w := c.br.get()
		defer c.br.put(w)
		w.Reset(dst)
		if _, err := w.Write(body); err != nil {
			return err
		}
		return w.Close()
	case Gzip:
		w := c.gz.get()
		defer c.gz.put(w)
		w.Reset(dst)
		if _, err := w.Write(body); err != nil {
			return err
		}
		return w.Close()
	}
	_, err := dst.Write(body)
	return err
}

// Stream is a body compressed as it is written, in parts: Flush sends what
// was written so far (a sync flush, which a browser decodes at once), then
// flushes dst if it can (an http.ResponseWriter), and Close ends the coding
// and returns the writer to its pool.
type Stream struct {
	w interface {
		io.Writer
		Flush() error
		Close() error
	}
	dst     io.Writer
	release func()
	err     error // the first failed Flush, for Close
}

// Stream starts writing a body to dst in enc at the page levels; nil for
// Identity, which needs no writer.
func (c *Compressor) Stream(dst io.Writer, enc Encoding) *Stream {
	switch enc {
	case Brotli:
		w := c.br.get()
		w.Reset(dst)
		return &Stream{w: w, dst: dst, release: func() { c.br.put(w) }}
	case Gzip:
		w := c.gz.get()
		w.Reset(dst)
		return &Stream{w: w, dst: dst, release: func() { c.gz.put(w) }}
	}
	return nil
}

func (s *Stream) Write(p []byte) (int, error) { return s.w.Write(p) }

// Flush writes out what was written so far. It has http.Flusher's shape, so
// a writer that flushes its destination when it can (templ's) flushes this.
func (s *Stream) Flush() {
	if err := s.w.Flush(); err != nil {
		s.err = cmp.Or(s.err, err)
		return
	}
	if f, ok := s.dst.(http.Flusher); ok {
		f.Flush()
	}
}

// Close ends the body, reporting a failed Flush too; the Stream must not
// be used after.
func (s *Stream) Close() error {
	err := s.w.Close()
	s.release()
	return cmp.Or(s.err, err)
}

// Drop empties the pools, for the collection that hands a quiet console's
// memory back to the OS.
func (c *Compressor) Drop() {
	c.br.drop()
	c.gz.drop()
}

// CompressBest encodes body in enc at the best level that stays quick
// enough to do once per process, for static assets.
func CompressBest(enc Encoding, body []byte) ([]byte, error) {
	var buf bytes.Buffer
	switch enc {
	case Brotli:
		w := brotli.NewWriterLevel(&buf, assetBrotliLevel)
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case Gzip:
		w, err := gzip.NewWriterLevel(&buf, assetGzipLevel)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(body); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	default:
		return body, nil
	}
	return buf.Bytes(), nil
}

// writerPool is a bounded free list of writers.
type writerPool[W any] struct {
	max  int
	make func() W

	mu   sync.Mutex // guards free
	free []W
}

func (p *writerPool[W]) get() W {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		w := p.free[n-1]
		var zero W
		p.free[n-1] = zero
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return w
	}
	p.mu.Unlock()
	return p.make()
}

func (p *writerPool[W]) put(w W) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.max {
		p.free = append(p.free, w)
	}
}

func (p *writerPool[W]) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = nil
}

// Negotiate chooses the coding for a request's Accept-Encoding (RFC 9110
// §12.5.3): the acceptable coding of highest q-value, brotli before gzip
// when they tie, and identity only when the header prefers it explicitly
// or accepts neither; q=0 refuses a coding, "*" stands for those not
// named. Without the header, identity: clients that decode say so.
func Negotiate(header string) Encoding {
	if header == "" {
		return Identity
	}
	const unset = -1.0
	qBr, qGzip, qIdentity, qAny := unset, unset, unset, unset
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		q, ok := qValue(params)
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "br":
			qBr = q
		case "gzip", "x-gzip":
			qGzip = q
		case "identity":
			qIdentity = q
		case "*":
			qAny = q
		}
	}
	if qBr == unset {
		qBr = qAny
	}
	if qGzip == unset {
		qGzip = qAny
	}
	if qIdentity == unset {
		qIdentity = qAny
	}
	best, q := Identity, 0.0
	if qBr > q {
		best, q = Brotli, qBr
	}
	if qGzip > q {
		best, q = Gzip, qGzip
	}
	if best != Identity && qIdentity > q {
		return Identity
	}
	return best
}

// qValue reads the q parameter of one Accept-Encoding element (1 when
// absent); ok is false for a malformed one, which is then ignored.
func qValue(params string) (float64, bool) {
	for _, p := range strings.Split(params, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || q < 0 || q > 1 {
			return 0, false
		}
		return q, true
	}
	return 1, true
}

// Compressible says whether a content type gains from compression: text,
// scripts, JSON and SVG do; images, fonts and archives already are.
func Compressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	return strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") ||
		t == "application/javascript" || t == "application/json" || t == "application/xml"
}
