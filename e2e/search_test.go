//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// The search page (web/search) as users reach it: by URL, from its own
// form, and from the header's jump box; as the admin and as the viewer,
// who may not list Secrets in demo; with and without JavaScript. The seed
// names a Lighthouse web-harbour and a ConfigMap web-config after the
// Deployment web, so one word finds built-in and custom kinds together.

// searchPath is the search page of a context for a query, with the
// namespace picker's namespace ("" for none).
func searchPath(contextName, query, namespace string) string {
	v := url.Values{"q": {query}}
	if namespace != "" {
		v.Set("namespace", namespace)
	}
	return "/c/" + contextName + "/search?" + v.Encode()
}

// searchResults is what a finished search page shows, read in one go.
type searchResults struct {
	Groups  []searchGroup
	Summary struct {
		KindsAsked, KindsSkipped, Matches, Requests string
		Title                                       string
	}
	Skipped []searchSkip
}

// searchSkip is a kind the summary lists as not searched: its reason, and
// the reason of the heading it sits under.
type searchSkip struct{ Reason, Resource, Group string }

type searchGroup struct {
	Kind, Resource, List string
	Count                int
	Rows                 []searchRow
	More                 string
}

type searchRow struct {
	Name, Href, Namespace, KindHref, Status, Age string
	HasNamespace, HasStatus                      bool
}

func (r searchResults) group(resource string) (searchGroup, bool) {
	i := slices.IndexFunc(r.Groups, func(g searchGroup) bool { return g.Resource == resource })
	if i < 0 {
		return searchGroup{}, false
	}
	return r.Groups[i], true
}

func (r searchResults) resources() []string {
	var out []string
	for _, g := range r.Groups {
		out = append(out, g.Resource)
	}
	return out
}

func (r searchResults) skipped(reason, resource string) bool {
	return slices.ContainsFunc(r.Skipped, func(s searchSkip) bool {
		return s.Reason == reason && s.Resource == resource
	})
}

// readSearch waits for the summary, which the page writes last, and reads
// every group, row and skipped kind. (Goto already waits for the load
// event, which a streamed page fires once the search is done; the wait on
// the summary states what the test relies on.)
func readSearch(t *testing.T, page playwright.Page) searchResults {
	t.Helper()
	must(t, expect.Locator(page.GetByTestId("search-summary")).ToBeAttached())
	out, err := page.Evaluate(`() => {
		const text = (el) => el ? el.textContent.trim() : "";
		const s = document.querySelector("[data-testid=search-summary]");
		return JSON.stringify({
			groups: [...document.querySelectorAll("section[data-testid=search-group]")].map((g) => ({
				kind: g.dataset.kind,
				resource: g.dataset.resource,
				list: g.querySelector("[data-testid=search-group-list]").getAttribute("href"),
				count: Number(text(g.querySelector("[data-testid=search-group-count]"))),
				more: g.querySelector("[data-testid=search-group-more]")?.getAttribute("href") ?? "",
				rows: [...g.querySelectorAll("tr[data-testid=search-row]")].map((r) => ({
					name: text(r.querySelector("[data-testid=search-row-name]")),
					href: r.querySelector("[data-testid=search-row-name]").getAttribute("href"),
					hasNamespace: r.querySelector("[data-testid=search-row-namespace]") !== null,
					namespace: text(r.querySelector("[data-testid=search-row-namespace]")),
					kindHref: r.querySelector("[data-testid=search-row-kind]").getAttribute("href"),
					hasStatus: r.querySelector("[data-testid=search-row-status]") !== null,
					status: text(r.querySelector("[data-testid=search-row-status]")),
					age: text(r.querySelector("[data-testid=search-row-age]")),
				})),
			})),
			summary: {
				kindsAsked: s.dataset.kindsAsked, kindsSkipped: s.dataset.kindsSkipped,
				matches: s.dataset.matches, requests: s.dataset.requests,
				title: text(s.querySelector("h2")),
			},
			skipped: [...document.querySelectorAll("li[data-testid=search-skipped]")].map((li) => ({
				reason: li.dataset.reason, resource: li.dataset.resource,
				group: li.closest("details[data-testid=search-skipped-group]")?.dataset.reason ?? "",
			})),
		});
	}`)
	must(t, err)
	var r searchResults
	must(t, json.Unmarshal([]byte(out.(string)), &r))
	t.Logf("search %s: %s; groups %v", page.URL(), r.Summary.Title, r.resources())
	return r
}

// checkSearchInvariants holds on every results page: each group's count is
// at least its rows, the summary adds the groups and skipped kinds up and
// made a request at least for each kind it asked, every row links to an
// object of its group's kind and to the group's list, and says its age.
func checkSearchInvariants(t *testing.T, r searchResults) {
	t.Helper()
	total := 0
	for _, g := range r.Groups {
		total += g.Count
		if g.Count < len(g.Rows) || len(g.Rows) == 0 {
			t.Errorf("group %s: count %d with %d rows", g.Resource, g.Count, len(g.Rows))
		}
		for _, row := range g.Rows {
			if want := objectHref(g.List, row.Namespace, row.Name); row.Href != want {
				t.Errorf("group %s: row %q links to %s, want %s", g.Resource, row.Name, row.Href, want)
			}
			if row.KindHref != g.List {
				t.Errorf("group %s: row %q's kind links to %s, want the group's list %s", g.Resource, row.Name, row.KindHref, g.List)
			}
			if row.Age == "" {
				t.Errorf("group %s: row %q shows no age", g.Resource, row.Name)
			}
		}
	}
	if got := r.Summary.Matches; got != strconv.Itoa(total) {
		t.Errorf("the summary counts %s matches, the groups %d", got, total)
	}
	if got := r.Summary.KindsSkipped; got != strconv.Itoa(len(r.Skipped)) {
		t.Errorf("the summary counts %s kinds skipped and lists %d", got, len(r.Skipped))
	}
	asked, err1 := strconv.Atoi(r.Summary.KindsAsked)
	requests, err2 := strconv.Atoi(r.Summary.Requests)
	if err1 != nil || err2 != nil || asked < len(r.Groups) || requests < asked {
		t.Errorf("the summary asked %q kinds with %q requests, for %d groups", r.Summary.KindsAsked, r.Summary.Requests, len(r.Groups))
	}
}

// objectHref is the link to an object of a group's kind: its list's path
// (in one namespace or all), in the object's namespace, and its name.
func objectHref(list, namespace, name string) string {
	all := regexp.MustCompile(`/namespaces/[^/]+/`).ReplaceAllString(listPath(list), "/")
	if namespace == "" {
		return all + "/" + url.PathEscape(name)
	}
	i := strings.LastIndex(all, "/")
	return all[:i] + "/namespaces/" + url.PathEscape(namespace) + all[i:] + "/" + url.PathEscape(name)
}

// listPath is a list link without its query.
func listPath(href string) string {
	p, _, _ := strings.Cut(href, "?")
	return p
}

// apiPath is the API server's path of a console link: the console's
// object and list paths are the API's, under /c/{context}.
func apiPath(t *testing.T, href string) string {
	t.Helper()
	m := regexp.MustCompile(`^/c/[^/]+(/apis?/.+)$`).FindStringSubmatch(listPath(href))
	if m == nil {
		t.Fatalf("%s is not a console link to an API path", href)
	}
	return m[1]
}

// objectLabels reads an object's labels from the API server, as the admin.
func objectLabels(t *testing.T, cs *kubernetes.Clientset, href string) map[string]string {
	t.Helper()
	raw, err := cs.Discovery().RESTClient().Get().AbsPath(apiPath(t, href)).DoRaw(t.Context())
	if err != nil {
		t.Fatalf("GET %s: %v", apiPath(t, href), err)
	}
	var obj metav1.PartialObjectMetadata
	must(t, json.Unmarshal(raw, &obj))
	return obj.Labels
}

// waitForWebSettled waits until the Deployment demo/web has all its pods
// and no others (an earlier journey may have scaled it), so the search
// sees one settled set of Pods.
func waitForWebSettled(t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	apitest.WaitFor(t, 2*time.Minute, func() error {
		d, err := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := *d.Spec.Replicas
		s := d.Status
		if s.ObservedGeneration < d.Generation || s.Replicas != want || s.UpdatedReplicas != want || s.AvailableReplicas != want {
			return fmt.Errorf("deployment web: %d replicas wanted, status %+v", want, s)
		}
		pods, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return err
		}
		running := 0
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if running != len(pods.Items) || int32(running) != want {
			return fmt.Errorf("%d web pods, %d of them running and not deleted; want %d", len(pods.Items), running, want)
		}
		return nil
	})
}

// mobilePage opens a page the size of a phone.
func mobilePage(t *testing.T) playwright.Page {
	return newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
}

// A name search in demo finds the Deployment web, its ReplicaSet and
// Pods, the Lighthouse web-harbour and the ConfigMap web-config, each row
// linking to its object; following one reaches the object's page.
func TestSearchByNameFindsEveryKindSharingTheWord(t *testing.T) {
	cs, _ := clientset(t, "admin")
	waitForWebSettled(t, cs)
	page := newPage(t)
	goTo(t, page, searchPath("admin", "web", "demo"))
	must(t, expect.Locator(page.GetByTestId("search-plan")).ToContainText("in namespace demo"))
	r := readSearch(t, page)
	checkSearchInvariants(t, r)

	for _, resource := range []string{"deployments.apps", "replicasets.apps", "pods", "lighthouses.maritime.tabula.dev", "configmaps"} {
		if _, ok := r.group(resource); !ok {
			t.Errorf("no %s group; the groups are %v", resource, r.resources())
		}
	}
	for _, g := range r.Groups {
		for _, row := range g.Rows {
			if !strings.Contains(strings.ToLower(row.Name), "web") {
				t.Errorf("group %s: row %q does not hold the word web", g.Resource, row.Name)
			}
			if row.HasNamespace && row.Namespace != "demo" {
				t.Errorf("group %s: row %q is in namespace %q, want demo", g.Resource, row.Name, row.Namespace)
			}
		}
	}
	wantOnly := func(resource, name, href string) {
		t.Helper()
		g, _ := r.group(resource)
		if len(g.Rows) != 1 || g.Count != 1 || g.Rows[0].Name != name || g.Rows[0].Href != href {
			t.Errorf("group %s = %+v, want one row %s linking to %s", resource, g, name, href)
		}
	}
	wantOnly("deployments.apps", "web", "/c/admin/apis/apps/v1/namespaces/demo/deployments/web")
	wantOnly("lighthouses.maritime.tabula.dev", "web-harbour", "/c/admin/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/web-harbour")
	wantOnly("configmaps", "web-config", "/c/admin/api/v1/namespaces/demo/configmaps/web-config")
	if g, _ := r.group("deployments.apps"); g.List != "/c/admin/apis/apps/v1/namespaces/demo/deployments" {
		t.Errorf("the Deployments group lists %s, want the list in demo", g.List)
	}

	// The ReplicaSets are web's (web-<hash>), and each Pod is one of theirs.
	rs, _ := r.group("replicasets.apps")
	pods, _ := r.group("pods")
	var sets []string
	for _, row := range rs.Rows {
		if !regexp.MustCompile(`^web-[a-z0-9]+$`).MatchString(row.Name) {
			t.Errorf("ReplicaSet %q is not one of the Deployment web's", row.Name)
		}
		sets = append(sets, row.Name)
	}
	d, err := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
	must(t, err)
	if int32(pods.Count) != *d.Spec.Replicas {
		t.Errorf("%d Pods found, the Deployment web has %d", pods.Count, *d.Spec.Replicas)
	}
	for _, row := range pods.Rows {
		if !slices.ContainsFunc(sets, func(set string) bool { return strings.HasPrefix(row.Name, set+"-") }) {
			t.Errorf("Pod %q belongs to none of the ReplicaSets found (%v)", row.Name, sets)
		}
		if !row.HasStatus || row.Status != "Running" {
			t.Errorf("Pod %q shows status %q (column shown: %v), want Running", row.Name, row.Status, row.HasStatus)
		}
	}
	must(t, expect.Locator(page.Locator(`section[data-testid=search-group][data-resource=pods] th`).Nth(3)).ToHaveText("Status"))

	// The Pods' Events are served by two APIs (core and events.k8s.io):
	// they are searched under core, and events.k8s.io's, the same objects
	// by their UIDs, are said to be searched there.
	if core, ok := r.group("events"); !ok || len(core.Rows) == 0 {
		t.Errorf("no core Events found (the Pods were created, so they have Events): %v", r.resources())
	}
	if _, ok := r.group("events.events.k8s.io"); ok || !r.skipped("same-objects", "events.events.k8s.io") {
		t.Errorf("events.k8s.io's Events: shown %v, skipped as the same objects %v", ok, r.skipped("same-objects", "events.events.k8s.io"))
	}

	screenshotThemes(t, page, "search-name")
	checkA11y(t, page, "search-name")

	// The Lighthouse's row leads to its page.
	lighthouses := page.Locator(`section[data-testid=search-group][data-resource="lighthouses.maritime.tabula.dev"]`)
	must(t, lighthouses.GetByTestId("search-row-name").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/maritime\.tabula\.dev/v1alpha1/namespaces/demo/lighthouses/web-harbour$`)))
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Lighthouse"))
	must(t, expect.Locator(page.GetByTestId("object-name")).ToHaveText("web-harbour"))

	// On a phone the results fit the width.
	phone := mobilePage(t)
	goTo(t, phone, searchPath("admin", "web", "demo"))
	readSearch(t, phone)
	overflow, err := phone.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
	must(t, err)
	if px := toFloat(overflow); px > 0 {
		t.Errorf("at 390x844 the search page is %.0fpx wider than the window", px)
	}
	screenshotThemes(t, phone, "search-name-390x844")
	checkA11y(t, phone, "search-name-390x844")
}

// A label search finds only objects with the label, and each group's list
// link carries the selector.
func TestSearchByLabelFindsOnlyLabelledObjects(t *testing.T) {
	cs, _ := clientset(t, "admin")
	waitForWebSettled(t, cs)
	page := newPage(t)
	goTo(t, page, searchPath("admin", "app=web", "demo"))
	r := readSearch(t, page)
	checkSearchInvariants(t, r)
	for _, resource := range []string{"deployments.apps", "replicasets.apps", "pods", "services", "configmaps"} {
		if _, ok := r.group(resource); !ok {
			t.Errorf("no %s group; the groups are %v", resource, r.resources())
		}
	}
	if _, ok := r.group("lighthouses.maritime.tabula.dev"); ok {
		t.Errorf("a Lighthouse matched app=web, which no Lighthouse has")
	}
	for _, g := range r.Groups {
		list, err := url.Parse(g.List)
		must(t, err)
		if sel := list.Query().Get("labelSelector"); sel != "app=web" {
			t.Errorf("group %s lists %s: labelSelector %q, want app=web", g.Resource, g.List, sel)
		}
		if g.Count != len(g.Rows) || g.More != "" {
			t.Errorf("group %s: %d matches, %d rows shown, more at %q; want them all shown", g.Resource, g.Count, len(g.Rows), g.More)
		}
		for _, row := range g.Rows {
			if got := objectLabels(t, cs, row.Href)["app"]; got != "web" {
				t.Errorf("%s %s/%s has app=%q, want app=web", g.Kind, row.Namespace, row.Name, got)
			}
		}
	}
	// Nothing with another app label came along.
	if g, _ := r.group("deployments.apps"); len(g.Rows) != 1 || g.Rows[0].Name != "web" {
		t.Errorf("the Deployments found are %+v, want web alone", g.Rows)
	}
	screenshotThemes(t, page, "search-label")
	checkA11y(t, page, "search-label")

	// The group's heading is its list, filtered the same way.
	must(t, page.Locator(`section[data-testid=search-group][data-resource="deployments.apps"]`).GetByTestId("search-group-list").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments\?labelSelector=app%3Dweb$`)))
	must(t, expect.Locator(page.GetByTestId("label-selector")).ToHaveValue("app=web"))
	rows := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(rows.First()).ToContainText("web"))
}

// kind: and ns: terms, typed into the page's own form: only the named
// kinds, only in the named namespace; ns:* reaches past the picker's.
func TestSearchKindAndNamespaceTerms(t *testing.T) {
	page := newPage(t)
	goTo(t, page, searchPath("admin", "", "demo"))
	must(t, expect.Locator(page.GetByTestId("search-syntax")).ToBeVisible())
	input := page.GetByTestId("search-input")
	must(t, input.Fill("kind:deploy,lh ns:team-a"))
	must(t, input.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/search\?q=kind%3Adeploy%2Clh\+ns%3Ateam-a&namespace=demo$`)))
	r := readSearch(t, page)
	checkSearchInvariants(t, r)
	if got := r.resources(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"deployments.apps", "lighthouses.maritime.tabula.dev"}) {
		t.Errorf("groups %v, want Deployments and Lighthouses alone", got)
	}
	if r.Summary.KindsAsked != "2" {
		t.Errorf("the summary says %s kinds asked, want 2", r.Summary.KindsAsked)
	}
	names := map[string][]string{}
	for _, g := range r.Groups {
		for _, row := range g.Rows {
			names[g.Resource] = append(names[g.Resource], row.Name)
			if row.Namespace != "team-a" {
				t.Errorf("%s %q is in namespace %q, want team-a", g.Kind, row.Name, row.Namespace)
			}
		}
	}
	if got := names["deployments.apps"]; !slices.Equal(got, []string{"worker"}) {
		t.Errorf("Deployments %v, want [worker]", got)
	}
	if got := slices.Sorted(slices.Values(names["lighthouses.maritime.tabula.dev"])); !slices.Equal(got, []string{"lindau", "peggys-point"}) {
		t.Errorf("Lighthouses %v, want [lindau peggys-point]", got)
	}
	must(t, expect.Locator(page.GetByTestId("search-input")).ToHaveValue("kind:deploy,lh ns:team-a"))
	screenshotThemes(t, page, "search-kind-ns")
	checkA11y(t, page, "search-kind-ns")

	// Without ns:, the picker's namespace is the scope.
	goTo(t, page, searchPath("admin", "kind:deploy", "demo"))
	r = readSearch(t, page)
	if got := namespacesOf(r); !slices.Equal(got, []string{"demo"}) {
		t.Errorf("kind:deploy with the picker on demo found Deployments in %v, want [demo]", got)
	}
	// ns:* searches every namespace, whatever the picker says.
	goTo(t, page, searchPath("admin", "kind:deploy ns:*", "demo"))
	must(t, expect.Locator(page.GetByTestId("search-plan")).ToContainText("in all namespaces"))
	r = readSearch(t, page)
	checkSearchInvariants(t, r)
	if got := r.resources(); !slices.Equal(got, []string{"deployments.apps"}) {
		t.Errorf("groups %v, want Deployments alone", got)
	}
	if got := namespacesOf(r); !slices.Contains(got, "demo") || !slices.Contains(got, "team-a") {
		t.Errorf("ns:* found Deployments in %v, want demo and team-a among them", got)
	}
	screenshotThemes(t, page, "search-all-namespaces")
	checkA11y(t, page, "search-all-namespaces")
}

// namespacesOf is the sorted set of namespaces a page's rows are in.
func namespacesOf(r searchResults) []string {
	var out []string
	for _, g := range r.Groups {
		for _, row := range g.Rows {
			if !slices.Contains(out, row.Namespace) {
				out = append(out, row.Namespace)
			}
		}
	}
	slices.Sort(out)
	return out
}

// The viewer may list most kinds in demo, but not Secrets: their search
// leaves Secrets out and says so, where the admin's finds one.
func TestSearchLeavesOutWhatTheViewerMayNotList(t *testing.T) {
	const query = "api"
	page := newPage(t)
	goTo(t, page, searchPath("viewer", query, "demo"))
	r := readSearch(t, page)
	checkSearchInvariants(t, r)
	if _, ok := r.group("secrets"); ok {
		t.Error("the viewer's search shows a Secrets group")
	}
	if g, ok := r.group("deployments.apps"); !ok || len(g.Rows) != 1 || g.Rows[0].Name != "api" {
		t.Errorf("the viewer's Deployments group is %+v (present %v), want api", g, ok)
	}
	if !r.skipped("forbidden", "secrets") {
		t.Errorf("Secrets are not listed as skipped for forbidden: %+v", r.Skipped)
	}
	for _, s := range r.Skipped {
		if s.Group != s.Reason {
			t.Errorf("skipped %s (%s) sits under the heading for %s", s.Resource, s.Reason, s.Group)
		}
	}
	secrets := page.Locator(`details[data-testid=search-skipped-group][data-reason=forbidden] li[data-testid=search-skipped][data-reason=forbidden][data-resource=secrets]`)
	must(t, expect.Locator(secrets).ToBeVisible()) // the forbidden group is open
	must(t, expect.Locator(secrets).ToContainText("Secret"))
	// What the viewer may not list has no link to a list they would be refused.
	must(t, expect.Locator(secrets.Locator("a")).ToHaveCount(0))
	if body, err := page.Content(); err != nil || strings.Contains(body, "api-credentials") {
		t.Errorf("the viewer's page names the Secret api-credentials (%v)", err)
	}
	screenshotThemes(t, page, "search-viewer")
	checkA11y(t, page, "search-viewer")

	admin := newPage(t)
	goTo(t, admin, searchPath("admin", query, "demo"))
	r = readSearch(t, admin)
	checkSearchInvariants(t, r)
	g, ok := r.group("secrets")
	if !ok || len(g.Rows) != 1 || g.Rows[0].Name != "api-credentials" || g.Rows[0].Href != "/c/admin/api/v1/namespaces/demo/secrets/api-credentials" {
		t.Errorf("the admin's Secrets group is %+v (present %v), want api-credentials", g, ok)
	}
	if r.skipped("forbidden", "secrets") {
		t.Error("the admin's search lists Secrets as forbidden")
	}
	screenshotThemes(t, admin, "search-admin-secrets")
}

// The header's jump box searches for what is not a kind, in the namespace
// the user is in, and still jumps to a kind's list.
func TestSearchFromTheJumpBox(t *testing.T) {
	page := newPage(t)
	kb := page.Keyboard()
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods")
	must(t, kb.Press("/"))
	must(t, expect.Locator(page.GetByTestId("jump-input")).ToBeFocused())
	must(t, kb.Type("harbour"))
	must(t, kb.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/search\?namespace=demo&q=harbour$`)))
	must(t, expect.Locator(page.GetByTestId("search-input")).ToHaveValue("harbour"))
	r := readSearch(t, page)
	checkSearchInvariants(t, r)
	if got := r.resources(); !slices.Equal(got, []string{"lighthouses.maritime.tabula.dev"}) {
		t.Errorf("harbour found %v, want the Lighthouses alone", got)
	}
	if g, _ := r.group("lighthouses.maritime.tabula.dev"); len(g.Rows) != 1 || g.Rows[0].Name != "web-harbour" {
		t.Errorf("the Lighthouses found are %+v, want web-harbour", g.Rows)
	}
	screenshotThemes(t, page, "search-jump")
	checkA11y(t, page, "search-jump")

	// A kind's short name still goes to its list, in the same namespace.
	must(t, kb.Press("/"))
	must(t, expect.Locator(page.GetByTestId("jump-input")).ToBeFocused())
	must(t, kb.Type("deploy"))
	must(t, kb.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/apis/apps/v1/namespaces/demo/deployments$`)))
	must(t, expect.Locator(page.Locator("[data-testid=list-table]")).ToBeVisible())
}

// A query the page cannot run is a 400 that says why, keeps the text in
// the box, runs nothing and escapes what it shows.
func TestSearchRefusesHostileQueries(t *testing.T) {
	long := strings.Repeat("lighthouse-", 200)
	for _, tc := range []struct {
		name, query, reason string
	}{
		{"unbalanced", `app in (web,api <b id="planted">x</b>`, "parentheses are unbalanced"},
		{"long", long, fmt.Sprintf("The query is %d bytes long; a search takes at most 1024.", len(long))},
		{"namespace", "web ns:../kube-system", "is not a namespace name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := newPage(t)
			resp, err := page.Goto(env.console.URL + searchPath("admin", tc.query, "demo"))
			must(t, err)
			if resp.Status() != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.Status())
			}
			must(t, expect.Locator(page.GetByTestId("search-error")).ToContainText(tc.reason))
			must(t, expect.Locator(page.GetByTestId("search-input")).ToHaveValue(tc.query))
			// Announced as invalid: an empty aria-invalid means false.
			if err := expect.Locator(page.GetByTestId("search-input")).ToHaveAttribute("aria-invalid", "true"); err != nil {
				t.Errorf("the refused query's box is not marked invalid: %v", err)
			}
			must(t, expect.Locator(page.GetByTestId("search-syntax")).ToBeVisible())
			must(t, expect.Locator(page.Locator("#planted")).ToHaveCount(0))
			must(t, expect.Locator(page.GetByTestId("search-results")).ToHaveCount(0))
			must(t, expect.Locator(page.GetByTestId("search-summary")).ToHaveCount(0))
			screenshotThemes(t, page, "search-refused-"+tc.name)
			checkA11y(t, page, "search-refused-"+tc.name)

			// The text can be corrected in place: the box resubmits it.
			if tc.name == "unbalanced" {
				input := page.GetByTestId("search-input")
				must(t, input.Fill("app in (web,api)"))
				must(t, input.Press("Enter"))
				must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/search\?q=app\+in\+%28web%2Capi%29&namespace=demo$`)))
				r := readSearch(t, page)
				if _, ok := r.group("deployments.apps"); !ok {
					t.Errorf("the corrected query found %v, want Deployments among them", r.resources())
				}
			}
		})
	}
}

// With the script, the finished page says what it found, and j and k (or
// the arrow keys on a result, or ArrowDown from the box) walk the result
// links; Enter follows one.
func TestSearchResultsByKeyboard(t *testing.T) {
	cs, _ := clientset(t, "admin")
	waitForWebSettled(t, cs)
	page := newPage(t)
	kb := page.Keyboard()
	goTo(t, page, searchPath("admin", "web", "demo"))
	r := readSearch(t, page)
	must(t, expect.Locator(page.GetByTestId("search-status")).ToHaveText("Done: "+r.Summary.Title+". Walk the results with j and k."))
	hits := page.Locator("[data-testid=search-results] [data-search-hit]")
	n, err := hits.Count()
	must(t, err)
	if n < 3 {
		t.Fatalf("%d result links, want at least 3 to walk", n)
	}
	// The walk is over the object links, in page order: no kind links.
	must(t, expect.Locator(hits).ToHaveCount(n))
	must(t, expect.Locator(page.Locator("[data-testid=search-row-name]")).ToHaveCount(n))
	step := func(key string, at int) {
		t.Helper()
		must(t, kb.Press(key))
		must(t, expect.Locator(hits.Nth(at)).ToBeFocused())
	}
	step("j", 0)
	focusRing(t, page, "[data-search-hit]")
	step("j", 1)
	screenshotThemes(t, page, "search-keyboard")
	step("k", 0)
	step("k", 0) // the first stays first
	step("ArrowDown", 1)
	step("ArrowUp", 0)

	// In the box, j is a letter; ArrowDown leaves the box for the first result.
	input := page.GetByTestId("search-input")
	must(t, input.Focus())
	must(t, kb.Press("End"))
	must(t, kb.Press("j"))
	must(t, expect.Locator(input).ToHaveValue("webj"))
	must(t, expect.Locator(input).ToBeFocused())
	step("ArrowDown", 0)
	checkA11y(t, page, "search-keyboard")

	step("j", 1)
	href, err := hits.Nth(1).GetAttribute("href")
	must(t, err)
	must(t, kb.Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(env.console.URL+href))
	must(t, expect.Locator(page.GetByTestId("object-header")).ToBeVisible())
}

// Without JavaScript the page is whole: the results, the summary and the
// skipped kinds are all in the HTML.
func TestSearchWithoutJavaScript(t *testing.T) {
	cs, _ := clientset(t, "admin")
	waitForWebSettled(t, cs)
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:          &playwright.Size{Width: 1360, Height: 900},
		JavaScriptEnabled: playwright.Bool(false),
	})
	goTo(t, page, searchPath("viewer", "web", "demo"))
	groups := page.Locator("section[data-testid=search-group]")
	must(t, expect.Locator(page.GetByTestId("search-summary")).ToBeVisible())
	for _, resource := range []string{"deployments.apps", "replicasets.apps", "pods", "configmaps"} {
		g := page.Locator(`section[data-testid=search-group][data-resource="` + resource + `"]`)
		must(t, expect.Locator(g.GetByTestId("search-row").First()).ToBeVisible())
	}
	must(t, expect.Locator(groups.GetByTestId("search-row-name").GetByText("web-config", playwright.LocatorGetByTextOptions{Exact: playwright.Bool(true)})).ToBeVisible())
	must(t, expect.Locator(page.Locator(`li[data-testid=search-skipped][data-reason=forbidden][data-resource=secrets]`)).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("search-summary").Locator("h2")).ToHaveText(regexp.MustCompile(`^\d+ matches in \d+ kinds$`)))
	must(t, expect.Locator(page.GetByTestId("search-cost")).ToContainText("Nothing was cached"))
	// The status line keeps what the server wrote: no script rewrote it.
	must(t, expect.Locator(page.GetByTestId("search-status")).ToContainText("Results appear by kind as each answers"))
	screenshotThemesWithoutScript(t, page, "search-nojs")
}

// screenshotThemesWithoutScript screenshots a page in both themes where no
// script may set html[data-theme]: the theme cookie renders each.
func screenshotThemesWithoutScript(t *testing.T, page playwright.Page, base string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		must(t, page.Context().AddCookies([]playwright.OptionalCookie{{
			Name: "tabula-theme", Value: theme, URL: playwright.String(env.console.URL),
		}}))
		_, err := page.Reload()
		must(t, err)
		must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("data-theme", theme))
		must(t, expect.Locator(page.GetByTestId("search-summary")).ToBeVisible())
		screenshot(t, page, base+"-"+theme+".png")
	}
}
