package object_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// rolledOut seeds a Deployment rolled out three times (images v1, v2, v3),
// each revision a ReplicaSet the Deployment owns.
func rolledOut(t *testing.T) (*webtest.Console, *apitest.Server) {
	t.Helper()
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1())
	sel := map[string]string{"app": "shop"}
	deploy := apitest.Deployment("demo", "shop", 2, sel)
	setImage(t, deploy, "shop:v3")
	deploy.SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": "3"})
	fake.Add(deploy)
	for i, image := range []string{"shop:v1", "shop:v2", "shop:v3"} {
		n := string(rune('1' + i))
		rs := apitest.ReplicaSet("demo", "shop-"+n, 0, map[string]string{"app": "shop", "pod-template-hash": "h" + n}, deploy)
		setImage(t, rs, image)
		rs.SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": n, "kubernetes.io/change-cause": "set image " + image})
		fake.Add(rs)
	}
	// Another Deployment's ReplicaSet with the same labels: not shop's.
	stray := apitest.ReplicaSet("demo", "stray", 0, sel)
	stray.SetAnnotations(map[string]string{"deployment.kubernetes.io/revision": "9"})
	fake.Add(stray)
	return webtest.Start(t, fake, webtest.Options{}), fake
}

func setImage(t *testing.T, o *unstructured.Unstructured, image string) {
	t.Helper()
	if err := unstructured.SetNestedSlice(o.Object, []any{map[string]any{"name": "app", "image": image}}, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryListsRevisionsDiffsAndOffersRollback(t *testing.T) {
	h, fake := rolledOut(t)
	b := webtest.NewBrowser(t, h)
	const path = "/c/dev/apis/apps/v1/namespaces/demo/deployments/shop"
	doc := b.Get(path+"?view=history", http.StatusOK).Doc
	if got := strings.Join(webtest.Texts(doc, "[data-testid=revision] td:first-child strong"), ","); got != "3,2,1" {
		t.Errorf("revisions %q, want 3,2,1 (not the stray ReplicaSet's)", got)
	}
	if doc.Find("[data-testid=revision][data-current=true]").AttrOr("data-revision", "") != "3" {
		t.Errorf("the current revision is not 3")
	}
	if got := doc.Find("[data-testid=revision][data-revision='1'] td").Eq(2).Text(); got != "set image shop:v1" {
		t.Errorf("change cause %q", got)
	}
	if doc.Find("[data-testid=revision][data-revision='3'] [data-testid=rollback]").Length() != 0 {
		t.Errorf("the current revision offers a rollback")
	}
	if got := doc.Find(`nav.tabs a[aria-current=page]`).Text(); got != "History" {
		t.Errorf("current tab %q", got)
	}

	// Revision 1 against 3: the image.
	doc = b.Get(path+"?view=history&from=1&to=3", http.StatusOK).Doc
	diff := doc.Find("[data-testid=revision-diff]")
	if !strings.Contains(diff.Find(".diff-del").Text(), "shop:v1") || !strings.Contains(diff.Find(".diff-add").Text(), "shop:v3") {
		t.Errorf("the diff of 1 and 3: %q", diff.Text())
	}
	if strings.Contains(diff.Text(), "pod-template-hash") {
		t.Errorf("the diff shows the controller's hash label")
	}
	if b.Get(path+"?view=history&from=1&to=99", http.StatusOK).Doc.Find("[data-testid=revision-diff-error]").Text() == "" {
		t.Errorf("a diff with an unknown revision says nothing")
	}

	// The rollback to 1 is the editor's review of the object with
	// revision 1's template, at the resourceVersion read.
	form := doc.Find("[data-testid=revision][data-revision='1'] [data-testid=rollback-form]")
	if form.AttrOr("action", "") != path+"/edit" {
		t.Fatalf("rollback form action %q", form.AttrOr("action", ""))
	}
	values := url.Values{}
	form.Find("input[name], textarea[name]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		if goquery.NodeName(s) == "textarea" {
			values.Set(name, s.Text())
		} else {
			values.Set(name, s.AttrOr("value", ""))
		}
	})
	if !strings.Contains(values.Get("yaml"), "shop:v1") || strings.Contains(values.Get("yaml"), "shop:v3") || !strings.Contains(values.Get("base"), "shop:v3") || values.Get("resourceVersion") == "" {
		t.Fatalf("the rollback's state: rv %q, text has v1 %v", values.Get("resourceVersion"), strings.Contains(values.Get("yaml"), "shop:v1"))
	}
	values.Set("action", "review")
	review := b.Post(path+"/edit", values, http.StatusOK, nil)
	if got := review.Text("patch-changes"); !strings.Contains(got, "spec.template.spec.containers") {
		t.Errorf("the review lists %q", got)
	}
	h.NoRealWrites(t, "a rollback's review")

	// Applied, it patches the template at the resourceVersion read; a
	// change made meanwhile is the editor's conflict.
	fake.Modify(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "demo", "shop", func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, int64(5), "spec", "replicas")
	})
	applyValues := url.Values{}
	review.Doc.Find("[data-testid=review-form] input[name], [data-testid=review-form] textarea[name]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		if goquery.NodeName(s) == "textarea" {
			applyValues.Set(name, s.Text())
		} else if typ := s.AttrOr("type", ""); typ != "submit" {
			applyValues.Set(name, s.AttrOr("value", ""))
		}
	})
	applyValues.Set("action", "apply")
	conflict := b.Post(path+"/edit", applyValues, http.StatusConflict, nil)
	if !conflict.Has("their-changes") {
		t.Errorf("a rollback over a change made meanwhile is not the conflict page")
	}
}

func TestHistoryIsForObjectsThatKeepRevisions(t *testing.T) {
	h, _ := rolledOut(t)
	h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/replicasets/stray?view=history", http.StatusNotFound)
	_, body := h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/shop", http.StatusOK)
	found := false
	webtest.Parse(t, body).Find("nav.tabs a").Each(func(_ int, s *goquery.Selection) { found = found || s.Text() == "History" })
	if !found {
		t.Errorf("a Deployment's page has no History tab")
	}
}
