package auth_test

import (
	"net/http"
	"testing"

	"github.com/tabula-console/tabula/web"
)

// exhaust spends a client's whole burst of sign-in attempts.
func exhaust(t *testing.T, b *browser, hdr ...string) {
	t.Helper()
	for i := range 20 {
		if p := b.get("/auth/login", hdr...); p.code() != http.StatusOK {
			t.Fatalf("attempt %d: %d", i+1, p.code())
		}
	}
	if p := b.get("/auth/login", hdr...); p.code() != http.StatusTooManyRequests {
		t.Fatalf("attempt 21: %d, want 429", p.code())
	}
}

// Behind a proxy every client arrives from the proxy's address: the limit
// is per client only if it is keyed by the address the proxy forwards. A
// trusted proxy's X-Forwarded-For is read from the right, skipping trusted
// proxies; what the client wrote to its left is not believed.
func TestSignInLimitIsPerClientBehindATrustedProxy(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, trustedProxies: []string{"127.0.0.0/8", "10.0.0.0/8"}})
	b := c.browser()
	exhaust(t, b, "X-Forwarded-For", "203.0.113.7, 10.1.2.3")
	if p := b.get("/auth/login", "X-Forwarded-For", "203.0.113.8, 10.1.2.3"); p.code() != http.StatusOK {
		t.Errorf("another client behind the same proxy: %d, want 200", p.code())
	}
	if p := b.get("/auth/login", "X-Forwarded-For", "198.51.100.1, 203.0.113.7"); p.code() != http.StatusTooManyRequests {
		t.Errorf("the limited client prepending an address of its choice: %d, want 429", p.code())
	}
	if p := b.get("/auth/login", "X-Forwarded-For", "2001:db8:1:2::1"); p.code() != http.StatusOK {
		t.Errorf("an IPv6 client: %d, want 200", p.code())
	}
}

// With Forwarded (RFC 7239) named, its for= parameters are read the same
// way, and X-Forwarded-For, which that proxy passes on untouched, is not.
func TestSignInLimitReadsForwardedWhenTold(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, trustedProxies: []string{"127.0.0.1/32"}, proxyHeader: "Forwarded"})
	b := c.browser()
	exhaust(t, b, "Forwarded", `for=198.51.100.1, for="[2001:db8:7::7]:4711";proto=https`)
	if p := b.get("/auth/login", "Forwarded", `for="[2001:db8:8::8]"`); p.code() != http.StatusOK {
		t.Errorf("another client: %d, want 200", p.code())
	}
	if p := b.get("/auth/login", "Forwarded", `for="[2001:db8:7::1]"`, "X-Forwarded-For", "203.0.113.99"); p.code() != http.StatusTooManyRequests {
		t.Errorf("the limited client (its /64) adding an X-Forwarded-For: %d, want 429", p.code())
	}
}

// A peer that is not a trusted proxy is the client, whatever it writes in
// forwarding headers: no header buys a fresh budget.
func TestForwardingHeadersOfUntrustedPeersAreIgnored(t *testing.T) {
	c := newConsole(t, options{mode: web.ModeToken, trustedProxies: []string{"10.0.0.0/8"}})
	b := c.browser()
	for i := range 20 {
		if p := b.get("/auth/login", "X-Forwarded-For", "203.0.113."+string(rune('1'+i%9))); p.code() != http.StatusOK {
			t.Fatalf("attempt %d: %d", i+1, p.code())
		}
	}
	if p := b.get("/auth/login", "X-Forwarded-For", "198.51.100.200", "Forwarded", "for=198.51.100.201"); p.code() != http.StatusTooManyRequests {
		t.Errorf("attempt 21 with yet another forwarded address: %d, want 429", p.code())
	}
}
