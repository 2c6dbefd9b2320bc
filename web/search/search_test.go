package search_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/brotli"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/search"
	"github.com/tabula-console/tabula/web/webtest"
)

// result is a search page as a test reads it.
type result struct {
	doc *goquery.Document
	// groups maps data-resource to the names its rows show.
	groups map[string][]string
	// skipped maps data-resource to its data-reason.
	skipped map[string]string
	summary *goquery.Selection
}

func read(t *testing.T, body string) result {
	t.Helper()
	doc := webtest.Parse(t, body)
	r := result{doc: doc, groups: map[string][]string{}, skipped: map[string]string{}, summary: doc.Find("[data-testid=search-summary]")}
	doc.Find("[data-testid=search-group]").Each(func(_ int, g *goquery.Selection) {
		res := g.AttrOr("data-resource", "?")
		if _, dup := r.groups[res]; dup {
			t.Errorf("kind %s shown twice", res)
		}
		r.groups[res] = webtest.Texts(webtest.Parse(t, webtest.Outer(g)), "[data-testid=search-row-name]")
	})
	doc.Find("[data-testid=search-skipped]").Each(func(_ int, s *goquery.Selection) {
		r.skipped[s.AttrOr("data-resource", "?")] = s.AttrOr("data-reason", "?")
	})
	if r.summary.Length() != 1 && doc.Find("[data-testid=search-error]").Length() == 0 && doc.Find("[data-testid=search-syntax]").Length() == 0 {
		t.Fatal("the page has no summary: it did not finish")
	}
	return r
}

func (r result) attr(t *testing.T, name string) int {
	t.Helper()
	n, err := strconv.Atoi(r.summary.AttrOr(name, ""))
	if err != nil {
		t.Fatalf("summary %s: %v", name, err)
	}
	return n
}

func get(t *testing.T, h *webtest.Console, query string, want int) result {
	t.Helper()
	_, body := h.Get(t, "/c/dev/search?"+query, want)
	return read(t, body)
}

func q(text string) string { return "q=" + url.QueryEscape(text) }

// lists are the list requests the fake served: every GET of a collection.
func lists(fake *apitest.Server) []*http.Request {
	var out []*http.Request
	for _, r := range fake.Requests() {
		if r.Method == http.MethodGet && r.URL.Query().Has("limit") {
			out = append(out, r)
		}
	}
	return out
}

func budget(change func(*search.Budget)) webtest.Options {
	b := search.DefaultBudget()
	change(&b)
	return webtest.Options{Deps: web.Deps{Search: b}}
}

// A name search finds every kind's objects that share the word, each
// linked to its page, with each kind's status column, and states what it
// cost: exactly the list requests the server saw.
func TestNameSearchAcrossKinds(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.Add(apitest.Object("v1", "Service", "team-a", "web-front", nil))
	fake.ResetRequests()
	r := get(t, h, q("WEB ns:*"), http.StatusOK)
	want := map[string][]string{
		"deployments.apps": {"web"},
		"replicasets.apps": {"web-5d9"},
		"pods":             {"web-5d9-a", "web-5d9-b"},
		"services":         {"web-front"},
	}
	for res, names := range want {
		got := r.groups[res]
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Errorf("%s: rows %v, want %v", res, got, names)
		}
	}
	if len(r.groups) != len(want) {
		t.Errorf("groups %v, want only %v", r.groups, want)
	}
	pod := r.doc.Find(`[data-resource=pods] [data-testid=search-row]`).First()
	if href := pod.Find("[data-testid=search-row-name]").AttrOr("href", ""); href != "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a" {
		t.Errorf("pod link %q", href)
	}
	if ns := pod.Find("[data-testid=search-row-namespace]").Text(); ns != "demo" {
		t.Errorf("pod namespace %q", ns)
	}
	if kind := pod.Find("[data-testid=search-row-kind]"); kind.Text() != "Pod" || kind.AttrOr("href", "") != "/c/dev/api/v1/pods" {
		t.Errorf("pod kind %q → %q", kind.Text(), kind.AttrOr("href", ""))
	}
	if age := pod.Find("[data-testid=search-row-age] time"); age.AttrOr("datetime", "") == "" {
		t.Error("the pod row has no age")
	}
	if n := r.doc.Find("[elementtiming=search-first-row]").Length(); n != 1 {
		t.Errorf("%d rows are timed as the first, want 1", n)
	}
	if got := r.doc.Find(`[data-resource="deployments.apps"] [data-testid=search-row-status]`).Text(); got != "2/2" {
		t.Errorf("the deployment's Ready cell %q", got)
	}
	if got := r.doc.Find(`[data-resource="replicasets.apps"] [data-testid=search-row-status]`).Text(); got != "2" {
		t.Errorf("the replica set's Ready cell (a number) %q", got)
	}
	if got := r.doc.Find(`[data-resource="deployments.apps"] [data-testid=search-group-count]`).Text(); got != "1" {
		t.Errorf("deployment count %q", got)
	}
	// bindings serve no list: skipped, and never asked.
	if r.skipped["bindings"] != string(search.NoList) {
		t.Errorf("bindings: %q, want no-list (skipped %v)", r.skipped["bindings"], r.skipped)
	}
	sent, pages := lists(fake), 0
	for _, req := range sent {
		if strings.Contains(req.URL.Path, "bindings") {
			t.Errorf("a kind without list was listed: %s", req.URL)
		}
		q := req.URL.Query()
		if q.Get("limit") == "1" && req.URL.Path == "/apis/events.k8s.io/v1/events" {
			continue // whether core's twin serves the same objects: it has none
		}
		pages++
		if q.Get("includeObject") != "Metadata" || q.Get("limit") != "500" || !strings.Contains(req.Header.Get("Accept"), "as=Table") {
			t.Errorf("list request %s (Accept %s) is not a metadata Table page", req.URL, req.Header.Get("Accept"))
		}
	}
	if got := r.attr(t, "data-requests"); got != len(sent) || pages != r.attr(t, "data-kinds-asked") || got != pages+1 {
		t.Errorf("summary says %d requests; the server saw %d, %d of them pages, for %d kinds", got, len(sent), pages, r.attr(t, "data-kinds-asked"))
	}
	if r.attr(t, "data-matches") != 5 || r.attr(t, "data-bytes") <= 0 {
		t.Errorf("summary: matches %s, bytes %s", r.summary.AttrOr("data-matches", ""), r.summary.AttrOr("data-bytes", ""))
	}
	if cost := r.doc.Find("[data-testid=search-cost]").Text(); !strings.Contains(cost, "Nothing was cached") || !strings.Contains(cost, "8 kinds at a time") {
		t.Errorf("cost %q", cost)
	}
}

// The scope: ns: or the picker's namespace, cluster-scoped kinds only
// across all namespaces (or named), kind: narrowing.
func TestSearchScopes(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})

	inDemo := get(t, h, q("web")+"&namespace=demo", http.StatusOK)
	if _, ok := inDemo.groups["pods"]; !ok {
		t.Errorf("the picker's namespace: groups %v", inDemo.groups)
	}
	all := get(t, h, q("o")+"&namespace=demo", http.StatusOK)
	if got := all.groups["pods"]; slices.Contains(got, "worker-1") {
		t.Error("a namespaced search found team-a's worker-1")
	}
	if _, ok := all.groups["sessions.policy.example.com"]; ok {
		t.Error("a namespaced search listed a cluster-scoped kind")
	}
	wider := all.doc.Find("[data-testid=search-wider]")
	if wider.Length() != 1 {
		t.Fatal("no link to search all namespaces")
	}
	_, body := h.Get(t, wider.AttrOr("href", ""), http.StatusOK)
	everywhere := read(t, body)
	if !slices.Contains(everywhere.groups["pods"], "worker-1") || len(everywhere.groups["sessions.policy.example.com"]) != 2 {
		t.Errorf("across namespaces: %v", everywhere.groups)
	}

	// ns: overrides the picker; kind: narrows, and a cluster-scoped kind it
	// names is searched whatever the namespace.
	r := get(t, h, q("o ns:team-a kind:po,bos")+"&namespace=demo", http.StatusOK)
	if len(r.groups) != 2 || !slices.Equal(r.groups["pods"], []string{"worker-1"}) || len(r.groups["sessions.policy.example.com"]) != 2 {
		t.Errorf("kind:po,bos in team-a: %v", r.groups)
	}
	if r.attr(t, "data-kinds-asked") != 2 {
		t.Errorf("asked %d kinds, want 2", r.attr(t, "data-kinds-asked"))
	}

	// An unknown kind is a 400 that keeps the text.
	bad := get(t, h, q("web kind:gizmos"), http.StatusBadRequest)
	if msg := bad.doc.Find("[data-testid=search-error]").Text(); !strings.Contains(msg, "“gizmos”") {
		t.Errorf("error %q", msg)
	}
	if v := bad.doc.Find("[data-testid=search-input]").AttrOr("value", ""); v != "web kind:gizmos" {
		t.Errorf("the box holds %q", v)
	}
}

// Label terms go to the server as one labelSelector, and the kinds' list
// links carry it.
func TestLabelSearch(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.ResetRequests()
	r := get(t, h, q("app in (web, api) ns:*"), http.StatusOK)
	for _, req := range lists(fake) {
		if sel := req.URL.Query().Get("labelSelector"); sel != "app in (api,web)" && req.URL.Query().Get("limit") != "1" {
			t.Errorf("%s: labelSelector %q", req.URL.Path, sel)
		}
	}
	if got := r.groups["pods"]; len(got) != 2 || slices.Contains(got, "worker-1") {
		t.Errorf("pods %v", got)
	}
	link := r.doc.Find(`[data-resource=pods] [data-testid=search-group-list]`).AttrOr("href", "")
	if u, err := url.Parse(link); err != nil || u.Path != "/c/dev/api/v1/pods" || u.Query().Get("labelSelector") != "app in (api,web)" {
		t.Errorf("pods list link %q", link)
	}
}

// A field selector is sent to every kind; a kind whose server refuses it
// is reported as such, not dropped.
func TestFieldSelectorRefusedIsReported(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.Modify(webtest.PodGVK, "demo", "web-5d9-b", webtest.SetPhase("Pending"))
	r := get(t, h, q("field:status.phase=Running web ns:*"), http.StatusOK)
	if got := r.groups["pods"]; !slices.Equal(got, []string{"web-5d9-a"}) {
		t.Errorf("running pods %v", got)
	}
	if r.skipped["deployments.apps"] != string(search.FieldRefused) {
		t.Errorf("deployments: %q (skipped %v)", r.skipped["deployments.apps"], r.skipped)
	}
	detail := r.doc.Find(`[data-testid=search-skipped][data-resource="deployments.apps"]`).Text()
	if !strings.Contains(detail, "status.phase") {
		t.Errorf("the refusal does not say what the server said: %q", detail)
	}
}

// Objects served by two APIs (Events, by core and events.k8s.io) are
// searched once: their UIDs say they are the same, and the second kind is
// reported as searched under the first, after one object of each.
func TestSameObjectsUnderTwoAPIsAreSearchedOnce(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.Add(
		apitest.Object("v1", "Event", "demo", "web-5d9-a.17f", map[string]any{"reason": "Started"}),
		apitest.Object("events.k8s.io/v1", "Event", "demo", "web-5d9-a.17f", map[string]any{"reason": "Started"}),
	)
	fake.ResetRequests()
	r := get(t, h, q("17f ns:demo"), http.StatusOK)
	if !slices.Equal(r.groups["events"], []string{"web-5d9-a.17f"}) || len(r.groups) != 1 {
		t.Fatalf("groups %v", r.groups)
	}
	if r.skipped["events.events.k8s.io"] != string(search.SameObjects) {
		t.Errorf("events.k8s.io: %q", r.skipped["events.events.k8s.io"])
	}
	for _, req := range lists(fake) {
		if strings.HasPrefix(req.URL.Path, "/apis/events.k8s.io/") && req.URL.Query().Get("limit") != "1" {
			t.Errorf("the twin was listed: %s", req.URL)
		}
	}
	if r.attr(t, "data-matches") != 1 {
		t.Errorf("%d matches counted, want 1", r.attr(t, "data-matches"))
	}

	// Twins whose objects differ are both searched.
	fake.Delete(schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, "demo", "web-5d9-a.17f")
	fake.Add(apitest.Object("events.k8s.io/v1", "Event", "demo", "web-5d9-b.17f", nil))
	r = get(t, h, q("17f ns:demo"), http.StatusOK)
	if len(r.groups["events"]) != 1 || len(r.groups["events.events.k8s.io"]) != 1 {
		t.Errorf("different objects under twin kinds: %v (skipped %v)", r.groups, r.skipped)
	}
}

// A group version discovery could not describe is said to be unsearched,
// with why; the rest is searched.
func TestUndiscoveredGroupsAreReported(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{LegacyDiscovery: true})
	fake.FailPath("/apis/policy.example.com/v1", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable, Message: "the backend is down"})
	r := get(t, h, q("o ns:*"), http.StatusOK)
	if r.skipped["policy.example.com/v1"] != string(search.Failed) {
		t.Errorf("skipped %v", r.skipped)
	}
	if len(r.groups["pods"]) != 1 {
		t.Errorf("groups %v", r.groups)
	}
}

// A kind the server refuses (403) is reported as forbidden; the others are
// searched.
func TestListForbiddenByTheServer(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.FailResource("apps", "replicasets", apitest.Forbidden("system:anonymous", "list", "apps", "replicasets", ""))
	r := get(t, h, q("web ns:*"), http.StatusOK)
	if r.skipped["replicasets.apps"] != string(search.Forbidden) {
		t.Errorf("replicasets: %q", r.skipped["replicasets.apps"])
	}
	if _, ok := r.groups["replicasets.apps"]; ok || len(r.groups["pods"]) != 2 {
		t.Errorf("groups %v", r.groups)
	}
}

// The user's rules decide before any list: in a namespace, one rules
// review (no per-kind review, no list of a denied kind); across namespaces,
// one access review per kind the rules do not deny.
func TestAccessIsCheckedBeforeListing(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	fake := h.Fake
	fake.ResetRequests()
	body := h.GetAs(t, webtest.ViewerToken, "/c/dev/search?"+q("creds settings web ns:demo"), http.StatusOK)
	r := read(t, body)
	if r.skipped["secrets"] != string(search.Forbidden) {
		t.Errorf("secrets: %q (skipped %v)", r.skipped["secrets"], r.skipped)
	}
	if detail := r.doc.Find(`[data-testid=search-skipped][data-resource=secrets]`).Text(); !strings.Contains(detail, "list") {
		t.Errorf("forbidden secrets say %q", detail)
	}
	for _, req := range fake.Requests() {
		if strings.Contains(req.URL.Path, "/secrets") || strings.HasSuffix(req.URL.Path, "selfsubjectaccessreviews") {
			t.Errorf("the viewer's search in demo sent %s %s", req.Method, req.URL.Path)
		}
	}
	if r.attr(t, "data-reviews") != 0 {
		t.Errorf("%d access reviews in a namespace the rules decide", r.attr(t, "data-reviews"))
	}
	// No cluster-scoped kind is the viewer's to list: no offer to widen.
	if r.doc.Find("[data-testid=search-wider]").Length() != 0 {
		t.Error("the viewer is offered a search of cluster-scoped kinds they may not list")
	}

	// The admin finds the Secret the viewer may not list.
	admin := read(t, h.GetAs(t, webtest.ConsoleToken, "/c/dev/search?"+q("creds ns:demo"), http.StatusOK))
	if !slices.Equal(admin.groups["secrets"], []string{"creds"}) || admin.doc.Find("[data-testid=search-wider]").Length() != 1 {
		t.Errorf("the admin's search: %v, wider link %d", admin.groups, admin.doc.Find("[data-testid=search-wider]").Length())
	}

	// Who may list everything everywhere is asked once, not once per kind.
	fake.ResetRequests()
	adminAll := read(t, h.GetAs(t, webtest.ConsoleToken, "/c/dev/search?"+q("web ns:*"), http.StatusOK))
	reviews := 0
	for _, req := range fake.Requests() {
		if strings.HasSuffix(req.URL.Path, "selfsubjectaccessreviews") {
			reviews++
		}
	}
	if reviews != 1 || adminAll.attr(t, "data-reviews") != 1 || !slices.Equal(adminAll.groups["pods"], []string{"web-1"}) {
		t.Errorf("the admin across namespaces: %d reviews sent, %d stated; groups %v", reviews, adminAll.attr(t, "data-reviews"), adminAll.groups)
	}
	if adminAll.attr(t, "data-requests") != len(lists(fake))+1 {
		t.Errorf("stated %d requests, sent %d lists and a review", adminAll.attr(t, "data-requests"), len(lists(fake)))
	}

	// Across namespaces the viewer, bound in demo only, may list nothing,
	// and the rules (which stand for every namespace's) say so: no review,
	// no list.
	fake.ResetRequests()
	everywhere := read(t, h.GetAs(t, webtest.ViewerToken, "/c/dev/search?"+q("web ns:*"), http.StatusOK))
	if len(everywhere.groups) != 0 || len(lists(fake)) != 0 || everywhere.skipped["pods"] != string(search.Forbidden) {
		t.Errorf("the viewer across namespaces: groups %v, %d lists, pods %q", everywhere.groups, len(lists(fake)), everywhere.skipped["pods"])
	}
}

// Across namespaces, rules that allow a kind may come from one namespace's
// bindings: each such kind is asked about (a SelfSubjectAccessReview)
// before it is listed, and only what the server allows everywhere is.
func TestAccessAcrossNamespacesIsReviewed(t *testing.T) {
	rules := append(apitest.Viewer("local", "default", "demo"),
		apitest.Rule{Groups: []string{"cluster"}, Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}})
	h := webtest.WithAccess(t, &apitest.Access{
		Users: map[string]apitest.User{
			webtest.ConsoleToken: {Name: "admin", Groups: []string{"cluster"}},
			webtest.ViewerToken:  {Name: "alice", Groups: []string{"local"}},
		},
		Rules: rules,
	})
	fake := h.Fake
	fake.ResetRequests()
	r := read(t, h.GetAs(t, webtest.ViewerToken, "/c/dev/search?"+q("web ns:*"), http.StatusOK))
	if len(r.groups) != 0 || len(lists(fake)) != 0 {
		t.Errorf("listed across namespaces with namespace grants: groups %v, %d lists", r.groups, len(lists(fake)))
	}
	reviews := 0
	for _, req := range fake.Requests() {
		if strings.HasSuffix(req.URL.Path, "selfsubjectaccessreviews") {
			reviews++
		}
	}
	if r.skipped["pods"] != string(search.Forbidden) || reviews == 0 || r.attr(t, "data-reviews") != reviews {
		t.Errorf("pods %q; %d reviews sent, the summary says %d", r.skipped["pods"], reviews, r.attr(t, "data-reviews"))
	}

	// Who may list pods everywhere finds them, and is refused the rest
	// without a list.
	fake.ResetRequests()
	admin := read(t, h.GetAs(t, webtest.ConsoleToken, "/c/dev/search?"+q("web ns:*"), http.StatusOK))
	if !slices.Equal(admin.groups["pods"], []string{"web-1"}) || len(lists(fake)) != 1 {
		t.Errorf("cluster-wide pods: groups %v, %d lists", admin.groups, len(lists(fake)))
	}
	if admin.skipped["deployments.apps"] != string(search.Forbidden) {
		t.Errorf("deployments: %q", admin.skipped["deployments.apps"])
	}
}

// A continue token that expires while a kind is paged cuts that kind
// short: what its first pages matched is shown, with why it may be short.
func TestExpiredWhilePaging(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	page, err := json.Marshal(apitest.KwokPodTableMetadata(3))
	if err != nil {
		t.Fatal(err)
	}
	fake.Override("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("continue") != "" {
			apitest.WriteStatus(w, apitest.ContinueExpired())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	})
	r := get(t, h, q("bulk ns:*"), http.StatusOK)
	if got := r.groups["pods"]; len(got) != 3 {
		t.Errorf("pods %v", got)
	}
	if r.skipped["pods"] != string(search.Expired) {
		t.Errorf("pods: %q", r.skipped["pods"])
	}
	if note := r.doc.Find(`[data-resource=pods] [data-testid=search-group-note]`).Text(); !strings.Contains(note, "Cut short") {
		t.Errorf("note %q", note)
	}
}

// Servers without Tables (406) and without aggregated discovery are
// searched as their lists are read: the fallbacks, every request counted.
func TestForeignServers(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts apitest.Options
	}{
		{"406", apitest.Options{Table: apitest.TableNotAcceptable}},
		{"no Tables, legacy discovery", apitest.Options{Table: apitest.TableNone, LegacyDiscovery: true}},
		{"406 without metadata lists", apitest.Options{Table: apitest.TableNotAcceptable, NoPartialMetadata: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, fake := webtest.Demo(t, tc.opts)
			fake.ResetRequests()
			r := get(t, h, q("x300 ns:*"), http.StatusOK)
			if got := r.groups["sessions.policy.example.com"]; len(got) != 2 {
				t.Errorf("sessions %v (groups %v, skipped %v)", got, r.groups, r.skipped)
			}
			sent := 0
			for _, req := range fake.Requests() {
				if req.URL.Query().Has("limit") {
					sent++
				}
			}
			if got := r.attr(t, "data-requests"); got != sent {
				t.Errorf("summary says %d requests, the server saw %d", got, sent)
			}
		})
	}
}

// A kind that hangs is cut at its deadline; the others finish, and the
// search with them.
func TestHungKindTimesOut(t *testing.T) {
	h, fake := webtest.DemoWith(t, apitest.Options{}, budget(func(b *search.Budget) { b.PerKind = 300 * time.Millisecond }))
	fake.Override("/apis/apps/v1/replicasets", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	start := time.Now()
	r := get(t, h, q("web ns:*"), http.StatusOK)
	if r.skipped["replicasets.apps"] != string(search.TimedOut) {
		t.Errorf("replicasets: %q", r.skipped["replicasets.apps"])
	}
	if !strings.Contains(r.doc.Find(`[data-testid=search-skipped][data-resource="replicasets.apps"]`).Text(), "0.3 s") {
		t.Error("the timeout does not say the budget")
	}
	if len(r.groups["pods"]) != 2 || len(r.groups["deployments.apps"]) != 1 {
		t.Errorf("groups %v", r.groups)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the search took %s", took)
	}
}

// The total deadline ends a search: kinds not started are reported, and
// the page still finishes.
func TestTotalDeadline(t *testing.T) {
	h, fake := webtest.DemoWith(t, apitest.Options{}, budget(func(b *search.Budget) {
		b.Total, b.Concurrency = 300*time.Millisecond, 1
	}))
	fake.Override("/api/v1/events", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	r := get(t, h, q("web ns:*"), http.StatusOK)
	timedOut := 0
	for _, reason := range r.skipped {
		if reason == string(search.TimedOut) {
			timedOut++
		}
	}
	if timedOut < 2 || !strings.Contains(r.doc.Find(`[data-testid=search-skipped-group][data-reason=timeout]`).Text(), "0.3 s") {
		t.Errorf("%d kinds timed out (skipped %v)", timedOut, r.skipped)
	}
}

// The first kind is on the page while the slowest has not answered, in
// every coding the console sends.
func TestResultsStreamBeforeTheSlowestKind(t *testing.T) {
	for _, enc := range []string{"identity", "gzip", "br"} {
		t.Run(enc, func(t *testing.T) {
			h, fake := webtest.Demo(t, apitest.Options{})
			release, ended := make(chan struct{}), make(chan struct{})
			fake.Override("/apis/apps/v1/replicasets", func(_ http.ResponseWriter, r *http.Request) {
				defer close(ended)
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			released := false
			defer func() {
				if !released {
					close(release)
				}
			}()
			req, err := http.NewRequest(http.MethodGet, h.URL+"/c/dev/search?"+q("web ns:*"), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Encoding", enc)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			var body io.Reader = resp.Body
			switch got := resp.Header.Get("Content-Encoding"); {
			case enc == "identity" && got == "":
			case enc == "gzip" && got == "gzip":
				if body, err = gzip.NewReader(resp.Body); err != nil {
					t.Fatal(err)
				}
			case enc == "br" && got == "br":
				body = brotli.NewReader(resp.Body)
			default:
				t.Fatalf("asked for %s, got Content-Encoding %q", enc, got)
			}
			page := bufio.NewReader(body)
			var seen strings.Builder
			webtest.ReadUntil(t, page, &seen, "any group", func(tag string) bool {
				return strings.Contains(tag, `data-testid="search-group"`)
			})
			select {
			case <-ended:
				t.Fatal("the first group came only once the slowest kind had ended")
			default:
			}
			if strings.Contains(seen.String(), `data-testid="search-summary"`) {
				t.Fatal("the summary came before the slowest kind answered")
			}
			close(release)
			released = true
			rest, err := io.ReadAll(page)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(rest), `data-testid="search-summary"`) || !strings.HasSuffix(strings.TrimSpace(string(rest)), "</html>") {
				t.Errorf("the page did not finish: …%s", webtest.Clip(string(rest)))
			}
		})
	}
}

// A browser that goes away stops the search: its hung request is cancelled
// rather than waiting for the deadlines.
func TestLeavingStopsTheSearch(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	started, ended := make(chan struct{}), make(chan struct{})
	fake.Override("/apis/apps/v1/replicasets", func(_ http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		close(ended)
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/c/dev/search?"+q("web ns:*"), nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request outlived the page")
	}
}

// A kind with more objects than the budget is read up to it, then cut and
// reported; every page is one request.
func TestTooManyObjects(t *testing.T) {
	h, fake := webtest.DemoWith(t, apitest.Options{}, budget(func(b *search.Budget) { b.PageSize, b.MaxObjects = 1, 2 }))
	fake.Add(apitest.Pod("demo", "web-extra", nil))
	fake.ResetRequests()
	r := get(t, h, q("web ns:demo kind:pods"), http.StatusOK)
	if r.skipped["pods"] != string(search.TooMany) {
		t.Errorf("pods: %q", r.skipped["pods"])
	}
	if n := len(lists(fake)); n != 2 || r.attr(t, "data-requests") != 2 {
		t.Errorf("%d pages asked (summary %d), want 2", n, r.attr(t, "data-requests"))
	}
	if got := r.groups["pods"]; len(got) != 2 {
		t.Errorf("pods %v", got)
	}
}

// Paging: every page of a kind is read, one request each.
func TestEveryPageIsRead(t *testing.T) {
	h, fake := webtest.DemoWith(t, apitest.Options{}, budget(func(b *search.Budget) { b.PageSize = 1 }))
	fake.ResetRequests()
	r := get(t, h, q("web ns:demo kind:pods"), http.StatusOK)
	if got := r.groups["pods"]; len(got) != 2 {
		t.Errorf("pods %v", got)
	}
	if n := len(lists(fake)); n != 2 {
		t.Errorf("%d pages for 2 pods a page each, want 2", n)
	}
}

// A kind shows its first matches and links to all of them: a search of
// that kind alone, which shows more.
func TestMoreMatchesThanShown(t *testing.T) {
	h, _ := webtest.DemoWith(t, apitest.Options{}, budget(func(b *search.Budget) { b.Shown = 1 }))
	r := get(t, h, q("web ns:*"), http.StatusOK)
	if got := r.groups["pods"]; len(got) != 1 {
		t.Fatalf("pods %v, want 1 shown", got)
	}
	if got := r.doc.Find(`[data-resource=pods] [data-testid=search-group-count]`).Text(); got != "2" {
		t.Errorf("count %q", got)
	}
	more := r.doc.Find(`[data-resource=pods] [data-testid=search-group-more]`)
	if !strings.Contains(more.Text(), "All 2 matches") {
		t.Errorf("more %q", more.Text())
	}
	_, body := h.Get(t, more.AttrOr("href", ""), http.StatusOK)
	all := read(t, body)
	if len(all.groups) != 1 || len(all.groups["pods"]) != 2 {
		t.Errorf("all matches: %v", all.groups)
	}
	// Without words, the list holds exactly the matches.
	labels := get(t, h, q("app=web ns:*"), http.StatusOK)
	if href := labels.doc.Find(`[data-resource=pods] [data-testid=search-group-more]`).AttrOr("href", ""); !strings.HasPrefix(href, "/c/dev/api/v1/pods?labelSelector=") {
		t.Errorf("a label search's more link %q", href)
	}
}

// Hostile queries are a clear 400 that keeps the text, and ask nothing of
// the server.
func TestHostileQueries(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	for name, text := range map[string]string{
		"very long":   strings.Repeat("web ", 2000),
		"unbalanced":  "app in (web",
		"NUL":         "web\x00pods",
		"nested":      "app in ((a))",
		"bad label":   "app=web=x",
		"not utf-8":   "web\xff",
		"script":      `"><script>alert(1)</script>`,
		"bad ns":      "web ns:../../etc",
		"many kinds":  "kind:" + strings.Repeat("po,", 40),
		"empty field": "field:",
	} {
		t.Run(name, func(t *testing.T) {
			fake.ResetRequests()
			r := get(t, h, q(text), http.StatusBadRequest)
			if r.doc.Find("[data-testid=search-error]").Text() == "" {
				t.Error("no reason given")
			}
			if r.doc.Find(`[data-testid=search-input][aria-invalid=true]`).Length() != 1 {
				t.Error("the box is not marked invalid")
			}
			if got := r.doc.Find("[data-testid=search-input]").AttrOr("value", ""); got != strings.ReplaceAll(text, "\x00", "\uFFFD") {
				t.Errorf("the box holds %q", webtest.Clip(got))
			}
			if n := len(lists(fake)); n != 0 {
				t.Errorf("%d lists for a refused query", n)
			}
		})
	}
	// No query: the form and the language, 200.
	empty := get(t, h, "", http.StatusOK)
	if empty.doc.Find("[data-testid=search-syntax]").Length() != 1 || empty.summary.Length() != 0 {
		t.Error("an empty search shows no help, or ran")
	}
}

// open starts a search and reads it up to its first group; the rest is
// read with finish. hdr are extra request headers (webtest.As).
func open(t *testing.T, h *webtest.Console, query string, hdr map[string]string) (*bufio.Reader, func() result) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.URL+"/c/dev/search?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	page := bufio.NewReader(resp.Body)
	var seen strings.Builder
	webtest.ReadUntil(t, page, &seen, "any group", func(tag string) bool {
		return strings.Contains(tag, `data-testid="search-group"`)
	})
	return page, func() result {
		rest, err := io.ReadAll(page)
		if err != nil {
			t.Fatal(err)
		}
		return read(t, seen.String()+string(rest))
	}
}

// hold makes a kind's list hang until the returned release is called.
func hold(t *testing.T, fake *apitest.Server, path string) (release func(), asked func() int) {
	t.Helper()
	ch := make(chan struct{})
	var mu sync.Mutex
	n := 0
	fake.Override(path, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		select {
		case <-ch:
		case <-r.Context().Done():
			return
		}
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusServiceUnavailable, Reason: metav1.StatusReasonServiceUnavailable, Message: "held"})
	})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	return release, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// Identical searches of one identity at the same time share one run: the
// one that joins sees what already finished at once, the server is asked
// once, and both pages finish. Once the run ended, the next runs afresh.
func TestIdenticalSearchesShareOneRun(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	release, asked := hold(t, fake, "/apis/apps/v1/replicasets")
	fake.ResetRequests()
	_, finishA := open(t, h, q("web ns:*"), nil)
	_, finishB := open(t, h, q("web ns:*"), nil) // before the held kind answered
	release()
	a, b := finishA(), finishB()
	if asked() != 1 {
		t.Errorf("the held kind was asked %d times, want once for both", asked())
	}
	pods := 0
	for _, req := range lists(fake) {
		if req.URL.Path == "/api/v1/pods" {
			pods++
		}
	}
	if pods != 1 {
		t.Errorf("pods listed %d times, want once", pods)
	}
	if a.summary.AttrOr("data-shared", "") != "false" || b.summary.AttrOr("data-shared", "") != "true" {
		t.Errorf("shared: first %q, second %q", a.summary.AttrOr("data-shared", ""), b.summary.AttrOr("data-shared", ""))
	}
	if !strings.Contains(b.doc.Find("[data-testid=search-cost]").Text(), "shared the run of an identical one") {
		t.Errorf("the second search's cost does not say it shared: %q", b.doc.Find("[data-testid=search-cost]").Text())
	}
	for _, r := range []result{a, b} {
		if len(r.groups["pods"]) != 2 || r.skipped["replicasets.apps"] != string(search.Failed) {
			t.Errorf("groups %v, replicasets %q", r.groups, r.skipped["replicasets.apps"])
		}
	}
	// Over: the same search again asks the server again.
	again := get(t, h, q("web ns:*"), http.StatusOK)
	if asked() != 2 || again.summary.AttrOr("data-shared", "") != "false" {
		t.Errorf("a later search: held kind asked %d times in all, shared %q", asked(), again.summary.AttrOr("data-shared", ""))
	}
}

// Searches of different identities never share, even when identical.
func TestSearchesOfDifferentUsersDoNotShare(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	release, asked := hold(t, h.Fake, "/apis/apps/v1/namespaces/demo/replicasets")
	_, finishAdmin := open(t, h, q("web ns:demo"), webtest.As(webtest.ConsoleToken))
	_, finishEditor := open(t, h, q("web ns:demo"), webtest.As(webtest.EditorToken))
	apitest.WaitFor(t, 10*time.Second, func() error {
		if n := asked(); n != 2 {
			return fmt.Errorf("the held kind was asked %d times, want once per user", n)
		}
		return nil
	})
	release()
	admin, editor := finishAdmin(), finishEditor()
	if admin.summary.AttrOr("data-shared", "") != "false" || editor.summary.AttrOr("data-shared", "") != "false" {
		t.Error("searches of two users shared a run")
	}
}

// A search that leaves a shared run does not stop it for the other.
func TestLeavingASharedRunKeepsItForTheOther(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	release, _ := hold(t, fake, "/apis/apps/v1/replicasets")
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/c/dev/search?"+q("web ns:*"), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, finish := open(t, h, q("web ns:*"), nil)
	cancel() // the first browser goes away
	resp.Body.Close()
	release()
	r := finish()
	if r.skipped["replicasets.apps"] != string(search.Failed) || len(r.groups["pods"]) != 2 {
		t.Errorf("the remaining search: groups %v, replicasets %q", r.groups, r.skipped["replicasets.apps"])
	}
}
