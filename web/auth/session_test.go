package auth_test

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/auth"
)

// tokenLogin signs in with a pasted token and returns the sign-in's answer.
func (b *browser) tokenLogin(token, ret string) page {
	b.t.Helper()
	form := b.get("/auth/login?" + url.Values{"return": {ret}}.Encode())
	if form.code() != http.StatusOK {
		b.t.Fatalf("token form: %d", form.code())
	}
	csrf := form.doc(b.t).Find("[data-testid=token-form] input[name=_csrf]").AttrOr("value", "")
	return b.post("/auth/token", url.Values{"_csrf": {csrf}, "token": {token}, "return": {ret}})
}

func TestTokenSignIn(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	form := b.get("/auth/login?return=/c/dev/")
	in := form.doc(t).Find("[data-testid=token-form] input[name=token]")
	if form.code() != http.StatusOK || in.AttrOr("type", "") != "password" || in.AttrOr("autocomplete", "") != "off" {
		t.Fatalf("token form %d, input %v", form.code(), in.Nodes)
	}
	if strings.Contains(form.body, "<script>") || strings.Contains(form.body, " onclick") {
		t.Error("the sign-in page has an inline script or handler")
	}
	p := b.tokenLogin("alice-token", "/c/dev/")
	if p.code() != http.StatusSeeOther || p.location() != "/c/dev/" {
		t.Fatalf("token sign-in: %d → %q\n%s", p.code(), p.location(), p.body)
	}
	c.fake.ResetRequests()
	home := b.get("/c/dev/")
	if home.code() != http.StatusOK || home.testid(t, "user-name") != "alice" {
		t.Fatalf("home after token sign-in: %d, user %q", home.code(), home.testid(t, "user-name"))
	}
	if bearers := c.bearers(); len(bearers) == 0 || slices.ContainsFunc(bearers, func(s string) bool { return s != "alice-token" }) {
		t.Errorf("upstream bearers %q, want the pasted token", bearers)
	}
	if p := b.get("/auth/session", "Sec-Fetch-Dest", "empty"); p.code() != http.StatusNoContent {
		t.Errorf("session probe while signed in: %d, want 204", p.code())
	}
}

func TestTokenSignInRefusesATokenTheServerRejects(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	p := b.tokenLogin("stolen-token", "/c/dev/")
	if p.code() != http.StatusUnauthorized || p.testid(t, "sign-in-error") != "The API server rejected this token." {
		t.Fatalf("rejected token: %d %q", p.code(), p.testid(t, "sign-in-error"))
	}
	if b.cookie("tabula_session") != "" {
		t.Error("a refused token got a session")
	}
	if v := p.doc(t).Find("input[name=token]").AttrOr("value", ""); v != "" {
		t.Error("the refused token was put back into the page")
	}
	if p := b.tokenLogin("", "/c/dev/"); p.code() != http.StatusBadRequest {
		t.Errorf("empty token: %d, want 400", p.code())
	}
}

// A server without SelfSubjectReview (404) accepts a token if an
// authenticated discovery request succeeds.
func TestTokenSignInWithoutSelfSubjectReview(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	c.fake.Override(apitest.SelfSubjectReviewPath, func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, apitest.NotFound("authentication.k8s.io", "selfsubjectreviews", ""))
	})
	discovery := c.fake.Config.Handler
	c.fake.Override("/api", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sa-token" {
			apitest.WriteStatus(w, apitest.Unauthorized())
			return
		}
		c.fake.Override("/api", nil)
		discovery.ServeHTTP(w, r)
	})
	b := c.browser()
	if p := b.tokenLogin("bad-token", "/c/dev/"); p.code() != http.StatusUnauthorized {
		t.Fatalf("bad token on an old server: %d, want 401", p.code())
	}
	if p := b.tokenLogin("sa-token", "/c/dev/"); p.code() != http.StatusSeeOther {
		t.Fatalf("good token on an old server: %d\n%s", p.code(), p.body)
	}
	if got := b.get("/c/dev/").testid(t, "user-name"); got != "token user" {
		t.Errorf("user-name %q, want token user", got)
	}
}

func TestTokenSignInNeedsTheCSRFToken(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	b.get("/auth/login")
	if p := b.post("/auth/token", url.Values{"token": {"alice-token"}}); p.code() != http.StatusForbidden {
		t.Errorf("token sign-in without CSRF token: %d, want 403", p.code())
	}
}

func TestATamperedSessionCookieIsNoSession(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	good := b.cookie("tabula_session")
	forged, err := auth.SealSessionCookie([][]byte{bytes.Repeat([]byte("x"), 32)}, b.session("tabula_session"))
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range map[string]string{
		"a byte changed": good[:len(good)/2] + flip(good[len(good)/2]) + good[len(good)/2+1:],
		"cut short":      good[:len(good)-10],
		"another key":    forged,
		"not base64":     "!!" + good,
	} {
		other := c.browser()
		u, _ := url.Parse(c.srv.URL)
		other.client.Jar.SetCookies(u, []*http.Cookie{{Name: "tabula_session", Value: value}})
		p := other.get("/c/dev/")
		if p.code() != http.StatusFound || !strings.HasPrefix(p.location(), "/auth/login") {
			t.Errorf("%s: %d → %q, want a redirect to sign in", name, p.code(), p.location())
		}
		if !slices.ContainsFunc(p.resp.Cookies(), func(ck *http.Cookie) bool { return ck.Name == "tabula_session" && ck.MaxAge < 0 }) {
			t.Errorf("%s: the bad cookie was not deleted", name)
		}
	}
	if p := b.get("/c/dev/"); p.code() != http.StatusOK {
		t.Errorf("the genuine cookie: %d", p.code())
	}
}

func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}

func TestIdleTimeout(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, idle: time.Hour, maxAge: 12 * time.Hour})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	for range 3 {
		c.clock.advance(59 * time.Minute)
		if p := b.get("/c/dev/"); p.code() != http.StatusOK {
			t.Fatalf("used every 59 min, the session ended: %d → %q", p.code(), p.location())
		}
	}
	c.clock.advance(61 * time.Minute)
	if p := b.get("/c/dev/"); p.code() != http.StatusFound || !strings.HasPrefix(p.location(), "/auth/login") {
		t.Fatalf("idle for 61 min: %d → %q, want a redirect to sign in", p.code(), p.location())
	}
	if b.cookie("tabula_session") != "" {
		t.Error("the idle session's cookie was kept")
	}
}

func TestAbsoluteTimeout(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, idle: time.Hour, maxAge: 2 * time.Hour})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	for range 2 {
		c.clock.advance(50 * time.Minute)
		if p := b.get("/c/dev/"); p.code() != http.StatusOK {
			t.Fatalf("within the maximum age: %d", p.code())
		}
	}
	c.clock.advance(21 * time.Minute)
	p := b.get("/c/dev/", "Sec-Fetch-Dest", "empty")
	if p.code() != http.StatusUnauthorized || !strings.Contains(p.testid(t, "error-message"), "maximum age") {
		t.Fatalf("past the maximum age: %d %q", p.code(), p.testid(t, "error-message"))
	}
}

func TestSessionIDRotatesAtEveryLogin(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	first := b.session("tabula_session")
	oldCSRF := signOutToken(t, b.get("/c/dev/"))
	b.tokenLogin("alice-token", "/")
	second := b.session("tabula_session")
	if first.ID == "" || first.ID == second.ID {
		t.Fatalf("session IDs %q then %q: not rotated", first.ID, second.ID)
	}
	// A form from the old session is refused: CSRF tokens are bound to the
	// session ID.
	if p := b.post("/auth/logout", url.Values{"_csrf": {oldCSRF}}); p.code() != http.StatusForbidden {
		t.Errorf("sign-out with the previous session's token: %d, want 403", p.code())
	}
	if p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, b.get("/c/dev/"))}}); p.code() != http.StatusSeeOther {
		t.Errorf("sign-out with the session's token: %d, want 303", p.code())
	}
}

// Signed in, the browser's double-submit cookie is no longer a CSRF token.
func TestCSRFTokenIsBoundToTheSession(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	b.get("/auth/login")
	cookieToken := b.cookie("tabula_csrf")
	b.tokenLogin("alice-token", "/")
	if cookieToken == "" {
		t.Fatal("no CSRF cookie before sign-in")
	}
	if p := b.post("/auth/logout", url.Values{"_csrf": {cookieToken}}); p.code() != http.StatusForbidden {
		t.Errorf("the cookie's token while signed in: %d, want 403", p.code())
	}
}

func TestWithoutASessionPagesRedirectAndTheRestIs401(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	if p := b.get("/c/dev/api/v1/namespaces/demo/pods"); p.code() != http.StatusFound || p.location() != "/auth/login?return=%2Fc%2Fdev%2Fapi%2Fv1%2Fnamespaces%2Fdemo%2Fpods" {
		t.Errorf("page GET: %d → %q", p.code(), p.location())
	}
	if p := b.get("/"); p.code() != http.StatusFound || p.location() != "/auth/login?return=%2F" {
		t.Errorf("/: %d → %q", p.code(), p.location())
	}
	fetch := b.get("/c/dev/api/v1/namespaces/demo/pods", "Sec-Fetch-Dest", "empty")
	if fetch.code() != http.StatusUnauthorized {
		t.Fatalf("fetch: %d, want 401", fetch.code())
	}
	links := fetch.doc(t).Find(".error-page .actions a")
	if links.Length() != 1 || links.Text() != "Sign in" || !strings.HasPrefix(links.AttrOr("href", ""), "/auth/login?return=") {
		t.Errorf("the 401 page's links: %d %q", links.Length(), links.Text())
	}
	if fetch.has(t, "context-switcher") || fetch.has(t, "identity-mode") || strings.Contains(fetch.body, "Context dev") {
		t.Error("the 401 page names the clusters to someone not signed in")
	}
	if p := b.post("/c/dev/api/v1/namespaces/demo/pods/web-1/delete", url.Values{}); p.code() != http.StatusUnauthorized {
		t.Errorf("POST: %d, want 401", p.code())
	}
	if p := b.get("/c/dev/api/v1/namespaces/demo/pods", "Connection", "Upgrade", "Upgrade", "websocket",
		"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Origin", c.srv.URL); p.code() != http.StatusUnauthorized {
		t.Errorf("WebSocket upgrade: %d, want 401", p.code())
	}
	css := c.web.AssetURL("app.css")
	for _, path := range []string{"/healthz", "/metrics", css, "/auth/signed-out", "/auth/login?return=/"} {
		if p := b.get(path); p.code() != http.StatusOK && p.code() != http.StatusFound {
			t.Errorf("%s needs no session, got %d", path, p.code())
		}
	}
	if p := b.get("/auth/session"); p.code() != http.StatusUnauthorized {
		t.Errorf("/auth/session without a session: %d, want 401 (never a redirect)", p.code())
	}
}

func TestKubeconfigModeSaysWhoseIdentityEveryoneShares(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeKubeconfig})
	b := c.browser()
	p := b.get("/c/dev/")
	if p.code() != http.StatusOK {
		t.Fatalf("home: %d", p.code())
	}
	if got := p.testid(t, "identity-mode"); !strings.Contains(got, "Local kubeconfig identity") || !strings.Contains(got, "dev") {
		t.Errorf("identity-mode banner %q", got)
	}
	if p.has(t, "user-name") || p.has(t, "sign-out") {
		t.Error("kubeconfig mode shows a signed-in user")
	}
	if p := b.get("/auth/session"); p.code() != http.StatusNoContent {
		t.Errorf("/auth/session: %d, want 204", p.code())
	}
	if p := b.post("/auth/logout", url.Values{"_csrf": {b.cookie("tabula_csrf")}}); p.code() != http.StatusNotFound {
		t.Errorf("/auth/logout: %d, want 404", p.code())
	}
}
