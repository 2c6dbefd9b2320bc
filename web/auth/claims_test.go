package auth_test

import (
	"net/http"
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
