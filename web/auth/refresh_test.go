package auth_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// toRefreshPoint moves the console's and the provider's clocks past the
// ID token's refresh point (80% of its 10 minutes) but short of its expiry.
func (c *console) toRefreshPoint() {
	c.clock.advance(9 * time.Minute)
	c.idp.m.FastForward(9 * time.Minute)
}

func TestTheTokenIsRefreshedOnTheServer(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	before := b.session("tabula_session")
	c.toRefreshPoint()
	c.fake.ResetRequests()
	if p := b.get("/c/dev/"); p.code() != http.StatusOK {
		t.Fatalf("page at the refresh point: %d", p.code())
	}
	after := b.session("tabula_session")
	if after.ID != before.ID || after.Token == before.Token || after.Expiry <= before.Expiry || after.User != "alice@example.com" {
		t.Errorf("refreshed session: same ID %v, new token %v, later expiry %v", after.ID == before.ID, after.Token != before.Token, after.Expiry > before.Expiry)
	}
	if n := c.idp.grantCount("refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if slices.Contains(c.bearers(), before.Token) {
		t.Error("the old token was sent upstream after the refresh point")
	}
}

func TestConcurrentRequestsOnAnExpiringSessionRefreshOnce(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	old := b.session("tabula_session")
	cookies := b.cookies()
	c.toRefreshPoint()
	c.fake.ResetRequests()

	const n = 50
	client := &http.Client{Transport: b.client.Transport}
	var wg sync.WaitGroup
	codes := make([]int, n)
	refreshed := make([]bool, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, c.url("/c/dev/api/v1/namespaces/demo/pods"), nil)
			for _, ck := range cookies {
				req.AddCookie(ck)
			}
			<-start
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
			refreshed[i] = slices.ContainsFunc(resp.Cookies(), func(ck *http.Cookie) bool { return ck.Name == "tabula_session" && ck.MaxAge >= 0 })
		})
	}
	close(start)
	wg.Wait()
	if got := c.idp.grantCount("refresh_token"); got != 1 {
		t.Errorf("%d concurrent requests refreshed %d times at the provider, want exactly 1", n, got)
	}
	for i := range n {
		if codes[i] != http.StatusOK || !refreshed[i] {
			t.Errorf("request %d: status %d, new session cookie %v", i, codes[i], refreshed[i])
		}
	}
	if slices.Contains(c.bearers(), old.Token) {
		t.Error("a request sent the token being replaced upstream")
	}
}

func TestAFailedRefreshSignsOutAndKeepsTheURL(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, podsPage)
	old := b.session("tabula_session")
	c.clock.advance(11 * time.Minute) // past the token's expiry
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusBadRequest })
	c.fake.ResetRequests()

	p := b.get(podsPage)
	if p.code() != http.StatusFound || p.location() != "/auth/login?return="+url.QueryEscape(podsPage) {
		t.Fatalf("page after a failed refresh: %d → %q, want 302 to sign in and back", p.code(), p.location())
	}
	if !slices.ContainsFunc(p.resp.Cookies(), func(ck *http.Cookie) bool { return ck.Name == "tabula_session" && ck.MaxAge < 0 }) {
		t.Error("the session cookie was not cleared")
	}
	if len(c.fake.Requests()) != 0 || slices.Contains(c.bearers(), old.Token) {
		t.Errorf("upstream requests after the failed refresh, want none: %q", c.requestPaths())
	}
	// Signing in again lands on the same page.
	c.idp.set(func(p *idp) { p.refuseStatus = 0 })
	c.idp.m.FastForward(11 * time.Minute)
	b.login(alice, podsPage)
	if b.session("tabula_session").User != "alice@example.com" {
		t.Error("no session after signing in again")
	}
}

func TestAFailedRefreshAnswersOtherRequests401(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	c.toRefreshPoint()
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusUnauthorized })
	c.fake.ResetRequests()
	if p := b.get(podsPage, "Sec-Fetch-Dest", "empty"); p.code() != http.StatusUnauthorized {
		t.Fatalf("fetch after a refused refresh: %d, want 401", p.code())
	}
	if n := len(c.fake.Requests()); n != 0 {
		t.Errorf("%d upstream requests, want none", n)
	}
}

// A provider that cannot be reached does not end a session whose token
// still holds; once the token is about to expire, it does.
func TestAnUnreachableProviderKeepsAValidTokenInUse(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	old := b.session("tabula_session")
	c.toRefreshPoint()
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusServiceUnavailable })
	c.fake.ResetRequests()
	if p := b.get("/c/dev/"); p.code() != http.StatusOK {
		t.Fatalf("page while the provider is down: %d", p.code())
	}
	if bearers := c.bearers(); len(bearers) == 0 || bearers[0] != old.Token {
		t.Error("the still valid token was not used")
	}
	if !strings.Contains(c.logs.String(), "token refresh failed; the current token is used until it expires") {
		t.Error("the failed refresh was not logged")
	}
	c.clock.advance(45 * time.Second) // within 30 s of expiry
	c.fake.ResetRequests()
	if p := b.get("/c/dev/"); p.code() != http.StatusFound {
		t.Fatalf("page with the token about to expire and no refresh: %d, want 302", p.code())
	}
	if len(c.fake.Requests()) != 0 {
		t.Error("a token about to expire was sent upstream")
	}
}

func (c *console) requestPaths() []string {
	var out []string
	for _, r := range c.fake.Requests() {
		out = append(out, r.Method+" "+r.URL.String()+" auth="+r.Header.Get("Authorization")[:min(20, len(r.Header.Get("Authorization")))])
	}
	return out
}

// A refresh the provider refused ends the session, and is not asked again
// by the requests that still carry the old cookie (other tabs, streams
// reconnecting, a copy): they end too, without a grant each.
func TestARefusedRefreshIsNotAskedAgainByTheOldCookie(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	b.login(alice, "/c/dev/")
	old := b.at(c) // the cookies as they are now, which other tabs still send
	c.toRefreshPoint()
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusBadRequest })
	if p := b.get("/c/dev/"); p.code() != http.StatusFound {
		t.Fatalf("a refused refresh: %d, want 302 to sign in", p.code())
	}
	for i := range 5 {
		c.clock.advance(11 * time.Second) // past the retry delay of a provider that was down
		if p := old.at(c).get("/c/dev/"); p.code() != http.StatusFound {
			t.Fatalf("request %d with the old cookie: %d, want 302", i, p.code())
		}
	}
	if n := c.idp.grantCount("refresh_token"); n != 1 {
		t.Errorf("the provider saw %d refresh grants, want 1", n)
	}
}

// A provider that issues refresh tokens only to logins that ask for
// offline_access (Dex, zitadel) lists it in discovery: the console asks for
// it, and the session is renewed like any other.
func TestOfflineAccessIsAskedForWhenTheProviderListsIt(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) { p.offlineAccess = true })
	b := c.browser()
	b.login(alice, "/c/dev/")
	if asked := c.idp.askedScopes(); len(asked) != 1 || !slices.Contains(asked[0], "offline_access") || asked[0][0] != "openid" {
		t.Fatalf("scopes asked %q, want openid first and offline_access", asked)
	}
	before := b.session("tabula_session")
	if before.RefreshToken == "" {
		t.Fatal("no refresh token after asking for offline_access")
	}
	c.toRefreshPoint()
	if p := b.get("/c/dev/"); p.code() != http.StatusOK || b.session("tabula_session").Token == before.Token {
		t.Errorf("at the refresh point: %d, token renewed %v", p.code(), b.session("tabula_session").Token != before.Token)
	}

	// A provider that does not list it is not asked for it (mockoidc
	// would refuse the login).
	plain := newConsole(t, options{})
	plain.browser().login(alice, "/c/dev/")
	if asked := plain.idp.askedScopes(); slices.Contains(asked[0], "offline_access") {
		t.Errorf("scopes asked %q of a provider that does not list offline_access", asked[0])
	}
}

// Without a refresh token the ID token serves until 30 s before it
// expires (the API server allows no skew on exp), then the user signs in
// again. That is said once, at sign-in, not by every request after the
// refresh point.
func TestASessionWithoutRefreshTokenEndsBeforeItsTokenAndSaysSoOnce(t *testing.T) {
	c := newConsole(t, options{noOfflineAccess: true})
	c.idp.set(func(p *idp) { p.offlineAccess = true })
	b := c.browser()
	b.login(alice, podsPage)
	s := b.session("tabula_session")
	if s.RefreshToken != "" {
		t.Fatal("the provider gave a refresh token; the test wants none")
	}
	if n := strings.Count(c.logs.String(), "no refresh token"); n != 1 {
		t.Errorf("the sign-in logged %d lines about the missing refresh token, want 1:\n%s", n, c.logs.String())
	}
	c.toRefreshPoint()
	for range 10 {
		if p := b.get(podsPage, "Sec-Fetch-Dest", "empty"); p.code() != http.StatusOK {
			t.Fatalf("a request after the refresh point, before expiry: %d", p.code())
		}
	}
	logs := c.logs.String()
	if n := strings.Count(logs, "level=WARN"); n > 1 || strings.Contains(logs, "token refresh failed") {
		t.Errorf("requests after the refresh point logged warnings:\n%s", logs)
	}
	if n := c.idp.grantCount("refresh_token"); n != 0 {
		t.Errorf("%d refresh grants without a refresh token", n)
	}
	c.fake.ResetRequests()
	c.clock.advance(time.Unix(s.Expiry, 0).Add(-29 * time.Second).Sub(c.clock.now()))
	p := b.get(podsPage)
	if p.code() != http.StatusFound || p.location() != "/auth/login?return="+url.QueryEscape(podsPage) {
		t.Errorf("30 s before the token expires: %d → %q, want 302 to sign in and back", p.code(), p.location())
	}
	if len(c.fake.Requests()) != 0 {
		t.Error("a token about to expire was sent upstream")
	}
}
