package compress

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

func TestNegotiateHonoursQValues(t *testing.T) {
	for header, want := range map[string]Encoding{
		"":                                  Identity, // no header: clients that decode say so
		"gzip, deflate, br, zstd":           Brotli,   // Chromium over HTTPS
		"gzip, deflate":                     Gzip,     // Chromium over plain HTTP
		"br, gzip":                          Brotli,
		"gzip, br":                          Brotli, // a tie goes to brotli
		"BR;Q=0.8, Gzip;q=0.8":              Brotli, // names and parameters in any case
		"gzip;q=1, br;q=0.5":                Gzip,
		"gzip;q=0.5":                        Gzip, // identity is not preferred unless said
		"x-gzip":                            Gzip,
		"identity":                          Identity,
		"deflate, zstd":                     Identity,
		"br;q=0, gzip":                      Gzip,
		"gzip;q=0":                          Identity,
		"br;q=0, gzip;q=0.000":              Identity,
		"*":                                 Brotli,
		"*;q=0":                             Identity, // nothing is acceptable: identity anyway, not a 406
		"*;q=0, gzip":                       Gzip,
		"br;q=0, *":                         Gzip,
		"identity;q=1, gzip;q=0.5":          Identity,
		"identity;q=0.5, gzip;q=0.5":        Gzip,
		"identity;q=0, *;q=0":               Identity,
		"br;q=abc, gzip":                    Gzip, // a malformed element is ignored
		"br;q=2, gzip;q=0.1":                Gzip,
		"br ; q=0.9 , gzip ; level=1 ; q=1": Gzip,
		" , ,br":                            Brotli,
	} {
		if got := Negotiate(header); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestCompressorRoundTrips(t *testing.T) {
	body := []byte(strings.Repeat("<tr><td>pod-0001</td><td>Running</td></tr>\n", 2000))
	c := New()
	for enc, decode := range map[Encoding]func(io.Reader) (io.Reader, error){
		Brotli:   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		Gzip:     func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }, // the standard library reads it
		Identity: func(r io.Reader) (io.Reader, error) { return r, nil },
	} {
		// Twice, so the second goes through a pooled writer.
		for range 2 {
			var out bytes.Buffer
			if err := c.Compress(&out, enc, body); err != nil {
				t.Fatalf("%q: %v", enc, err)
			}
			if enc != Identity && out.Len() > len(body)/10 {
				t.Errorf("%q: %d bytes from %d", enc, out.Len(), len(body))
			}
			r, err := decode(&out)
			if err != nil {
				t.Fatalf("%q: %v", enc, err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%q: decoded %d bytes (%v), want the %d sent", enc, len(got), err, len(body))
			}
		}
		best, err := CompressBest(enc, body)
		if err != nil {
			t.Fatal(err)
		}
		r, err := decode(bytes.NewReader(best))
		if err != nil {
			t.Fatalf("%q best: %v", enc, err)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%q best: decoded %d bytes (%v)", enc, len(got), err)
		}
	}
}

// A stream's flushed part decodes before the stream ends, and the whole
// stream decodes to what was written.
func TestStreamFlushesParts(t *testing.T) {
	c := New()
	first, second := strings.Repeat("<section>deployments</section>\n", 50), strings.Repeat("<section>pods</section>\n", 50)
	for enc, decode := range map[Encoding]func(io.Reader) (io.Reader, error){
		Brotli: func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		Gzip:   func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
	} {
		for range 2 { // the second through a pooled writer
			var out bytes.Buffer
			s := c.Stream(&out, enc)
			if _, err := io.WriteString(s, first); err != nil {
				t.Fatal(err)
			}
			s.Flush()
			// What was sent so far decodes to the first part.
			r, err := decode(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatalf("%q: %v", enc, err)
			}
			part := make([]byte, len(first))
			if _, err := io.ReadFull(r, part); err != nil || string(part) != first {
				t.Fatalf("%q: the flushed part decoded as %q (%v)", enc, part, err)
			}
			if _, err := io.WriteString(s, second); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			r, err = decode(&out)
			if err != nil {
				t.Fatalf("%q: %v", enc, err)
			}
			if all, err := io.ReadAll(r); err != nil || string(all) != first+second {
				t.Fatalf("%q: the stream decoded as %d bytes (%v)", enc, len(all), err)
			}
		}
	}
	if c.Stream(io.Discard, Identity) != nil {
		t.Error("identity needs no stream")
	}
}

// The pool keeps at most its bound, and nothing once dropped.
func TestWriterPoolIsBoundedAndDrops(t *testing.T) {
	made := 0
	p := writerPool[*int]{max: 2, make: func() *int { made++; return new(int) }}
	ws := []*int{p.get(), p.get(), p.get()}
	for _, w := range ws {
		p.put(w)
	}
	if len(p.free) != 2 {
		t.Fatalf("kept %d writers, want 2", len(p.free))
	}
	p.get()
	p.get()
	if made != 3 {
		t.Errorf("made %d writers, want 3: the pooled ones are reused", made)
	}
	p.put(ws[0])
	p.drop()
	p.get()
	if made != 4 {
		t.Errorf("made %d writers, want 4: the pool was emptied", made)
	}
}

func TestCompressible(t *testing.T) {
	for ctype, want := range map[string]bool{
		"text/html; charset=utf-8":          true,
		"text/css; charset=utf-8":           true,
		"text/javascript; charset=utf-8":    true,
		"application/javascript":            true,
		"application/json":                  true,
		"image/svg+xml":                     true,
		"application/manifest+json":         true,
		"image/png":                         false,
		"font/woff2":                        false,
		"application/octet-stream":          false,
		"application/gzip":                  false,
		"APPLICATION/JSON; charset=utf-8":   true,
		"application/vnd.ms-fontobject":     false,
		"text/plain":                        true,
		"application/x-www-form-urlencoded": false,
	} {
		if got := Compressible(ctype); got != want {
			t.Errorf("Compressible(%q) = %v", ctype, got)
		}
	}
}
