package auth_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const podsPage = "/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb"

func TestOIDCSignInActsAsTheUser(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()

	// Not signed in: the page sends the browser to sign in, keeping its URL.
	first := b.get(podsPage)
	if first.code() != http.StatusFound || first.location() != "/auth/login?return="+url.QueryEscape(podsPage) {
		t.Fatalf("unauthenticated page: %d → %q", first.code(), first.location())
	}
	// Sign-in goes to the provider with PKCE (S256), state and nonce.
	c.idp.m.QueueUser(alice)
	toIDP := b.get(first.location())
	if toIDP.code() != http.StatusFound {
		t.Fatalf("/auth/login: %d", toIDP.code())
	}
	authz, _ := url.Parse(toIDP.location())
	q := authz.Query()
	if !strings.HasPrefix(toIDP.location(), c.idp.m.AuthorizationEndpoint()) || q.Get("code_challenge_method") != "S256" ||
		len(q.Get("code_challenge")) < 43 || len(q.Get("state")) < 32 || len(q.Get("nonce")) < 32 ||
		q.Get("client_id") != c.idp.m.ClientID || q.Get("redirect_uri") != c.url("/auth/callback") ||
		!strings.HasPrefix(q.Get("scope"), "openid ") {
		t.Errorf("authorization request %s", toIDP.location())
	}
	hops := b.follow(toIDP.location())
	if cb := hops[1]; cb.code() != http.StatusSeeOther || cb.location() != podsPage {
		t.Fatalf("callback: %d → %q, want 303 to the page", cb.code(), cb.location())
	}
	p := hops[len(hops)-1]
	if p.code() != http.StatusOK {
		t.Fatalf("page after sign-in: %d\n%s", p.code(), p.body)
	}
	if got := p.testid(t, "user-name"); got != "alice@example.com" {
		t.Errorf("user-name = %q", got)
	}
	if !p.has(t, "sign-out") || p.has(t, "identity-mode") {
		t.Error("the header should offer to sign out and show no kubeconfig banner")
	}
	// Upstream, the user's ID token is the bearer token (passthrough).
	idToken := b.session("tabula_session").Token
	bearers := c.bearers()
	if len(bearers) == 0 || slices.ContainsFunc(bearers, func(s string) bool { return s != idToken }) {
		t.Errorf("upstream bearers %d, want all the ID token", len(bearers))
	}
	// The session cookie: HttpOnly, SameSite=Lax, a browser-session cookie,
	// not Secure and not __Host- over plain HTTP.
	var setCookie string
	for _, sc := range hops[1].resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(sc, "tabula_session=") {
			setCookie = sc
		}
	}
	if setCookie == "" || !strings.Contains(setCookie, "HttpOnly") || !strings.Contains(setCookie, "SameSite=Lax") ||
		strings.Contains(setCookie, "Secure") || strings.Contains(setCookie, "Max-Age") || !strings.Contains(setCookie, "Path=/") {
		t.Errorf("session Set-Cookie %q", setCookie)
	}
}

func TestSessionCookiesAreHostPrefixedAndSecureOverTLS(t *testing.T) {
	c := newConsole(t, options{tls: true})
	b := c.browser()
	c.idp.m.QueueUser(alice)
	login := b.get("/auth/login?return=/c/dev/")
	assertCookie(t, login.resp, "__Host-tabula_login", true)
	authz, _ := url.Parse(login.location())
	if got := authz.Query().Get("redirect_uri"); got != c.url("/auth/callback") || !strings.HasPrefix(got, "https://") {
		t.Errorf("redirect_uri %q", got)
	}
	hops := b.follow(login.location())
	assertCookie(t, hops[1].resp, "__Host-tabula_session", true)
	if last := hops[len(hops)-1]; last.code() != http.StatusOK || last.testid(t, "user-name") != "alice@example.com" {
		t.Fatalf("after sign-in over TLS: %d", last.code())
	}

	plain := newConsole(t, options{})
	pb := plain.browser()
	plain.idp.m.QueueUser(alice)
	login = pb.get("/auth/login?return=/c/dev/")
	assertCookie(t, login.resp, "tabula_login", false)
	hops = pb.follow(login.location())
	assertCookie(t, hops[1].resp, "tabula_session", false)
}

// assertCookie checks the named Set-Cookie: Secure (and Path=/, as
// __Host- requires) exactly when secure.
func assertCookie(t *testing.T, resp *http.Response, name string, secure bool) {
	t.Helper()
	for _, ck := range resp.Cookies() {
		if ck.Name != name {
			continue
		}
		if ck.Secure != secure || ck.Path != "/" || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Domain != "" {
			t.Errorf("cookie %s: Secure=%v Path=%q HttpOnly=%v SameSite=%v Domain=%q", name, ck.Secure, ck.Path, ck.HttpOnly, ck.SameSite, ck.Domain)
		}
		return
	}
	t.Errorf("no %s cookie set; Set-Cookie: %q", name, resp.Header.Values("Set-Cookie"))
}
