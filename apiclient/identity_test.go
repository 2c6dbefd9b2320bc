package apiclient

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Per-user clients must not throttle themselves: client-go's default bucket
// (5 QPS, burst 10) would put 200 ms sleeps into pages that make many calls.
func TestClientsHaveNoClientSideRateLimiter(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	cs, err := FromKubeconfig(fake.Kubeconfig("dev"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", Identity{BearerToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if rl := c.rest.GetRateLimiter(); rl != nil {
		t.Errorf("client has a rate limiter (%T)", rl)
	}
}

func TestIdentityKeysAreKeyedHashesOfTheWholeIdentity(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	cs, err := FromKubeconfig(fake.Kubeconfig("dev"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := cs.IdentityKey(Identity{BearerToken: "secret-a"})
	b := cs.IdentityKey(Identity{BearerToken: "secret-b"})
	imp := cs.IdentityKey(Identity{Impersonate: Impersonation{UserName: "alice", Groups: []string{"ops"}}})
	impMore := cs.IdentityKey(Identity{Impersonate: Impersonation{UserName: "alice", Groups: []string{"ops", "dev"}}})
	impExtra := cs.IdentityKey(Identity{Impersonate: Impersonation{UserName: "alice", Groups: []string{"ops"}, Extra: map[string][]string{"scopes": {"x"}}}})
	own := cs.IdentityKey(Identity{})
	keys := map[string]bool{a: true, b: true, imp: true, impMore: true, impExtra: true, own: true}
	if len(keys) != 6 {
		t.Error("keys do not separate identities")
	}
	if a != cs.IdentityKey(Identity{BearerToken: "secret-a"}) {
		t.Error("one identity has two keys")
	}
	c, err := cs.Client("dev", Identity{BearerToken: "secret-a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.IdentityKey() != a {
		t.Error("the client's key is not its identity's")
	}
	// Not a plain hash anyone could recompute from a guessed token.
	for _, plain := range []string{"secret-a", `"secret-a"|""|""|[]|`} {
		sum := sha256.Sum256([]byte(plain))
		if a == hex.EncodeToString(sum[:]) || strings.Contains(a, plain) {
			t.Errorf("key %q is derivable from the token without the secret", a)
		}
	}
	// Another process (another Clusters) keys the same token differently.
	other, err := FromKubeconfig(fake.Kubeconfig("dev"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if other.IdentityKey(Identity{BearerToken: "secret-a"}) == a {
		t.Error("two Clusters share the HMAC secret")
	}
}

// A user's token goes only to the contexts it is meant for: a client for
// another is refused with a 403 Status that says why, never built with the
// token, nor without it (the context's own credentials).
func TestATokenGoesOnlyToItsContexts(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	cs, err := FromKubeconfig(fake.Kubeconfig("dev", "prod", "staging"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{BearerToken: "alice-token", Contexts: []string{"dev", "staging"}}
	for _, name := range []string{"dev", "staging"} {
		if _, err := cs.Client(name, id); err != nil {
			t.Errorf("context %s, one of the token's: %v", name, err)
		}
	}
	c, err := cs.Client("prod", id)
	var tnc *TokenNotForContextError
	if c != nil || !errors.As(err, &tnc) || !errors.Is(err, ErrTokenNotForContext) || tnc.Context != "prod" {
		t.Fatalf("context prod, not the token's: client %v, err %v", c, err)
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"prod"`) || !strings.Contains(err.Error(), "dev, staging") {
		t.Errorf("the refusal is not a 403 that names the contexts: %v", err)
	}
	// The console's own identity, and an impersonation with it, are the
	// context's own credentials: nothing to withhold.
	if _, err := cs.Client("prod", Identity{Impersonate: Impersonation{UserName: "alice"}, Contexts: []string{"dev"}}); err != nil {
		t.Errorf("impersonation: %v", err)
	}
}
