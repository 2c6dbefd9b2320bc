package list

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/compress"
	"github.com/tabula-console/tabula/web/page"
)

// BenchmarkCompressList sends the list page of 500 and 5,000 kwok pods
// through the console's compression (compress.Compressor, the levels Blob
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
		for _, enc := range []compress.Encoding{compress.Identity, compress.Gzip, compress.Brotli} {
			name := string(enc)
			if enc == compress.Identity {
				name = "identity"
			}
			b.Run(fmt.Sprintf("%d/%s", rows, name), func(b *testing.B) {
				c := compress.New()
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

// BenchmarkCompressListLoopback serves the same pages through
// page.Env.Blob over a loopback TCP connection to a client that decodes
// them, one GET per op: what a browser on the console's machine pays, with
// no upstream in the way. On loopback the bytes saved are worth almost
// nothing, so this is the cost side; BenchmarkCompressList's wire bytes
// are the saving on any slower link.
func BenchmarkCompressListLoopback(b *testing.B) {
	fake := apitest.NewServer(b, apitest.CoreV1())
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	env, err := page.New(page.Config{Clusters: clusters, Keys: [][]byte{make([]byte, 32)}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	pages := map[string][]byte{}
	for _, rows := range []int{500, 5000} {
		var html bytes.Buffer
		if err := views.List(benchListPage(ctx, benchPodTable(rows))).Render(ctx, &html); err != nil {
			b.Fatal(err)
		}
		pages[strconv.Itoa(rows)] = html.Bytes()
	}
	e := echo.New()
	e.GET("/:rows", func(c echo.Context) error {
		return env.Blob(c, http.StatusOK, echo.MIMETextHTMLCharsetUTF8, pages[c.Param("rows")])
	})
	srv := httptest.NewServer(e)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, rows := range []string{"500", "5000"} {
		for _, accept := range []string{"identity", "gzip", "br"} {
			b.Run(rows+"/"+accept, func(b *testing.B) {
				var wire int
				for b.Loop() {
					req, err := http.NewRequest(http.MethodGet, srv.URL+"/"+rows, nil)
					if err != nil {
						b.Fatal(err)
					}
					req.Header.Set("Accept-Encoding", accept)
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK {
						b.Fatalf("%d %v", resp.StatusCode, err)
					}
					enc := compress.Encoding(resp.Header.Get("Content-Encoding"))
					if want := compress.Negotiate(accept); enc != want {
						b.Fatalf("Content-Encoding %q, want %q", enc, want)
					}
					if n, err := decoded(enc, body); err != nil || n != int64(len(pages[rows])) {
						b.Fatalf("decoded %d bytes (%v), want %d", n, err, len(pages[rows]))
					}
					wire = len(body)
				}
				b.ReportMetric(float64(wire), "wire-bytes")
			})
		}
	}
}

// decoded reads a body in enc to its end, and counts its bytes.
func decoded(enc compress.Encoding, wire []byte) (int64, error) {
	var r io.Reader = bytes.NewReader(wire)
	switch enc {
	case compress.Brotli:
		r = brotli.NewReader(r)
	case compress.Gzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return 0, err
		}
		r = zr
	}
	return io.Copy(io.Discard, r)
}
