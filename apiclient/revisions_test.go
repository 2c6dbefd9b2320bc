package apiclient_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// A StatefulSet's revisions are the ControllerRevisions it owns, their
// data a patch whose spec.template is the pod template to roll back to;
// data without one is shown, not offered for a rollback.
func TestRevisionsOfAControllerRevisionOwner(t *testing.T) {
	apps := apitest.AppsV1()
	apps.Resources = append(apps.Resources, metav1.APIResource{Name: "controllerrevisions", SingularName: "controllerrevision", Kind: "ControllerRevision", Namespaced: true, Verbs: []string{"get", "list", "watch"}})
	fake := apitest.NewServer(t, apitest.CoreV1(), apps)
	sts := apitest.StatefulSet("demo", "db", 2, map[string]string{"app": "db"})
	fake.Add(sts)
	controller := true
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: apitest.UID(sts), Controller: &controller}}
	for i, image := range []string{"postgres:16", "postgres:17"} {
		cr := apitest.Object("apps/v1", "ControllerRevision", "demo", "db-"+image[9:], map[string]any{
			"revision": int64(i + 1),
			"data": map[string]any{"spec": map[string]any{"template": map[string]any{"$patch": "replace",
				"spec": map[string]any{"containers": []any{map[string]any{"name": "db", "image": image}}}}}},
		})
		cr.SetOwnerReferences(owner)
		fake.Add(cr)
	}
	odd := apitest.Object("apps/v1", "ControllerRevision", "demo", "db-odd", map[string]any{"revision": int64(3), "data": map[string]any{"something": "else"}})
	odd.SetOwnerReferences(owner)
	fake.Add(odd, apitest.Object("apps/v1", "ControllerRevision", "demo", "someone-elses", map[string]any{"revision": int64(9)}))

	c := clientFor(t, fake)
	ctx := context.Background()
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := d.Lookup("apps", "v1", "statefulsets")
	if !apiclient.HasRevisions(d, r, sts) {
		t.Fatal("a StatefulSet on a server with ControllerRevisions has no revisions")
	}
	revs, err := c.Revisions(ctx, d, r, sts)
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 3 || revs[0].Number != 3 || !revs[0].Current || revs[0].Rollback || revs[2].Number != 1 || !revs[2].Rollback {
		t.Fatalf("revisions %+v", revs)
	}
	if _, patch, _ := unstructured.NestedString(revs[1].Template, "$patch"); patch || revs[1].Images[0] != "postgres:17" {
		t.Errorf("revision 2's template %v, images %v", revs[1].Template, revs[1].Images)
	}
	pods, _ := d.Lookup("", "v1", "pods")
	if apiclient.HasRevisions(d, pods, apitest.Pod("demo", "p", nil)) {
		t.Errorf("a pod has revisions")
	}
}
