package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// relationsWorld is relatedWorld with the schemas served, so selectors and
// references are known, plus a Secret the web pods mount and a ConfigMap
// of the same application.
func relationsWorld(t *testing.T, opts apitest.Options) (*apitest.Server, map[string]*unstructured.Unstructured) {
	t.Helper()
	fake, objs := relatedWorld(t, opts)
	fake.SetOpenAPI("", "v1", apitest.CoreV1OpenAPI())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	pod := objs["pod-1"]
	if err := unstructured.SetNestedSlice(pod.Object, []any{map[string]any{"name": "creds", "secret": map[string]any{"secretName": "api-credentials"}}}, "spec", "volumes"); err != nil {
		t.Fatal(err)
	}
	pod.SetLabels(map[string]string{"app": "web", "pod-template-hash": "abc", "app.kubernetes.io/part-of": "shop"})
	fake.Update(pod)
	objs["secret"] = apitest.Object("v1", "Secret", "demo", "api-credentials", map[string]any{"data": map[string]any{"password": "c2VjcmV0"}})
	objs["config"] = apitest.Service("demo", "shop-flags", nil)
	objs["config"].SetLabels(map[string]string{"app.kubernetes.io/part-of": "shop"})
	fake.Add(objs["secret"], objs["config"])
	return fake, objs
}

// relate runs Relate on obj as the fake's admin.
func relate(t *testing.T, c *apiclient.Client, obj *unstructured.Unstructured, opts apiclient.RelateOptions) *apiclient.Graph {
	t.Helper()
	ctx := context.Background()
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gvk := obj.GroupVersionKind()
	r, ok := d.ForKind(gvk.GroupVersion().String(), gvk.Kind)
	if !ok {
		t.Fatalf("discovery does not serve %s", gvk)
	}
	g, err := c.Relate(ctx, d, r, obj, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// edges lists a graph's links as "from -relation(why)-> to", sorted.
func edges(g *apiclient.Graph) []string {
	name := func(i int) string {
		n := g.Nodes[i]
		return n.Resource.Kind + " " + n.Name
	}
	var out []string
	for _, l := range g.Links {
		out = append(out, fmt.Sprintf("%s -%s(%s)-> %s", name(l.From), l.Relation, l.Why, name(l.To)))
	}
	slices.Sort(out)
	return out
}

func nodeNamed(g *apiclient.Graph, kind, name string) (apiclient.Node, bool) {
	for _, n := range g.Nodes {
		if n.Resource.Kind == kind && n.Name == name {
			return n, true
		}
	}
	return apiclient.Node{}, false
}

func TestRelatePodFindsItsOwnersSelectorsReferencesAndApplication(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	g := relate(t, clientFor(t, fake), objs["pod-1"], apiclient.RelateOptions{Hops: 1})
	got := edges(g)
	for _, want := range []string{
		"ReplicaSet web-abc -owns(ownerReferences (controller))-> Pod web-abc-1",
		// Up the chain to the root, whatever the hops.
		"Deployment web -owns(ownerReferences (controller))-> ReplicaSet web-abc",
		"Service web -selects(spec.selector)-> Pod web-abc-1",
		"Deployment web -selects(spec.selector)-> Pod web-abc-1",
		"Pod web-abc-1 -references(spec.volumes[0].secret.secretName)-> Secret api-credentials",
		"Pod web-abc-1 -shares-app(app.kubernetes.io/part-of=shop)-> Service shop-flags",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, e := range got {
		// The stray ReplicaSet selects app=web too, but not this pod's
		// hash; the pod in another namespace is not this namespace's.
		if strings.Contains(e, "stray") && strings.Contains(e, "selects") && strings.Contains(e, "web-abc-1") && strings.HasPrefix(e, "ReplicaSet stray") {
			t.Errorf("a selector matching only app=web does not select web-abc-1 through the ReplicaSet stray: %s", e)
		}
		if strings.Contains(e, "web-abc-9") {
			t.Errorf("an object of another namespace is related: %s", e)
		}
	}
	if n, ok := nodeNamed(g, "Secret", "api-credentials"); !ok || n.Health != apiclient.HealthCurrent {
		t.Errorf("the referenced Secret is %+v, want a Current node", n)
	}
	if g.Nodes[g.Focus].Name != "web-abc-1" || g.Scan.NoOpenAPI || g.Scan.Requests == 0 || len(g.Scan.Asked) == 0 {
		t.Errorf("focus %q, scan %+v", g.Nodes[g.Focus].Name, g.Scan)
	}
}

func TestRelateDeploymentMapReachesTwoHops(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	g := relate(t, clientFor(t, fake), objs["deploy"], apiclient.RelateOptions{Hops: 2})
	got := edges(g)
	for _, want := range []string{
		"Deployment web -owns(ownerReferences (controller))-> ReplicaSet web-abc",
		"Deployment web -owns(ownerReferences (controller))-> ReplicaSet web-old",
		"ReplicaSet web-abc -owns(ownerReferences (controller))-> Pod web-abc-1",
		"ReplicaSet web-abc -owns(ownerReferences (controller))-> Pod web-abc-2",
		"Deployment web -selects(spec.selector)-> Pod manual",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if n, ok := nodeNamed(g, "Pod", "web-abc-1"); !ok || n.Hop != 1 {
		// Selected directly, so one hop away even though also owned at two.
		t.Errorf("pod web-abc-1: %+v", n)
	}
	if n, ok := nodeNamed(g, "Secret", "api-credentials"); !ok || n.Hop != 2 {
		t.Errorf("the Secret a selected pod mounts is two hops away: %+v (found %v)", n, ok)
	}
}

func TestRelateWithoutOpenAPIKeepsOwnersAndSaysWhatIsMissing(t *testing.T) {
	fake, objs := relatedWorld(t, apitest.Options{}) // no schemas served
	g := relate(t, clientFor(t, fake), objs["pod-1"], apiclient.RelateOptions{Hops: 1})
	if !g.Scan.NoOpenAPI {
		t.Errorf("NoOpenAPI is false on a server without OpenAPI v3")
	}
	got := edges(g)
	if !slices.Contains(got, "ReplicaSet web-abc -owns(ownerReferences (controller))-> Pod web-abc-1") {
		t.Errorf("owners are lost without OpenAPI:\n%s", strings.Join(got, "\n"))
	}
	for _, e := range got {
		if strings.Contains(e, "-selects(") || strings.Contains(e, "-references(") {
			t.Errorf("a schema relation without a schema: %s", e)
		}
	}
}

func TestRelateNamesForbiddenAndOverBudgetKinds(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	fake.FailResource("", "services", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: `services is forbidden: User "viewer" cannot list resource "services"`})
	g := relate(t, clientFor(t, fake), objs["pod-1"], apiclient.RelateOptions{Hops: 1})
	if reason := skippedReason(g, "services"); !strings.Contains(reason, "forbidden") {
		t.Errorf("services skipped for %q, want forbidden; skipped %+v", reason, g.Scan.Skipped)
	}
	if _, ok := nodeNamed(g, "Service", "web"); ok {
		t.Errorf("a Service the user may not list is in the graph")
	}

	small := relate(t, clientFor(t, fake), objs["pod-1"], apiclient.RelateOptions{Hops: 1, Budget: apiclient.RelateBudget{MaxKinds: 2}})
	if len(small.Scan.Asked) != 2 {
		t.Errorf("asked %d kinds with a budget of 2", len(small.Scan.Asked))
	}
	over := 0
	for _, s := range small.Scan.Skipped {
		if strings.Contains(s.Reason, "budget of 2 kinds") {
			over++
		}
	}
	if over == 0 {
		t.Errorf("no kind is named as over the budget: %+v", small.Scan.Skipped)
	}
}

func skippedReason(g *apiclient.Graph, resource string) string {
	for _, s := range g.Scan.Skipped {
		if s.Resource.Name == resource {
			return s.Reason
		}
	}
	return ""
}

func TestRelateRemembersEmptyKindsAndLearnsRelatedOnes(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	// Two identities of one console share its memory, if anything.
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{BearerToken: "one"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := cs.Client("dev", apiclient.Identity{BearerToken: "another"})
	if err != nil {
		t.Fatal(err)
	}
	first := relate(t, c, objs["pod-1"], apiclient.RelateOptions{Hops: 1})
	if skippedReason(first, "statefulsets") != "" {
		t.Fatalf("statefulsets skipped on the first scan: %+v", first.Scan.Skipped)
	}
	second := relate(t, c, objs["pod-2"], apiclient.RelateOptions{Hops: 1})
	if reason := skippedReason(second, "statefulsets"); !strings.HasPrefix(reason, "none here") {
		t.Errorf("an empty kind is asked again at once: skipped for %q", reason)
	}
	if second.Scan.Requests >= first.Scan.Requests {
		t.Errorf("the second scan made %d requests, the first %d", second.Scan.Requests, first.Scan.Requests)
	}
	// Kinds related to pods before come first.
	if len(second.Scan.Asked) == 0 || second.Scan.Asked[0].Name != "replicasets" && second.Scan.Asked[0].Name != "services" && second.Scan.Asked[0].Name != "secrets" && second.Scan.Asked[0].Name != "deployments" && second.Scan.Asked[0].Name != "configmaps" {
		t.Errorf("asked first: %+v", second.Scan.Asked)
	}
	// Another identity learns nothing from this one.
	third := relate(t, other, objs["pod-2"], apiclient.RelateOptions{Hops: 1})
	if skippedReason(third, "statefulsets") != "" {
		t.Errorf("one identity's memory steered another's scan")
	}
}

func TestRelateCapsTheGraph(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	g := relate(t, clientFor(t, fake), objs["deploy"], apiclient.RelateOptions{Hops: 2, Budget: apiclient.RelateBudget{MaxNodes: 3}})
	if len(g.Nodes) != 3 || !g.Scan.Truncated {
		t.Errorf("%d nodes, truncated %v; want 3, true", len(g.Nodes), g.Scan.Truncated)
	}
	for _, l := range g.Links {
		if l.From < 0 || l.To < 0 || l.From >= len(g.Nodes) || l.To >= len(g.Nodes) {
			t.Errorf("a link to a node left out: %+v", l)
		}
	}
}

func TestRelateMissingReferenceIsNotFound(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	pod := objs["pod-2"]
	if err := unstructured.SetNestedSlice(pod.Object, []any{map[string]any{"name": "gone", "secret": map[string]any{"secretName": "deleted-secret"}}}, "spec", "volumes"); err != nil {
		t.Fatal(err)
	}
	fake.Update(pod)
	g := relate(t, clientFor(t, fake), pod, apiclient.RelateOptions{Hops: 1})
	n, ok := nodeNamed(g, "Secret", "deleted-secret")
	if !ok || n.Health != apiclient.HealthNotFound {
		t.Errorf("a reference to a missing Secret: %+v (found %v), want NotFound", n, ok)
	}
}

func TestRelateOnACSMServerWithoutCoreGroupOrEvents(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CSMGroup())
	param := apitest.Object("policy.example.com/v1", "BOSParameter", "", "x1000c0s0b0n0", map[string]any{"spec": map[string]any{"component": "x1000c0s0b0n0"}})
	session := apitest.Object("policy.example.com/v1", "Session", "", "boot-1", map[string]any{"spec": map[string]any{"operation": "boot", "templateName": "compute"}})
	controller := true
	session.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "policy.example.com/v1", Kind: "BOSParameter", Name: param.GetName(), UID: param.GetUID(), Controller: &controller}})
	fake.Add(param, session)
	g := relate(t, clientFor(t, fake), session, apiclient.RelateOptions{Hops: 2})
	got := edges(g)
	if !slices.Contains(got, "BOSParameter x1000c0s0b0n0 -owns(ownerReferences (controller))-> Session boot-1") {
		t.Errorf("the owner on a CSM server:\n%s", strings.Join(got, "\n"))
	}
	if !g.Scan.NoOpenAPI || len(g.Scan.Notes) == 0 {
		t.Errorf("scan %+v: want NoOpenAPI and a note that what points at a cluster-scoped object was not looked for", g.Scan)
	}
}

func TestNamespaceGraphHasEveryObjectAndItsOwners(t *testing.T) {
	fake, _ := relationsWorld(t, apitest.Options{})
	c := clientFor(t, fake)
	ctx := context.Background()
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.NamespaceGraph(ctx, d, "demo", apiclient.RelateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Focus != -1 {
		t.Errorf("focus %d, want -1", g.Focus)
	}
	for _, want := range []string{"Deployment web", "Pod manual", "Service shop-flags", "Secret api-credentials", "CronJob report"} {
		kind, name, _ := strings.Cut(want, " ")
		if _, ok := nodeNamed(g, kind, name); !ok {
			t.Errorf("no node %s", want)
		}
	}
	if _, ok := nodeNamed(g, "Pod", "web-abc-9"); ok {
		t.Errorf("another namespace's pod is on demo's map")
	}
	if n, _ := nodeNamed(g, "Service", "shop-flags"); n.App != "part-of=shop" {
		t.Errorf("shop-flags's application is %q", n.App)
	}
	got := edges(g)
	if !slices.Contains(got, "CronJob report -owns(ownerReferences (controller))-> Job report-1") {
		t.Errorf("owners:\n%s", strings.Join(got, "\n"))
	}
}

func TestRelateReusesTheUsersListsOfAMomentAgoUnlessFresh(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	one, _ := cs.Client("dev", apiclient.Identity{BearerToken: "one"})
	another, _ := cs.Client("dev", apiclient.Identity{BearerToken: "another"})
	// A long reuse, so that the test does not depend on the machine's speed.
	budget := apiclient.RelateBudget{ReuseFor: time.Hour}
	first := relate(t, one, objs["pod-1"], apiclient.RelateOptions{Hops: 1, Budget: budget})
	if first.Scan.Reused != 0 {
		t.Fatalf("the first scan reused %d lists", first.Scan.Reused)
	}
	// A new pod: a reused list cannot know it, a fresh one does.
	late := apitest.Pod("demo", "web-abc-3", map[string]string{"app": "web", "pod-template-hash": "abc"}, objs["rs"])
	fake.Add(late)
	again := relate(t, one, objs["rs"], apiclient.RelateOptions{Hops: 1, Budget: budget})
	if again.Scan.Reused != len(again.Scan.Asked) || again.Scan.Reused == 0 {
		t.Errorf("reused %d of %d kinds", again.Scan.Reused, len(again.Scan.Asked))
	}
	if _, ok := nodeNamed(again, "Pod", "web-abc-1"); !ok {
		t.Errorf("a reused list lost web-abc-1")
	}
	fresh := relate(t, one, objs["rs"], apiclient.RelateOptions{Hops: 1, Budget: budget, Fresh: true})
	if fresh.Scan.Reused != 0 {
		t.Errorf("a fresh scan reused %d lists", fresh.Scan.Reused)
	}
	if _, ok := nodeNamed(fresh, "Pod", "web-abc-3"); !ok {
		t.Errorf("a fresh scan does not see the new pod: %v", edges(fresh))
	}
	// Another identity never gets one user's lists.
	other := relate(t, another, objs["rs"], apiclient.RelateOptions{Hops: 1, Budget: budget})
	if other.Scan.Reused != 0 {
		t.Errorf("another identity reused %d of one user's lists", other.Scan.Reused)
	}
}

func TestRelateReadsOnlyTheMetadataOfKindsWithoutLinksOrStatus(t *testing.T) {
	fake, objs := relationsWorld(t, apitest.Options{})
	relate(t, clientFor(t, fake), objs["pod-1"], apiclient.RelateOptions{Hops: 1})
	lists := map[string]string{}
	for _, r := range fake.Requests() {
		if r.Method == http.MethodGet && r.URL.Query().Get("limit") != "" {
			lists[r.URL.Path] = r.Header.Get("Accept")
		}
	}
	if accept := lists["/api/v1/namespaces/demo/secrets"]; !strings.Contains(accept, "as=PartialObjectMetadataList") {
		t.Errorf("secrets listed with Accept %q: a scan must not read their data", accept)
	}
	if accept := lists["/api/v1/namespaces/demo/pods"]; strings.Contains(accept, "PartialObjectMetadata") {
		t.Errorf("pods listed as metadata (%q): their selectors' targets and status are needed", accept)
	}
}

// A kind whose schema declares no selector selects what its scale
// subresource's selector (a CRD's labelSelectorPath) matches.
func TestRelateFollowsTheScaleSelector(t *testing.T) {
	fake, _ := relationsWorld(t, apitest.Options{})
	fake.AddGroupVersions(apitest.MaritimeV1Alpha1())
	lamp := apitest.Object("maritime.tabula.dev/v1alpha1", "Lighthouse", "demo", "harbour", map[string]any{"spec": map[string]any{"replicas": int64(2)}})
	fake.Add(lamp)
	g := relate(t, clientFor(t, fake), lamp, apiclient.RelateOptions{Hops: 1, ScaleSelector: "app=web,pod-template-hash=abc"})
	got := edges(g)
	for _, want := range []string{
		"Lighthouse harbour -selects(scale: status.selector)-> Pod web-abc-1",
		"Lighthouse harbour -selects(scale: status.selector)-> Pod web-abc-2",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if slices.ContainsFunc(got, func(e string) bool { return strings.Contains(e, "-> Pod manual") }) {
		t.Errorf("the scale selector's hash is ignored:\n%s", strings.Join(got, "\n"))
	}
}
