package auth_test

import (
	"net/http"
	"slices"
	"testing"
)

// A replica that never exchanged a code refreshes with the client
// authentication the provider advertises, once: a refused refresh is one
// request at the provider, not one per way of sending the secret (x/oauth2
// left to guess sends a failing grant twice, Basic then the form).
func TestARefusedRefreshIsOneRequestAtTheProvider(t *testing.T) {
	first := newConsole(t, options{})
	b := first.browser()
	b.login(alice, "/c/dev/")
	second := newConsole(t, options{peer: first})
	first.toRefreshPoint()
	first.idp.set(func(p *idp) { p.refuseStatus = http.StatusBadRequest })
	if p := b.at(second).get("/c/dev/"); p.code() != http.StatusFound {
		t.Fatalf("a refused refresh at the second replica: %d, want 302 to sign in", p.code())
	}
	if n := first.idp.grantCount("refresh_token"); n != 1 {
		t.Errorf("the provider saw %d refresh grants (auth styles %q), want 1", n, first.idp.authStyles())
	}
}

// The client authentication is the provider's: client_secret_basic when
// discovery lists it (or lists none: the OpenID default), the form body when
// it lists client_secret_post alone, and whichever worked once the provider
// refused the other as client authentication.
func TestTokenRequestsAuthenticateAsTheProviderAdvertises(t *testing.T) {
	for _, tc := range []struct {
		name    string
		methods []string
		noBasic bool
		want    []string // styles of the code exchange's requests, then the refresh's
	}{
		{"both listed", []string{"client_secret_basic", "client_secret_post"}, false, []string{"basic", "basic"}},
		{"none listed", []string{}, false, []string{"basic", "basic"}},
		{"post only", []string{"client_secret_post"}, false, []string{"post", "post"}},
		{"basic listed but refused", []string{"client_secret_basic", "client_secret_post"}, true, []string{"basic", "post", "post"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConsole(t, options{})
			c.idp.set(func(p *idp) { p.authMethods, p.noBasic = tc.methods, tc.noBasic })
			b := c.browser()
			b.login(alice, "/c/dev/")
			c.toRefreshPoint()
			if p := b.get("/c/dev/"); p.code() != http.StatusOK {
				t.Fatalf("page at the refresh point: %d", p.code())
			}
			if got := c.idp.authStyles(); !slices.Equal(got, tc.want) {
				t.Errorf("token requests authenticated %q, want %q", got, tc.want)
			}
		})
	}
}
