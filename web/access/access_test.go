package access_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/access"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func fakeWithUsers(t *testing.T) *apitest.Server {
	t.Helper()
	rules := append(apitest.Viewer("viewers", "demo"), apitest.Editor("editors", "demo")...)
	return apitest.NewServerWith(t, apitest.Options{Access: &apitest.Access{
		Users: map[string]apitest.User{
			"viewer": {Name: "alice", Groups: []string{"viewers"}},
			"editor": {Name: "bob", Groups: []string{"editors"}},
		},
		Rules: rules,
	}}, apitest.CoreV1(), apitest.AppsV1())
}

func client(t *testing.T, fake *apitest.Server, token string) *apiclient.Client {
	t.Helper()
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev", "prod"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{BearerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func reviews(fake *apitest.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.URL.Path == apitest.SelfSubjectAccessReviewPath || r.URL.Path == apitest.SelfSubjectRulesReviewPath {
			n++
		}
	}
	return n
}

var deleteWeb = []apiclient.AccessCheck{{Verb: "delete", Group: "apps", Resource: "deployments", Namespace: "demo", Name: "web"}}

func TestAnswersAreKeptPerIdentityForTheirLifetime(t *testing.T) {
	fake := fakeWithUsers(t)
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	a := access.New(access.Options{TTL: 30 * time.Second, Now: clk.Now})
	ctx := context.Background()
	viewer, editor := client(t, fake, "viewer"), client(t, fake, "editor")

	if d := a.Can(ctx, "key-viewer", viewer, deleteWeb)[0]; !d.Known || d.Allowed {
		t.Fatalf("viewer: %+v", d)
	}
	if d := a.Can(ctx, "key-editor", editor, deleteWeb)[0]; !d.Known || !d.Allowed {
		t.Fatalf("editor: %+v", d)
	}
	fake.ResetRequests()
	// Cached, each identity its own.
	if d := a.Can(ctx, "key-viewer", viewer, deleteWeb)[0]; d.Allowed {
		t.Errorf("viewer got %+v", d)
	}
	if d := a.Can(ctx, "key-editor", editor, deleteWeb)[0]; !d.Allowed {
		t.Errorf("editor got %+v", d)
	}
	if n := reviews(fake); n != 0 {
		t.Errorf("%d reviews within the lifetime", n)
	}
	// Expired, asked again.
	clk.advance(30 * time.Second)
	a.Can(ctx, "key-viewer", viewer, deleteWeb)
	if n := reviews(fake); n != 1 {
		t.Errorf("%d reviews after the lifetime, want 1", n)
	}
	// No key: never kept, never served from the cache.
	fake.ResetRequests()
	a.Can(ctx, "", editor, deleteWeb)
	a.Can(ctx, "", editor, deleteWeb)
	if n := reviews(fake); n != 2 {
		t.Errorf("%d reviews for a request without an identity key, want 2", n)
	}
}

func TestAnswersAreKeptPerContext(t *testing.T) {
	fake := fakeWithUsers(t)
	a := access.New(access.Options{})
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev", "prod"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"dev", "prod"} {
		c, err := cs.Client(name, apiclient.Identity{BearerToken: "viewer"})
		if err != nil {
			t.Fatal(err)
		}
		fake.ResetRequests()
		a.Can(ctx, "same-key", c, deleteWeb)
		if n := reviews(fake); n != 1 {
			t.Errorf("context %s: %d reviews, want its own", name, n)
		}
	}
}

func TestRulesAreKeptAndUnknownsAreNot(t *testing.T) {
	fake := fakeWithUsers(t)
	a := access.New(access.Options{})
	ctx := context.Background()
	viewer := client(t, fake, "viewer")
	rules := a.Rules(ctx, "k", viewer, "demo")
	if rules == nil || !rules.Allows("list", "", "pods", "", "") || rules.Allows("list", "", "secrets", "", "") {
		t.Fatalf("viewer's rules in demo: %+v", rules)
	}
	fake.ResetRequests()
	if again := a.Rules(ctx, "k", viewer, "demo"); again != rules || reviews(fake) != 0 {
		t.Errorf("the rules were asked again (%d reviews)", reviews(fake))
	}
	// A failed review is not kept: the next page asks again.
	fake.FailPath(apitest.SelfSubjectRulesReviewPath, apitest.TooManyRequests(0))
	fake.FailPath(apitest.SelfSubjectAccessReviewPath, apitest.TooManyRequests(0))
	for range 2 {
		if r := a.Rules(ctx, "k", viewer, "other"); r != nil {
			t.Errorf("rules from a failed review: %+v", r)
		}
		if d := a.Can(ctx, "k", viewer, []apiclient.AccessCheck{{Verb: "get", Resource: "pods", Namespace: "other"}})[0]; d.Known {
			t.Errorf("a failed review answered %+v", d)
		}
	}
	if n := reviews(fake); n != 4 {
		t.Errorf("%d reviews, want 4: failures are not kept", n)
	}
}

func TestTheCacheIsBounded(t *testing.T) {
	fake := fakeWithUsers(t)
	a := access.New(access.Options{MaxEntries: 16})
	viewer := client(t, fake, "viewer")
	var checks []apiclient.AccessCheck
	for i := range 40 {
		checks = append(checks, apiclient.AccessCheck{Verb: "get", Resource: "pods", Namespace: "demo", Name: string(rune('a'+i%26)) + string(rune('a'+i/26))})
	}
	for i := range checks {
		a.Can(context.Background(), "k", viewer, checks[i:i+1])
		if n := a.Len(); n > 16 {
			t.Fatalf("%d entries kept, more than 16", n)
		}
	}
}
