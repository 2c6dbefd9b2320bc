package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

func compress(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "raw-deflate":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		var err error
		if w, err = zstd.NewWriter(&buf); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("no compressor for %s", coding)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeBody(t *testing.T) {
	page := []byte(strings.Repeat("<tr><td>bulk-00001</td><td>Running</td></tr>\n", 200))
	for _, tc := range []struct {
		name, contentEncoding string
		wire                  []byte
	}{
		{"none", "", page},
		{"identity", "identity", page},
		{"gzip", "gzip", compress(t, "gzip", page)},
		{"x-gzip, any case", "X-Gzip", compress(t, "gzip", page)},
		{"deflate (zlib)", "deflate", compress(t, "deflate", page)},
		{"deflate sent raw", "deflate", compress(t, "raw-deflate", page)},
		{"br", "br", compress(t, "br", page)},
		{"zstd", "zstd", compress(t, "zstd", page)},
		{"two codings, undone last first", "gzip, br", compress(t, "br", compress(t, "gzip", page))},
	} {
		got, err := decodeBody(tc.contentEncoding, tc.wire)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !bytes.Equal(got, page) {
			t.Errorf("%s: decoded %d bytes, not the page's %d", tc.name, len(got), len(page))
		}
	}
	if _, err := decodeBody("compress", page); err == nil {
		t.Error("an unknown coding was passed through")
	}
	if _, err := decodeBody("gzip", page); err == nil {
		t.Error("a body that is not gzip decoded as gzip")
	}
}

// fetch counts the bytes on the wire when it sends Accept-Encoding itself,
// and lets Go's transport decode gzip when it does not.
func TestFetchCountsWireBytes(t *testing.T) {
	page := []byte(strings.Repeat("<tr><td>bulk</td></tr>\n", 500))
	br := compress(t, "br", page)
	gz := compress(t, "gzip", page)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ae := r.Header.Get("Accept-Encoding")
		switch {
		case strings.Contains(ae, "br"):
			w.Header().Set("Content-Encoding", "br")
			w.Write(br)
		case strings.Contains(ae, "gzip"):
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz)
		default:
			w.Write(page)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		acceptEncoding, wantEncoding string
		wantWire                     int
	}{
		{browserAcceptEncoding, "br", len(br)},
		{"identity", "", len(page)},
		{"gzip", "gzip", len(gz)},
		{"", "gzip (decoded by Go's transport)", len(page)},
	} {
		s, err := fetch(ctx, srv.Client(), srv.URL, "text/html", tc.acceptEncoding)
		if err != nil {
			t.Fatalf("Accept-Encoding %q: %v", tc.acceptEncoding, err)
		}
		if !bytes.Equal(s.body, page) || s.wire != tc.wantWire || s.encoding != tc.wantEncoding || s.d <= 0 {
			t.Errorf("Accept-Encoding %q: body %d bytes, wire %d, encoding %q, d %v; want %d, %d, %q",
				tc.acceptEncoding, len(s.body), s.wire, s.encoding, s.d, len(page), tc.wantWire, tc.wantEncoding)
		}
	}
}

func TestFetchFailsOnAnErrorStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusForbidden)
	}))
	defer srv.Close()
	if _, err := fetch(context.Background(), srv.Client(), srv.URL, "text/html", "identity"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("err = %v, want the 403", err)
	}
}
