package auth_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tabula-console/tabula/web/auth"
)

// Every rejected callback answers its status, sets no session and ends
// the login (its cookie is deleted).
func assertRejected(t *testing.T, p page, want int) {
	t.Helper()
	if p.code() != want {
		t.Fatalf("callback: status %d, want %d; body:\n%s", p.code(), want, p.body)
	}
	for _, ck := range p.resp.Cookies() {
		if strings.HasPrefix(ck.Name, "tabula_session") && ck.MaxAge >= 0 {
			t.Errorf("a rejected callback set a session cookie %s", ck.Name)
		}
	}
	if !strings.Contains(strings.Join(p.resp.Header.Values("Set-Cookie"), "\n"), "tabula_login=;") {
		t.Errorf("the login cookie was not deleted: %q", p.resp.Header.Values("Set-Cookie"))
	}
	if got := p.testid(t, "error-code"); got != strconv.Itoa(want) {
		t.Errorf("error page code %q", got)
	}
}

// withQuery is u with one query parameter replaced.
func withQuery(u *url.URL, k, v string) string {
	q := u.Query()
	q.Set(k, v)
	c := *u
	c.RawQuery = q.Encode()
	return c.String()
}

func TestCallbackRejectsAMismatchedState(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	cb := b.startLogin(alice, "/c/dev/")
	assertRejected(t, b.get(withQuery(cb, "state", "forged-"+cb.Query().Get("state"))), http.StatusBadRequest)
}

func TestCallbackRejectsAMissingState(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	cb := b.startLogin(alice, "/c/dev/")
	q := cb.Query()
	q.Del("state")
	cb.RawQuery = q.Encode()
	assertRejected(t, b.get(cb.String()), http.StatusBadRequest)
}

// Without the login cookie there is no PKCE verifier (nor state or nonce):
// a code carried to another browser is worthless.
func TestCallbackRejectsALoginWithoutItsCookie(t *testing.T) {
	c := newConsole(t, options{})
	cb := c.browser().startLogin(alice, "/c/dev/")
	assertRejected(t, c.browser().get(cb.String()), http.StatusBadRequest)
	if n := c.idp.grantCount("authorization_code"); n != 0 {
		t.Errorf("the code was exchanged %d times without a verifier", n)
	}
}

func TestCallbackRejectsANonceMismatch(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	c.idp.m.QueueUser(alice)
	login := b.get("/auth/login?return=/c/dev/")
	authz, _ := url.Parse(login.location())
	// The provider is asked for another nonce than the browser's cookie holds.
	back := b.get(withQuery(authz, "nonce", "someone-elses-nonce-0123456789abcdef"))
	assertRejected(t, b.get(back.location()), http.StatusUnauthorized)
}

func TestCallbackRejectsAnExpiredIDToken(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	c.idp.m.FastForward(-30 * time.Minute) // issued 30 min ago, for 10
	assertRejected(t, b.get(b.startLogin(alice, "/c/dev/").String()), http.StatusUnauthorized)
}

func TestCallbackRejectsAWrongAudience(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) {
		p.rewrite = func(tok string) string {
			return resign(t, p, tok, func(cl jwt.MapClaims) { cl["aud"] = []string{"another-client"} })
		}
	})
	b := c.browser()
	assertRejected(t, b.get(b.startLogin(alice, "/c/dev/").String()), http.StatusUnauthorized)
}

func TestCallbackRejectsATamperedSignature(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) {
		p.rewrite = func(tok string) string {
			// Another user's claims under alice's signature.
			parts := strings.Split(tok, ".")
			claims := decodeClaims(t, parts[1])
			claims["email"] = "mallory@example.com"
			payload, _ := json.Marshal(claims)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
		}
	})
	b := c.browser()
	assertRejected(t, b.get(b.startLogin(alice, "/c/dev/").String()), http.StatusUnauthorized)
}

func TestCallbackRejectsAlgNone(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) {
		p.rewrite = func(tok string) string {
			header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
			return header + "." + strings.Split(tok, ".")[1] + "."
		}
	})
	b := c.browser()
	assertRejected(t, b.get(b.startLogin(alice, "/c/dev/").String()), http.StatusUnauthorized)
}

func TestCallbackRejectsARefusedCodeExchange(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	cb := b.startLogin(alice, "/c/dev/")
	c.idp.set(func(p *idp) { p.refuseStatus = http.StatusBadRequest })
	assertRejected(t, b.get(cb.String()), http.StatusUnauthorized)
}

func TestCallbackRejectsATokenResponseWithoutIDToken(t *testing.T) {
	c := newConsole(t, options{})
	c.idp.set(func(p *idp) { p.rewrite = func(string) string { return "" } })
	b := c.browser()
	assertRejected(t, b.get(b.startLogin(alice, "/c/dev/").String()), http.StatusBadGateway)
}

// The provider's error and error_description come from the URL, which
// anyone can craft: the page says the same fixed thing whatever they are,
// and the log keeps them, bounded and on one line.
func TestCallbackShowsAFixedMessageForTheProvidersRefusal(t *testing.T) {
	c := newConsole(t, options{})
	b := c.browser()
	cb := b.startLogin(alice, "/c/dev/")
	desc := "Your account is locked. Call +1 555 0100 to unlock it.\nlevel=ERROR msg=forged " + strings.Repeat("x", 5000)
	q := url.Values{"state": {cb.Query().Get("state")}, "error": {"access_denied"}, "error_description": {desc}}
	p := b.get("/auth/callback?" + q.Encode())
	assertRejected(t, p, http.StatusUnauthorized)
	msg := p.testid(t, "error-message")
	if strings.Contains(p.body, "555 0100") || strings.Contains(p.body, "access_denied") || !strings.Contains(msg, "The sign-in provider did not sign you in") {
		t.Errorf("the page repeats what the URL said, or not the fixed message: %q", msg)
	}
	logs := c.logs.String()
	var line string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "access_denied") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "Your account is locked") {
		t.Fatalf("the provider's refusal was not logged:\n%s", logs)
	}
	if strings.Contains(logs, "\nlevel=ERROR msg=forged") || len(line) > 1000 {
		t.Errorf("the logged refusal is not bounded to one short line (%d bytes): %q", len(line), clip(line))
	}
}

// Open redirects: whatever return a sign-in was started with, it ends on
// this console.
func TestSignInReturnsOnlyToThisConsole(t *testing.T) {
	c := newConsole(t, options{})
	for ret, want := range map[string]string{
		"//evil.com":                        "/",
		"https://evil.com":                  "/",
		"/\\evil.com":                       "/",
		"javascript:alert(document.domain)": "/",
		"/%2F%2Fevil.com":                   "/",
		"/%5Cevil.com":                      "/",
		"%2F%2Fevil.com":                    "/",
		"/\t/evil.com":                      "/",
		"/c/dev/api/v1/pods?watch=1#top":    "/c/dev/api/v1/pods?watch=1#top",
	} {
		b := c.browser()
		cb := b.startLogin(alice, ret)
		p := b.get(cb.String())
		if p.code() != http.StatusSeeOther || p.location() != want {
			t.Errorf("return %q: %d → %q, want 303 → %q", ret, p.code(), p.location(), want)
		}
	}
}

func TestSafeReturn(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "/",
		"/":                             "/",
		"/c/dev/":                       "/c/dev/",
		"/c/arn%3Aaws%3Aeks%2Fprod/":    "/c/arn%3Aaws%3Aeks%2Fprod/",
		"/c/dev/api/v1/pods?a=b&c=d":    "/c/dev/api/v1/pods?a=b&c=d",
		"//evil.com":                    "/",
		"///evil.com":                   "/",
		"/\\evil.com":                   "/",
		"\\\\evil.com":                  "/",
		"https://evil.com":              "/",
		"http:/evil.com":                "/",
		"javascript:alert(1)":           "/",
		"JaVaScRiPt:alert(1)":           "/",
		"data:text/html,<script>":       "/",
		"evil.com":                      "/",
		"/%2F%2Fevil.com":               "/",
		"/%2f/evil.com":                 "/",
		"/%5Cevil.com":                  "/",
		"%2F%2Fevil.com":                "/",
		"/\t/evil.com":                  "/",
		"/\n/evil.com":                  "/",
		"/%09/evil.com":                 "/",
		"/%0d%0aSet-Cookie:x=y":         "/",
		"/a\\b":                         "/",
		"/" + strings.Repeat("a", 3000): "/",
	} {
		if got := auth.SafeReturn(in); got != want {
			t.Errorf("SafeReturn(%q) = %q, want %q", in, got, want)
		}
	}
}

// resign re-signs an ID token with the provider's key after edit.
func resign(t *testing.T, p *idp, tok string, edit func(jwt.MapClaims)) string {
	t.Helper()
	claims := decodeClaims(t, strings.Split(tok, ".")[1])
	edit(claims)
	s, err := p.m.Keypair.SignJWT(claims)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeClaims(t *testing.T, payload string) jwt.MapClaims {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.MapClaims
	if err := json.Unmarshal(b, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}
