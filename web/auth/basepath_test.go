package auth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/web"
)

// Behind an ingress prefix every sign-in URL carries it: the redirect to
// sign in, the form's action, the provider's redirect URI, the way back
// and the header's sign-out form; the return path itself stays a console
// path, so it cannot name anything outside the console.
func TestSignInUnderABasePath(t *testing.T) {
	t.Run("token", func(t *testing.T) {
		c := newConsole(t, options{mode: web.ModeToken, basePath: "/tabula"})
		b := c.browser()
		p := b.get("/tabula/c/dev/")
		if p.code() != http.StatusFound || p.location() != "/tabula/auth/login?return=%2Fc%2Fdev%2F" {
			t.Fatalf("unauthenticated page: %d → %q", p.code(), p.location())
		}
		form := b.get(p.location())
		if action := form.doc(t).Find("[data-testid=token-form]").AttrOr("action", ""); form.code() != http.StatusOK || action != "/tabula/auth/token" {
			t.Fatalf("token form %d, action %q", form.code(), action)
		}
		csrf := form.doc(t).Find("[data-testid=token-form] input[name=_csrf]").AttrOr("value", "")
		done := b.post("/tabula/auth/token", url.Values{"_csrf": {csrf}, "token": {"alice-token"}, "return": {"/c/dev/"}})
		if done.code() != http.StatusSeeOther || done.location() != "/tabula/c/dev/" {
			t.Fatalf("token sign-in: %d → %q\n%s", done.code(), done.location(), done.body)
		}
		home := b.get("/tabula/c/dev/")
		if home.code() != http.StatusOK || home.testid(t, "user-name") != "alice" {
			t.Fatalf("home: %d, user %q", home.code(), home.testid(t, "user-name"))
		}
		doc := home.doc(t)
		if action := doc.Find("form:has([data-testid=sign-out])").AttrOr("action", ""); action != "/tabula/auth/logout" {
			t.Errorf("sign-out form posts to %q", action)
		}
		if check := doc.Find("body").AttrOr("data-session-check", ""); check != "/tabula/auth/session" {
			t.Errorf("session probe at %q", check)
		}
	})
	t.Run("oidc", func(t *testing.T) {
		c := newConsole(t, options{basePath: "/tabula"})
		b := c.browser()
		c.idp.m.QueueUser(alice)
		toIDP := b.get("/tabula/auth/login?return=%2Fc%2Fdev%2F")
		if toIDP.code() != http.StatusFound {
			t.Fatalf("/auth/login: %d", toIDP.code())
		}
		authz, err := url.Parse(toIDP.location())
		if err != nil {
			t.Fatal(err)
		}
		if got := authz.Query().Get("redirect_uri"); got != c.url("/tabula/auth/callback") {
			t.Errorf("redirect_uri %q, want the callback under the prefix", got)
		}
		hops := b.follow(toIDP.location())
		last := hops[len(hops)-1]
		if last.code() != http.StatusOK || last.resp.Request.URL.Path != "/tabula/c/dev/" {
			t.Fatalf("signed in at %s with %d", last.resp.Request.URL, last.code())
		}
		out := b.post("/tabula/auth/logout", url.Values{"_csrf": {last.doc(t).Find("form:has([data-testid=sign-out]) input[name=_csrf]").AttrOr("value", "")}})
		if out.code() != http.StatusSeeOther || !strings.HasPrefix(out.location(), "/tabula/auth/signed-out") {
			t.Errorf("sign-out: %d → %q", out.code(), out.location())
		}
	})
}
