package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// browserAcceptEncoding is what Chromium sends with every request.
const browserAcceptEncoding = "gzip, deflate, br, zstd"

// sample is one request measured to the last byte of its body, decoded.
type sample struct {
	d time.Duration
	// body is the decoded body; wire is how many bytes came over the
	// connection, encoding its Content-Encoding ("" for none).
	body     []byte
	wire     int
	encoding string
}

// fetch GETs url and reads the whole body. With acceptEncoding empty, Go's
// transport asks for gzip and decompresses by itself (as client-go and a
// plain http.Client do), and wire is unknown (the decoded length). With
// acceptEncoding set, it is sent as is and the body is decoded here, inside
// the timed span, so wire is the real count.
func fetch(ctx context.Context, c *http.Client, url, accept, acceptEncoding string) (sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return sample{}, err
	}
	req.Header.Set("Accept", accept)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	wire, err := io.ReadAll(resp.Body)
	if err != nil {
		return sample{}, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	s := sample{body: wire, wire: len(wire), encoding: resp.Header.Get("Content-Encoding")}
	if resp.Uncompressed {
		s.encoding = "gzip (decoded by Go's transport)"
	} else if s.body, err = decodeBody(s.encoding, wire); err != nil {
		return sample{}, fmt.Errorf("GET %s: %w", url, err)
	}
	s.d = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return sample{}, fmt.Errorf("GET %s: %s: %.300s", url, resp.Status, s.body)
	}
	return s, nil
}

// decodeBody undoes a Content-Encoding: a list of codings applied in order,
// so undone last to first. Unknown codings are an error, not passed through.
func decodeBody(contentEncoding string, wire []byte) ([]byte, error) {
	codings := strings.Split(contentEncoding, ",")
	body := wire
	for i := len(codings) - 1; i >= 0; i-- {
		coding := strings.ToLower(strings.TrimSpace(codings[i]))
		var r io.Reader
		var err error
		switch coding {
		case "", "identity":
			continue
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			// HTTP's deflate is zlib-wrapped; some servers send it raw.
			if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
				r, err = flate.NewReader(bytes.NewReader(body)), nil
			}
		case "br":
			r = brotli.NewReader(bytes.NewReader(body))
		case "zstd":
			var d *zstd.Decoder
			if d, err = zstd.NewReader(bytes.NewReader(body)); err == nil {
				defer d.Close()
				r = d
			}
		default:
			return nil, fmt.Errorf("unknown Content-Encoding %q", coding)
		}
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %w", coding, err)
		}
		if body, err = io.ReadAll(r); err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %w", coding, err)
		}
	}
	return body, nil
}
