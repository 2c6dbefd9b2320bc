package list

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// BenchmarkCompressList sends the list page of 500 and 5,000 kwok pods
// through the console's compression (page.Compressor, the levels Blob
// uses) and decodes it as a browser does. Time per op is both; the
// metrics split them and give the bytes on the wire, so identity, gzip
// and brotli compare in one run: what compression costs on loopback, and
// what it saves on a slower link (wire bytes over the link's speed).
func BenchmarkCompressList(b *testing.B) {
	ctx := context.Background()
	for _, rows := range []int{500, 5000} {
		var html bytes.Buffer
		if err := views.List(benchListPage(ctx, benchPodTable(rows))).Render(ctx, &html); err != nil {
			b.Fatal(err)
		}
		for _, enc := range []page.Encoding{page.Identity, page.Gzip, page.Brotli} {
			name := string(enc)
			if enc == page.Identity {
				name = "identity"
			}
			b.Run(fmt.Sprintf("%d/%s", rows, name), func(b *testing.B) {
				c := page.NewCompressor()
				var wire bytes.Buffer
				var compress, decode time.Duration
				for b.Loop() {
					wire.Reset()
					start := time.Now()
					if err := c.Compress(&wire, enc, html.Bytes()); err != nil {
						b.Fatal(err)
					}
					compress += time.Since(start)
					start = time.Now()
					n, err := decoded(enc, wire.Bytes())
					if err != nil || n != int64(html.Len()) {
						b.Fatalf("decoded %d bytes (%v), want %d", n, err, html.Len())
					}
					decode += time.Since(start)
				}
				b.ReportMetric(float64(compress.Nanoseconds())/float64(b.N), "compress-ns/op")
				b.ReportMetric(float64(decode.Nanoseconds())/float64(b.N), "decode-ns/op")
				b.ReportMetric(float64(wire.Len()), "wire-bytes")
				b.ReportMetric(float64(html.Len()), "page-bytes")
			})
		}
	}
}

// decoded reads a body in enc to its end, and counts its bytes.
func decoded(enc page.Encoding, wire []byte) (int64, error) {
	var r io.Reader = bytes.NewReader(wire)
	switch enc {
	case page.Brotli:
		r = brotli.NewReader(r)
	case page.Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return 0, err
		}
		r = zr
	}
	return io.Copy(io.Discard, r)
}
