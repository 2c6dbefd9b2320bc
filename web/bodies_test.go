package web_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// endless is a body that never ends: a reader of 'a's.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// stalled is a body that sends prefix, then nothing until the test ends.
func stalled(t *testing.T, prefix string) io.Reader {
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write([]byte(prefix)) }()
	t.Cleanup(func() { pw.Close() })
	return pr
}

// formPost is a POST of body as a form, sent chunked (its length unknown,
// as the reader does not say it).
func formPost(t *testing.T, c *webtest.Console, path string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.URL+path, struct{ io.Reader }{body})
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

// A form with a valid token that is larger than its route allows is a 413
// that says so, whether its length was announced or not: not a 403 that
// blames the token, which a cut-off form used to lose.
func TestFormsTooLargeAre413(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath+"/edit", http.StatusOK)
	token := url.QueryEscape(b.CSRFToken())
	for _, tc := range []struct {
		path, limit string
		size        int64
	}{
		{webtest.WebPath + "/edit", "16 MiB", 20 << 20},
		{webtest.ConfigMapsPath + "/new", "16 MiB", 20 << 20},
		// Only the editor's forms may be large.
		{webtest.WebPath + "/delete", "1 MiB", web.MaxSmallForm + 1},
		{webtest.WebPath + "/scale", "1 MiB", web.MaxSmallForm + 1},
	} {
		body := io.MultiReader(strings.NewReader("_csrf="+token+"&yaml="), io.LimitReader(endless{}, tc.size))
		p := b.Do(formPost(t, f, tc.path, body), http.StatusRequestEntityTooLarge)
		if msg := p.Text("error-message"); !strings.Contains(msg, "larger than "+tc.limit) {
			t.Errorf("POST %s of %d MiB: the 413 says %q, want it to name the %s limit", tc.path, tc.size>>20, msg, tc.limit)
		}
	}
	f.NoWrites(t, "forms too large")
}

// CSRF decides from the headers and the form's first field: a stranger's
// form (no valid token) is refused without the rest of its body being
// read, however much of it is still to come.
func TestAFormWithoutAValidTokenIsRefusedUnread(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath+"/edit", http.StatusOK)
	for _, first := range []string{"_csrf=forged&yaml=", "yaml="} {
		start := time.Now()
		p := b.Do(formPost(t, f, webtest.WebPath+"/edit", stalled(t, first+strings.Repeat("a", 4096))), http.StatusForbidden)
		if !strings.Contains(p.Text("error-message"), "CSRF token") {
			t.Errorf("%q…: the 403 says %q", first, p.Text("error-message"))
		}
		// The body never ends: an answer at all means it was not waited for.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%q…: refused after %v", first, d)
		}
	}
	f.NoWrites(t, "forged forms")
}

// A form that stops arriving is a 408 once its time is up, and nothing
// is sent upstream.
func TestASlowFormIs408(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	f.Server.SetBodyTimeout(200 * time.Millisecond)
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath+"/edit", http.StatusOK)
	token := url.QueryEscape(b.CSRFToken())
	p := b.Do(formPost(t, f, webtest.WebPath+"/edit", stalled(t, "_csrf="+token+"&yaml=kind")), http.StatusRequestTimeout)
	if !strings.Contains(p.Text("error-message"), "did not arrive in time") {
		t.Errorf("the 408 says %q", p.Text("error-message"))
	}
	f.NoWrites(t, "a form that never arrived")
}

// The token is a form's first field, as every form of the console sends
// it, or the header: a token further on is not looked for.
func TestTheTokenIsTheFormsFirstField(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath, http.StatusOK)
	token := url.QueryEscape(b.CSRFToken())
	b.Do(formPost(t, f, webtest.WebPath+"/scale", strings.NewReader("replicas=3&_csrf="+token)), http.StatusForbidden)
	f.NoWrites(t, "a token that is not first")
	b.Do(formPost(t, f, webtest.WebPath+"/scale", strings.NewReader("_csrf="+token+"&replicas=3")), http.StatusSeeOther)
	if got := f.Writes(http.MethodPatch); len(got) != 1 {
		t.Errorf("the scale form made %d patches, want 1", len(got))
	}
}

// withCookies gives req the browser's cookies, for requests the browser's
// own client would not send as they are.
func withCookies(b *webtest.Browser, req *http.Request) *http.Request {
	u, _ := url.Parse(req.URL.String())
	for _, c := range b.Client.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	return req
}

// A write that calls itself a WebSocket upgrade (which only a GET can
// be) is a write like any other: its form is bounded, and it is never
// routed to a live stream.
func TestAWriteWithUpgradeHeadersIsAWrite(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath+"/delete", http.StatusOK)
	token := url.QueryEscape(b.CSRFToken())
	for _, path := range []string{webtest.WebPath + "/delete", webtest.WebPath + "/edit"} {
		body := io.MultiReader(strings.NewReader("_csrf="+token+"&x="), io.LimitReader(endless{}, web.MaxSmallForm+1))
		if strings.HasSuffix(path, "/edit") {
			body = strings.NewReader("_csrf=" + token + "&action=edit&yaml=kind")
		}
		req := formPost(t, f, path, body)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Origin", f.URL)
		resp, err := http.DefaultClient.Do(withCookies(b, req))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusRequestEntityTooLarge
		if strings.HasSuffix(path, "/edit") {
			want = http.StatusOK // the editor again, not its live stream
		}
		if resp.StatusCode != want {
			t.Errorf("POST %s with upgrade headers: %d, want %d", path, resp.StatusCode, want)
		}
	}
	f.NoWrites(t, "writes with upgrade headers")
}

// Only forms are taken: a multipart body (or any other) is refused with
// 415 before a parser without the form's bound reads it.
func TestWritesTakeOnlyForms(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath+"/delete", http.StatusOK)
	body := io.MultiReader(strings.NewReader("--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\"\r\n\r\n"),
		io.LimitReader(endless{}, 8<<20), strings.NewReader("\r\n--XX--\r\n"))
	req, _ := http.NewRequest(http.MethodPost, f.URL+webtest.WebPath+"/delete", struct{ io.Reader }{body})
	req.Header.Set("Content-Type", "multipart/form-data; boundary=XX")
	req.Header.Set("X-CSRF-Token", b.CSRFToken())
	b.Do(req, http.StatusUnsupportedMediaType)
	f.NoWrites(t, "a multipart delete")
}

// A body that stalls is answered anyway, wherever the request ends: a
// health check, a host the console refuses, a write without a token.
func TestAStalledBodyHoldsNoAnswer(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	host := strings.TrimPrefix(f.URL, "http://")
	for _, head := range []string{
		"GET /healthz HTTP/1.1\r\nHost: " + host,
		"POST /auth/logout HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/x-www-form-urlencoded",
		"POST " + webtest.WebPath + "/delete HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/x-www-form-urlencoded",
	} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%s\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", head)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("%q…: no answer while the body stalls: %v", strings.SplitN(head, "\r\n", 2)[0], err)
		} else if !resp.Close {
			t.Errorf("%q…: %d without Connection: close", strings.SplitN(head, "\r\n", 2)[0], resp.StatusCode)
		}
		conn.Close()
	}
}

// Every form that writes sends its CSRF token first, as the check reads
// only a form's first field: the first named control of each is _csrf.
// (webtest's Form posts fields in the page's order too, so every test that
// submits a form checks its own.)
func TestEveryFormSendsItsTokenFirst(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	forms := 0
	for _, path := range []string{webtest.WebPath, webtest.WebPath + "/edit", webtest.WebPath + "/delete", webtest.WebPath + "/scale", webtest.ConfigMapsPath + "/new"} {
		b.Get(path, http.StatusOK).Doc.Find(`form[method="post"]`).Each(func(_ int, form *goquery.Selection) {
			forms++
			first := form.Find("input[name], textarea[name], select[name], button[name]").First()
			if name := first.AttrOr("name", ""); name != "_csrf" {
				t.Errorf("%s: a form to %s sends %q first, not its token", path, form.AttrOr("action", ""), name)
			}
		})
	}
	if forms < 5 {
		t.Errorf("found %d forms that write, want the restart, edit, delete, scale and create forms", forms)
	}
}
