package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/page"
)

// The RBAC-aware pages are tested against a fake that authorizes as
// kube-apiserver does: tokens are users, RBAC-like rules are enforced on
// every request, and the self-reviews answer from the same rules. A test's
// request acts as the token in testTokenHeader, as web/auth will make a
// signed-in user's requests act as theirs.

const testTokenHeader = "X-Test-Token"

const (
	viewerToken = "viewer-token"
	editorToken = "editor-token"
	// consoleToken is the kubeconfig's own user: an admin.
	consoleToken = "console-token"
)

// accessRules: an admin; a viewer and an editor of namespace demo, as the
// view and edit ClusterRoles bound there.
func accessRules() *apitest.Access {
	rules := []apitest.Rule{{Users: []string{"admin"}, Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}
	rules = append(rules, apitest.Viewer("tabula:viewers", "demo")...)
	rules = append(rules, apitest.Editor("tabula:editors", "demo")...)
	return &apitest.Access{
		Users: map[string]apitest.User{
			consoleToken: {Name: "admin"},
			viewerToken:  {Name: "alice@example.com", Groups: []string{"tabula:viewers"}},
			editorToken:  {Name: "bob@example.com", Groups: []string{"tabula:editors"}},
		},
		Rules: rules,
	}
}

// newAccessConsole serves a console against a fake following ac, with a
// Deployment (and its pod), a ConfigMap and a Secret in demo; the fake
// serves core v1, apps/v1 and the extra group versions.
func newAccessConsole(t *testing.T, ac *apitest.Access, extra ...apitest.GroupVersion) *harness {
	t.Helper()
	fake := apitest.NewServerWith(t, apitest.Options{Access: ac}, append([]apitest.GroupVersion{coreWithConfigMaps(), apitest.AppsV1()}, extra...)...)
	fake.Token = consoleToken
	kubeconfig := fake.Kubeconfig("dev")
	// Requests carry users' tokens from here on: the fake's Access, not its
	// single Token, decides who they are.
	fake.Token = ""
	fake.Add(
		apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.Object("v1", "ConfigMap", "demo", "settings", map[string]any{"data": map[string]any{"mode": "fast"}}),
		apitest.Object("v1", "Secret", "demo", "creds", map[string]any{"type": "Opaque"}),
	)
	metrics := NewMetrics()
	clusters, err := apiclient.FromKubeconfig(kubeconfig, apiclient.LoadOptions{Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Deps{Clusters: clusters, Metrics: metrics, Static: static.FS})
	if err != nil {
		t.Fatal(err)
	}
	srv.echo.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if token := c.Request().Header.Get(testTokenHeader); token != "" {
				page.SetRequester(c, page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: token}})
			}
			return next(c)
		}
	})
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	return &harness{server: srv, fake: fake, console: console, metrics: metrics}
}

func as(token string) map[string]string { return map[string]string{testTokenHeader: token} }

// disabled checks that the action id is shown disabled with reason: a
// focusable button, aria-disabled, no link, the reason its description.
func disabled(t *testing.T, p webPage, id, reason string) {
	t.Helper()
	s := p.doc.Find("[data-testid=" + id + "]")
	if s.Length() != 1 {
		t.Errorf("%s: %d elements", id, s.Length())
		return
	}
	if goquery.NodeName(s) != "button" || s.AttrOr("aria-disabled", "") != "true" || s.AttrOr("type", "") != "button" {
		t.Errorf("%s is not an aria-disabled button: %s", id, outer(s))
	}
	if _, ok := s.Attr("href"); ok {
		t.Errorf("%s is disabled but links: %s", id, outer(s))
	}
	if _, ok := s.Attr("disabled"); ok {
		t.Errorf("%s has the disabled attribute, which takes it out of the tab order", id)
	}
	if s.AttrOr("tabindex", "0") == "-1" {
		t.Errorf("%s is not focusable", id)
	}
	if s.Closest("form").Length() > 0 {
		t.Errorf("%s is disabled inside a form", id)
	}
	tip := p.doc.Find("#" + s.AttrOr("aria-describedby", "none"))
	if got := strings.TrimSpace(tip.Text()); got != reason {
		t.Errorf("%s: reason %q, want %q", id, got, reason)
	}
	if tip.AttrOr("role", "") != "tooltip" {
		t.Errorf("%s: the reason is not a tooltip: %s", id, outer(tip))
	}
}

// enabled checks that the action id is a working link (or the restart
// form's button).
func enabled(t *testing.T, p webPage, id string) {
	t.Helper()
	s := p.doc.Find("[data-testid=" + id + "]")
	if s.Length() != 1 {
		t.Errorf("%s: %d elements", id, s.Length())
		return
	}
	if _, ok := s.Attr("aria-disabled"); ok {
		t.Errorf("%s is disabled: %s", id, outer(s))
	}
	if id == "restart" {
		if s.Closest("form").AttrOr("action", "") == "" {
			t.Errorf("restart is not a form's button")
		}
		return
	}
	if s.AttrOr("href", "") == "" {
		t.Errorf("%s does not link: %s", id, outer(s))
	}
}

func outer(s *goquery.Selection) string {
	h, _ := goquery.OuterHtml(s)
	return h
}

var objectActionIDs = []string{"edit-link", "scale-link", "restart", "delete-link", "logs-link"}

func TestObjectActionsFollowTheUsersAccess(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)

	viewer := b.getWith(webPath, http.StatusOK, as(viewerToken))
	disabled(t, viewer, "edit-link", "You may not patch deployments.apps in namespace demo (verb patch)")
	disabled(t, viewer, "scale-link", "You may not patch deployments.apps/scale in namespace demo (verb patch)")
	disabled(t, viewer, "restart", "You may not patch deployments.apps in namespace demo (verb patch)")
	disabled(t, viewer, "delete-link", "You may not delete deployments.apps in namespace demo (verb delete)")
	enabled(t, viewer, "logs-link") // a viewer reads pods/log

	editor := b.getWith(webPath, http.StatusOK, as(editorToken))
	for _, id := range objectActionIDs {
		enabled(t, editor, id)
	}
	if n := editor.doc.Find("[aria-disabled]").Length(); n != 0 {
		t.Errorf("the editor's page has %d disabled controls", n)
	}

	// A user who may not read logs sees Logs disabled, with pods/log named.
	ac := accessRules()
	ac.Rules = append(ac.Rules, apitest.Rule{Users: []string{"carol"}, Namespaces: []string{"demo"}, Verbs: []string{"get", "list"}, APIGroups: []string{"", "apps"}, Resources: []string{"pods", "deployments"}})
	ac.Users["carol-token"] = apitest.User{Name: "carol"}
	h2 := newAccessConsole(t, ac)
	carol := newBrowser(t, h2).getWith("/c/dev/api/v1/namespaces/demo/pods/web-1", http.StatusOK, as("carol-token"))
	disabled(t, carol, "logs-link", "You may not get pods/log in namespace demo (verb get)")
	disabled(t, carol, "delete-link", "You may not delete pods in namespace demo (verb delete)")
}

func TestWithoutAnAuthorizationAPIEveryActionIsOffered(t *testing.T) {
	ac := accessRules()
	ac.NoReviewAPI = true
	h := newAccessConsole(t, ac)
	b := newBrowser(t, h)
	viewer := b.getWith(webPath, http.StatusOK, as(viewerToken))
	for _, id := range objectActionIDs {
		enabled(t, viewer, id)
	}
	list := b.getWith(configMapsPath, http.StatusOK, as(viewerToken))
	enabled(t, list, "create-link")
	if n := list.doc.Find(".nav-denied").Length(); n != 0 {
		t.Errorf("%d sidebar links dimmed without an authorization API", n)
	}
	if n := reviewRequests(h.fake); n != 0 {
		t.Errorf("%d reviews sent to a server whose discovery lists none", n)
	}
	// The server still decides.
	form := b.form(b.getWith(webPath+"/delete", http.StatusOK, as(viewerToken)), "[data-testid=delete-form]")
	p := form.submitWith("", http.StatusForbidden, as(viewerToken))
	if got := p.text("edit-error-message"); !strings.Contains(got, `User "alice@example.com" cannot delete resource "deployments"`) {
		t.Errorf("the 403 page says %q, not the server's message", got)
	}
}

func TestCreateFollowsTheUsersAccess(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)
	disabled(t, b.getWith(configMapsPath, http.StatusOK, as(viewerToken)), "create-link", "You may not create configmaps in namespace demo (verb create)")
	enabled(t, b.getWith(configMapsPath, http.StatusOK, as(editorToken)), "create-link")
	// Across all namespaces the namespace is chosen on the create page:
	// no one answer, so Create stays offered.
	enabled(t, b.getWith("/c/dev/api/v1/configmaps", http.StatusOK, as(consoleToken)), "create-link")
}

// navLinks are the sidebar's links by resource, with their dimming reason
// ("" when not dimmed).
func navLinks(t *testing.T, p webPage) map[string]string {
	t.Helper()
	out := map[string]string{}
	p.doc.Find("[data-testid=sidebar] a").Each(func(_ int, s *goquery.Selection) {
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
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)

	viewer := navLinks(t, b.getWith(configMapsPath, http.StatusOK, as(viewerToken)))
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
	editor := navLinks(t, b.getWith(configMapsPath, http.StatusOK, as(editorToken)))
	if editor["secrets"] != "" || editor["namespaces"] == "" {
		t.Errorf("editor in demo: secrets %q, namespaces %q", editor["secrets"], editor["namespaces"])
	}
	// Across all namespaces only cluster-wide grants count: the viewer's
	// are all in demo.
	home := navLinks(t, b.getWith("/c/dev/", http.StatusOK, as(viewerToken)))
	if want := "You may not list pods across all namespaces (verb list)"; home["pods"] != want {
		t.Errorf("viewer across namespaces: pods dimmed with %q, want %q", home["pods"], want)
	}
	admin := navLinks(t, b.getWith("/c/dev/", http.StatusOK, as(consoleToken)))
	for resource, reason := range admin {
		if reason != "" {
			t.Errorf("admin: %s dimmed with %q", resource, reason)
		}
	}
	// Dimmed links still lead on: the server decides.
	secrets := b.getWith(configMapsPath, http.StatusOK, as(viewerToken)).doc.Find(`[data-testid=sidebar] a.nav-denied[href$="/secrets"]`)
	if secrets.Length() != 1 || !strings.Contains(secrets.Text(), "You may not list secrets") {
		t.Errorf("the dimmed secrets link: %s", outer(secrets))
	}
	b.getWith(secrets.AttrOr("href", ""), http.StatusForbidden, as(viewerToken))

	// Incomplete rules (a webhook authorizer) dim nothing.
	ac := accessRules()
	ac.IncompleteRules = true
	incomplete := navLinks(t, newBrowser(t, newAccessConsole(t, ac)).getWith(configMapsPath, http.StatusOK, as(viewerToken)))
	for resource, reason := range incomplete {
		if reason != "" {
			t.Errorf("incomplete rules: %s dimmed with %q", resource, reason)
		}
	}
}

func TestNamespacePickerFollowsTheUsersAccess(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)
	// The viewer may not list namespaces: they type one.
	viewer := b.getWith(configMapsPath, http.StatusOK, as(viewerToken))
	if !viewer.has("namespace-input") || viewer.has("namespace-select") {
		t.Error("the viewer, who may not list namespaces, is not offered a free-text namespace")
	}
	if got := viewer.doc.Find("[data-testid=namespace-input]").AttrOr("value", ""); got != "demo" {
		t.Errorf("the namespace field holds %q, want demo", got)
	}
	// The admin picks from the list.
	admin := b.getWith(configMapsPath, http.StatusOK, as(consoleToken))
	if !admin.has("namespace-select") {
		t.Error("the admin is not offered the namespaces")
	}
	// The viewer's answer was not the admin's, nor the other way round.
	if viewer := b.getWith(configMapsPath, http.StatusOK, as(viewerToken)); !viewer.has("namespace-input") {
		t.Error("the viewer was given the admin's namespaces")
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
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)
	// Twice each, interleaved, within the cache's lifetime.
	for range 2 {
		disabled(t, b.getWith(webPath, http.StatusOK, as(viewerToken)), "delete-link", "You may not delete deployments.apps in namespace demo (verb delete)")
		enabled(t, b.getWith(webPath, http.StatusOK, as(editorToken)), "delete-link")
	}
	// Each identity asked for itself, once: the second round was cached.
	asked := map[string]int{}
	for _, r := range h.fake.Requests() {
		if r.URL.Path == apitest.SelfSubjectAccessReviewPath {
			asked[r.Header.Get("Authorization")]++
		}
	}
	if asked["Bearer "+viewerToken] == 0 || asked["Bearer "+editorToken] == 0 || asked["Bearer "+viewerToken] != asked["Bearer "+editorToken] {
		t.Errorf("reviews by identity: %v", asked)
	}
}

func TestAPageCostsABoundedNumberOfReviews(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)
	b.getWith("/c/dev/", http.StatusOK, as(viewerToken)) // discovery, the home page's rules
	for _, tc := range []struct {
		path      string
		ssar, all int // distinct access checks; all reviews, the sidebar's one rules review included
	}{
		// edit (= restart), scale, delete, pods/log, pods/exec: five checks
		// in one batch.
		{webPath, 5, 6},
		// Create; demo's rules are cached from the page before.
		{configMapsPath, 1, 1},
		// Edit and delete; pods/log in demo is cached too.
		{settingsPath, 2, 2},
	} {
		h.fake.ResetRequests()
		b.getWith(tc.path, http.StatusOK, as(viewerToken))
		ssar := 0
		for _, r := range h.fake.Requests() {
			if r.URL.Path == apitest.SelfSubjectAccessReviewPath {
				ssar++
			}
		}
		if ssar != tc.ssar || reviewRequests(h.fake) != tc.all {
			t.Errorf("%s: %d access reviews and %d in all, want %d and %d", tc.path, ssar, reviewRequests(h.fake), tc.ssar, tc.all)
		}
		// The same page again within the cache's lifetime asks nothing.
		h.fake.ResetRequests()
		b.getWith(tc.path, http.StatusOK, as(viewerToken))
		if n := reviewRequests(h.fake); n != 0 {
			t.Errorf("%s again: %d reviews, want 0", tc.path, n)
		}
	}
}

func TestAForbiddenAnswerWinsOverTheReview(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	b := newBrowser(t, h)
	// The review says the editor may edit and delete...
	p := b.getWith(webPath, http.StatusOK, as(editorToken))
	enabled(t, p, "edit-link")
	enabled(t, p, "delete-link")
	confirm := b.getWith(p.doc.Find("[data-testid=delete-link]").AttrOr("href", ""), http.StatusOK, as(editorToken))

	// ...but the RoleBinding went while the answer was cached: the server
	// refuses the delete, and the page says what it said.
	ac := accessRules()
	ac.Rules = append(ac.Rules[:1], apitest.Viewer("tabula:editors", "demo")...)
	h.fake.SetOptions(apitest.Options{Access: ac})
	denied := b.form(confirm, "[data-testid=delete-form]").submitWith("", http.StatusForbidden, as(editorToken))
	want := `deployments.apps "web" is forbidden: User "bob@example.com" cannot delete resource "deployments" in API group "apps" in the namespace "demo"`
	if got := denied.text("edit-error-message"); !strings.Contains(got, want) {
		t.Errorf("403 message %q, want %q in it", got, want)
	}
	if got := denied.text("edit-error-reason"); got != "Forbidden" {
		t.Errorf("403 reason %q", got)
	}
	enabled(t, b.getWith(webPath, http.StatusOK, as(editorToken)), "edit-link") // the cached hint, still

	// ...or a policy the review does not see refuses: the server's 403 is
	// the page, with its reason and message.
	h.fake.SetOptions(apitest.Options{Access: accessRules()})
	refusal := apitest.Forbidden("bob@example.com", "get", "apps", "deployments", "web")
	refusal.Message += ": denied by the team's admission policy"
	h.fake.FailResource("apps", "deployments", refusal)
	edit := b.getWith(p.doc.Find("[data-testid=edit-link]").AttrOr("href", ""), http.StatusForbidden, as(editorToken))
	if got := edit.text("error-title"); got != "Access denied" {
		t.Errorf("403 title %q", got)
	}
	if got := edit.text("error-reason"); got != "Forbidden" {
		t.Errorf("403 reason %q", got)
	}
	if got := edit.text("error-message"); got != refusal.Message {
		t.Errorf("403 message %q, want the server's %q", got, refusal.Message)
	}
}

// A live object page re-renders its header with the same access answers:
// a change pushed to a viewer keeps their actions disabled.
func TestLiveObjectSectionsKeepTheUsersAccess(t *testing.T) {
	h := newAccessConsole(t, accessRules())
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-1"
	header := http.Header{}
	header.Set("Origin", h.console.URL)
	header.Set(testTokenHeader, viewerToken)
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(h.console.URL, "http")+path, header)
	if err != nil {
		t.Fatalf("dial: %v (response %v)", err, statusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	c := &wsClient{t: t, ws: ws}
	if !h.fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2", h.fake.OpenWatches())
	}
	h.fake.Modify(podGVK, "demo", "web-1", setPhase("Failed"))
	m := nextData(c, 10*time.Second, func(m object.SectionsMessage) bool {
		return m.Type == "SECTIONS" && strings.Contains(m.Sections["header"], "Failed")
	})
	doc := parse(t, m.Sections["header"])
	del := doc.Find("[data-testid=delete-link]")
	if del.AttrOr("aria-disabled", "") != "true" || !strings.Contains(doc.Find("#delete-link-reason").Text(), "You may not delete pods in namespace demo") {
		t.Errorf("the live header offers the viewer Delete: %s", outer(del))
	}
	if logs := doc.Find("[data-testid=logs-link]"); logs.AttrOr("href", "") == "" {
		t.Errorf("the live header lost the viewer's Logs: %s", outer(logs))
	}
}
