package apiclient_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// accessFake serves core and apps with an admin (the kubeconfig's user, no
// token), a viewer and an editor of namespace demo.
func accessFake(t *testing.T, mutate func(*apitest.Access)) *apitest.Server {
	t.Helper()
	ac := &apitest.Access{
		Users: map[string]apitest.User{
			"":             {Name: "admin", Groups: []string{"system:masters"}},
			"viewer-token": {Name: "alice@example.com", Groups: []string{"viewers"}},
			"editor-token": {Name: "bob@example.com", Groups: []string{"editors"}},
		},
		Rules: append(append([]apitest.Rule{{Groups: []string{"system:masters"}, Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
			apitest.Viewer("viewers", "demo")...), apitest.Editor("editors", "demo")...),
	}
	if mutate != nil {
		mutate(ac)
	}
	return apitest.NewServerWith(t, apitest.Options{Access: ac}, apitest.CoreV1(), apitest.AppsV1())
}

func clientAs(t *testing.T, fake *apitest.Server, token string) *apiclient.Client {
	t.Helper()
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{BearerToken: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func reviews(fake *apitest.Server, path string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.URL.Path == path {
			n++
		}
	}
	return n
}

var objectChecks = []apiclient.AccessCheck{
	{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "demo", Name: "web"},
	{Verb: "delete", Group: "apps", Resource: "deployments", Namespace: "demo", Name: "web"},
	{Verb: "patch", Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: "demo", Name: "web"},
	{Verb: "get", Resource: "pods", Subresource: "log", Namespace: "demo"},
	{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "demo", Name: "web"}, // restart: the same as edit
	{Verb: "delete", Group: "apps", Resource: "deployments", Namespace: "other", Name: "web"},
}

func TestAccessReviewAnswersEachCheckInOrder(t *testing.T) {
	fake := accessFake(t, nil)
	for _, tc := range []struct {
		token string
		want  []bool
	}{
		{"viewer-token", []bool{false, false, false, true, false, false}},
		{"editor-token", []bool{true, true, true, true, true, false}},
		{"", []bool{true, true, true, true, true, true}},
	} {
		c := clientAs(t, fake, tc.token)
		if _, err := c.Discovery(context.Background()); err != nil {
			t.Fatal(err)
		}
		fake.ResetRequests()
		got := c.AccessReview(context.Background(), objectChecks)
		if len(got) != len(objectChecks) {
			t.Fatalf("%q: %d decisions for %d checks", tc.token, len(got), len(objectChecks))
		}
		for i, d := range got {
			if !d.Known || d.Allowed != tc.want[i] {
				t.Errorf("%q: check %d %+v = %+v, want known, allowed %v", tc.token, i, objectChecks[i], d, tc.want[i])
			}
		}
		// The repeated check is asked once.
		if n := reviews(fake, apitest.SelfSubjectAccessReviewPath); n != len(objectChecks)-1 {
			t.Errorf("%q: %d reviews for %d distinct checks", tc.token, n, len(objectChecks)-1)
		}
	}
}

func TestAccessReviewWithoutAuthorizationAPIIsUnknown(t *testing.T) {
	t.Run("not in discovery", func(t *testing.T) {
		fake := accessFake(t, func(ac *apitest.Access) { ac.NoReviewAPI = true })
		c := clientAs(t, fake, "viewer-token")
		for _, d := range c.AccessReview(context.Background(), objectChecks) {
			if d.Known || d.Allowed {
				t.Errorf("decision %+v, want unknown", d)
			}
		}
		if n := reviews(fake, apitest.SelfSubjectAccessReviewPath); n != 0 {
			t.Errorf("%d reviews sent to a server whose discovery lists none", n)
		}
		if _, err := c.RulesReview(context.Background(), "demo"); err != apiclient.ErrNoAuthorizationAPI {
			t.Errorf("RulesReview error = %v, want ErrNoAuthorizationAPI", err)
		}
	})
	for _, code := range []int{http.StatusNotFound, http.StatusMethodNotAllowed} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			// Discovery lists the group, but the path is not served (a
			// proxy in front, an aggregated server that lies).
			fake := accessFake(t, nil)
			for _, p := range []string{apitest.SelfSubjectAccessReviewPath, apitest.SelfSubjectRulesReviewPath} {
				fake.Override(p, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
			}
			c := clientAs(t, fake, "viewer-token")
			for _, d := range c.AccessReview(context.Background(), objectChecks) {
				if d.Known {
					t.Errorf("decision %+v, want unknown", d)
				}
			}
			if _, err := c.RulesReview(context.Background(), "demo"); err != apiclient.ErrNoAuthorizationAPI {
				t.Errorf("RulesReview error = %v, want ErrNoAuthorizationAPI", err)
			}
		})
	}
}

func TestAccessReviewIsBoundedAndUsesTheCallersContext(t *testing.T) {
	fake := accessFake(t, nil)
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	arrived := make(chan struct{}, 64)
	fake.Override(apitest.SelfSubjectAccessReviewPath, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":{"allowed":true}}`))
	})
	c := clientAs(t, fake, "viewer-token")
	if _, err := c.Discovery(context.Background()); err != nil {
		t.Fatal(err)
	}
	var checks []apiclient.AccessCheck
	for i := range 20 {
		checks = append(checks, apiclient.AccessCheck{Verb: "get", Resource: "pods", Namespace: "demo", Name: "p" + string(rune('a'+i))})
	}
	done := make(chan []apiclient.Decision)
	go func() { done <- c.AccessReview(context.Background(), checks) }()
	// Eight arrive; no ninth while they are held.
	deadline := time.After(10 * time.Second)
	for range 8 {
		select {
		case <-arrived:
		case <-deadline:
			t.Fatal("fewer than 8 reviews arrived")
		}
	}
	select {
	case <-arrived:
		t.Fatal("a ninth review arrived while eight were in flight")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	got := <-done
	for i, d := range got {
		if !d.Known || !d.Allowed {
			t.Errorf("check %d: %+v", i, d)
		}
	}
	if p := peak.Load(); p > 8 {
		t.Errorf("peak of %d reviews in flight, want at most 8", p)
	}

	// A caller's context that ends leaves the rest unknown, at once.
	hold := make(chan struct{})
	fake.Override(apitest.SelfSubjectAccessReviewPath, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	defer close(hold)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	for _, d := range c.AccessReview(ctx, checks) {
		if d.Known {
			t.Errorf("decision %+v after the context ended, want unknown", d)
		}
	}
}

func TestRulesReview(t *testing.T) {
	fake := accessFake(t, nil)
	viewer, err := clientAs(t, fake, "viewer-token").RulesReview(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		verb, group, resource, sub string
		allows                     bool
	}{
		{"list", "", "pods", "", true},
		{"get", "", "pods", "log", true},
		{"list", "apps", "deployments", "", true},
		{"list", "", "secrets", "", false},
		{"patch", "apps", "deployments", "", false},
		{"create", "authorization.k8s.io", "selfsubjectaccessreviews", "", true},
	} {
		if got := viewer.Allows(tc.verb, tc.group, tc.resource, tc.sub, ""); got != tc.allows {
			t.Errorf("viewer in demo: Allows(%s %s %s/%s) = %v, want %v", tc.verb, tc.group, tc.resource, tc.sub, got, tc.allows)
		}
		if got := viewer.Denies(tc.verb, tc.group, tc.resource, tc.sub, ""); got == tc.allows {
			t.Errorf("viewer in demo: Denies(%s %s %s/%s) = %v with complete rules", tc.verb, tc.group, tc.resource, tc.sub, got)
		}
	}
	other, err := clientAs(t, fake, "viewer-token").RulesReview(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	if other.Allows("list", "", "pods", "", "") {
		t.Error("the viewer's demo RoleBinding shows in namespace other")
	}
	if _, err := clientAs(t, fake, "viewer-token").RulesReview(context.Background(), ""); err == nil {
		t.Error("a rules review without a namespace was sent")
	}

	incomplete := accessFake(t, func(ac *apitest.Access) { ac.IncompleteRules = true })
	rules, err := clientAs(t, incomplete, "viewer-token").RulesReview(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	if !rules.Incomplete || rules.Denies("list", "", "pods", "", "") {
		t.Errorf("incomplete rules %+v deny what they do not list", rules)
	}
}

func TestRulesMatchLikeRBAC(t *testing.T) {
	rules := apiclient.Rules{Resources: []apiclient.ResourceRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*/status"}},
		{Verbs: []string{"*"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, ResourceNames: []string{"web"}},
		{Verbs: []string{"list"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	}}
	for _, tc := range []struct {
		verb, group, resource, sub, name string
		want                             bool
	}{
		{"get", "", "pods", "status", "", true},
		{"get", "", "pods", "log", "", false},
		{"delete", "apps", "deployments", "", "web", true},
		{"delete", "apps", "deployments", "", "api", false},
		{"delete", "apps", "deployments", "", "", false}, // names never grant a nameless request
		{"list", "example.com", "widgets", "", "", true},
		{"watch", "example.com", "widgets", "", "", false},
	} {
		if got := rules.Allows(tc.verb, tc.group, tc.resource, tc.sub, tc.name); got != tc.want {
			t.Errorf("Allows(%s %q %s/%s %q) = %v, want %v", tc.verb, tc.group, tc.resource, tc.sub, tc.name, got, tc.want)
		}
	}
}

func TestFakeEnforcesRulesOnRequests(t *testing.T) {
	fake := accessFake(t, nil)
	fake.Add(apitest.Deployment("demo", "web", 1, map[string]string{"app": "web"}))
	ctx := context.Background()
	viewer := clientAs(t, fake, "viewer-token")
	if _, err := viewer.GetObject(ctx, deploymentsRes, "demo", "web"); err != nil {
		t.Fatalf("viewer get: %v", err)
	}
	_, err := viewer.Delete(ctx, deploymentsRes, "demo", "web", apiclient.DeleteOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("viewer delete: %v, want 403 Forbidden", err)
	}
	want := `deployments.apps "web" is forbidden: User "alice@example.com" cannot delete resource "deployments" in API group "apps" in the namespace "demo"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("viewer delete: %v, want the message %q", err, want)
	}
	_, err = viewer.ListTable(ctx, podsRes, apiclient.ListOptions{})
	if want := `pods is forbidden: User "alice@example.com" cannot list resource "pods" in API group "" at the cluster scope`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("viewer list across namespaces: %v, want %q", err, want)
	}
	if _, err := clientAs(t, fake, "stolen-token").ListTable(ctx, podsRes, apiclient.ListOptions{Namespace: "demo"}); !apierrors.IsUnauthorized(err) {
		t.Errorf("unknown token: %v, want 401", err)
	}
	if _, err := clientAs(t, fake, "editor-token").Delete(ctx, deploymentsRes, "demo", "web", apiclient.DeleteOptions{}); err != nil {
		t.Errorf("editor delete: %v", err)
	}
}
