package auth_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/auth"
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

// replicaPair is two consoles with the same key and arguments, sharing
// their session state through the fake API server, signing in with a
// provider that rotates refresh tokens; alice is signed in at the first.
func replicaPair(t *testing.T, shared bool) (first, second *console, b *browser) {
	t.Helper()
	first = newConsole(t, options{shared: shared})
	first.idp.set(func(p *idp) { p.rotate = true })
	second = newConsole(t, options{peer: first, shared: shared})
	b = first.browser()
	b.login(alice, "/c/dev/")
	return first, second, b
}

// alternate sends n requests for path with the same cookies, alternately to
// each replica, in turn or all at once, and returns the statuses by replica
// and the tokens of the sessions the answers set.
func alternate(t *testing.T, replicas []*console, cookies *browser, path string, n int, together bool) (codes []map[int]int, tokens map[string]int) {
	t.Helper()
	codes = make([]map[int]int, len(replicas))
	for i := range codes {
		codes[i] = map[int]int{}
	}
	tokens = map[string]int{}
	var mu sync.Mutex
	send := func(i int) {
		r := replicas[i%len(replicas)]
		p := cookies.at(r).get(path, "Sec-Fetch-Dest", "empty")
		var token string
		for _, ck := range p.resp.Cookies() {
			if ck.Name == "tabula_session" && ck.MaxAge >= 0 {
				s, err := auth.OpenSessionCookie(testKeys, ck.Value)
				if err == nil {
					token = s.Token
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		codes[i%len(replicas)][p.code()]++
		if token != "" {
			tokens[token]++
		}
	}
	if !together {
		for i := range n {
			send(i)
		}
		return codes, tokens
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() { <-start; send(i) })
	}
	close(start)
	wg.Wait()
	return codes, tokens
}

// The review's case: two replicas, a provider that rotates refresh tokens,
// and requests that carry the cookie from before the refresh point reaching
// both. One replica refreshes; the other picks up its tokens (sealed, from
// the shared Secret) instead of spending the same refresh token again,
// which the provider would refuse and which would end the session.
func TestReplicasRefreshOnceWithARotatingProvider(t *testing.T) {
	for _, together := range []bool{false, true} {
		t.Run(map[bool]string{false: "in turn", true: "at once"}[together], func(t *testing.T) {
			first, second, b := replicaPair(t, true)
			old := b.session("tabula_session")
			first.toRefreshPoint()
			codes, tokens := alternate(t, []*console{first, second}, b, podsPage, 50, together)
			seen, granted := first.idp.refreshes()
			t.Logf("replica1 %v, replica2 %v; the provider saw %d refresh grants, granted %d; %d distinct new tokens", codes[0], codes[1], seen, granted, len(tokens))
			if codes[0][http.StatusOK] != 25 || codes[1][http.StatusOK] != 25 {
				t.Errorf("statuses replica1 %v, replica2 %v, want 25×200 each", codes[0], codes[1])
			}
			if seen != 1 || granted != 1 {
				t.Errorf("the provider saw %d refresh grants and granted %d, want one of each", seen, granted)
			}
			if len(tokens) != 1 {
				t.Errorf("the answers carry %d different new tokens, want the one refresh's", len(tokens))
			}
			if _, ok := tokens[old.Token]; ok {
				t.Error("an answer kept the old token")
			}
			// The refreshed tokens reached the Secret sealed, never in clear.
			for tok := range tokens {
				for _, r := range first.fake.Writes() {
					if strings.Contains(string(r.Body), tok) {
						t.Error("a refreshed token was written to the API server in clear")
					}
				}
			}
		})
	}
}

// A logout at one replica revokes the session at every replica sharing the
// state: a copy of the cookies taken before it opens nothing at the other,
// and the other ends the session's streams.
func TestLogoutAtOneReplicaEndsTheSessionAtAll(t *testing.T) {
	first, second, b := replicaPair(t, true)
	home := b.get("/c/dev/")
	thief := b.at(second)
	if p := thief.get("/c/dev/"); p.code() != http.StatusOK {
		t.Fatalf("the copied cookies at the second replica before logout: %d", p.code())
	}
	ws, _ := b.at(second).mustDial(liveList)
	if p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}}); p.code() != http.StatusSeeOther {
		t.Fatalf("logout at the first replica: %d", p.code())
	}
	if code := closedWith(t, ws, 5*time.Second); code != streaming.CloseSessionEnded {
		t.Errorf("the second replica's stream closed with %d, want %d", code, streaming.CloseSessionEnded)
	}
	if p := thief.get("/c/dev/"); p.code() != http.StatusFound || !strings.HasPrefix(p.location(), "/auth/login") {
		t.Errorf("the copied cookies at the second replica after logout: %d → %q, want a redirect to sign in", p.code(), p.location())
	}
	_ = first
}

// Without a shared Secret (kubeconfig mode, or no namespace), each replica
// keeps its own: the single-process behaviour, which docs/sign-in.md states.
func TestWithoutSharedStateALogoutStaysWithItsReplica(t *testing.T) {
	_, second, b := replicaPair(t, false)
	home := b.get("/c/dev/")
	thief := b.at(second)
	b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}})
	if p := thief.get("/c/dev/"); p.code() != http.StatusOK {
		t.Errorf("the copied cookies at the other replica: %d, want 200 (no shared state)", p.code())
	}
}

// A claim on a refresh that lapsed (its replica died mid-refresh) is taken
// over: the session refreshes rather than waiting on it for ever.
func TestALapsedRefreshClaimIsTakenOver(t *testing.T) {
	first, _, b := replicaPair(t, true)
	s := b.session("tabula_session")
	first.toRefreshPoint()
	lapsed := fmt.Sprintf(`{"refresh":{%q:{"from":%d,"until":%d,"owner":"a-replica-that-died"}}}`,
		auth.SessionKey(s.ID), s.IssuedAt, first.clock.now().Unix()-1)
	first.fake.Modify(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, stateNamespace, stateSecret, func(o *unstructured.Unstructured) {
		o.Object["data"] = map[string]any{"state": base64.StdEncoding.EncodeToString([]byte(lapsed))}
	})
	if p := b.get(podsPage); p.code() != http.StatusOK || b.session("tabula_session").Token == s.Token {
		t.Fatalf("a request at the refresh point past a lapsed claim: %d, refreshed %v", p.code(), b.session("tabula_session").Token != s.Token)
	}
	if seen, granted := first.idp.refreshes(); seen != 1 || granted != 1 {
		t.Errorf("the provider saw %d refresh grants, granted %d; want 1 and 1", seen, granted)
	}
}

// A shared Secret that cannot be read (missing, or not allowed) leaves each
// replica on its own, as without one: sign-in and refresh work, and the log
// says what is missing.
func TestAMissingSharedSecretLeavesEachReplicaOnItsOwn(t *testing.T) {
	c := newConsole(t, options{sharedMissing: true})
	waitFor(t, 5*time.Second, func() bool { return strings.Contains(c.logs.String(), "session-state.yaml") })
	b := c.browser()
	b.login(alice, "/c/dev/")
	c.toRefreshPoint()
	if p := b.get(podsPage); p.code() != http.StatusOK {
		t.Fatalf("a refresh without the shared Secret: %d", p.code())
	}
	home := b.get("/c/dev/")
	if p := b.post("/auth/logout", url.Values{"_csrf": {signOutToken(t, home)}}); p.code() != http.StatusSeeOther {
		t.Errorf("a logout without the shared Secret: %d", p.code())
	}
}

// waitFor waits, at most within, for cond to hold.
func waitFor(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not so within %s", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
