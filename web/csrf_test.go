package web_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/webtest"
)

// Every page sets the CSRF cookie a later form must repeat: HttpOnly,
// SameSite=Strict, the whole site.
func TestPagesSetTheCSRFCookie(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.WebPath+"/edit", http.StatusOK)
	var found bool
	for _, c := range p.Resp.Cookies() {
		if c.Name != "tabula_csrf" {
			continue
		}
		found = true
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
			t.Errorf("CSRF cookie %+v: want HttpOnly, SameSite=Strict, Path=/", c)
		}
	}
	if !found {
		t.Fatal("the edit page sets no CSRF cookie")
	}
	token := b.CSRFToken()
	first := b.Form(p, "[data-testid=edit-form]").Get("_csrf")
	if raw, ok := csrf.Unmask(first); token == "" || !ok || string(raw) != token {
		t.Errorf("the form's _csrf = %q, want the cookie's %q masked", first, token)
	}
	// The cookie is kept: the next page does not set another.
	p = b.Get(webtest.WebPath, http.StatusOK)
	for _, c := range p.Resp.Cookies() {
		if c.Name == "tabula_csrf" {
			t.Errorf("a page replaced the browser's token: %v", c)
		}
	}
	if got, _ := csrf.Unmask(b.Form(p, `form[action$="/restart"]`).Get("_csrf")); string(got) != token {
		t.Errorf("the object page's restart form carries _csrf for %q, want %q", got, token)
	}
}

// Pages are compressed, and reflect what the request asks (a label
// selector, a path): a token written as it is would be readable from their
// sizes (BREACH). Each response masks it afresh; every masking is
// accepted, a tampered one is not.
func TestFormsCarryTheTokenMaskedAfreshEachTime(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	editor := b.Get(webtest.WebPath+"/edit", http.StatusOK)
	text := webtest.ReplaceLine(t, webtest.EditorText(t, editor), "    app: web", "    app: masked")
	one := b.Form(editor, "[data-testid=edit-form]").Set("yaml", text)
	two := b.Form(b.Get(webtest.WebPath+"/edit", http.StatusOK), "[data-testid=edit-form]").Set("yaml", text)
	if one.Get("_csrf") == two.Get("_csrf") {
		t.Fatalf("two renders of the edit page carry the same token %q", one.Get("_csrf"))
	}
	if strings.Contains(one.Get("_csrf"), b.CSRFToken()) {
		t.Errorf("the form's token %q shows the cookie's", one.Get("_csrf"))
	}
	for _, fm := range []*webtest.Form{one, two} {
		if p := fm.Submit("review", http.StatusOK); !p.Has("review-form") {
			t.Fatalf("a form with its page's token does not reach the review:\n%s", webtest.Clip(p.Body))
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(one.Get("_csrf"))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 0x20
	tampered := one.Set("_csrf", base64.RawURLEncoding.EncodeToString(raw)).Send("review", http.StatusForbidden, nil)
	if got := tampered.Text("error-code"); got != "403" {
		t.Errorf("a tampered token: error code %q", got)
	}
	f.NoRealWrites(t, "reviews")
}

// A write without the browser's token, with another one, or sent from
// another site is refused before anything reaches the API server.
func TestCSRFRefusesForgedWrites(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	editor := b.Get(webtest.WebPath+"/edit", http.StatusOK)
	text := webtest.ReplaceLine(t, webtest.EditorText(t, editor), "    app: web", "    app: forged")

	refused := func(name string, mutate func(*webtest.Form), hdr map[string]string) {
		t.Helper()
		fm := b.Form(editor, "[data-testid=edit-form]").Set("yaml", text)
		mutate(fm)
		p := fm.Send("apply", http.StatusForbidden, hdr)
		if got := p.Text("error-code"); got != "403" {
			t.Errorf("%s: error code %q, want 403", name, got)
		}
		if msg := p.Text("error-message"); !strings.Contains(msg, "nothing was changed") {
			t.Errorf("%s: message %q does not say nothing was changed", name, msg)
		}
		f.NoWrites(t, name)
	}
	refused("no token", func(fm *webtest.Form) { delete(fm.Values, "_csrf") }, nil)
	refused("wrong token", func(fm *webtest.Form) { fm.Set("_csrf", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") }, nil)
	refused("another browser's token", func(fm *webtest.Form) {
		other := webtest.NewBrowser(t, f)
		other.Get(webtest.WebPath+"/edit", http.StatusOK)
		fm.Set("_csrf", other.CSRFToken())
	}, nil)
	refused("token, but Origin of another site", func(*webtest.Form) {}, map[string]string{"Origin": "https://evil.example"})
	refused("token, but Origin of another port", func(*webtest.Form) {}, map[string]string{"Origin": "http://127.0.0.1:1"})
	refused("token, but Sec-Fetch-Site cross-site", func(*webtest.Form) {}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	refused("token, but Sec-Fetch-Site same-site", func(*webtest.Form) {}, map[string]string{"Sec-Fetch-Site": "same-site"})
	if got := f.Stored(t, "/apis/apps/v1/namespaces/demo/deployments/web").GetLabels()["app"]; got != "web" {
		t.Fatalf("label app = %q after refused writes", got)
	}

	// The same form from the console's own origin goes through; so does
	// one from a client that sends neither Origin nor Sec-Fetch-Site.
	p := b.Form(editor, "[data-testid=edit-form]").Set("yaml", text).Submit("review", http.StatusOK)
	if !p.Has("review-form") {
		t.Fatalf("a same-origin form with its token does not reach the review:\n%s", p.Body)
	}
	p = b.Form(editor, "[data-testid=edit-form]").Set("yaml", text).SubmitWith("review", http.StatusOK, map[string]string{"Origin": "", "Sec-Fetch-Site": ""})
	if !p.Has("review-form") {
		t.Fatal("a form without Origin headers but with its token is refused")
	}
	// Scripts may send the token as a header instead.
	fm := b.Form(editor, "[data-testid=edit-form]").Set("yaml", text)
	token := fm.Get("_csrf")
	delete(fm.Values, "_csrf")
	fm.SubmitWith("review", http.StatusOK, map[string]string{"X-CSRF-Token": token})
	if n := len(f.Writes()); n != 3 {
		t.Errorf("the fake saw %d writes, want the 3 dry runs", n)
	}
	f.NoRealWrites(t, "reviews")
}

// Only the write pages accept forms: a POST anywhere else is 405, with a
// valid token, and nothing is sent upstream.
func TestPostsToPagesThatAreNotActionsAre405(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath, http.StatusOK)
	values := map[string][]string{"_csrf": {b.CSRFToken()}}
	for _, path := range []string{
		webtest.WebPath,                                   // the object page
		webtest.WebPath + "/status",                       // a subresource page
		"/c/dev/apis/apps/v1/namespaces/demo/deployments", // a list
		webtest.WebPath + "/log",
	} {
		p := b.Post(path, values, http.StatusMethodNotAllowed, nil)
		if got := p.Text("error-code"); got != "405" {
			t.Errorf("POST %s: error code %q", path, got)
		}
	}
	// An action without a page for GET is 405 too.
	b.Get(webtest.WebPath+"/restart", http.StatusMethodNotAllowed)
	// Outside /api and /apis, POST has no route at all.
	b.Post("/c/dev/", values, http.StatusNotFound, nil)
	f.NoWrites(t, "POSTs to non-action pages")
}
