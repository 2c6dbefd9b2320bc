package auth_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/web"
)

// Sessions live in cookies sealed with the session key: any console given
// the same key (another replica behind a load balancer, or this one after
// a restart) reads them, with no sticky sessions and no shared store; a
// console with another key reads nothing and asks the user to sign in.
func TestReplicasWithTheSameKeyShareSessions(t *testing.T) {
	first := newConsole(t, options{mode: web.ModeToken})
	b := first.browser()
	if p := b.tokenLogin("alice-token", "/c/dev/"); p.code() != http.StatusSeeOther {
		t.Fatalf("sign-in at the first replica: %d", p.code())
	}
	carry := func(to *console) *browser {
		other := to.browser()
		u, _ := url.Parse(to.srv.URL)
		other.client.Jar.SetCookies(u, b.cookies())
		return other
	}

	second := newConsole(t, options{mode: web.ModeToken})
	if p := carry(second).get("/c/dev/"); p.code() != http.StatusOK || p.testid(t, "user-name") != "alice" {
		t.Errorf("the same cookies at a replica with the same key: %d", p.code())
	}
	if bearers := second.bearers(); len(bearers) == 0 || bearers[0] != "alice-token" {
		t.Errorf("the second replica sent %q upstream, want the session's token", bearers)
	}

	stranger := newConsole(t, options{mode: web.ModeToken, keys: [][]byte{bytes.Repeat([]byte("x"), 32)}})
	if p := carry(stranger).get("/c/dev/"); p.code() != http.StatusFound || !strings.HasPrefix(p.location(), "/auth/login") {
		t.Errorf("the cookies at a console with another key: %d → %q, want sign-in", p.code(), p.location())
	}
	if len(stranger.bearers()) != 0 {
		t.Errorf("a console that could not read the session sent %q upstream", stranger.bearers())
	}
}
