package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// A copy keeps the page and its assets; the bare copy loses its scripts
// and sidebar and nothing else.
func TestStaticCopiesServeThePageWholeAndBare(t *testing.T) {
	const page = `<!doctype html><html><head><style nonce="n">b{}</style>` +
		`<script type="importmap" nonce="n">{"imports":{}}</script> <script type="module" src="/static/app.js" nonce="n"></script>` +
		`</head><body><header>top</header><div class="shell"><nav id="sidebar" class="sidebar" popover><ul><li>pods</li></ul></nav>` +
		`<main><table><tr><td>row</td></tr></table></main></div></body></html>`
	console := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/static/app.js" {
			_, _ = io.WriteString(w, "export {}")
			return
		}
		_, _ = io.WriteString(w, page)
	}))
	defer console.Close()
	copies := &staticCopies{console: console.URL}
	srv := httptest.NewServer(copies.handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "floor") })))
	defer srv.Close()
	whole, bare, err := copies.add(context.Background(), console.URL+"/c/admin/")
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, wantCode int) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != wantCode {
			t.Fatalf("%s: %s, want %d", path, resp.Status, wantCode)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get(whole, 200); got != page {
		t.Errorf("whole copy differs from the page:\n%s", got)
	}
	want := strings.NewReplacer(`<script type="importmap" nonce="n">{"imports":{}}</script>`, "", `<script type="module" src="/static/app.js" nonce="n"></script>`, "",
		`<nav id="sidebar" class="sidebar" popover><ul><li>pods</li></ul></nav>`, "").Replace(page)
	if got := get(bare, 200); got != want {
		t.Errorf("bare copy:\n%s\nwant\n%s", got, want)
	}
	if got := get("/static/app.js", 200); got != "export {}" {
		t.Errorf("asset through the copies' server: %q", got)
	}
	if got := get("/", 200); got != "floor" {
		t.Errorf("the floor: %q", got)
	}
	get("/copy/2", 404)
	get("/copy/x", 404)
}

// Where the kernel reports CPU pressure, it is read, and it only grows.
func TestCPUStalledReadsThePressureTotal(t *testing.T) {
	if _, err := os.Stat("/proc/pressure/cpu"); err != nil {
		_, ok := cpuStalled()
		if ok {
			t.Fatal("no /proc/pressure/cpu, yet a total was read")
		}
		return
	}
	a, ok := cpuStalled()
	if !ok {
		t.Fatal("/proc/pressure/cpu exists but its total was not read")
	}
	b, ok := cpuStalled()
	if !ok || b < a {
		t.Errorf("the total went from %v to %v", a, b)
	}
}
