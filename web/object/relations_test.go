package object

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

var (
	podsRes        = apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}
	secretsRes     = apiclient.Resource{Version: "v1", Name: "secrets", Kind: "Secret", Namespaced: true}
	configMapsRes  = apiclient.Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true}
	servicesRes    = apiclient.Resource{Version: "v1", Name: "services", Kind: "Service", Namespaced: true}
	replicaSetsRes = apiclient.Resource{Group: "apps", Version: "v1", Name: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	deploymentsRes = apiclient.Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true}
	// A reference to a kind discovery does not know: no resource name.
	widgetRef = apiclient.Resource{Group: "example.com", Kind: "Widget"}
)

const hostile = `<script>alert(1)</script>`

// Indexes of podGraph's nodes.
const (
	nPod = iota
	nRS
	nDeploy
	nService
	nSecret
	nWidget
	nMissing
	nSibling
	nHostile
)

// podGraph is a Pod's graph: owned by a ReplicaSet owned by a Deployment,
// selected by a Service, referencing a Secret (twice), a kind the server
// does not serve and a ConfigMap that does not exist, and sharing its
// application with a Pod of a hostile name; the ReplicaSet's other Pod is
// two hops out.
func podGraph() *apiclient.Graph {
	node := func(r apiclient.Resource, name string, h apiclient.Health, hop int) apiclient.Node {
		return apiclient.Node{Resource: r, Namespace: "demo", Name: name, Health: h, Hop: hop, App: "part-of=shop"}
	}
	g := &apiclient.Graph{
		Focus: nPod,
		Nodes: []apiclient.Node{
			nPod:     node(podsRes, "web-1", apiclient.HealthCurrent, 0),
			nRS:      node(replicaSetsRes, "web-5d9", apiclient.HealthInProgress, 1),
			nDeploy:  node(deploymentsRes, "web", apiclient.HealthCurrent, 2),
			nService: node(servicesRes, "web", apiclient.HealthCurrent, 1),
			nSecret:  node(secretsRes, "db-creds", apiclient.HealthUnread, 1),
			nWidget:  node(widgetRef, "thing", apiclient.HealthUnknown, 1),
			nMissing: node(configMapsRes, "missing", apiclient.HealthNotFound, 1),
			nSibling: node(podsRes, "web-2", apiclient.HealthFailed, 2),
			nHostile: node(podsRes, hostile, apiclient.HealthTerminating, 1),
		},
		Links: []apiclient.Link{
			{From: nDeploy, To: nRS, Relation: apiclient.Owns, Why: "ownerReferences (controller)"},
			{From: nRS, To: nPod, Relation: apiclient.Owns, Why: "ownerReferences (controller)"},
			{From: nRS, To: nSibling, Relation: apiclient.Owns, Why: "ownerReferences (controller)"},
			{From: nService, To: nPod, Relation: apiclient.Selects, Why: "spec.selector"},
			{From: nPod, To: nSecret, Relation: apiclient.References, Why: "spec.volumes[0].secret.secretName"},
			{From: nPod, To: nSecret, Relation: apiclient.References, Why: "spec.containers[0].env[0].valueFrom.secretKeyRef.name"},
			{From: nPod, To: nWidget, Relation: apiclient.References, Why: "spec.widgetRef"},
			{From: nPod, To: nMissing, Relation: apiclient.References, Why: "spec.volumes[1].configMap.name"},
			{From: nPod, To: nHostile, Relation: apiclient.SharesApp, Why: "app.kubernetes.io/part-of=shop"},
		},
		Scan: apiclient.Scan{
			Requests:  14,
			Skipped:   []apiclient.Skipped{{Resource: apiclient.Resource{Group: "example.com", Version: "v1", Name: "gadgets", Kind: "Gadget"}, Reason: "forbidden: you may not list gadgets"}},
			NoSchema:  []apiclient.Resource{podsRes},
			NoOpenAPI: true,
			Elapsed:   40 * time.Millisecond,
		},
	}
	for i := range 12 {
		g.Scan.Asked = append(g.Scan.Asked, apiclient.Resource{Name: "kind" + strconv.Itoa(i)})
	}
	g.Nodes[nHostile].HealthMessage = "deleting"
	g.Nodes[nMissing].HealthMessage = `configmaps "missing" not found`
	return g
}

func testURLs() page.URLs { return page.URLsOf(context.Background()).In("dev") }

// render renders c and parses it, failing on a repeated id.
func render(t *testing.T, c templ.Component) (*goquery.Document, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if ids[id] {
			t.Errorf("id %q is repeated", id)
		}
		ids[id] = true
	})
	return doc, buf.String()
}

func attrs(s *goquery.Selection, attr string) []string {
	var out []string
	s.Each(func(_ int, e *goquery.Selection) { out = append(out, e.AttrOr(attr, "")) })
	return out
}

func TestRelatedSectionGroupsTheFocusLinks(t *testing.T) {
	s := relatedSection(testURLs(), podGraph())
	doc, html := render(t, views.RelatedSectionView(*s))
	sec := doc.Find("[data-testid=related]")
	if sec.Length() != 1 {
		t.Fatalf("%d related sections", sec.Length())
	}
	// The owner chain first, up to its root; then the other relations in
	// a fixed order, as the focus sees them.
	if got, want := attrs(sec.Find("[data-testid=related-group]"), "data-relation"), []string{"owned-by", "selected-by", "references", "same-app"}; !slices.Equal(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
	var rows []string
	sec.Find("[data-testid=related-row]").Each(func(_ int, r *goquery.Selection) {
		rows = append(rows, strings.Join([]string{
			r.Find("td.related-relation").Text(), r.AttrOr("data-kind", ""), r.AttrOr("data-name", ""),
			r.Find("[data-testid=related-why]").Text(), r.Find("[data-testid=related-via]").Text(),
			r.Find("[data-testid=health]").AttrOr("data-health", "?"),
		}, "|"))
	})
	want := []string{
		"Owned by|ReplicaSet|web-5d9|ownerReferences (controller)||InProgress",
		"Owned by|Deployment|web|ownerReferences (controller)|via ReplicaSet web-5d9|Current",
		"Selected by|Service|web|spec.selector||Current",
		"References|ConfigMap|missing|spec.volumes[1].configMap.name||NotFound",
		// A node reached through two links shows both.
		"References|Secret|db-creds|spec.containers[0].env[0].valueFrom.secretKeyRef.name||",
		"References|Secret|db-creds|spec.volumes[0].secret.secretName||",
		"References|Widget|thing|spec.widgetRef||Unknown",
		"Same application|Pod|" + hostile + "|app.kubernetes.io/part-of=shop||Terminating",
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	links := sec.Find("[data-testid=related-row] a")
	wantHrefs := []string{
		"/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9",
		"/c/dev/apis/apps/v1/namespaces/demo/deployments/web",
		"/c/dev/api/v1/namespaces/demo/services/web",
		"/c/dev/api/v1/namespaces/demo/configmaps/missing",
		"/c/dev/api/v1/namespaces/demo/secrets/db-creds",
		"/c/dev/api/v1/namespaces/demo/secrets/db-creds",
		"/c/dev/api/v1/namespaces/demo/pods/%3Cscript%3Ealert%281%29%3C%2Fscript%3E",
	}
	if got := attrs(links, "href"); !slices.Equal(got, wantHrefs) {
		t.Errorf("links = %v\nwant %v", got, wantHrefs)
	}
	// The kind the server does not serve is named, not linked.
	widget := sec.Find("[data-testid=related-row][data-kind=Widget]")
	if widget.Find("a").Length() != 0 || widget.Find(".related-unlinked").Text() != "thing" {
		t.Errorf("the Widget row links or lacks its name: %q", widget.Find("td.related-name").Text())
	}
	missing := sec.Find("[data-testid=related-row][data-name=missing] [data-testid=health]")
	if missing.Text() != "Not found" || missing.AttrOr("title", "") != `configmaps "missing" not found` || !missing.HasClass("health-notfound") {
		t.Errorf("NotFound badge = %q, title %q, class %q", missing.Text(), missing.AttrOr("title", ""), missing.AttrOr("class", ""))
	}
	if unread := sec.Find("[data-testid=related-row][data-name=db-creds] [data-testid=health]").First(); unread.Text() != "—" || !unread.HasClass("health-unread") {
		t.Errorf("unread badge = %q, class %q", unread.Text(), unread.AttrOr("class", ""))
	}
	// The scan: what it asked and cost, what it skipped and why, and that
	// schemas could not say more.
	if got := sec.Find("[data-testid=scan-line]").Text(); !strings.Contains(got, "12 kinds asked in 14 requests, 0.04 s.") {
		t.Errorf("scan line = %q", got)
	}
	skipped := sec.Find("[data-testid=related-skipped]")
	if skipped.Is("details") == false || skipped.Find("[data-testid=skipped-kind]").Length() != 1 ||
		skipped.Find("[data-testid=skipped-kind]").AttrOr("data-resource", "") != "gadgets.example.com" ||
		!strings.Contains(skipped.Text(), "forbidden: you may not list gadgets") {
		t.Errorf("skipped = %q", skipped.Text())
	}
	if sec.Find("[data-testid=scan-no-openapi]").Length() != 1 || sec.Find("[data-testid=scan-no-schema]").Length() != 0 {
		t.Error("the note says no OpenAPI once, and lists no kinds besides")
	}
	if href := sec.Find("[data-testid=related-map-link]").AttrOr("href", ""); href != "/c/dev/api/v1/namespaces/demo/pods/web-1?view=map" {
		t.Errorf("map link = %q", href)
	}
	if strings.Contains(html, "<script>") {
		t.Error("a hostile name reached the page unescaped")
	}
}

func TestRelatedSectionNamesKindsWithoutSchema(t *testing.T) {
	g := podGraph()
	g.Scan.NoOpenAPI = false
	g.Scan.NoSchema = []apiclient.Resource{podsRes, widgetRef}
	doc, _ := render(t, views.RelatedSectionView(*relatedSection(testURLs(), g)))
	if got := doc.Find("[data-testid=scan-no-schema]").Text(); !strings.Contains(got, "Pod, Widget") || doc.Find("[data-testid=scan-no-openapi]").Length() != 0 {
		t.Errorf("no-schema note = %q", got)
	}
}

// ownerOf is a graph of a ReplicaSet owning n Pods.
func ownerOf(n int) *apiclient.Graph {
	g := &apiclient.Graph{Nodes: []apiclient.Node{{Resource: replicaSetsRes, Namespace: "demo", Name: "web-5d9", Health: apiclient.HealthCurrent}}}
	for i := range n {
		g.Nodes = append(g.Nodes, apiclient.Node{Resource: podsRes, Namespace: "demo", Name: fmt.Sprintf("web-5d9-%03d", i), Health: apiclient.HealthCurrent, Hop: 1})
		g.Links = append(g.Links, apiclient.Link{From: 0, To: i + 1, Relation: apiclient.Owns, Why: "ownerReferences (controller)"})
	}
	return g
}

func TestRelatedSectionCapsAGroup(t *testing.T) {
	doc, _ := render(t, views.RelatedSectionView(*relatedSection(testURLs(), ownerOf(maxRelatedRows+10))))
	if n := doc.Find("[data-testid=related-row][data-relation=owns]").Length(); n != maxRelatedRows {
		t.Errorf("%d rows, want the cap %d", n, maxRelatedRows)
	}
	more := doc.Find("[data-testid=related-more]")
	if more.AttrOr("data-more", "") != "10" || more.Find("a").AttrOr("href", "") != "/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9?view=map" {
		t.Errorf("more row = %q, link %q", more.Text(), more.Find("a").AttrOr("href", ""))
	}
	if last := doc.Find("[data-testid=related-row]").Last().AttrOr("data-name", ""); last != fmt.Sprintf("web-5d9-%03d", maxRelatedRows-1) {
		t.Errorf("last row = %q: rows are not in name order", last)
	}
}

// An application is often the whole namespace: its group stops sooner,
// and points at the namespace map, where the application is drawn.
func TestRelatedSectionCapsTheApplicationLower(t *testing.T) {
	g := ownerOf(maxAppRows + 4)
	for i := range g.Links {
		g.Links[i].Relation, g.Links[i].Why = apiclient.SharesApp, "app.kubernetes.io/part-of=shop"
	}
	s := relatedSection(testURLs(), g)
	s.NamespaceMapHref = "/c/dev/api/v1/namespaces/demo?view=map"
	doc, _ := render(t, views.RelatedSectionView(*s))
	if n := doc.Find("[data-testid=related-row][data-relation=same-app]").Length(); n != maxAppRows {
		t.Errorf("%d rows, want the cap %d", n, maxAppRows)
	}
	more := doc.Find("[data-testid=related-more]")
	if more.AttrOr("data-more", "") != "4" || more.Find("a").AttrOr("href", "") != "/c/dev/api/v1/namespaces/demo?view=map" {
		t.Errorf("more row = %q, link %q", more.Text(), more.Find("a").AttrOr("href", ""))
	}
}

func TestRelatedSectionEmpty(t *testing.T) {
	g := &apiclient.Graph{Nodes: []apiclient.Node{{Resource: podsRes, Namespace: "demo", Name: "lonely"}}, Scan: apiclient.Scan{Requests: 1, Asked: []apiclient.Resource{podsRes}, Elapsed: 5 * time.Millisecond}}
	doc, _ := render(t, views.RelatedSectionView(*relatedSection(testURLs(), g)))
	if doc.Find("[data-testid=related-empty]").Text() != "No related objects found." || doc.Find("[data-testid=related-row]").Length() != 0 {
		t.Error("an empty graph does not say so")
	}
	if got := doc.Find("[data-testid=scan-line]").Text(); !strings.Contains(got, "1 kind asked in 1 request, 0.01 s.") {
		t.Errorf("scan line = %q", got)
	}
	if doc.Find("[data-testid=related-skipped]").Length() != 0 {
		t.Error("a skipped list with nothing skipped")
	}
	if relatedSection(testURLs(), nil) != nil {
		t.Error("no graph, yet a section")
	}
}

// mapNode finds the diagram's box of an object.
func mapNode(t *testing.T, doc *goquery.Document, kind, name string) *goquery.Selection {
	t.Helper()
	var found *goquery.Selection
	doc.Find("[data-testid=map-node]").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("data-kind", "") == kind && s.AttrOr("data-name", "") == name {
			found = s
		}
	})
	if found == nil {
		t.Fatalf("no map node for %s %s", kind, name)
	}
	return found
}

func yOf(t *testing.T, s *goquery.Selection) int {
	t.Helper()
	y, err := strconv.Atoi(s.AttrOr("data-y", ""))
	if err != nil {
		t.Fatal(err)
	}
	if ry := s.Find("rect").AttrOr("y", ""); ry != s.AttrOr("data-y", "") {
		t.Fatalf("data-y %q is not the box's y %q", s.AttrOr("data-y", ""), ry)
	}
	return y
}

func TestRelationMapLayersAndMirrorsTheGraph(t *testing.T) {
	m := relationMap(testURLs(), podGraph())
	doc, html := render(t, views.RelationMapView(*m))
	if doc.Find("[data-testid=relation-map]").Length() != 1 || m.Namespace != nil {
		t.Fatal("no object map")
	}
	svg := doc.Find("[data-testid=map-svg]")
	if svg.AttrOr("role", "") != "group" || !strings.Contains(svg.AttrOr("aria-label", ""), "Pod web-1 and 8 related objects") || svg.AttrOr("viewBox", "") == "" {
		t.Errorf("svg role %q, label %q, viewBox %q", svg.AttrOr("role", ""), svg.AttrOr("aria-label", ""), svg.AttrOr("viewBox", ""))
	}
	focus := mapNode(t, doc, "Pod", "web-1")
	if focus.AttrOr("data-focus", "") != "true" || !focus.HasClass("map-focus") || doc.Find("[data-testid=map-node][data-focus=true]").Length() != 1 {
		t.Error("the focus is not the one highlighted node")
	}
	y := func(kind, name string) int { return yOf(t, mapNode(t, doc, kind, name)) }
	fy := y("Pod", "web-1")
	for _, c := range []struct {
		kind, name string
		cmp        int // -1 above the focus, 0 beside, 1 below
	}{
		{"ReplicaSet", "web-5d9", -1}, {"Service", "web", -1}, {"Secret", "db-creds", 1}, {"ConfigMap", "missing", 1},
		{"Widget", "thing", 1}, {"Pod", hostile, 0}, {"Pod", "web-2", 0},
	} {
		if got := y(c.kind, c.name); compareInt(got, fy) != c.cmp {
			t.Errorf("%s %s at y=%d, focus at %d: want side %d", c.kind, c.name, got, fy, c.cmp)
		}
	}
	// The owner's owner is two layers up.
	if dy, ry := y("Deployment", "web"), y("ReplicaSet", "web-5d9"); dy >= ry {
		t.Errorf("Deployment at %d is not above its ReplicaSet at %d", dy, ry)
	}
	// Every box links to its object, but the kind the server does not serve.
	if a := mapNode(t, doc, "ReplicaSet", "web-5d9"); !a.Is("a") || a.AttrOr("href", "") != "/c/dev/apis/apps/v1/namespaces/demo/replicasets/web-5d9" {
		t.Errorf("ReplicaSet box: <%s href=%q>", goquery.NodeName(a), a.AttrOr("href", ""))
	}
	if w := mapNode(t, doc, "Widget", "thing"); w.Is("a") {
		t.Error("the Widget box links")
	}
	if title := mapNode(t, doc, "ConfigMap", "missing").ChildrenFiltered("title").Text(); !strings.Contains(title, `configmaps "missing" not found`) {
		t.Errorf("the box's title = %q", title)
	}
	// Edges: one per link (the Secret's two links are one edge), arrowheads
	// from the one marker.
	if got := strings.Join(attrs(doc.Find("[data-testid=map-edge]"), "data-relation"), ","); got != "owns,owns,owns,selects,references,references,references,shares-app" {
		t.Errorf("edges = %s", got)
	}
	if doc.Find("marker#map-arrow").Length() != 1 || doc.Find(`[data-testid=map-edge][data-relation=shares-app][marker-end]`).Length() != 0 {
		t.Error("the arrowhead marker is missing, or sharing an application has a direction")
	}
	// The list holds the same objects as the diagram.
	var boxes, items []string
	doc.Find("[data-testid=map-node]").Each(func(_ int, s *goquery.Selection) {
		boxes = append(boxes, s.AttrOr("data-kind", "")+" "+s.AttrOr("data-name", ""))
	})
	list := doc.Find("[data-testid=relation-list]")
	list.Find("[data-testid=relation-item]").Each(func(_ int, s *goquery.Selection) {
		items = append(items, s.AttrOr("data-kind", "")+" "+s.AttrOr("data-name", ""))
	})
	slices.Sort(boxes)
	slices.Sort(items)
	if !slices.Equal(boxes, slices.Compact(items)) || len(boxes) != len(podGraph().Nodes) {
		t.Errorf("diagram %v\nlist %v", boxes, items)
	}
	// The focus tops the list; the Deployment is nested under the
	// ReplicaSet it owns, and each item has its badge.
	top := list.Children().First()
	if top.AttrOr("data-name", "") != "web-1" || list.Children().Length() != 1 {
		t.Errorf("list top = %q", top.AttrOr("data-name", ""))
	}
	if got := attrs(top.ChildrenFiltered("ul").Children(), "data-relation"); !slices.Equal(got, []string{"owned-by", "selected-by", "references", "same-app"}) {
		t.Errorf("focus groups = %v", got)
	}
	rs := top.Find("[data-testid=relation-item][data-name=web-5d9]")
	if dep := rs.Find("[data-testid=relation-group][data-relation=owned-by] [data-testid=relation-item][data-kind=Deployment]"); dep.Length() != 1 || dep.Find("a").AttrOr("href", "") != "/c/dev/apis/apps/v1/namespaces/demo/deployments/web" {
		t.Error("the Deployment is not listed under its ReplicaSet")
	}
	if rs.Find("[data-testid=relation-group][data-relation=owns] [data-name=web-2]").Length() != 1 {
		t.Error("the sibling Pod is not listed under its ReplicaSet")
	}
	if n, b := list.Find("[data-testid=relation-item]").Length(), list.Find("[data-testid=relation-item] > .relation-object > [data-testid=health]").Length(); n != b {
		t.Errorf("%d items, %d badges", n, b)
	}
	if legend := doc.Find("[data-testid=map-legend]"); legend.Find(".map-legend-health li").Length() != len(healthBadges) || legend.Find(".map-legend-edges li").Length() != 4 {
		t.Errorf("legend = %q", legend.Text())
	}
	if doc.Find("[data-testid=related-skipped] [data-testid=skipped-kind]").Length() != 1 || doc.Find("[data-testid=scan-no-openapi]").Length() != 1 {
		t.Error("the map lacks the scan summary")
	}
	if strings.Contains(html, "<script>") || mapNode(t, doc, "Pod", hostile).ChildrenFiltered("title").Length() != 1 {
		t.Error("a hostile name reached the map unescaped")
	}
}

func compareInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestRelationMapCapsALayerAndBoundsItsWidth(t *testing.T) {
	const pods = 25
	doc, _ := render(t, views.RelationMapView(*relationMap(testURLs(), ownerOf(pods))))
	more := doc.Find("[data-testid=map-more]")
	if more.Length() != 1 || more.AttrOr("data-more", "") != strconv.Itoa(pods-(nodesPerLayer-1)) || more.AttrOr("href", "") != "#relation-list" {
		t.Fatalf("more box: %d, %q → %q", more.Length(), more.AttrOr("data-more", ""), more.AttrOr("href", ""))
	}
	if n := doc.Find("[data-testid=map-node]").Length(); n != nodesPerLayer {
		t.Errorf("%d boxes besides the more box, want the ReplicaSet and %d pods", n, nodesPerLayer-1)
	}
	if n := doc.Find("#relation-list [data-testid=relation-item]").Length(); n != pods+1 {
		t.Errorf("the list holds %d objects, want them all (%d)", n, pods+1)
	}
	var w, h int
	if _, err := fmt.Sscanf(doc.Find("[data-testid=map-svg]").AttrOr("viewBox", ""), "0 0 %d %d", &w, &h); err != nil {
		t.Fatal(err)
	}
	if maxW := 2*mapPad + nodesPerRow*nodeWidth + (nodesPerRow-1)*nodeGap; w > maxW {
		t.Errorf("width %d over the bound %d", w, maxW)
	}
	doc.Find("[data-testid=map-svg] rect").Each(func(_ int, r *goquery.Selection) {
		x, _ := strconv.Atoi(r.AttrOr("x", ""))
		y, _ := strconv.Atoi(r.AttrOr("y", ""))
		if x < 0 || y < 0 || x+nodeWidth > w || y+nodeHeight > h {
			t.Errorf("box at %d,%d outside %dx%d", x, y, w, h)
		}
	})
	if !doc.Find("[data-testid=map-svg]").HasClass("map-svg-wide") {
		t.Error("a wide map shrinks on a phone instead of scrolling")
	}
}

// nsGraph is a namespace: shop's Deployment web → ReplicaSet → two Pods and
// its Service; a Deployment db with no labels whose Pod is part of shop; a
// ConfigMap of no application; a hostile Secret of another application.
func nsGraph() *apiclient.Graph {
	n := func(r apiclient.Resource, name, app string) apiclient.Node {
		return apiclient.Node{Resource: r, Namespace: "demo", Name: name, App: app, Health: apiclient.HealthCurrent}
	}
	owns := func(from, to int) apiclient.Link {
		return apiclient.Link{From: from, To: to, Relation: apiclient.Owns, Why: "ownerReferences (controller)"}
	}
	return &apiclient.Graph{
		Focus: -1,
		Nodes: []apiclient.Node{
			0: n(deploymentsRes, "web", "part-of=shop"),
			1: n(replicaSetsRes, "web-5d9", "part-of=shop"),
			2: n(podsRes, "web-5d9-a", "part-of=shop"),
			3: n(podsRes, "web-5d9-b", "part-of=shop"),
			4: n(servicesRes, "web", "part-of=shop"),
			5: n(deploymentsRes, "db", ""),
			6: n(replicaSetsRes, "db-77f", ""),
			7: n(podsRes, "db-77f-x", "part-of=shop"),
			8: n(configMapsRes, "settings", ""),
			9: n(secretsRes, hostile, "instance="+hostile),
		},
		Links: []apiclient.Link{
			owns(0, 1), owns(1, 2), owns(1, 3), owns(5, 6), owns(6, 7),
			{From: 0, To: 4, Relation: apiclient.SharesApp, Why: "app.kubernetes.io/part-of=shop"},
		},
		Scan: apiclient.Scan{Requests: 3, Elapsed: time.Second},
	}
}

func TestNamespaceMapGroupsByApplicationAndOwner(t *testing.T) {
	m := relationMap(testURLs(), nsGraph())
	doc, html := render(t, views.RelationMapView(*m))
	nm := doc.Find("[data-testid=namespace-map]")
	if nm.Length() != 1 || m.Object != nil || !strings.Contains(nm.Find("h2").Text(), "demo") {
		t.Fatal("no namespace map")
	}
	groups := nm.Find("[data-testid=app-group]")
	if got, want := attrs(groups, "data-app"), []string{"instance=" + hostile, "part-of=shop", ""}; !slices.Equal(got, want) {
		t.Errorf("apps = %q, want %q", got, want)
	}
	roots := func(app string) []string {
		var out []string
		groups.FilterFunction(func(_ int, s *goquery.Selection) bool { return s.AttrOr("data-app", "?") == app }).
			Find("[data-testid=owner-tree]").Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("data-kind", "")+" "+s.AttrOr("data-name", ""))
		})
		return out
	}
	// The db Deployment has no label, but its Pod is part of shop: the tree
	// goes with it. The ConfigMap, with no label and no owner, has none.
	if got, want := roots("part-of=shop"), []string{"Deployment db", "Deployment web", "Service web"}; !slices.Equal(got, want) {
		t.Errorf("shop roots = %v, want %v", got, want)
	}
	if got, want := roots(""), []string{"ConfigMap settings"}; !slices.Equal(got, want) {
		t.Errorf("no-application roots = %v, want %v", got, want)
	}
	if label := groups.Last().Find("h3").Text(); !strings.Contains(label, "No application") {
		t.Errorf("last group = %q", label)
	}
	web := nm.Find("[data-testid=owner-tree][data-kind=Deployment][data-name=web]")
	var chain []string
	web.Find("[data-testid=relation-item]").Each(func(_ int, s *goquery.Selection) {
		chain = append(chain, s.AttrOr("data-name", ""))
	})
	if !slices.Equal(chain, []string{"web-5d9", "web-5d9-a", "web-5d9-b"}) {
		t.Errorf("web's tree = %v", chain)
	}
	if web.Find("[data-testid=relation-item][data-name=web-5d9] [data-testid=relation-item][data-name=web-5d9-a] [data-testid=health]").Length() != 1 {
		t.Error("the Pod is not nested under its ReplicaSet, with its badge")
	}
	// Each group's diagram draws its own objects, owners above.
	shop := groups.Eq(1)
	if n := shop.Find("[data-testid=map-node]").Length(); n != 8 {
		t.Errorf("shop's diagram has %d boxes, want 8", n)
	}
	dep, rs, pod := shop.Find("[data-testid=map-node][data-name=web]").First(), shop.Find("[data-testid=map-node][data-name=web-5d9]"), shop.Find("[data-testid=map-node][data-name=web-5d9-a]")
	if !(yOf(t, dep) < yOf(t, rs) && yOf(t, rs) < yOf(t, pod)) {
		t.Error("an owner tree is not drawn owners above")
	}
	if strings.Contains(html, "<script>") {
		t.Error("a hostile name or application reached the page unescaped")
	}
}
