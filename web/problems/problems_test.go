package problems_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/problems"
	"github.com/tabula-console/tabula/web/webtest"
)

var lighthouseGVK = schema.GroupVersionKind{Group: "maritime.tabula.dev", Version: "v1alpha1", Kind: "Lighthouse"}

func ago(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }

// lighthouse is an object of a kind no code of the console knows, with a
// Ready condition.
func lighthouse(namespace, name, ready, reason string, since time.Duration) *unstructured.Unstructured {
	return apitest.Object("maritime.tabula.dev/v1alpha1", "Lighthouse", namespace, name, map[string]any{
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready, "reason": reason,
			"message": "the lamp is " + strings.ToLower(reason), "lastTransitionTime": ago(since)}}},
	})
}

func crashLooping(pod *unstructured.Unstructured) *unstructured.Unstructured {
	_ = unstructured.SetNestedField(pod.Object, map[string]any{
		"phase":      "Running",
		"conditions": []any{map[string]any{"type": "Ready", "status": "False", "lastTransitionTime": ago(time.Hour)}},
		"containerStatuses": []any{map[string]any{"name": "app", "restartCount": int64(6), "ready": false,
			"state":     map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}},
			"lastState": map[string]any{"terminated": map[string]any{"reason": "Error", "exitCode": int64(1), "finishedAt": ago(time.Minute)}}}},
	}, "status")
	return pod
}

func running(pod *unstructured.Unstructured) *unstructured.Unstructured {
	_ = unstructured.SetNestedField(pod.Object, map[string]any{
		"phase":             "Running",
		"conditions":        []any{map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": ago(time.Hour)}},
		"containerStatuses": []any{map[string]any{"name": "app", "restartCount": int64(0), "ready": true, "state": map[string]any{"running": map[string]any{"startedAt": ago(time.Hour)}}}},
	}, "status")
	return pod
}

func warningEvent(name, about, reason string, count int64) *unstructured.Unstructured {
	return apitest.Object("events.k8s.io/v1", "Event", "demo", name, map[string]any{
		"type": "Warning", "reason": reason, "note": "Back-off restarting failed container app", "deprecatedCount": count,
		"deprecatedFirstTimestamp": ago(time.Hour), "deprecatedLastTimestamp": ago(time.Minute),
		"regarding": map[string]any{"apiVersion": "v1", "kind": "Pod", "namespace": "demo", "name": about, "uid": string(apitest.UIDFor("Pod", "demo", about))},
	})
}

func world(t *testing.T, gvs ...apitest.GroupVersion) (*webtest.Console, *apitest.Server) {
	t.Helper()
	if len(gvs) == 0 {
		gvs = []apitest.GroupVersion{apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1(), apitest.MaritimeV1Alpha1()}
	}
	fake := apitest.NewServer(t, gvs...)
	fake.Add(lighthouse("demo", "dark", "False", "BeaconDark", 10*time.Minute), lighthouse("demo", "lit", "True", "Lit", time.Hour))
	return webtest.Start(t, fake, webtest.Options{}), fake
}

func withPods(fake *apitest.Server) {
	fake.Add(crashLooping(apitest.Pod("demo", "crashy", nil)), running(apitest.Pod("demo", "fine", nil)),
		warningEvent("crashy.1", "crashy", "BackOff", 5), warningEvent("crashy.2", "crashy", "BackOff", 2))
}

// rows are the problem rows of a section: "Kind name reason".
func rows(doc *goquery.Document, section string) []string {
	var out []string
	doc.Find("[data-testid=problems-section][data-category=" + section + "] [data-testid=problem-row]").Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-kind", "")+" "+s.AttrOr("data-name", "")+" "+s.AttrOr("data-reason", ""))
	})
	return out
}

func count(doc *goquery.Document, category string) string {
	return doc.Find("[data-testid=problem-counts] [data-testid=problem-count][data-category=" + category + "] .problem-count-n").Text()
}

func TestProblemsOfANamespace(t *testing.T) {
	h, fake := world(t)
	withPods(fake)
	_, body := h.Get(t, "/c/dev/problems?ns=demo&after=5m", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := rows(doc, "pods"); len(got) != 1 || got[0] != "Pod crashy CrashLoopBackOff" {
		t.Errorf("pods = %q", got)
	}
	row := doc.Find("[data-testid=problem-row][data-name=crashy]")
	if !strings.Contains(row.Text(), "app") || !strings.Contains(row.Text(), "6") || !strings.Contains(row.Text(), "back-off 5m0s") {
		t.Errorf("the crash-looping pod's row lacks its container, restarts or message: %q", row.Text())
	}
	if got := rows(doc, "stuck"); len(got) != 1 || got[0] != "Lighthouse dark BeaconDark" {
		t.Errorf("stuck = %q", got)
	}
	if !strings.Contains(doc.Find("[data-testid=problem-row][data-name=dark] [data-testid=problem-message]").Text(), "the lamp is beacondark") {
		t.Error("the Ready=False condition's message is not shown")
	}
	if got := webtest.Texts(doc, "[data-testid=warning-row] [data-testid=warning-count]"); len(got) != 1 || got[0] != "7" {
		t.Errorf("warning groups = %q, want one BackOff group of 7", got)
	}
	if href := doc.Find("[data-testid=warning-row] a").AttrOr("href", ""); href != "/c/dev/api/v1/namespaces/demo/pods/crashy" {
		t.Errorf("the warning links to %q", href)
	}
	for category, want := range map[string]string{"failed": "0", "stuck": "1", "pods": "1", "warnings": "1"} {
		if got := count(doc, category); got != want {
			t.Errorf("%s count = %q, want %s", category, got, want)
		}
	}
	if href := doc.Find("[data-testid=problem-count][data-category=pods]").AttrOr("href", ""); href != "/c/dev/problems?after=5m&namespace=demo#pods" {
		t.Errorf("the pods count links to %q", href)
	}
	if live := doc.Find("[data-testid=problems-live]").AttrOr("data-live", ""); live != "sections" {
		t.Errorf("data-live = %q", live)
	}
	if cost := doc.Find("[data-testid=problems-cost]").Text(); !strings.Contains(cost, "requests") || !strings.Contains(cost, "kinds asked") {
		t.Errorf("the page does not say what it asked: %q", cost)
	}

	if reason := doc.Find("[data-testid=problems-not-asked] li[data-resource=secrets]").Text(); !strings.Contains(reason, "no status") {
		t.Errorf("secrets are not listed as not asked, with why: %q", reason)
	}

	// A longer threshold shows less in progress.
	_, body = h.Get(t, "/c/dev/problems?namespace=demo&after=15m", http.StatusOK)
	if got := rows(webtest.Parse(t, body), "stuck"); len(got) != 0 {
		t.Errorf("at 15m, a lighthouse dark for 10m is stuck: %q", got)
	}
}

func TestProblemsRefuseWhatTheyCannotUse(t *testing.T) {
	h, fake := world(t)
	for _, path := range []string{"/c/dev/problems?namespace=Not_A_Namespace", "/c/dev/problems?after=forever", "/c/dev/problems?after=-1m", "/c/dev/problems?after=48h"} {
		fake.ResetRequests()
		_, body := h.Get(t, path, http.StatusBadRequest)
		doc := webtest.Parse(t, body)
		if doc.Find("[data-testid=problems-error]").Text() == "" || doc.Find("[data-testid=problems-form]").Length() != 1 {
			t.Errorf("%s: no reason, or no form", path)
		}
		for _, r := range fake.Requests() {
			if strings.Contains(r.URL.Path, "lighthouses") || strings.Contains(r.URL.Path, "/pods") {
				t.Errorf("%s asked %s", path, r.URL)
			}
		}
	}
	_, body := h.Get(t, "/c/dev/problems?namespace=Not_A_Namespace", http.StatusBadRequest)
	if v := webtest.Parse(t, body).Find("[data-testid=problems-namespace]").AttrOr("value", ""); v != "Not_A_Namespace" {
		t.Errorf("the form lost the namespace: %q", v)
	}
}

// A server that copies the conventions without the core group or an
// events API: problems come from conditions alone.
func TestProblemsWithoutEventsOrACoreGroup(t *testing.T) {
	h, _ := world(t, apitest.MaritimeV1Alpha1())
	_, body := h.Get(t, "/c/dev/problems", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := rows(doc, "stuck"); len(got) != 1 || got[0] != "Lighthouse dark BeaconDark" {
		t.Errorf("stuck = %q", got)
	}
	if note := doc.Find("[data-testid=warnings-note]").Text(); !strings.Contains(note, "no events API") {
		t.Errorf("warnings note = %q", note)
	}
	_, body = h.Get(t, "/c/dev/", http.StatusOK)
	doc = webtest.Parse(t, body)
	if count(doc, "stuck") != "" || doc.Find("[data-testid=home-health] [data-testid=problem-count][data-category=stuck]").Text() == "" {
		t.Errorf("the home page has no stuck count")
	}
	if note := doc.Find("[data-testid=home-health-note]").Text(); !strings.Contains(note, "no events API") {
		t.Errorf("home health note = %q", note)
	}
}

func TestProblemsWithAForbiddenKindAndHiddenEvents(t *testing.T) {
	h, fake := world(t)
	withPods(fake)
	fake.FailResource("", "pods", apitest.Forbidden("jane", "list", "", "pods", ""))
	fake.FailResource("events.k8s.io", "events", apitest.Forbidden("jane", "list", "events.k8s.io", "events", ""))
	_, body := h.Get(t, "/c/dev/problems?namespace=demo", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := rows(doc, "stuck"); len(got) != 1 {
		t.Errorf("stuck = %q: a forbidden kind hid the others", got)
	}
	skipped := doc.Find("[data-testid=problems-skipped-kind][data-resource=pods]").Text()
	if !strings.Contains(skipped, "forbidden") {
		t.Errorf("the forbidden kind is not listed with its reason: %q", skipped)
	}
	if note := doc.Find("[data-testid=warnings-note]").Text(); !strings.Contains(note, "hidden") {
		t.Errorf("warnings note = %q", note)
	}
}

func TestHomeOpensWithHealth(t *testing.T) {
	h, fake := world(t)
	withPods(fake)
	_, body := h.Get(t, "/c/dev/", http.StatusOK)
	doc := webtest.Parse(t, body)
	health := doc.Find("[data-testid=home-health]")
	for category, want := range map[string]string{"failed": "0", "stuck": "1", "pods": "1", "warnings": "1"} {
		c := health.Find("[data-testid=problem-count][data-category=" + category + "]")
		if got := c.Find(".problem-count-n").Text(); got != want {
			t.Errorf("%s = %q, want %s", category, got, want)
		}
		if href := c.AttrOr("href", ""); href != "/c/dev/problems#"+category {
			t.Errorf("%s links to %q", category, href)
		}
	}
	if doc.Find("[data-testid=api-group]").Length() == 0 {
		t.Error("the catalogue is gone")
	}
}

type sections struct {
	Type     string            `json:"type"`
	Sections map[string]string `json:"sections"`
}

// The page follows the cluster: a problem clears when its condition turns
// True, and a pod that starts crash-looping appears.
func TestProblemsAreLive(t *testing.T) {
	h, fake := world(t)
	fake.Add(running(apitest.Pod("demo", "fine", nil)))
	const path = "/c/dev/problems?namespace=demo&after=5m"
	c := h.Dial(t, path)
	first := webtest.NextData(c, 10*time.Second, func(m sections) bool { return m.Type == "SECTIONS" })
	if !strings.Contains(first.Sections["problems"], `data-name="dark"`) {
		t.Fatalf("the first render lacks the dark lighthouse")
	}
	// The seven kinds asked (pods, services, the four apps workloads,
	// lighthouses) and the events.
	if !fake.AwaitOpenWatches(8, 10*time.Second) {
		t.Fatalf("%d upstream watches", fake.OpenWatches())
	}
	fake.Modify(lighthouseGVK, "demo", "dark", func(o *unstructured.Unstructured) {
		*o = *lighthouse("demo", "dark", "True", "Lit", 0)
	})
	webtest.NextData(c, 10*time.Second, func(m sections) bool {
		return m.Type == "SECTIONS" && !strings.Contains(m.Sections["problems"], `data-name="dark"`)
	})
	fake.Modify(webtest.PodGVK, "demo", "fine", func(o *unstructured.Unstructured) { crashLooping(o) })
	webtest.NextData(c, 10*time.Second, func(m sections) bool {
		return m.Type == "SECTIONS" && strings.Contains(m.Sections["problems"], `data-name="fine" data-reason="CrashLoopBackOff"`)
	})
	// A bad query is refused before the upgrade.
	if _, resp, err := h.TryDial("/c/dev/problems?after=forever", h.URL); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad live query: %s", webtest.StatusText(resp))
	}
}

// A live page watches at most its budget's kinds, those with problems
// first, and lists the others.
func TestLiveProblemsKeepTheirWatchBudget(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1(), apitest.MaritimeV1Alpha1())
	fake.Add(lighthouse("demo", "dark", "False", "BeaconDark", 10*time.Minute))
	budget := problems.DefaultBudget()
	budget.LiveKinds = 1
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Problems: budget}})
	c := h.Dial(t, "/c/dev/problems?namespace=demo")
	first := webtest.NextData(c, 10*time.Second, func(m sections) bool { return m.Type == "SECTIONS" })
	// Lighthouses, which have a problem, and the events.
	if !fake.AwaitOpenWatches(2, 10*time.Second) {
		t.Fatalf("%d upstream watches, want 2", fake.OpenWatches())
	}
	doc := webtest.Parse(t, first.Sections["problems"])
	if n := doc.Find("[data-testid=problems-not-live] li").Length(); n != 6 {
		t.Errorf("%d kinds listed as not live, want 6", n)
	}
	if doc.Find("[data-testid=problems-not-live] li[data-resource=lighthouses.maritime.tabula.dev]").Length() != 0 {
		t.Error("the kind with a problem is not followed")
	}
	fake.Modify(lighthouseGVK, "demo", "dark", func(o *unstructured.Unstructured) {
		*o = *lighthouse("demo", "dark", "True", "Lit", 0)
	})
	webtest.NextData(c, 10*time.Second, func(m sections) bool {
		return m.Type == "SECTIONS" && !strings.Contains(m.Sections["problems"], `data-name="dark"`)
	})
}

// A kind served a second ago is asked: the page does not wait for the
// cached discovery to age.
func TestProblemsSeeAKindCreatedNow(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1())
	h := webtest.Start(t, fake, webtest.Options{})
	_, body := h.Get(t, "/c/dev/problems?namespace=demo", http.StatusOK)
	if got := rows(webtest.Parse(t, body), "stuck"); len(got) != 0 {
		t.Fatalf("stuck before the kind is served: %q", got)
	}
	fake.AddGroupVersions(apitest.MaritimeV1Alpha1())
	fake.Add(lighthouse("demo", "dark", "False", "BeaconDark", 10*time.Minute))
	_, body = h.Get(t, "/c/dev/problems?namespace=demo", http.StatusOK)
	if got := rows(webtest.Parse(t, body), "stuck"); len(got) != 1 || got[0] != "Lighthouse dark BeaconDark" {
		t.Errorf("stuck = %q, after the kind is served", got)
	}
}
