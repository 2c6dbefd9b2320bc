//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Relations (issue 24) as users reach them: the Related section of an
// object page, its map (?view=map) and a namespace's map, for a kind the
// console has never heard of (a CRD created by the test), for the demo's
// Deployment, Pods and Service by keyboard, and for the viewer, who may not
// list Secrets in demo.

// relatedRow is one row of an object page's Related section.
type relatedRow struct {
	Relation, Kind, Name, Href, Namespace, Why, Health string
}

func (r relatedRow) String() string {
	return fmt.Sprintf("%s %s %s/%s (why %q, health %q, href %q)", r.Relation, r.Kind, r.Namespace, r.Name, r.Why, r.Health, r.Href)
}

// relatedSkip is a kind the section says it did not list, and why.
type relatedSkip struct{ Resource, Reason, Text string }

// relatedPage is what an object page's Related section shows.
type relatedPage struct {
	Rows    []relatedRow
	Skipped []relatedSkip
	// Summary is the scan's summary line; Requests its upstream requests.
	Summary  string
	Requests string
}

// find is the rows of a relation to objects of a kind named name.
func (p relatedPage) find(relation, kind, name string) []relatedRow {
	var out []relatedRow
	for _, r := range p.Rows {
		if r.Relation == relation && r.Kind == kind && r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func (p relatedPage) String() string {
	var b strings.Builder
	for _, r := range p.Rows {
		b.WriteString("\n  " + r.String())
	}
	return b.String()
}

// mapNode is one node of a map: its kind, name, link and health.
type mapNode struct {
	Kind, Name, Href, Health string
	Focus                    bool
}

// relationMap is what a map page shows: the SVG's nodes, the legend, and
// the nested list's links.
type relationMap struct {
	Nodes     []mapNode
	Legend    string
	ListLinks []struct{ Text, Href string }
	Summary   string
	Requests  string
	Skipped   []relatedSkip
}

func (m relationMap) nodes(kind string) []mapNode {
	var out []mapNode
	for _, n := range m.Nodes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

func (m relationMap) node(kind, name string) (mapNode, bool) {
	i := slices.IndexFunc(m.Nodes, func(n mapNode) bool { return n.Kind == kind && n.Name == name })
	if i < 0 {
		return mapNode{}, false
	}
	return m.Nodes[i], true
}

func (m relationMap) listed(href string) bool {
	return slices.ContainsFunc(m.ListLinks, func(l struct{ Text, Href string }) bool { return l.Href == href })
}

// The markup the tests read (views/relations.templ). One place, so a change
// of markup is one change here.
const (
	relatedSel        = `[data-testid=related]`
	relatedRowSel     = `tr[data-testid=related-row]`
	relatedSkippedSel = `details[data-testid=related-skipped]`
	skippedKindSel    = `li[data-testid=skipped-kind]`
	relatedSummarySel = `[data-testid=scan-summary]`
	scanLineSel       = `[data-testid=scan-line]`
	mapSel            = `[data-testid=relation-map]`
	mapNodeSel        = `[data-testid=map-node]`
	mapLegendSel      = `[data-testid=map-legend]`
	mapListSel        = `[data-testid=relation-list]`
)

// scanRequests is the upstream request count a scan's line states ("12
// kinds asked in 14 requests, 0.04 s."), "" when it states none.
func scanRequests(line string) string {
	if m := regexp.MustCompile(`(\d+) requests?\b`).FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// readRelatedJS reads the Related section and the scan's summary in the
// browser; parseRelated is its twin for pages fetched over HTTP.
const readRelatedJS = `(sel) => {
	const text = (el) => el ? el.textContent.replace(/\s+/g, " ").trim() : "";
	return JSON.stringify({
		rows: [...document.querySelectorAll(sel.section + " " + sel.row)].map((r) => {
			const link = r.querySelector(".related-name a");
			return {
				relation: text(r.querySelector(".related-relation")),
				kind: r.dataset.kind || "",
				name: r.dataset.name || "",
				href: link ? link.getAttribute("href") : "",
				namespace: text(r.children[3]),
				why: text(r.querySelector("[data-testid=related-why]")),
				health: r.querySelector("[data-testid=health]")?.dataset.health ?? "",
			};
		}),
		skipped: [...document.querySelectorAll(sel.section + " " + sel.skipped + " " + sel.kind)].map((li) => ({
			resource: li.dataset.resource || "", reason: text(li.querySelector(".scan-skip-reason")), text: text(li),
		})),
		summary: text(document.querySelector(sel.section + " " + sel.line)),
	});
}`

func relatedSelectors() map[string]any {
	return map[string]any{"section": relatedSel, "row": relatedRowSel, "skipped": relatedSkippedSel, "kind": skippedKindSel, "line": scanLineSel}
}

// readRelated waits for the Related section and reads it.
func readRelated(t *testing.T, page playwright.Page) relatedPage {
	t.Helper()
	must(t, expect.Locator(page.Locator(relatedSel)).ToBeVisible())
	out, err := page.Evaluate(readRelatedJS, relatedSelectors())
	must(t, err)
	var r relatedPage
	must(t, json.Unmarshal([]byte(out.(string)), &r))
	r.Requests = scanRequests(r.Summary)
	t.Logf("related on %s: %s; rows:%s", page.URL(), r.Summary, r)
	return r
}

const readMapJS = `(sel) => {
	const text = (el) => el ? el.textContent.replace(/\s+/g, " ").trim() : "";
	return JSON.stringify({
		nodes: [...document.querySelectorAll(sel.map + " " + sel.node)].map((n) => {
			const a = n.closest("a");
			return {
				kind: n.dataset.kind || "", name: n.dataset.name || "",
				href: a ? (a.getAttribute("href") || "") : "",
				health: n.dataset.health || "",
				focus: n.dataset.focus === "true",
			};
		}),
		legend: text(document.querySelector(sel.legend)),
		listLinks: [...document.querySelectorAll(sel.list + " a[href]")].map((a) => ({text: text(a), href: a.getAttribute("href")})),
		summary: text(document.querySelector(sel.map + " " + sel.line)),
		skipped: [...document.querySelectorAll(sel.map + " " + sel.skipped + " " + sel.kind)].map((li) => ({
			resource: li.dataset.resource || "", reason: text(li.querySelector(".scan-skip-reason")), text: text(li),
		})),
	});
}`

// readMap waits for the map and reads it.
func readMap(t *testing.T, page playwright.Page) relationMap {
	t.Helper()
	must(t, expect.Locator(page.Locator(mapSel)).ToBeVisible())
	out, err := page.Evaluate(readMapJS, map[string]any{
		"map": mapSel, "node": mapNodeSel, "legend": mapLegendSel, "list": mapListSel,
		"line": scanLineSel, "skipped": relatedSkippedSel, "kind": skippedKindSel,
	})
	must(t, err)
	var m relationMap
	must(t, json.Unmarshal([]byte(out.(string)), &m))
	m.Requests = scanRequests(m.Summary)
	var names []string
	for _, n := range m.Nodes {
		names = append(names, n.Kind+"/"+n.Name+"="+n.Health)
	}
	t.Logf("map on %s: %s; nodes %v", page.URL(), m.Summary, names)
	return m
}

// Gadgets are the test's own kind: the console has no code for it, so all
// it knows comes from discovery and the CRD's OpenAPI v3 schema.
var gadgetGVR = schema.GroupVersionResource{Group: "relations.e2e.tabula.dev", Version: "v1", Resource: "gadgets"}

const gadgetCRDName = "gadgets.relations.e2e.tabula.dev"

func gadgetCRD() *unstructured.Unstructured {
	str := map[string]any{"type": "string"}
	selector := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"matchLabels": map[string]any{"type": "object", "additionalProperties": str},
			"matchExpressions": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []any{"key", "operator"},
				"properties": map[string]any{
					"key": str, "operator": str,
					"values": map[string]any{"type": "array", "items": str},
				},
			}},
		},
	}
	condition := map[string]any{
		"type": "object", "required": []any{"type", "status"},
		"properties": map[string]any{
			"type": str, "status": str, "reason": str, "message": str,
			"lastTransitionTime": map[string]any{"type": "string", "format": "date-time"},
			"observedGeneration": map[string]any{"type": "integer", "format": "int64"},
		},
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": gadgetCRDName},
		"spec": map[string]any{
			"group": gadgetGVR.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"colour":    str,
								"secretRef": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": str}},
								"selector":  selector,
							},
						},
						"status": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"observedGeneration": map[string]any{"type": "integer", "format": "int64"},
								"conditions":         map[string]any{"type": "array", "items": condition},
							},
						},
					},
				}},
			}},
		},
	}}
}

// gadgetWorld is what the Gadget journey creates: the namespace, the
// ConfigMap that owns the Gadget, the Secret it references and the Pod it
// selects.
type gadgetWorld struct {
	namespace, owner, secret, pod, gadget string
}

func (w gadgetWorld) gadgetPath() string {
	return "/c/admin/apis/" + gadgetGVR.Group + "/v1/namespaces/" + w.namespace + "/gadgets/" + w.gadget
}

// createGadgetWorld installs the CRD and the objects, and removes the CRD
// (and the namespace with what is in it) when the test ends.
func createGadgetWorld(t *testing.T) gadgetWorld {
	t.Helper()
	ctx := t.Context()
	cs, _ := clientset(t, "admin")
	dyn, _ := adminDynamic(t)
	w := gadgetWorld{namespace: "e2e-relations", owner: "gadget-owner", secret: "gadget-credentials", pod: "gadget-worker", gadget: "sprocket"}

	crds := dyn.Resource(crdGVR)
	if _, err := crds.Create(ctx, gadgetCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	t.Cleanup(func() {
		if err := crds.Delete(context.Background(), gadgetCRDName, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting the CRD: %v", err)
			return
		}
		forgetGadgets(t)
	})
	freshNamespace(t, cs, w.namespace)

	owner, err := cs.CoreV1().ConfigMaps(w.namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: w.owner}, Data: map[string]string{"role": "owner"},
	}, metav1.CreateOptions{})
	must(t, err)
	_, err = cs.CoreV1().Secrets(w.namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: w.secret}, StringData: map[string]string{"token": "gadget-s3cr3t-value"},
	}, metav1.CreateOptions{})
	must(t, err)
	// The namespace's default ServiceAccount, which admission requires of
	// a Pod, comes from the controller-manager a moment after the namespace.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: w.pod, Labels: map[string]string{"gadget": "sprocket", "tier": "worker"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "busybox:1.36", Args: []string{"sleep", "infinity"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("4Mi"),
				}},
			}},
			TerminationGracePeriodSeconds: new(int64(0)),
		},
	}
	apitest.WaitFor(t, time.Minute, func() error {
		_, err := cs.CoreV1().Pods(w.namespace).Create(ctx, pod, metav1.CreateOptions{})
		return err
	})

	// The Gadget, once the API server serves the kind.
	gadgets := dyn.Resource(gadgetGVR).Namespace(w.namespace)
	gadget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgetGVR.GroupVersion().String(), "kind": "Gadget",
		"metadata": map[string]any{
			"name": w.gadget,
			"ownerReferences": []any{map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "name": owner.Name, "uid": string(owner.UID),
			}},
		},
		"spec": map[string]any{
			"colour":    "teal",
			"secretRef": map[string]any{"name": w.secret},
			"selector": map[string]any{
				"matchLabels":      map[string]any{"gadget": "sprocket"},
				"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"worker", "batch"}}},
			},
		},
	}}
	var created *unstructured.Unstructured
	apitest.WaitFor(t, time.Minute, func() error {
		var err error
		created, err = gadgets.Create(ctx, gadget, metav1.CreateOptions{})
		return err
	})
	// Ready=False, observed at the current generation: kstatus says
	// InProgress.
	must(t, unstructured.SetNestedField(created.Object, map[string]any{
		"observedGeneration": created.GetGeneration(),
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": "Assembling",
			"message": "waiting for parts", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
			"observedGeneration": created.GetGeneration(),
		}},
	}, "status"))
	if _, err := gadgets.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting the Gadget's status: %v", err)
	}
	return w
}

// wantGadgetRelations checks the Gadget's own three relations on its
// Related section; it returns what is wrong, for waitFor.
func wantGadgetRelations(w gadgetWorld, p relatedPage) error {
	var problems []string
	check := func(relation, kind, name, why string) {
		rows := p.find(relation, kind, name)
		if len(rows) == 0 {
			problems = append(problems, fmt.Sprintf("no row %q %s %s", relation, kind, name))
			return
		}
		if !slices.ContainsFunc(rows, func(r relatedRow) bool { return strings.Contains(r.Why, why) }) {
			problems = append(problems, fmt.Sprintf("%q %s %s: why %q, want it to hold %q", relation, kind, name, rows[0].Why, why))
		}
	}
	check("Owned by", "ConfigMap", w.owner, "ownerReferences")
	check("References", "Secret", w.secret, "spec.secretRef")
	check("Selects", "Pod", w.pod, "spec.selector")
	if len(problems) > 0 {
		return fmt.Errorf("%s; the rows:%s", strings.Join(problems, "; "), p)
	}
	return nil
}

// forgetGadgets waits until the console no longer serves the deleted
// Gadget kind, so that no later test lists a kind that is gone: its
// discovery, kept for minutes, is fetched again as soon as a page names a
// resource it does not know, here one of the Gadgets' group.
func forgetGadgets(t *testing.T) {
	t.Helper()
	unknown := "/c/admin/apis/" + gadgetGVR.Group + "/" + gadgetGVR.Version + "/no-such-resource"
	gadgets := "/c/admin/apis/" + gadgetGVR.Group + "/" + gadgetGVR.Version + "/" + gadgetGVR.Resource
	apitest.WaitFor(t, time.Minute, func() error {
		consoleGet(t, unknown)
		if code, _ := consoleGet(t, gadgets); code != http.StatusNotFound {
			return fmt.Errorf("GET %s: status %d, want 404 once the CRD is gone", gadgets, code)
		}
		return nil
	})
}

// relatedOverHTTP reads a page's Related section without a browser.
func relatedOverHTTP(t *testing.T, path string) (relatedPage, error) {
	t.Helper()
	code, body := consoleGet(t, path)
	if code != http.StatusOK {
		return relatedPage{}, fmt.Errorf("GET %s: status %d", path, code)
	}
	return parseRelated(body)
}

// parseRelated reads, with goquery, what readRelatedJS reads in the page.
func parseRelated(body string) (relatedPage, error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		return relatedPage{}, err
	}
	text := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
	var p relatedPage
	if doc.Find(relatedSel).Length() == 0 {
		return p, fmt.Errorf("the page has no %s", relatedSel)
	}
	doc.Find(relatedSel + " " + relatedRowSel).Each(func(_ int, r *goquery.Selection) {
		kind, _ := r.Attr("data-kind")
		name, _ := r.Attr("data-name")
		href, _ := r.Find(".related-name a").Attr("href")
		health, _ := r.Find("[data-testid=health]").Attr("data-health")
		p.Rows = append(p.Rows, relatedRow{
			Relation: text(r.Find(".related-relation")), Kind: kind, Name: name, Href: href,
			Namespace: text(r.Children().Eq(3)), Why: text(r.Find("[data-testid=related-why]")), Health: health,
		})
	})
	doc.Find(relatedSel + " " + relatedSkippedSel + " " + skippedKindSel).Each(func(_ int, li *goquery.Selection) {
		resource, _ := li.Attr("data-resource")
		p.Skipped = append(p.Skipped, relatedSkip{Resource: resource, Reason: text(li.Find(".scan-skip-reason")), Text: text(li)})
	})
	p.Summary = text(doc.Find(relatedSel + " " + scanLineSel))
	p.Requests = scanRequests(p.Summary)
	return p, nil
}

// A CRD installed now, of a kind no code knows: its object's page finds its
// owner (ownerReferences), the Secret its spec.secretRef names and the Pod
// its spec.selector selects, says why each holds, and shows the Gadget as
// InProgress (Ready=False) on its map, where the same relations are nodes
// and list items.
func TestRelationsOfAKindInstalledNow(t *testing.T) {
	w := createGadgetWorld(t)

	// The console learns the kind (discovery) and its schema (OpenAPI v3)
	// from the API server, which publishes a new CRD's schema a moment
	// after it serves it: wait until its page shows what the schema says.
	apitest.WaitFor(t, 2*time.Minute, func() error {
		p, err := relatedOverHTTP(t, w.gadgetPath())
		if err != nil {
			return err
		}
		return wantGadgetRelations(w, p)
	})

	page := newPage(t)
	goTo(t, page, w.gadgetPath())
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Gadget"))
	p := readRelated(t, page)
	if err := wantGadgetRelations(w, p); err != nil {
		t.Error(err)
	}
	for _, want := range []struct{ relation, kind, name, path string }{
		{"Owned by", "ConfigMap", w.owner, "/c/admin/api/v1/namespaces/" + w.namespace + "/configmaps/" + w.owner},
		{"References", "Secret", w.secret, "/c/admin/api/v1/namespaces/" + w.namespace + "/secrets/" + w.secret},
		{"Selects", "Pod", w.pod, "/c/admin/api/v1/namespaces/" + w.namespace + "/pods/" + w.pod},
	} {
		for _, r := range p.find(want.relation, want.kind, want.name) {
			if r.Href != want.path || r.Namespace != w.namespace || r.Health == "" {
				t.Errorf("%s: want a link to %s, namespace %s and a health", r, want.path, w.namespace)
			}
		}
	}
	// The Secret's value is not on the page: a reference names, it does not show.
	if body, err := page.Content(); err != nil || strings.Contains(body, "gadget-s3cr3t-value") {
		t.Errorf("the Gadget's page shows the Secret's value (%v)", err)
	}
	if n, err := strconv.Atoi(p.Requests); err != nil || n < 1 {
		t.Errorf("the scan's line %q states no upstream requests", p.Summary)
	}
	screenshotThemes(t, page, "relations-gadget")
	checkA11y(t, page, "relations-gadget")

	// Its map: the same relations, the Gadget in the middle as InProgress.
	goTo(t, page, w.gadgetPath()+"?view=map")
	m := readMap(t, page)
	gadget, ok := m.node("Gadget", w.gadget)
	if !ok {
		t.Fatalf("the map has no node for the Gadget: %+v", m.Nodes)
	}
	if gadget.Health != "InProgress" {
		t.Errorf("the Gadget's node shows health %q, want InProgress (Ready=False)", gadget.Health)
	}
	for _, want := range []struct{ kind, name, path string }{
		{"ConfigMap", w.owner, "/c/admin/api/v1/namespaces/" + w.namespace + "/configmaps/" + w.owner},
		{"Secret", w.secret, "/c/admin/api/v1/namespaces/" + w.namespace + "/secrets/" + w.secret},
		{"Pod", w.pod, "/c/admin/api/v1/namespaces/" + w.namespace + "/pods/" + w.pod},
	} {
		n, ok := m.node(want.kind, want.name)
		if !ok {
			t.Errorf("the map has no %s node %s", want.kind, want.name)
			continue
		}
		if n.Href != want.path {
			t.Errorf("the %s node %s links to %q, want %s", want.kind, want.name, n.Href, want.path)
		}
		if !m.listed(want.path) {
			t.Errorf("the map's list has no link to %s", want.path)
		}
	}
	if !m.listed(w.gadgetPath()) && gadget.Href != w.gadgetPath() && !gadget.Focus {
		t.Errorf("the Gadget's own node neither links to its page nor is marked the focus: %+v", gadget)
	}
	must(t, expect.Locator(page.Locator(mapLegendSel)).ToBeVisible())
	must(t, expect.Locator(page.Locator(mapLegendSel)).ToContainText("In progress"))
	// The map's node links to the Pod's page.
	pod := page.Locator(mapSel + ` ` + mapNodeSel + `[data-kind=Pod][data-name="` + w.pod + `"]`)
	must(t, expect.Locator(pod).ToHaveCount(1))
	screenshotThemes(t, page, "relations-gadget-map")
	checkA11y(t, page, "relations-gadget-map")
}

// mapPath is an object's map.
func mapPath(objectPath string) string { return objectPath + "?view=map" }

// webPods are the Deployment demo/web's pods once it has settled.
func webPods(t *testing.T, cs *kubernetes.Clientset) []corev1.Pod {
	t.Helper()
	waitForWebSettled(t, cs)
	pods, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	must(t, err)
	return pods.Items
}

// focusedHref is the href of the focused element, "" for none.
func focusedHref(t *testing.T, page playwright.Page) string {
	t.Helper()
	v, err := page.Evaluate(`() => {
		const el = document.activeElement;
		return el ? (el.getAttribute("href") || el.getAttribute("xlink:href") || "") : "";
	}`)
	must(t, err)
	s, _ := v.(string)
	return s
}

// mapLinkTo selects the map's SVG node linking to an object page (the
// nested list beside it links there too).
func mapLinkTo(path string) string {
	return mapSel + ` a` + mapNodeSel + `[href="` + path + `"]`
}

// From a web Pod's map, by keyboard alone: Tab to the Deployment web (the
// top of the Pod's owner chain) and Enter opens its page; its Map tab opens
// its map. From the Pod's map again, Tab to the Service web that selects
// the Pod and Enter opens the Service's page; Back returns to the map.
func TestRelationMapByKeyboard(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pods := webPods(t, cs)
	pod := pods[0]
	podPath := "/c/admin/api/v1/namespaces/demo/pods/" + pod.Name
	deployPath := "/c/admin/apis/apps/v1/namespaces/demo/deployments/web"
	servicePath := "/c/admin/api/v1/namespaces/demo/services/web"
	kb := func(page playwright.Page) playwright.Keyboard { return page.Keyboard() }

	page := newPage(t)
	goTo(t, page, mapPath(podPath))
	m := readMap(t, page)
	// The owner chain, up to the root.
	if len(m.nodes("ReplicaSet")) == 0 {
		t.Errorf("the Pod's map shows no ReplicaSet, its owner")
	}
	if n, ok := m.node("Deployment", "web"); !ok || n.Href != deployPath {
		t.Fatalf("the Pod's map shows the Deployment web as %+v (present %v), want a link to %s", n, ok, deployPath)
	}
	if n, ok := m.node("Service", "web"); !ok || n.Href != servicePath {
		t.Fatalf("the Pod's map shows the Service web as %+v (present %v), want a link to %s", n, ok, servicePath)
	}

	tabTo(t, page, mapLinkTo(deployPath))
	screenshot(t, page, "relations-map-keyboard-deployment.png")
	must(t, kb(page).Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(env.console.URL+deployPath))
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Deployment"))
	must(t, expect.Locator(page.Locator(relatedSel)).ToBeVisible())
	// The Map tab, by keyboard too.
	mapTab := `a[href="` + deployPath + `?view=map"]`
	tabTo(t, page, mapTab)
	must(t, kb(page).Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(env.console.URL+mapPath(deployPath)))
	dm := readMap(t, page)
	if _, ok := dm.node("Pod", pod.Name); !ok {
		t.Errorf("the Deployment's map has no node for its Pod %s", pod.Name)
	}

	// The Service that selects the Pod, from the Pod's map.
	goTo(t, page, mapPath(podPath))
	readMap(t, page)
	tabTo(t, page, mapLinkTo(servicePath))
	if got := focusedHref(t, page); got != servicePath {
		t.Fatalf("focus is on %q, want the Service's node", got)
	}
	must(t, kb(page).Press("Enter"))
	must(t, expect.Page(page).ToHaveURL(env.console.URL+servicePath))
	must(t, expect.Locator(page.GetByTestId("object-kind")).ToHaveText("Service"))
	sp := readRelated(t, page)
	if len(sp.find("Selects", "Pod", pod.Name)) == 0 {
		t.Errorf("the Service web's Related section does not say it selects %s:%s", pod.Name, sp)
	}
	_, err := page.GoBack()
	must(t, err)
	must(t, expect.Page(page).ToHaveURL(env.console.URL+mapPath(podPath)))
	must(t, expect.Locator(page.Locator(mapLinkTo(servicePath))).ToBeVisible())
}

// The object page with Related, the map and the namespace map pass axe in
// both themes, and are kept as screenshots, the map on a phone too.
func TestRelationPagesAccessibleAndScreenshots(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := webPods(t, cs)[0]
	podPath := "/c/admin/api/v1/namespaces/demo/pods/" + pod.Name
	deployPath := "/c/admin/apis/apps/v1/namespaces/demo/deployments/web"
	for _, tc := range []struct{ name, path, ready string }{
		{"relations-related-pod", podPath, relatedSel},
		{"relations-related-deployment", deployPath, relatedSel},
		{"relations-map-deployment", mapPath(deployPath), mapSel},
		{"relations-map-pod", mapPath(podPath), mapSel},
		{"relations-namespace-map", "/c/admin/api/v1/namespaces/demo?view=map", `[data-testid=namespace-map]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := newPage(t)
			goTo(t, page, tc.path)
			must(t, expect.Locator(page.Locator(tc.ready)).ToBeVisible())
			screenshotThemes(t, page, tc.name)
			checkA11y(t, page, tc.name)
			dark := darkPage(t)
			goTo(t, dark, tc.path)
			must(t, expect.Locator(dark.Locator(tc.ready)).ToBeVisible())
			screenshot(t, dark, tc.name+"-prefers-dark.png")
		})
	}

	// The namespace map groups demo's objects by application and owner.
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo?view=map")
	nsMap := page.GetByTestId("namespace-map")
	must(t, expect.Locator(nsMap).ToBeVisible())
	must(t, expect.Locator(nsMap.Locator(`[data-testid=app-group][data-app]`).First()).ToBeVisible())
	must(t, expect.Locator(nsMap.Locator(`[data-testid=owner-tree]`).First()).ToBeVisible())
	must(t, expect.Locator(nsMap.Locator(`a[href="`+deployPath+`"]`).First()).ToBeAttached())

	// A phone: the map fits its column, or scrolls inside it.
	phone := mobilePage(t)
	goTo(t, phone, mapPath(deployPath))
	must(t, expect.Locator(phone.Locator(mapSel)).ToBeVisible())
	overflow, err := phone.Evaluate(`() => document.documentElement.scrollWidth - window.innerWidth`)
	must(t, err)
	if px := toFloat(overflow); px > 0 {
		t.Errorf("at 390x844 the map page is %.0fpx wider than the window", px)
	}
	screenshotThemes(t, phone, "relations-map-390x844")
	checkA11y(t, phone, "relations-map-390x844")
}

// The viewer may not list Secrets in demo: the Deployment api's Related
// section says Secrets were skipped as forbidden, shows the Secret its pod
// template names only as a reference it could not read, and no Secret it
// found by listing; the admin's shows the same Secret as read.
func TestRelationsLeaveOutWhatTheViewerMayNotList(t *testing.T) {
	const apiPath = "/apis/apps/v1/namespaces/demo/deployments/api"
	page := newPage(t)
	goTo(t, page, "/c/viewer"+apiPath)
	p := readRelated(t, page)
	forbidden := slices.ContainsFunc(p.Skipped, func(s relatedSkip) bool {
		return (s.Resource == "secrets" || strings.Contains(s.Text, "secrets") || strings.Contains(s.Text, "Secret")) &&
			(s.Reason == "forbidden" || strings.Contains(strings.ToLower(s.Text), "forbidden"))
	})
	if !forbidden {
		t.Errorf("the viewer's Related section does not list Secrets as skipped for forbidden: %+v", p.Skipped)
	}
	refs := 0
	for _, r := range p.Rows {
		if r.Kind != "Secret" {
			continue
		}
		if r.Relation != "References" {
			t.Errorf("the viewer sees a Secret the scan could only have listed: %s", r)
		}
		if r.Name == "api-credentials" {
			refs++
			if r.Health == "Current" {
				t.Errorf("the viewer's reference to api-credentials shows health %q, as if read: %s", r.Health, r)
			}
			if !strings.Contains(r.Why, "secretRef") {
				t.Errorf("the reference to api-credentials says why %q, want the envFrom secretRef field", r.Why)
			}
		}
	}
	if refs == 0 {
		t.Errorf("the viewer's Related section does not name the Secret api-credentials that api's pod template references:%s", p)
	}
	body, err := page.Content()
	must(t, err)
	for _, secret := range []string{"s3cr3t", "demo-4f9c2a7e1b"} {
		if strings.Contains(body, secret) {
			t.Errorf("the viewer's page holds the Secret's value %q", secret)
		}
	}
	must(t, expect.Locator(page.Locator(relatedSkippedSel)).ToContainText("ecret"))
	screenshotThemes(t, page, "relations-viewer")
	checkA11y(t, page, "relations-viewer")

	// The same on the viewer's map: a node, not read.
	goTo(t, page, "/c/viewer"+apiPath+"?view=map")
	m := readMap(t, page)
	for _, n := range m.nodes("Secret") {
		if n.Name != "api-credentials" || n.Health == "Current" {
			t.Errorf("the viewer's map shows Secret %s as %q", n.Name, n.Health)
		}
	}

	// The admin may list Secrets: the same reference, read.
	admin := newPage(t)
	goTo(t, admin, "/c/admin"+apiPath)
	ap := readRelated(t, admin)
	rows := ap.find("References", "Secret", "api-credentials")
	if len(rows) == 0 || rows[0].Health != "Current" {
		t.Errorf("the admin's reference to api-credentials is %v, want it read (Current)", rows)
	}
	if slices.ContainsFunc(ap.Skipped, func(s relatedSkip) bool {
		return s.Resource == "secrets" && strings.Contains(strings.ToLower(s.Reason+s.Text), "forbidden")
	}) {
		t.Errorf("the admin's section lists Secrets as forbidden")
	}
}

// Against the dev control plane, without a browser: the Deployment web's
// map holds its ReplicaSet and every one of its Pods, linked; each Pod's
// Related section says the Service web selects it (spec.selector); and the
// pages state the scan's upstream requests and the kinds it skipped.
func TestRelationsOfTheDemoDeployment(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pods := webPods(t, cs)
	d, err := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
	must(t, err)
	sets, err := cs.AppsV1().ReplicaSets("demo").List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	must(t, err)
	var current string
	for _, rs := range sets.Items {
		if metav1.IsControlledBy(&rs, d) && rs.Status.Replicas > 0 {
			current = rs.Name
		}
	}
	if current == "" {
		t.Fatalf("no ReplicaSet of web has pods")
	}

	code, body := consoleGet(t, mapPath("/c/admin/apis/apps/v1/namespaces/demo/deployments/web"))
	if code != http.StatusOK {
		t.Fatalf("the map: status %d", code)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	must(t, err)
	nodes := map[string][]string{}
	hrefs := map[string]string{}
	doc.Find(mapSel + " " + mapNodeSel).Each(func(_ int, n *goquery.Selection) {
		kind, _ := n.Attr("data-kind")
		name, _ := n.Attr("data-name")
		nodes[kind] = append(nodes[kind], name)
		a := n.Closest("a")
		if a.Length() == 0 {
			a = n.Find("a")
		}
		href, _ := a.Attr("href")
		hrefs[kind+"/"+name] = href
	})
	t.Logf("the map's nodes: %v", nodes)
	if !slices.Contains(nodes["ReplicaSet"], current) {
		t.Errorf("the map has ReplicaSets %v, want %s among them", nodes["ReplicaSet"], current)
	}
	if got, want := len(nodes["Pod"]), int(*d.Spec.Replicas); got < want {
		t.Errorf("the map has %d Pods, want web's %d", got, want)
	}
	for _, p := range pods {
		if !slices.Contains(nodes["Pod"], p.Name) {
			t.Errorf("the map has no node for web's Pod %s (it has %v)", p.Name, nodes["Pod"])
		}
		if want := "/c/admin/api/v1/namespaces/demo/pods/" + p.Name; hrefs["Pod/"+p.Name] != want {
			t.Errorf("Pod %s's node links to %q, want %s", p.Name, hrefs["Pod/"+p.Name], want)
		}
	}
	if list := doc.Find(mapListSel); list.Length() != 1 || list.Find(`a[href="/c/admin/api/v1/namespaces/demo/pods/`+pods[0].Name+`"]`).Length() == 0 {
		t.Errorf("the map's list has no link to the Pod %s", pods[0].Name)
	}
	checkSummary(t, "the Deployment's map", doc)
	doc.Find(relatedSkippedSel + " " + skippedKindSel).Each(func(_ int, li *goquery.Selection) {
		t.Logf("the Deployment's map skipped %s", strings.Join(strings.Fields(li.Text()), " "))
	})

	for _, p := range pods {
		path := "/c/admin/api/v1/namespaces/demo/pods/" + p.Name
		rp, err := relatedOverHTTP(t, path)
		must(t, err)
		rows := rp.find("Selected by", "Service", "web")
		if len(rows) == 0 {
			t.Errorf("Pod %s: no row Selected by Service web:%s", p.Name, rp)
			continue
		}
		if !strings.Contains(rows[0].Why, "spec.selector") || rows[0].Href != "/c/admin/api/v1/namespaces/demo/services/web" {
			t.Errorf("Pod %s: %s, want why spec.selector and a link to the Service", p.Name, rows[0])
		}
		owners := rp.find("Owned by", "ReplicaSet", current)
		if len(owners) == 0 {
			t.Errorf("Pod %s: no row Owned by ReplicaSet %s:%s", p.Name, current, rp)
		}
	}
	_, body = consoleGet(t, "/c/admin/api/v1/namespaces/demo/pods/"+pods[0].Name)
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(body))
	must(t, err)
	checkSummary(t, "the Pod's page", doc)

	// ?related=0 leaves the section out.
	code, body = consoleGet(t, "/c/admin/apis/apps/v1/namespaces/demo/deployments/web?related=0")
	if code != http.StatusOK {
		t.Fatalf("?related=0: status %d", code)
	}
	if strings.Contains(body, `data-testid="related"`) {
		t.Errorf("?related=0 still renders the Related section")
	}
}

// checkSummary wants the scan's summary: its upstream request count (a
// positive number), and the details of the kinds it skipped.
func checkSummary(t *testing.T, where string, doc *goquery.Document) {
	t.Helper()
	s := doc.Find(relatedSummarySel)
	if s.Length() != 1 {
		t.Errorf("%s has %d scan summaries (%s), want one", where, s.Length(), relatedSummarySel)
		return
	}
	line := strings.Join(strings.Fields(s.Find(scanLineSel).Text()), " ")
	if n, err := strconv.Atoi(scanRequests(line)); err != nil || n < 1 {
		t.Errorf("%s: the scan's line %q does not state a positive number of requests", where, line)
	}
	skipped := s.Find(relatedSkippedSel + " " + skippedKindSel)
	if skipped.Length() > 0 && s.Find(relatedSkippedSel+" summary").Length() != 1 {
		t.Errorf("%s: the skipped kinds have no summary line", where)
	}
	skipped.Each(func(_ int, li *goquery.Selection) {
		if r, _ := li.Attr("data-resource"); r == "" || strings.TrimSpace(li.Find(".scan-skip-reason").Text()) == "" {
			t.Errorf("%s: a skipped kind without its resource or reason: %q", where, strings.Join(strings.Fields(li.Text()), " "))
		}
	})
	t.Logf("%s: %s; %d kinds skipped", where, line, skipped.Length())
}
