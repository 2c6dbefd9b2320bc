package access_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// The access reviews as the pages use them, over webtest.WithAccess (a fake
// that authorizes as kube-apiserver does, requests acting as the token they
// carry): no reviews without the API, one answer per identity, a bounded
// number per page, the sidebar's dimming, and the server's refusal winning
// over a cached answer.

func TestWithoutAnAuthorizationAPIEveryActionIsOffered(t *testing.T) {
	ac := webtest.AccessRules()
	ac.NoReviewAPI = true
	h := webtest.WithAccess(t, ac)
	b := webtest.NewBrowser(t, h)
	viewer := b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.ViewerToken))
	for _, id := range webtest.ObjectActions {
		webtest.Enabled(t, viewer, id)
	}
	list := b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken))
	webtest.Enabled(t, list, "create-link")
	if n := list.Doc.Find(".nav-denied").Length(); n != 0 {
		t.Errorf("%d sidebar links dimmed without an authorization API", n)
	}
	if n := reviewRequests(h.Fake); n != 0 {
		t.Errorf("%d reviews sent to a server whose discovery lists none", n)
	}
	// The server still decides.
	form := b.Form(b.GetWith(webtest.WebPath+"/delete", http.StatusOK, webtest.As(webtest.ViewerToken)), "[data-testid=delete-form]")
	p := form.SubmitWith("", http.StatusForbidden, webtest.As(webtest.ViewerToken))
	if got := p.Text("edit-error-message"); !strings.Contains(got, `User "alice@example.com" cannot delete resource "deployments"`) {
		t.Errorf("the 403 page says %q, not the server's message", got)
	}
}

// navLinks are the sidebar's links by resource, with their dimming reason
// ("" when not dimmed).
func navLinks(t *testing.T, p webtest.Page) map[string]string {
	t.Helper()
	out := map[string]string{}
	p.Doc.Find("[data-testid=sidebar] a").Each(func(_ int, s *goquery.Selection) {
		label := s.Clone().Children().Remove().End().Text()
		reason := ""
		if s.HasClass("nav-denied") {
			reason = s.AttrOr("title", "?")
		}
		out[label] = reason
	})
	if len(out) == 0 {
		t.Fatal("no sidebar")
	}
	return out
}

func TestSidebarDimsWhatTheUserMayNotList(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)

	viewer := navLinks(t, b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken)))
	for resource, want := range map[string]string{
		"pods":        "",
		"configmaps":  "",
		"deployments": "",
		"secrets":     "You may not list secrets in namespace demo (verb list)",
		"namespaces":  "You may not list namespaces at the cluster scope (verb list)",
	} {
		if got := viewer[resource]; got != want {
			t.Errorf("viewer in demo: %s dimmed with %q, want %q", resource, got, want)
		}
	}
	editor := navLinks(t, b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.EditorToken)))
	if editor["secrets"] != "" || editor["namespaces"] == "" {
		t.Errorf("editor in demo: secrets %q, namespaces %q", editor["secrets"], editor["namespaces"])
	}
	// Across all namespaces only cluster-wide grants count: the viewer's
	// are all in demo.
	home := navLinks(t, b.GetWith("/c/dev/", http.StatusOK, webtest.As(webtest.ViewerToken)))
	if want := "You may not list pods across all namespaces (verb list)"; home["pods"] != want {
		t.Errorf("viewer across namespaces: pods dimmed with %q, want %q", home["pods"], want)
	}
	admin := navLinks(t, b.GetWith("/c/dev/", http.StatusOK, webtest.As(webtest.ConsoleToken)))
	for resource, reason := range admin {
		if reason != "" {
			t.Errorf("admin: %s dimmed with %q", resource, reason)
		}
	}
	// Dimmed links still lead on: the server decides.
	secrets := b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken)).Doc.Find(`[data-testid=sidebar] a.nav-denied[href$="/secrets"]`)
	if secrets.Length() != 1 || !strings.Contains(secrets.Text(), "You may not list secrets") {
		t.Errorf("the dimmed secrets link: %s", webtest.Outer(secrets))
	}
	b.GetWith(secrets.AttrOr("href", ""), http.StatusForbidden, webtest.As(webtest.ViewerToken))

	// Incomplete rules (a webhook authorizer) dim nothing.
	ac := webtest.AccessRules()
	ac.IncompleteRules = true
	incomplete := navLinks(t, webtest.NewBrowser(t, webtest.WithAccess(t, ac)).GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken)))
	for resource, reason := range incomplete {
		if reason != "" {
			t.Errorf("incomplete rules: %s dimmed with %q", resource, reason)
		}
	}
}

// reviewRequests counts the self-reviews the fake served.
func reviewRequests(fake *apitest.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.URL.Path == apitest.SelfSubjectAccessReviewPath || r.URL.Path == apitest.SelfSubjectRulesReviewPath {
			n++
		}
	}
	return n
}

func TestAccessAnswersAreNeverSharedAcrossIdentities(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)
	// Twice each, interleaved, within the cache's lifetime.
	for range 2 {
		webtest.Disabled(t, b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.ViewerToken)), "delete-link", "You may not delete deployments.apps in namespace demo (verb delete)")
		webtest.Enabled(t, b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.EditorToken)), "delete-link")
	}
	// Each identity asked for itself, once: the second round was cached.
	asked := map[string]int{}
	for _, r := range h.Fake.Requests() {
		if r.URL.Path == apitest.SelfSubjectAccessReviewPath {
			asked[r.Header.Get("Authorization")]++
		}
	}
	if asked["Bearer "+webtest.ViewerToken] == 0 || asked["Bearer "+webtest.EditorToken] == 0 || asked["Bearer "+webtest.ViewerToken] != asked["Bearer "+webtest.EditorToken] {
		t.Errorf("reviews by identity: %v", asked)
	}
}

func TestAPageCostsABoundedNumberOfReviews(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)
	b.GetWith("/c/dev/", http.StatusOK, webtest.As(webtest.ViewerToken)) // discovery, the home page's rules
	for _, tc := range []struct {
		path      string
		ssar, all int // distinct access checks; all reviews, the sidebar's one rules review included
	}{
		// edit (= restart), scale, delete, pods/log, pods/exec: five checks
		// in one batch.
		{webtest.WebPath, 5, 6},
		// Create, and the bulk actions' delete and patch on the namespace
		// (one batch); demo's rules are cached from the page before.
		{webtest.ConfigMapsPath, 3, 3},
		// Edit and delete; pods/log in demo is cached too.
		{webtest.SettingsPath, 2, 2},
	} {
		h.Fake.ResetRequests()
		b.GetWith(tc.path, http.StatusOK, webtest.As(webtest.ViewerToken))
		ssar := 0
		for _, r := range h.Fake.Requests() {
			if r.URL.Path == apitest.SelfSubjectAccessReviewPath {
				ssar++
			}
		}
		if ssar != tc.ssar || reviewRequests(h.Fake) != tc.all {
			t.Errorf("%s: %d access reviews and %d in all, want %d and %d", tc.path, ssar, reviewRequests(h.Fake), tc.ssar, tc.all)
		}
		// The same page again within the cache's lifetime asks nothing.
		h.Fake.ResetRequests()
		b.GetWith(tc.path, http.StatusOK, webtest.As(webtest.ViewerToken))
		if n := reviewRequests(h.Fake); n != 0 {
			t.Errorf("%s again: %d reviews, want 0", tc.path, n)
		}
	}
}

func TestAForbiddenAnswerWinsOverTheReview(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)
	// The review says the editor may edit and delete...
	p := b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.EditorToken))
	webtest.Enabled(t, p, "edit-link")
	webtest.Enabled(t, p, "delete-link")
	confirm := b.GetWith(p.Doc.Find("[data-testid=delete-link]").AttrOr("href", ""), http.StatusOK, webtest.As(webtest.EditorToken))

	// ...but the RoleBinding went while the answer was cached: the server
	// refuses the delete, and the page says what it said.
	ac := webtest.AccessRules()
	ac.Rules = append(ac.Rules[:1], apitest.Viewer("tabula:editors", "demo")...)
	h.Fake.SetOptions(apitest.Options{Access: ac})
	denied := b.Form(confirm, "[data-testid=delete-form]").SubmitWith("", http.StatusForbidden, webtest.As(webtest.EditorToken))
	want := `deployments.apps "web" is forbidden: User "bob@example.com" cannot delete resource "deployments" in API group "apps" in the namespace "demo"`
	if got := denied.Text("edit-error-message"); !strings.Contains(got, want) {
		t.Errorf("403 message %q, want %q in it", got, want)
	}
	if got := denied.Text("edit-error-reason"); got != "Forbidden" {
		t.Errorf("403 reason %q", got)
	}
	webtest.Enabled(t, b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.EditorToken)), "edit-link") // the cached hint, still

	// ...or a policy the review does not see refuses: the server's 403 is
	// the page, with its reason and message.
	h.Fake.SetOptions(apitest.Options{Access: webtest.AccessRules()})
	refusal := apitest.Forbidden("bob@example.com", "get", "apps", "deployments", "web")
	refusal.Message += ": denied by the team's admission policy"
	h.Fake.FailResource("apps", "deployments", refusal)
	edit := b.GetWith(p.Doc.Find("[data-testid=edit-link]").AttrOr("href", ""), http.StatusForbidden, webtest.As(webtest.EditorToken))
	if got := edit.Text("error-title"); got != "Access denied" {
		t.Errorf("403 title %q", got)
	}
	if got := edit.Text("error-reason"); got != "Forbidden" {
		t.Errorf("403 reason %q", got)
	}
	if got := edit.Text("error-message"); got != refusal.Message {
		t.Errorf("403 message %q, want the server's %q", got, refusal.Message)
	}
}
