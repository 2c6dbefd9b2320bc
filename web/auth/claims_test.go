package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// email_verified counts as kube-apiserver counts it (its OIDC
// authenticator, with the username claim email): absent is fine, present
// must be JSON true; anything else, the string "true" included, refuses.
func TestOnlyJSONTrueCountsAsAVerifiedEmail(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verified any // nil: the claim is left out
		want     int
	}{
		{"absent", nil, http.StatusSeeOther},
		{"true", true, http.StatusSeeOther},
		{"false", false, http.StatusUnauthorized},
		{`"false"`, "false", http.StatusUnauthorized},
		{`"true"`, "true", http.StatusUnauthorized},
		{"0", 0, http.StatusUnauthorized},
		{"null", jsonNull{}, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConsole(t, options{})
			c.idp.set(func(p *idp) {
				p.rewrite = func(tok string) string {
					return resign(t, p, tok, func(cl jwt.MapClaims) {
						switch v := tc.verified.(type) {
						case nil:
							delete(cl, "email_verified")
						case jsonNull:
							cl["email_verified"] = nil
						default:
							cl["email_verified"] = v
						}
					})
				}
			})
			b := c.browser()
			p := b.get(b.startLogin(alice, "/c/dev/").String())
			if tc.want != http.StatusSeeOther {
				assertRejected(t, p, tc.want)
				return
			}
			if p.code() != tc.want || b.session("tabula_session").User != "alice@example.com" {
				t.Fatalf("callback: %d, want %d and a session; body:\n%s", p.code(), tc.want, p.body)
			}
		})
	}
}

// jsonNull marks a claim present with the value null.
type jsonNull struct{}

// withoutEmailInIDTokens makes the provider leave email out of the ID
// tokens it issues, as the spec allows when it also issues an access token
// (OpenID Connect Core 5.4): the claim is then for userinfo to give.
func withoutEmailInIDTokens(t *testing.T, c *console, userinfoSub string) {
	c.idp.set(func(p *idp) {
		p.userinfoSub = userinfoSub
		p.rewrite = func(tok string) string {
			return resign(t, p, tok, func(cl jwt.MapClaims) { delete(cl, "email"); delete(cl, "email_verified") })
		}
	})
}

// The username claim missing from the ID token is read from userinfo,
// asked with the access token, whose subject must be the ID token's; at
// each refresh too.
func TestTheUsernameComesFromUserinfoWhenTheIDTokenLacksIt(t *testing.T) {
	c := newConsole(t, options{})
	withoutEmailInIDTokens(t, c, "token")
	b := c.browser()
	p := b.login(alice, "/c/dev/")
	if got := p.testid(t, "user-name"); got != "alice@example.com" {
		t.Fatalf("user-name = %q, want the email from userinfo", got)
	}
	s := b.session("tabula_session")
	if s.Subject != "u-alice" || s.Groups == nil {
		t.Errorf("session subject %q, groups %q", s.Subject, s.Groups)
	}
	c.toRefreshPoint()
	if p := b.get("/c/dev/"); p.code() != http.StatusOK || b.session("tabula_session").Token == s.Token || b.session("tabula_session").User != "alice@example.com" {
		t.Errorf("refresh with the name from userinfo: %d, user %q", p.code(), b.session("tabula_session").User)
	}
	c.idp.set(func(p *idp) {
		if p.userinfoCalls != 2 {
			t.Errorf("userinfo asked %d times, want once at sign-in and once at the refresh", p.userinfoCalls)
		}
	})
}

// A userinfo answer that does not name the ID token's subject (or names
// none, as mockoidc's) is not the user's: the sign-in is refused.
func TestUserinfoOfAnotherSubjectIsRefused(t *testing.T) {
	for name, sub := range map[string]string{"no sub": "", "another sub": "u-mallory"} {
		t.Run(name, func(t *testing.T) {
			c := newConsole(t, options{})
			withoutEmailInIDTokens(t, c, sub)
			b := c.browser()
			p := b.get(b.startLogin(alice, "/c/dev/").String())
			assertRejected(t, p, http.StatusUnauthorized)
			if msg := p.testid(t, "error-message"); !strings.Contains(msg, "subject") {
				t.Errorf("the refusal does not say why: %q", msg)
			}
		})
	}
}

// An ID token that names the user is enough: userinfo is not asked.
func TestUserinfoIsNotAskedWhenTheIDTokenNamesTheUser(t *testing.T) {
	c := newConsole(t, options{})
	c.browser().login(alice, "/c/dev/")
	c.idp.set(func(p *idp) {
		if p.userinfoCalls != 0 {
			t.Errorf("userinfo asked %d times", p.userinfoCalls)
		}
	})
}
