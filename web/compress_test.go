package web_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// wireResponse is one response as it came over the wire, and its body decoded
// as its Content-Encoding says.
type wireResponse struct {
	resp    *http.Response
	wire    []byte
	decoded []byte
}

// fetchEncoded GETs path sending Accept-Encoding: accept (no header when
// "none"), with nothing decoded on the way, and asserts the status code.
func fetchEncoded(t *testing.T, console *httptest.Server, path, accept string, wantStatus int, hdr ...string) wireResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, console.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "none" {
		req.Header.Set("Accept-Encoding", accept)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wire, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s (Accept-Encoding %q): status %d, want %d", path, accept, resp.StatusCode, wantStatus)
	}
	e := wireResponse{resp: resp, wire: wire, decoded: wire}
	var r io.Reader
	switch ce := resp.Header.Get("Content-Encoding"); ce {
	case "":
		return e
	case "br":
		r = brotli.NewReader(bytes.NewReader(wire))
	case "gzip":
		if r, err = gzip.NewReader(bytes.NewReader(wire)); err != nil {
			t.Fatalf("GET %s: gzip: %v", path, err)
		}
	default:
		t.Fatalf("GET %s: Content-Encoding %q", path, ce)
	}
	if e.decoded, err = io.ReadAll(r); err != nil {
		t.Fatalf("GET %s: decoding %s: %v", path, resp.Header.Get("Content-Encoding"), err)
	}
	return e
}

// checkFraming asserts what every response the console compresses, or
// could have, carries: Vary, and a Content-Length that is the wire's.
func (e wireResponse) checkFraming(t *testing.T, what, wantEncoding string) {
	t.Helper()
	if got := e.resp.Header.Get("Content-Encoding"); got != wantEncoding {
		t.Errorf("%s: Content-Encoding %q, want %q", what, got, wantEncoding)
	}
	if got := e.resp.Header.Values("Vary"); !strings.Contains(strings.Join(got, ","), "Accept-Encoding") {
		t.Errorf("%s: Vary %q lacks Accept-Encoding", what, got)
	}
	if got := e.resp.Header.Get("Content-Length"); got != strconv.Itoa(len(e.wire)) {
		t.Errorf("%s: Content-Length %q, %d bytes sent", what, got, len(e.wire))
	}
}

// perResponse are the parts of a page that change with every response:
// the CSP nonce and the masked CSRF token.
var perResponse = regexp.MustCompile(`nonce="[^"]*"|name="_csrf" value="[^"]*"`)

func samePage(a, b []byte) bool {
	return bytes.Equal(perResponse.ReplaceAll(a, nil), perResponse.ReplaceAll(b, nil))
}

func TestPagesAreCompressedAsTheBrowserAccepts(t *testing.T) {
	h := webtest.New(t)
	const path = "/c/dev/api/v1/namespaces"
	plain := fetchEncoded(t, h.HTTP, path, "none", http.StatusOK)
	plain.checkFraming(t, "no Accept-Encoding", "")
	if !bytes.Contains(plain.wire, []byte(`data-testid="resource-table"`)) && !bytes.Contains(plain.wire, []byte("<table")) {
		t.Fatalf("the list page has no table:\n%s", plain.wire)
	}
	for accept, want := range map[string]string{
		"gzip, deflate, br, zstd": "br", // Chromium over HTTPS
		"gzip, deflate":           "gzip",
		"gzip;q=1, br;q=0.5":      "gzip",
		"identity":                "",
		"br;q=0, gzip":            "gzip",
		"gzip;q=0":                "",
		"*":                       "br",
		"*;q=0":                   "",
		"identity, gzip;q=0.5":    "",
	} {
		got := fetchEncoded(t, h.HTTP, path, accept, http.StatusOK)
		got.checkFraming(t, accept, want)
		if !samePage(got.decoded, plain.wire) {
			t.Errorf("%s: the decoded page differs from the uncompressed one", accept)
		}
		if want != "" && len(got.wire) > len(plain.wire)/2 {
			t.Errorf("%s: %d bytes for a page of %d", accept, len(got.wire), len(plain.wire))
		}
	}
}

func TestErrorPagesAreCompressed(t *testing.T) {
	h := webtest.New(t)
	got := fetchEncoded(t, h.HTTP, "/c/dev/api/v1/namespaces/demo/pods/nope", "br, gzip", http.StatusNotFound)
	got.checkFraming(t, "the 404 page", "br")
	if code := webtest.Parse(t, string(got.decoded)).Find("[data-testid=error-code]").Text(); strings.TrimSpace(code) != "404" {
		t.Errorf("the decoded error page says %q, want 404", code)
	}
	got = fetchEncoded(t, h.HTTP, "/c/nowhere/", "gzip", http.StatusNotFound)
	got.checkFraming(t, "an unknown context's 404 page", "gzip")
}

// The editor's schema is JSON through the same path; its "none" answer is
// under the threshold and goes as it is, with Vary all the same.
func TestSchemaJSONIsCompressedAboveTheThreshold(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	const path = "/c/dev/schema/apis/apps/v1/deployments"
	small := fetchEncoded(t, f.HTTP, path, "br, gzip", http.StatusNotFound)
	small.checkFraming(t, "{}", "")
	if string(small.wire) != "{}" {
		t.Errorf("without OpenAPI: %q", small.wire)
	}
	f.Fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	plain := fetchEncoded(t, f.HTTP, path, "identity", http.StatusOK)
	for _, enc := range []string{"br", "gzip"} {
		got := fetchEncoded(t, f.HTTP, path, enc, http.StatusOK)
		got.checkFraming(t, "the schema in "+enc, enc)
		if !bytes.Equal(got.decoded, plain.wire) || !strings.HasPrefix(got.resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: the decoded schema (%s) differs from the uncompressed one", enc, got.resp.Header.Get("Content-Type"))
		}
	}
}

func TestStaticAssetsAreCompressedOnceWithTheirCaching(t *testing.T) {
	h := webtest.New(t)
	css := h.Server.AssetURL("app.css")
	want, err := static.FS.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	plain := fetchEncoded(t, h.HTTP, css, "identity", http.StatusOK)
	plain.checkFraming(t, "app.css", "")
	etag := plain.resp.Header.Get("ETag")
	for _, enc := range []string{"br", "gzip", "br", ""} {
		got := fetchEncoded(t, h.HTTP, css, enc, http.StatusOK)
		got.checkFraming(t, "app.css in "+enc, enc)
		if !bytes.Equal(got.decoded, want) {
			t.Errorf("%q: app.css decodes to %d bytes, not the file's %d", enc, len(got.decoded), len(want))
		}
		if got.resp.Header.Get("ETag") != etag || got.resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			!strings.HasPrefix(got.resp.Header.Get("Content-Type"), "text/css") {
			t.Errorf("%q: ETag %q (identity's %q), Cache-Control %q, Content-Type %q", enc, got.resp.Header.Get("ETag"), etag,
				got.resp.Header.Get("Cache-Control"), got.resp.Header.Get("Content-Type"))
		}
		if enc != "" && len(got.wire) > len(want)/2 {
			t.Errorf("%q: %d bytes for a stylesheet of %d", enc, len(got.wire), len(want))
		}
	}
	// Revalidation is a bare 304 whatever the coding.
	notModified := fetchEncoded(t, h.HTTP, css, "br", http.StatusNotModified, "If-None-Match", etag)
	if len(notModified.wire) != 0 || notModified.resp.Header.Get("Content-Encoding") != "" ||
		!strings.Contains(notModified.resp.Header.Get("Vary"), "Accept-Encoding") {
		t.Errorf("304: %d bytes, Content-Encoding %q, Vary %q", len(notModified.wire),
			notModified.resp.Header.Get("Content-Encoding"), notModified.resp.Header.Get("Vary"))
	}
	// A module under the threshold goes as it is.
	small := fetchEncoded(t, h.HTTP, h.Server.AssetURL("live/lines.js"), "br, gzip", http.StatusOK)
	small.checkFraming(t, "live/lines.js", "")
}

// A HEAD request gets the GET's headers, uncompressed, and not one byte of
// body: the next request on the connection is answered as it should be.
func TestHeadIsNotCompressedAndSendsNoBody(t *testing.T) {
	h := webtest.PodLogs(t)
	addr := strings.TrimPrefix(h.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	send := func(method, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, h.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "br, gzip")
		if err := req.Write(conn); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return resp
	}
	// The merged log download and the home page flush as they go: their
	// HEADs must not end in a chunk terminator either.
	const download = "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log?download=1&tailLines=all"
	streamed := map[string]bool{download: true, "/c/dev/": true}
	for _, path := range []string{"/c/dev/changes", "/c/dev/", h.Server.AssetURL("app.css"), "/c/dev/api/v1/namespaces/demo/pods/nope", download} {
		head := send(http.MethodHead, path)
		if head.StatusCode >= 500 || head.Header.Get("Content-Encoding") != "" || (!streamed[path] && head.ContentLength <= 0) {
			t.Errorf("HEAD %s: %d, Content-Encoding %q, Content-Length %d", path, head.StatusCode, head.Header.Get("Content-Encoding"), head.ContentLength)
		}
		next := send(http.MethodGet, "/healthz")
		body, err := io.ReadAll(next.Body)
		if err != nil || next.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Fatalf("after HEAD %s, GET /healthz: %d %q %v", path, next.StatusCode, body, err)
		}
	}
}

func TestStreamsAreNotCompressed(t *testing.T) {
	h := webtest.PodLogs(t)
	// A WebSocket handshake is answered as it always was.
	u := "ws" + strings.TrimPrefix(h.URL, "http") + "/c/dev/api/v1/namespaces/demo/pods"
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.Dial(u, http.Header{"Origin": {h.URL}, "Accept-Encoding": {"br, gzip"}})
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, webtest.StatusText(resp))
	}
	_ = ws.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" {
		t.Errorf("handshake: %d, Content-Encoding %q, Vary %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	// A log download flushes as it goes: never compressed.
	got := fetchEncoded(t, h.HTTP, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1&tailLines=all", "br, gzip", http.StatusOK)
	if got.resp.Header.Get("Content-Encoding") != "" || string(got.wire) != "GET /api/orders 200\nlevel=warn msg=\"slow query\"\n" {
		t.Errorf("download: Content-Encoding %q, body %q", got.resp.Header.Get("Content-Encoding"), got.wire)
	}
}

func TestCompressionCanBeTurnedOff(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	metrics := web.NewMetrics()
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{Clusters: clusters, Metrics: metrics, Static: static.FS, DisableCompression: true})
	if err != nil {
		t.Fatal(err)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	for _, path := range []string{"/c/dev/api/v1/namespaces", srv.AssetURL("app.css"), "/c/dev/api/v1/namespaces/demo/pods/nope"} {
		got := fetchEncoded(t, console, path, "br, gzip", map[bool]int{true: http.StatusNotFound, false: http.StatusOK}[strings.HasSuffix(path, "nope")])
		if ce, vary := got.resp.Header.Get("Content-Encoding"), got.resp.Header.Get("Vary"); ce != "" || vary != "" {
			t.Errorf("%s: Content-Encoding %q, Vary %q", path, ce, vary)
		}
	}
}
