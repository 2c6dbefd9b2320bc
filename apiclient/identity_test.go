package apiclient

import (
	"testing"

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

func TestIdentityKeyDistinguishesIdentitiesWithoutHoldingTokens(t *testing.T) {
	a := Identity{BearerToken: "secret-a"}.Key()
	b := Identity{BearerToken: "secret-b"}.Key()
	imp := Identity{Impersonate: Impersonation{UserName: "alice", Groups: []string{"ops"}}}.Key()
	if a == b || a == imp || a != (Identity{BearerToken: "secret-a"}).Key() {
		t.Error("keys do not separate identities")
	}
	if len(a) != 64 || a == "secret-a" {
		t.Errorf("key %q looks like it holds the token", a)
	}
}
