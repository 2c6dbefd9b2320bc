package web

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/csrf"
)

// Every page sets the CSRF cookie a later form must repeat: HttpOnly,
// SameSite=Strict, the whole site.
func TestPagesSetTheCSRFCookie(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(webPath+"/edit", http.StatusOK)
	var found bool
	for _, c := range p.resp.Cookies() {
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
	token := b.csrfToken()
	first := b.form(p, "[data-testid=edit-form]").get("_csrf")
	if raw, ok := csrf.Unmask(first); token == "" || !ok || string(raw) != token {
		t.Errorf("the form's _csrf = %q, want the cookie's %q masked", first, token)
	}
	// The cookie is kept: the next page does not set another.
	p = b.get(webPath, http.StatusOK)
	for _, c := range p.resp.Cookies() {
		if c.Name == "tabula_csrf" {
			t.Errorf("a page replaced the browser's token: %v", c)
		}
	}
	if got, _ := csrf.Unmask(b.form(p, `form[action$="/restart"]`).get("_csrf")); string(got) != token {
		t.Errorf("the object page's restart form carries _csrf for %q, want %q", got, token)
	}
}

// Pages are compressed, and reflect what the request asks (a label
// selector, a path): a token written as it is would be readable from their
// sizes (BREACH). Each response masks it afresh; every masking is
// accepted, a tampered one is not.
func TestFormsCarryTheTokenMaskedAfreshEachTime(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	editor := b.get(webPath+"/edit", http.StatusOK)
	text := replaceLine(t, editorText(t, editor), "    app: web", "    app: masked")
	one := b.form(editor, "[data-testid=edit-form]").set("yaml", text)
	two := b.form(b.get(webPath+"/edit", http.StatusOK), "[data-testid=edit-form]").set("yaml", text)
	if one.get("_csrf") == two.get("_csrf") {
		t.Fatalf("two renders of the edit page carry the same token %q", one.get("_csrf"))
	}
	if strings.Contains(one.get("_csrf"), b.csrfToken()) {
		t.Errorf("the form's token %q shows the cookie's", one.get("_csrf"))
	}
	for _, fm := range []*form{one, two} {
		if p := fm.submit("review", http.StatusOK); !p.has("review-form") {
			t.Fatalf("a form with its page's token does not reach the review:\n%s", clip(p.body))
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(one.get("_csrf"))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 0x20
	tampered := one.set("_csrf", base64.RawURLEncoding.EncodeToString(raw)).send("review", http.StatusForbidden, nil)
	if got := tampered.text("error-code"); got != "403" {
		t.Errorf("a tampered token: error code %q", got)
	}
	f.noRealWrites(t, "reviews")
}

// A write without the browser's token, with another one, or sent from
// another site is refused before anything reaches the API server.
func TestCSRFRefusesForgedWrites(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	editor := b.get(webPath+"/edit", http.StatusOK)
	text := replaceLine(t, editorText(t, editor), "    app: web", "    app: forged")

	refused := func(name string, mutate func(*form), hdr map[string]string) {
		t.Helper()
		fm := b.form(editor, "[data-testid=edit-form]").set("yaml", text)
		mutate(fm)
		p := fm.send("apply", http.StatusForbidden, hdr)
		if got := p.text("error-code"); got != "403" {
			t.Errorf("%s: error code %q, want 403", name, got)
		}
		if msg := p.text("error-message"); !strings.Contains(msg, "nothing was changed") {
			t.Errorf("%s: message %q does not say nothing was changed", name, msg)
		}
		f.noWrites(t, name)
	}
	refused("no token", func(fm *form) { delete(fm.values, "_csrf") }, nil)
	refused("wrong token", func(fm *form) { fm.set("_csrf", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") }, nil)
	refused("another browser's token", func(fm *form) {
		other := newBrowser(t, f.harness)
		other.get(webPath+"/edit", http.StatusOK)
		fm.set("_csrf", other.csrfToken())
	}, nil)
	refused("token, but Origin of another site", func(*form) {}, map[string]string{"Origin": "https://evil.example"})
	refused("token, but Origin of another port", func(*form) {}, map[string]string{"Origin": "http://127.0.0.1:1"})
	refused("token, but Sec-Fetch-Site cross-site", func(*form) {}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	refused("token, but Sec-Fetch-Site same-site", func(*form) {}, map[string]string{"Sec-Fetch-Site": "same-site"})
	if got := f.stored(t, "/apis/apps/v1/namespaces/demo/deployments/web").GetLabels()["app"]; got != "web" {
		t.Fatalf("label app = %q after refused writes", got)
	}

	// The same form from the console's own origin goes through; so does
	// one from a client that sends neither Origin nor Sec-Fetch-Site.
	p := b.form(editor, "[data-testid=edit-form]").set("yaml", text).submit("review", http.StatusOK)
	if !p.has("review-form") {
		t.Fatalf("a same-origin form with its token does not reach the review:\n%s", p.body)
	}
	p = b.form(editor, "[data-testid=edit-form]").set("yaml", text).submitWith("review", http.StatusOK, map[string]string{"Origin": "", "Sec-Fetch-Site": ""})
	if !p.has("review-form") {
		t.Fatal("a form without Origin headers but with its token is refused")
	}
	// Scripts may send the token as a header instead.
	fm := b.form(editor, "[data-testid=edit-form]").set("yaml", text)
	token := fm.get("_csrf")
	delete(fm.values, "_csrf")
	fm.submitWith("review", http.StatusOK, map[string]string{"X-CSRF-Token": token})
	if n := len(f.writes()); n != 3 {
		t.Errorf("the fake saw %d writes, want the 3 dry runs", n)
	}
	f.noRealWrites(t, "reviews")
}

// Only the write pages accept forms: a POST anywhere else is 405, with a
// valid token, and nothing is sent upstream.
func TestPostsToPagesThatAreNotActionsAre405(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	b.get(webPath, http.StatusOK)
	values := map[string][]string{"_csrf": {b.csrfToken()}}
	for _, path := range []string{
		webPath,             // the object page
		webPath + "/status", // a subresource page
		"/c/dev/apis/apps/v1/namespaces/demo/deployments", // a list
		webPath + "/log",
	} {
		p := b.post(path, values, http.StatusMethodNotAllowed, nil)
		if got := p.text("error-code"); got != "405" {
			t.Errorf("POST %s: error code %q", path, got)
		}
	}
	// An action without a page for GET is 405 too.
	b.get(webPath+"/restart", http.StatusMethodNotAllowed)
	// Outside /api and /apis, POST has no route at all.
	b.post("/c/dev/", values, http.StatusNotFound, nil)
	f.noWrites(t, "POSTs to non-action pages")
}
