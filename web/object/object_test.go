package object_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/webtest"
)

func TestDeploymentPageLinksItsReplicaSetAndLabels(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=describe-source]").Text(); got != "Generic describe" {
		t.Errorf("source = %q", got)
	}
	rs := doc.Find("[data-testid=related] a")
	if rs.Length() == 0 || rs.First().AttrOr("href", "") != "/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9" {
		t.Errorf("related links = %v", webtest.Texts(doc, "[data-testid=related] a"))
	}
	if got := strings.Join(webtest.Texts(doc, "[data-testid=conditions] tbody td:first-child"), ","); got != "Available" {
		t.Errorf("conditions = %s", got)
	}
	if got := doc.Find("[data-testid=object-summary]").Text(); !strings.Contains(got, "Ready") {
		t.Errorf("summary lacks the printer columns: %q", got)
	}
}

func TestReplicaSetPageLinksOwnerAndPods(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9", http.StatusOK)
	doc := webtest.Parse(t, body)
	if href := doc.Find("[data-testid=owners] a").AttrOr("href", ""); href != "/c/dev/apis/apps/v1/namespaces/demo/deployments/web" {
		t.Errorf("owner link = %q", href)
	}
	if got := strings.Join(webtest.Texts(doc, "[data-testid=related-row][data-relation=owns][data-kind=Pod] a"), ","); got != "web-5d9-a,web-5d9-b" {
		t.Errorf("owned pods = %s", got)
	}
	if got := strings.Join(webtest.Texts(doc, "[data-testid=related-row][data-relation=owned-by] a"), ","); got != "web" {
		t.Errorf("owned by = %s", got)
	}
}

func TestPodPageShowsConditionsAndEventsNewestFirst(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	// The fake derives UIDs from kind, namespace and name, so a fresh copy
	// of the seeded pod stands for it.
	pod := apitest.Pod("demo", "web-5d9-a", nil)
	now := time.Now()
	fake.Add(
		apitest.EventV1("ev-1", pod, apitest.EventSpec{Type: "Normal", Reason: "Scheduled", Message: "assigned", First: now.Add(-time.Hour), Source: "default-scheduler"}),
		apitest.EventV1("ev-2", pod, apitest.EventSpec{Type: "Warning", Reason: "BackOff", Message: "back-off restarting", First: now.Add(-10 * time.Minute), Last: now.Add(-time.Minute), Count: 4, Source: "kubelet"}),
	)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Texts(doc, "[data-testid=event] td:nth-child(2)"), ","); got != "BackOff,Scheduled" {
		t.Errorf("events = %s, want newest first", got)
	}
	if got := webtest.Texts(doc, "[data-testid=event] td.num"); len(got) == 0 || got[0] != "4" {
		t.Errorf("counts = %v", got)
	}
	if len(webtest.Texts(doc, "[data-testid=conditions] tbody tr")) == 0 {
		t.Error("no conditions")
	}
	// A label chip's menu filters the list by it, or shows it as a column.
	chip := doc.Find("[data-testid=label-chip]").First()
	menu := chip.Parent()
	filter, column := menu.Find("[data-testid=chip-filter]").AttrOr("href", ""), menu.Find("[data-testid=chip-column]").AttrOr("href", "")
	if chip.Text() != "app=web" || !menu.Is("details") || filter != "/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb" || column != "/c/dev/api/v1/namespaces/demo/pods?labelColumns=app" {
		t.Errorf("label chip %q → filter %q, column %q", chip.Text(), filter, column)
	}
}

func TestServerDescribeIsPreferred(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{Describe: apitest.DescribeServed})
	_, body := h.Get(t, "/c/dev/apis/policy.example.com/v1/sessions/boot-x3000", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=describe-source]").Text(); got != "Server describe" {
		t.Errorf("source = %q", got)
	}
	if doc.Find("[data-testid=describe-section]").Length() == 0 {
		t.Error("no server sections rendered")
	}
}

func TestYAMLTabHidesManagedFieldsByDefault(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	svc := apitest.Service("demo", "settings", map[string]string{"app": "web"})
	if err := unstructured.SetNestedSlice(svc.Object, []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}, "metadata", "managedFields"); err != nil {
		t.Fatal(err)
	}
	fake.Add(svc)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/services/settings?view=yaml", http.StatusOK)
	yaml := webtest.Parse(t, body).Find("[data-testid=yaml] pre").Text()
	if !strings.Contains(yaml, "app: web") || strings.Contains(yaml, "managedFields") {
		t.Errorf("yaml = %s", yaml)
	}
	toggle := webtest.Parse(t, body).Find("[data-testid=managed-fields-toggle]").AttrOr("href", "")
	_, body = h.Get(t, toggle, http.StatusOK)
	if !strings.Contains(webtest.Parse(t, body).Find("[data-testid=yaml] pre").Text(), "managedFields") {
		t.Error("the toggle does not show managedFields")
	}
}

func TestSecretValuesAreHiddenInTheOverview(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	secret := apitest.Object("v1", "Secret", "demo", "creds", map[string]any{"data": map[string]any{"password": "aHVudGVyMg=="}})
	secret.SetAnnotations(map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret"}`,
		"team": "payments",
	})
	fake.Add(secret)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/secrets/creds", http.StatusOK)
	if strings.Contains(body, "aHVudGVyMg==") {
		t.Error("the overview shows a secret value")
	}
	if !strings.Contains(body, "hidden (7 bytes)") {
		t.Error("the overview does not say the value (7 bytes decoded) is hidden")
	}
	if !strings.Contains(body, "payments") {
		t.Error("ordinary annotations of a Secret are hidden too")
	}
}

func TestMissingObjectOffersTheList(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/gone", http.StatusNotFound)
	found := false
	webtest.Parse(t, body).Find(".actions a").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("href", "") == "/c/dev/api/v1/namespaces/demo/pods" {
			found = true
		}
	})
	if !found {
		t.Error("the 404 page does not offer the list")
	}
}

// An object page's live sections re-render when the object changes.
func TestLiveObjectPushesItsSectionsOnChange(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-1"
	_, body := h.Get(t, path, http.StatusOK)
	if live, _ := webtest.Parse(t, body).Find("[data-testid=object-live]").Attr("data-live"); live != "object" {
		t.Fatalf("object page is not live: %q", live)
	}
	c := h.Dial(t, path)
	// One watch on the object, one on its events.
	if !h.Fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2", h.Fake.OpenWatches())
	}
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ch, payload := c.Frame(time.Until(deadline))
		var m object.SectionsMessage
		if ch != 1 || json.Unmarshal(payload, &m) != nil || m.Type != "SECTIONS" {
			continue
		}
		if strings.Contains(m.Sections["header"], "Failed") && strings.Contains(m.Sections["conditions"], "Ready") {
			if _, ok := m.Sections["events"]; ok {
				return
			}
		}
	}
	t.Fatal("no SECTIONS message with the new phase")
}

func TestRelatedSectionAndMaps(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.SetOpenAPI("", "v1", apitest.CoreV1OpenAPI())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())

	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Texts(doc, "[data-testid=related-row][data-relation=owned-by] a"), ","); !strings.Contains(got, "web-5d9") {
		t.Errorf("owned by = %q", got)
	}
	if doc.Find("[data-testid=scan-line]").Length() == 0 {
		t.Errorf("the Related section does not say what its scan cost")
	}

	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a?related=0", http.StatusOK)
	if webtest.Parse(t, body).Find("[data-testid=related]").Length() != 0 {
		t.Errorf("?related=0 shows the Related section")
	}

	_, body = h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web?view=map", http.StatusOK)
	doc = webtest.Parse(t, body)
	if doc.Find("[data-testid=relation-map] [data-testid=map-node][data-kind=ReplicaSet][data-name=web-5d9]").Length() != 1 {
		t.Errorf("the Deployment's map lacks its ReplicaSet: %v", webtest.Texts(doc, "[data-testid=map-node]"))
	}
	if doc.Find("[data-testid=relation-list] a").Length() == 0 {
		t.Errorf("the map has no list of the same graph")
	}
	if doc.Find("[data-testid=namespace-map-link]").AttrOr("href", "") != "/c/dev/api/v1/namespaces/demo?view=map" {
		t.Errorf("the map does not link to its namespace's")
	}
	if got := doc.Find(`nav.tabs a[aria-current=page]`).Text(); got != "Map" {
		t.Errorf("current tab %q", got)
	}

	fake.Add(apitest.Object("v1", "Namespace", "", "demo", nil))
	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo?view=map", http.StatusOK)
	doc = webtest.Parse(t, body)
	if doc.Find("[data-testid=namespace-map] [data-testid=owner-tree]").Length() == 0 {
		t.Errorf("the namespace map has no owner trees")
	}
}

func TestRelatedSectionWithoutOpenAPISaysSo(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	if doc.Find("[data-testid=scan-no-openapi]").Length() != 1 {
		t.Errorf("a server without OpenAPI v3: no note")
	}
	if doc.Find("[data-testid=related-row][data-relation=owned-by]").Length() == 0 {
		t.Errorf("owners are lost without OpenAPI v3")
	}
}

func TestRelatedSectionNamesAForbiddenKind(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.FailResource("", "services", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "services is forbidden"})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=skipped-kind][data-resource=services]").Text(); !strings.Contains(got, "forbidden") {
		t.Errorf("skipped services: %q", got)
	}
}

func TestRelatedScanBudgetExhaustedNamesTheKindsLeft(t *testing.T) {
	h, _ := webtest.DemoWith(t, apitest.Options{}, webtest.Options{Deps: web.Deps{Relate: apiclient.RelateBudget{MaxKinds: 1}}})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", http.StatusOK)
	doc := webtest.Parse(t, body)
	over := 0
	doc.Find("[data-testid=skipped-kind]").Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), "budget of 1 kinds") {
			over++
		}
	})
	if over == 0 {
		t.Errorf("no kind named as over the budget: %v", webtest.Texts(doc, "[data-testid=skipped-kind]"))
	}
}

// A server copying the conventions without a core group, events or OpenAPI
// (CSM): relations still work from ownerReferences, and the page says what
// it could not look at.
func TestRelationsOnACSMServer(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CSMGroup())
	param := apitest.CSMParameters("x1000c0s0b0n0", "x1000c0s0b0n0", "console=ttyS0")
	session := apitest.CSMSession("boot-x3000", "boot", "compute-23.7", "running")
	controller := true
	session.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: param.GetAPIVersion(), Kind: param.GetKind(), Name: param.GetName(), UID: param.GetUID(), Controller: &controller}})
	fake.Add(param, session)
	h := webtest.Start(t, fake, webtest.Options{})
	for _, path := range []string{"/c/dev/apis/policy.example.com/v1/sessions/boot-x3000", "/c/dev/apis/policy.example.com/v1/sessions/boot-x3000?view=map"} {
		_, body := h.Get(t, path, http.StatusOK)
		doc := webtest.Parse(t, body)
		if doc.Find("[data-testid=scan-no-openapi]").Length() != 1 || doc.Find("[data-testid=scan-note]").Length() != 1 {
			t.Errorf("%s: no note on the missing OpenAPI and the unscanned referrers", path)
		}
		if doc.Find(`a[href="/c/dev/apis/policy.example.com/v1/bosparameters/x1000c0s0b0n0"]`).Length() == 0 {
			t.Errorf("%s: no link to the session's owner", path)
		}
	}
}

// Relations are found as the user: a viewer who may not list Secrets sees
// them named as not listed, and none of them; the admin's scan lists them.
func TestRelationsAreTheUsers(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	viewer := webtest.Parse(t, h.GetAs(t, webtest.ViewerToken, "/c/dev/api/v1/namespaces/demo/pods/web-1", http.StatusOK))
	if got := viewer.Find("[data-testid=skipped-kind][data-resource=secrets]").Text(); !strings.Contains(got, "forbidden") {
		t.Errorf("the viewer's skipped secrets: %q", got)
	}
	if viewer.Find("[data-testid=related-row][data-kind=Secret]").Length() != 0 {
		t.Errorf("the viewer sees a Secret it may not list")
	}
	admin := webtest.Parse(t, h.GetAs(t, webtest.ConsoleToken, "/c/dev/api/v1/namespaces/demo/pods/web-1", http.StatusOK))
	if got := admin.Find("[data-testid=skipped-kind][data-resource=secrets]").Text(); strings.Contains(got, "forbidden") {
		t.Errorf("the admin's scan of secrets was refused: %q", got)
	}
}

// A live page lists its relations anew at most once per ReuseFor: a change
// soon after a render re-renders from the lists of a moment ago, and a
// last render from fresh lists follows, so what changed meanwhile (a
// Service created) shows without any further change to the object.
func TestLiveRelationsRelistAfterABurstWithinTheirBudget(t *testing.T) {
	const reuse = time.Second
	h, fake := webtest.DemoWith(t, apitest.Options{}, webtest.Options{Deps: web.Deps{Relate: apiclient.RelateBudget{ReuseFor: reuse}}})
	fake.SetOpenAPI("", "v1", apitest.CoreV1OpenAPI())
	// A Service already there: a kind found empty is skipped for a while,
	// whatever the lists' reuse.
	fake.Add(apitest.Service("demo", "db", map[string]string{"app": "db"}))
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"
	h.Get(t, path, http.StatusOK)
	c := h.Dial(t, path)
	if !fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2", fake.OpenWatches())
	}
	related := func(deadline time.Time, want func(string) bool) {
		t.Helper()
		for {
			ch, payload := c.Frame(time.Until(deadline))
			var m object.SectionsMessage
			if ch == 1 && json.Unmarshal(payload, &m) == nil && m.Type == "SECTIONS" && want(m.Sections["related"]) {
				return
			}
		}
	}
	fake.ResetRequests()
	start := time.Now()
	fake.Modify(webtest.PodGVK, "demo", "web-5d9-a", webtest.SetPhase("Pending"))
	related(time.Now().Add(10*time.Second), func(string) bool { return true })
	// Changes right after a render: a Service appears, and the pod changes
	// a few times (one render each settles them, then one more after).
	fake.Add(apitest.Service("demo", "late", map[string]string{"app": "web"}))
	for _, phase := range []string{"Running", "Pending", "Running"} {
		fake.Modify(webtest.PodGVK, "demo", "web-5d9-a", webtest.SetPhase(phase))
	}
	related(time.Now().Add(15*time.Second), func(s string) bool { return strings.Contains(s, `data-name="late"`) })
	elapsed := time.Since(start)
	lists := 0
	for _, r := range fake.Requests() {
		if r.URL.Path == "/api/v1/namespaces/demo/services" {
			lists++
		}
	}
	if budget := int(elapsed/reuse) + 2; lists > budget {
		t.Errorf("services listed %d times in %s: more than once per %s (%d)", lists, elapsed.Round(time.Millisecond), reuse, budget)
	}
}

// The YAML view's owners come from the object alone: no request more than
// the plain YAML view, and a Secret's values stay masked.
func TestBlameViewCostsNoRequestAndMasksSecrets(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	secret := apitest.Object("v1", "Secret", "demo", "creds", map[string]any{"data": map[string]any{"password": "czNjcjN0LXZhbHVl"}})
	secret.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:password":{}}}`)},
	}})
	fake.Add(secret)
	const path = "/c/dev/api/v1/namespaces/demo/secrets/creds"
	count := func(query string) (int, string) {
		fake.ResetRequests()
		_, body := h.Get(t, path+query, http.StatusOK)
		return len(fake.Requests()), body
	}
	// Once each first: the page's access checks are then cached alike.
	count("?view=yaml")
	count("?view=yaml&blame=1")
	plain, plainBody := count("?view=yaml")
	if webtest.Parse(t, plainBody).Find("[data-testid=blame-toggle]").AttrOr("href", "") != path+"?view=yaml&blame=1" {
		t.Errorf("the YAML view does not offer the owners")
	}
	withOwners, body := count("?view=yaml&blame=1")
	if withOwners != plain {
		t.Errorf("the view with owners made %d upstream requests, the YAML view %d", withOwners, plain)
	}
	if strings.Contains(body, "czNjcjN0") || strings.Contains(body, "s3cr3t") {
		t.Errorf("the view with owners shows the Secret's value")
	}
	doc := webtest.Parse(t, body)
	var owned []string
	doc.Find("[data-testid=blame-line]").Each(func(_ int, s *goquery.Selection) {
		if s.Find("[data-testid=blame-owner][data-manager=kubectl][data-operation=Apply]").Length() > 0 {
			owned = append(owned, strings.TrimSpace(s.Find("code").Text()))
		}
	})
	if len(owned) != 1 || owned[0] != "password: hidden (12 bytes)" {
		t.Errorf("lines kubectl owns: %q", owned)
	}
	if doc.Find("[data-testid=blame-manager][data-manager=kubectl] a").AttrOr("href", "") != path+"?blame=1&manager=kubectl&view=yaml" {
		t.Errorf("the legend does not filter by kubectl")
	}
	if got := doc.Find(`nav.tabs a[aria-current=page]`).Text(); got != "YAML" {
		t.Errorf("current tab %q", got)
	}
}

// Every object page says its health as kstatus reads the conventions, with
// the reason when it is not Current; the header is a live section, so it
// follows.
func TestObjectPageShowsItsHealth(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=object-health] [data-testid=health]").AttrOr("data-health", ""); got != "Current" {
		t.Errorf("the Deployment's health %q, want Current", got)
	}
	if doc.Find("[data-testid=object-health-note]").Length() != 0 {
		t.Errorf("a Current object has a health note")
	}
	fake.Modify(webtest.PodGVK, "demo", "web-5d9-a", func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(o.Object, []any{map[string]any{"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": "containers with unready status: [web]"}}, "status", "conditions")
		_ = unstructured.SetNestedField(o.Object, "Pending", "status", "phase")
	})
	for _, view := range []string{"", "?view=yaml", "?view=map"} {
		_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"+view, http.StatusOK)
		doc = webtest.Parse(t, body)
		if got := doc.Find("[data-testid=object-health] [data-testid=health]").AttrOr("data-health", ""); got != "InProgress" {
			t.Errorf("%s: the pending pod's health %q, want InProgress", view, got)
		}
		if doc.Find("[data-testid=object-health-note]").Text() == "" {
			t.Errorf("%s: no reason for InProgress", view)
		}
	}
}
