package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

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
