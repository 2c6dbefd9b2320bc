package auth_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/tabula-console/tabula/web"
)

func TestLogoutWithoutEndSessionEndpoint(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	if p.code() != http.StatusSeeOther || p.location() != "/auth/signed-out" {
		t.Fatalf("logout: %d → %q, want 303 to /auth/signed-out", p.code(), p.location())
	}
	if !slices.ContainsFunc(p.resp.Cookies(), func(ck *http.Cookie) bool { return ck.Name == "tabula_session" && ck.MaxAge < 0 }) || b.cookie("tabula_session") != "" {
		t.Error("the session cookie was not cleared")
	}
	out := b.get(p.location())
	if out.code() != http.StatusOK || !out.has(t, "signed-out") || out.has(t, "user-name") {
		t.Errorf("signed-out page: %d", out.code())
	}
	if link := out.doc(t).Find("[data-testid=sign-in-link]").AttrOr("href", ""); link != "/auth/login" {
		t.Errorf("sign-in link %q", link)
	}
	if p := b.get("/c/dev/"); p.code() != http.StatusFound {
		t.Errorf("a page after logout: %d, want a redirect to sign in", p.code())
	}
}

func TestLogoutAtTheProvidersEndSessionEndpoint(t *testing.T) {
	c := newConsole(t, options{})
	end := c.idp.m.Addr() + "/oidc/logout"
	c.idp.set(func(p *idp) { p.endSession = end })
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	idToken := b.session("tabula_session").Token
	p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	if p.code() != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.code())
	}
	to, _ := url.Parse(p.location())
	q := to.Query()
	if !strings.HasPrefix(p.location(), end+"?") || q.Get("client_id") != c.idp.m.ClientID || q.Get("post_logout_redirect_uri") != c.url("/auth/signed-out") {
		t.Errorf("RP-initiated logout to %q", p.location())
	}
	if q.Has("id_token_hint") || strings.Contains(p.location(), idToken) {
		t.Error("the ID token was put into the logout URL")
	}
	if b.cookie("tabula_session") != "" {
		t.Error("the session cookie was not cleared")
	}
}

// Browsers check a page's form-action on every redirect of a form's
// navigation: the pages must allow the issuer's origin, or the sign-out
// form's redirect to the provider is blocked and the browser stays put.
func TestPagesLetTheSignOutFormReachTheProvider(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	issuer, _ := url.Parse(c.idp.m.Issuer())
	csp := home.resp.Header.Get("Content-Security-Policy")
	if want := "form-action 'self' " + issuer.Scheme + "://" + issuer.Host + ";"; !strings.Contains(csp, want) {
		t.Errorf("CSP %q lacks %q", csp, want)
	}
}

// An end_session_endpoint on another origin than the issuer's is not
// followed (the pages' CSP would block it): the console signs out alone.
func TestLogoutSkipsAnEndSessionEndpointOnAnotherOrigin(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) { p.endSession = "https://elsewhere.example/logout" })
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	if p.code() != http.StatusSeeOther || p.location() != "/auth/signed-out" {
		t.Fatalf("logout: %d → %q, want 303 to /auth/signed-out", p.code(), p.location())
	}
	if b.cookie("tabula_session") != "" {
		t.Error("the session cookie was not cleared")
	}
}

func TestLogoutNeedsTheCSRFToken(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	if p := b.post("/auth/logout", url.Values{}); p.code() != http.StatusForbidden {
		t.Errorf("logout without a CSRF token: %d, want 403", p.code())
	}
	if p := b.get("/c/dev/"); p.code() != http.StatusOK {
		t.Errorf("still signed in after a refused logout? %d", p.code())
	}
}

// A session that idled out can still be signed out of from the page that
// shows it: the form's token is that session's.
func TestLogoutOfAnExpiredSession(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, idle: time.Hour})
	b := c.browser()
	b.tokenLogin("alice-token", "/")
	home := b.get("/c/dev/")
	c.clock.advance(2 * time.Hour)
	if p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}}); p.code() != http.StatusSeeOther {
		t.Errorf("logout of an idle session: %d, want 303", p.code())
	}
}

func TestSignInIsRateLimitedPerClient(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken})
	b := c.browser()
	for i := range 20 {
		if p := b.get("/auth/login"); p.code() != http.StatusOK {
			t.Fatalf("attempt %d: %d", i+1, p.code())
		}
	}
	p := b.get("/auth/login")
	if p.code() != http.StatusTooManyRequests || p.resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("attempt 21: %d, Retry-After %q; want 429 and 3", p.code(), p.resp.Header.Get("Retry-After"))
	}
	// The token endpoint shares the budget; other pages do not count.
	if p := b.post("/auth/token", url.Values{"token": {"x"}, "_csrf": {b.cookie("tabula_csrf")}}); p.code() != http.StatusTooManyRequests {
		t.Errorf("POST /auth/token past the limit: %d, want 429", p.code())
	}
	if p := b.get("/auth/signed-out"); p.code() != http.StatusOK {
		t.Errorf("signed-out page: %d", p.code())
	}
	c.clock.advance(3 * time.Second)
	if p := b.get("/auth/login"); p.code() != http.StatusOK {
		t.Errorf("after waiting: %d", p.code())
	}
}

func TestCallbackIsRateLimited(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	for range 20 {
		b.get("/auth/callback?state=x&code=y")
	}
	if p := b.get("/auth/callback?state=x&code=y"); p.code() != http.StatusTooManyRequests || p.resp.Header.Get("Retry-After") == "" {
		t.Errorf("callback past the limit: %d", p.code())
	}
}

// Impersonated names carry the prefix "oidc:" unless configured otherwise,
// as the API server's own OIDC names usually do: a provider's user or group
// never lands on a name the cluster already uses.
func TestImpersonationActsWithTheConsolesOwnCredentials(t *testing.T) {
	c := newConsole(t, options{identity: web.OIDCImpersonate, consoleToken: "console-sa-token"})
	b := c.browser()
	b.login(bob, "/c/dev/")
	c.fake.ResetRequests()
	if p := b.get(podsPage); p.code() != http.StatusOK {
		t.Fatalf("page: %d", p.code())
	}
	reqs := c.fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("no upstream requests")
	}
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer console-sa-token" || r.Header.Get("Impersonate-User") != "oidc:bob@example.com" ||
			!slices.Equal(r.Header.Values("Impersonate-Group"), []string{"oidc:tabula:editors"}) {
			t.Errorf("%s: Authorization %q, Impersonate-User %q, Impersonate-Group %q", r.URL.Path,
				r.Header.Get("Authorization")[:min(20, len(r.Header.Get("Authorization")))], r.Header.Get("Impersonate-User"), r.Header.Values("Impersonate-Group"))
		}
	}
}

// Tokens live only in the encrypted session cookie: no page, header, URL
// or log line carries one, whatever happens to the session.
func TestTokensNeverReachTheBrowserOrTheLog(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	b.get(podsPage)
	b.get(podsPage, "Sec-Fetch-Dest", "empty")
	c.toRefreshPoint()
	b.get("/c/dev/")
	b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	b.get("/c/dev/")
	// A failed refresh, too.
	b.login(alice, "/c/dev/")
	c.clock.advance(11 * time.Minute)
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusBadRequest })
	b.get("/c/dev/")

	tokens := c.idp.tokens()
	if len(tokens) < 6 {
		t.Fatalf("the provider issued %d tokens; the test expects two logins and a refresh", len(tokens))
	}
	assertNoTokens(t, b, c, tokens)

	tc := newConsole(t, options{mode: web.ModeToken})
	tb := tc.browser()
	tb.tokenLogin("alice-token", "/c/dev/")
	tb.get("/c/dev/")
	tb.tokenLogin("stolen-token", "/c/dev/")
	assertNoTokens(t, tb, tc, []string{"alice-token", "stolen-token"})
}

func assertNoTokens(t *testing.T, b *browser, c *console, tokens []string) {
	t.Helper()
	b.mu.Lock()
	seen := slices.Clone(b.seen)
	b.mu.Unlock()
	logs := c.logs.String()
	for _, tok := range tokens {
		for _, s := range seen {
			if strings.Contains(s, tok) {
				t.Errorf("a response carries a token:\n%s", clip(s))
			}
		}
		if strings.Contains(logs, tok) {
			t.Errorf("the log carries a token:\n%s", logs)
		}
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// A session with many groups is split over several cookies; one too large
// for any browser is a clear error, not a broken sign-in.
func TestLargeSessionsAreSplitIntoCookies(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	many := &mockoidc.MockUser{Subject: "u-many", Email: "many@example.com", EmailVerified: true, Groups: randomGroups(250)}
	p := b.login(many, "/c/dev/")
	if p.testid(t, "user-name") != "many@example.com" {
		t.Fatal("not signed in")
	}
	if b.cookie("tabula_session.1") == "" {
		t.Fatalf("a session with 250 groups fits one cookie? cookies: %v", b.cookies())
	}
	for _, ck := range b.cookies() {
		if len(ck.Value) > 3800 {
			t.Errorf("cookie %s has %d bytes", ck.Name, len(ck.Value))
		}
	}
	if got := b.session("tabula_session").Groups; len(got) != 250 {
		t.Errorf("%d groups back from the cookies", len(got))
	}

	huge := &mockoidc.MockUser{Subject: "u-huge", Email: "huge@example.com", EmailVerified: true, Groups: randomGroups(1500)}
	b2 := c.browser()
	cb := b2.startLogin(huge, "/c/dev/")
	p = b2.get(cb.String())
	if p.code() != http.StatusInternalServerError || !strings.Contains(p.testid(t, "error-message"), "groups") || b2.cookie("tabula_session") != "" {
		t.Errorf("a session too large: %d %q", p.code(), p.testid(t, "error-message"))
	}
}

// randomGroups are group names that do not compress away.
func randomGroups(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("team-%x", uint64(i)*0x9e3779b97f4a7c15)
	}
	return out
}

// A copy of the session cookies taken before logout (a stolen cookie, a
// second browser profile) opens nothing on the replica that signed out.
func TestCookiesCopiedBeforeLogoutOpenNothingAfterIt(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	home := b.login(alice, "/c/dev/")
	thief := c.browser()
	u, _ := url.Parse(c.srv.URL)
	thief.client.Jar.SetCookies(u, b.cookies())
	if p := thief.get("/c/dev/"); p.code() != http.StatusOK || p.testid(t, "user-name") != "alice@example.com" {
		t.Fatalf("the copied cookies before logout: %d", p.code())
	}
	if p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}}); p.code() != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.code())
	}
	if p := thief.get("/c/dev/"); p.code() != http.StatusFound || !strings.HasPrefix(p.location(), "/auth/login") {
		t.Errorf("the copied cookies after logout: %d → %q, want a redirect to sign in", p.code(), p.location())
	}
}
