package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

const (
	settingsPath    = configMapsPath + "/settings"
	settingsAPIPath = "/api/v1/namespaces/demo/configmaps/settings"
	beaconAPIPath   = "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/beacon"
)

// The object page offers the write actions the server advertises.
func TestObjectPageOffersActionsByVerbsAndSubresources(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	for _, tc := range []struct {
		path string
		want map[string]string // data-testid → href or form action
	}{
		{webPath, map[string]string{"edit-link": webPath + "/edit", "scale-link": webPath + "/scale", "restart": webPath + "/restart", "delete-link": webPath + "/delete"}},
		{beaconPath, map[string]string{"edit-link": beaconPath + "/edit", "scale-link": beaconPath + "/scale", "delete-link": beaconPath + "/delete"}},
		{"/c/dev/api/v1/namespaces/demo/pods/web-1", map[string]string{"edit-link": "/c/dev/api/v1/namespaces/demo/pods/web-1/edit", "delete-link": "/c/dev/api/v1/namespaces/demo/pods/web-1/delete"}},
		{"/c/dev/apis/policy.example.com/v1/sessions/boot-x3000", map[string]string{}},
	} {
		p := b.get(tc.path, http.StatusOK)
		for _, id := range []string{"edit-link", "scale-link", "restart", "delete-link"} {
			s := p.doc.Find("[data-testid=" + id + "]")
			want, ok := tc.want[id]
			switch {
			case !ok && s.Length() > 0:
				t.Errorf("%s offers %s", tc.path, id)
			case ok && s.Length() != 1:
				t.Errorf("%s does not offer %s", tc.path, id)
			case ok && id == "restart":
				if got := s.Closest("form").AttrOr("action", ""); got != want {
					t.Errorf("%s: restart form action %q, want %q", tc.path, got, want)
				}
			case ok:
				if got := s.AttrOr("href", ""); got != want {
					t.Errorf("%s: %s href %q, want %q", tc.path, id, got, want)
				}
			}
		}
	}
	// Create appears on lists of resources that may be created.
	for path, want := range map[string]string{
		configMapsPath:                               configMapsPath + "/new",
		"/c/dev/api/v1/configmaps":                   "/c/dev/api/v1/configmaps/new",
		"/c/dev/api/v1/namespaces":                   "/c/dev/api/v1/namespaces/new",
		"/c/dev/apis/policy.example.com/v1/sessions": "",
	} {
		p := b.get(path, http.StatusOK)
		got := p.doc.Find("[data-testid=create-link]").AttrOr("href", "")
		if got != want {
			t.Errorf("%s: create link %q, want %q", path, got, want)
		}
	}
	f.noWrites(t, "object and list pages")
}

func TestCreateReviewsWithADryRunThenCreates(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(configMapsPath+"/new", http.StatusOK)
	text := editorText(t, p)
	if want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \n  namespace: demo\n"; text != want {
		t.Errorf("skeleton = %q, want %q", text, want)
	}
	fm := b.form(p, "[data-testid=edit-form]")
	if fm.action != configMapsPath+"/new" {
		t.Errorf("form action = %q", fm.action)
	}
	draftKey := p.doc.Find("[data-testid=yaml-editor]").AttrOr("data-draft-key", "")
	edited := strings.Replace(text, "  name: \n", "  name: fresh\n", 1) + "data:\n  greeting: hello\n"

	r := fm.set("yaml", edited).submit("review", http.StatusOK)
	if !strings.Contains(r.text("dry-run-diff"), "greeting: hello") {
		t.Errorf("dry run = %q", r.text("dry-run-diff"))
	}
	keepsText(t, r, edited)
	ws := f.writes()
	if len(ws) != 1 || ws[0].Method != http.MethodPost || ws[0].Path != "/api/v1/namespaces/demo/configmaps" || ws[0].Query.Get("dryRun") != "All" {
		t.Fatalf("writes = %+v, want one dry-run POST", ws)
	}
	if f.stored(t, "/api/v1/namespaces/demo/configmaps/fresh") != nil {
		t.Fatal("the review created the object")
	}

	a := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if a.location() != configMapsPath+"/fresh" {
		t.Errorf("Location = %q", a.location())
	}
	created := f.stored(t, "/api/v1/namespaces/demo/configmaps/fresh")
	if created == nil || created.Object["data"].(map[string]any)["greeting"] != "hello" {
		t.Fatalf("created = %v", created)
	}
	next := b.get(a.location(), http.StatusOK)
	if got := next.text("notice"); got != `Created configmap "fresh".` {
		t.Errorf("notice = %q", got)
	}
	if got := next.doc.Find("body").AttrOr("data-clear-draft", ""); got != draftKey || got == "" {
		t.Errorf("data-clear-draft = %q, want %q", got, draftKey)
	}

	// The same name again: 409 AlreadyExists, with a way to the existing one.
	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusConflict)
	if e.text("edit-error-reason") != "AlreadyExists" {
		t.Errorf("reason = %q", e.text("edit-error-reason"))
	}
	link := e.doc.Find("[data-testid=edit-error] a").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.AttrOr("href", "") == configMapsPath+"/fresh"
	})
	if link.Length() != 1 {
		t.Errorf("no link to the existing object:\n%s", e.body)
	}
	keepsText(t, e, edited)
}

func TestCreateWithGenerateNameRedirectsToTheChosenName(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(configMapsPath+"/new", http.StatusOK)
	edited := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: job-\ndata:\n  a: b\n"
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	if got := r.text("write-title"); !strings.Contains(got, "job-") {
		t.Errorf("review title = %q", got)
	}
	keepsText(t, r, edited)
	a := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	name, ok := strings.CutPrefix(a.location(), configMapsPath+"/job-")
	if !ok || len(name) != 5 {
		t.Fatalf("Location = %q, want a generated name", a.location())
	}
	if f.stored(t, "/api/v1/namespaces/demo/configmaps/job-"+name) == nil {
		t.Error("the generated object is not stored")
	}
	b.get(a.location(), http.StatusOK)
}

// The text's apiVersion and kind pick the collection, whatever list the
// create page was opened from; the page's namespace is the default.
func TestCreateGoesToTheCollectionTheTextNames(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(configMapsPath+"/new", http.StatusOK)
	edited := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\nspec:\n  replicas: 1\n"
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	a := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if a.location() != "/c/dev/apis/apps/v1/namespaces/demo/deployments/other" {
		t.Errorf("Location = %q", a.location())
	}
	if f.stored(t, "/apis/apps/v1/namespaces/demo/deployments/other") == nil {
		t.Error("no deployment created")
	}
	for _, w := range f.writes() {
		if w.Path != "/apis/apps/v1/namespaces/demo/deployments" {
			t.Errorf("a write went to %s", w.Path)
		}
	}

	// From the all-namespaces list, ?namespace= picks where it goes.
	p = b.get("/c/dev/api/v1/configmaps/new?namespace=team-a", http.StatusOK)
	if text := editorText(t, p); !strings.Contains(text, "  namespace: team-a\n") {
		t.Errorf("skeleton = %q", text)
	}
	// A cluster-scoped kind gets no namespace.
	p = b.get("/c/dev/api/v1/namespaces/new", http.StatusOK)
	if text := editorText(t, p); strings.Contains(text, "namespace:") {
		t.Errorf("cluster-scoped skeleton = %q", text)
	}
	// A resource the server does not let anyone create has no create page.
	b.get("/c/dev/apis/policy.example.com/v1/sessions/new", http.StatusMethodNotAllowed)
}

func TestCreateFailuresKeepTheText(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(configMapsPath+"/new", http.StatusOK)
	skeleton := editorText(t, p)

	// An unknown kind: 400 before anything is sent.
	unknown := "apiVersion: v1\nkind: Gizmo\nmetadata:\n  name: g\n"
	e := b.form(p, "[data-testid=edit-form]").set("yaml", unknown).submit("review", http.StatusBadRequest)
	if !strings.Contains(e.text("edit-error"), "Unknown kind") || !strings.Contains(e.text("edit-error-message"), "Gizmo") {
		t.Errorf("error = %q", e.text("edit-error"))
	}
	keepsText(t, e, unknown)
	// No apiVersion or kind.
	bare := "metadata:\n  name: g\n"
	e = b.form(p, "[data-testid=edit-form]").set("yaml", bare).submit("review", http.StatusBadRequest)
	keepsText(t, e, bare)
	// Unparsable.
	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"
	e = b.form(p, "[data-testid=edit-form]").set("yaml", broken).submit("review", http.StatusBadRequest)
	if e.text("edit-error-position") == "" {
		t.Error("no position for a syntax error")
	}
	keepsText(t, e, broken)
	// Too large.
	huge := skeleton + "# " + strings.Repeat("y", 3<<20) + "\n"
	e = b.form(p, "[data-testid=edit-form]").set("yaml", huge).submit("review", http.StatusRequestEntityTooLarge)
	keepsText(t, e, huge)
	f.noWrites(t, "texts refused before sending")

	// The skeleton as it is has no name: the server's 422, at its line.
	e = b.form(p, "[data-testid=edit-form]").submit("review", http.StatusUnprocessableEntity)
	cause := e.doc.Find("[data-testid=edit-error-causes] li")
	if cause.Find("code").Text() != "metadata.name" || cause.Find(".line-ref").Text() != "line 4" {
		t.Errorf("cause = %q", strings.TrimSpace(cause.Text()))
	}
	keepsText(t, e, skeleton)
	f.noRealWrites(t, "reviews of new objects")

	// A namespace in the text wins over the page's.
	elsewhere := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: team-a\n"
	e = b.form(p, "[data-testid=edit-form]").set("yaml", elsewhere).submit("review", http.StatusOK)
	keepsText(t, e, elsewhere)
	if ws := f.writes(); ws[len(ws)-1].Path != "/api/v1/namespaces/team-a/configmaps" {
		t.Errorf("the dry run went to %s", ws[len(ws)-1].Path)
	}
}

func TestDeleteConfirmsThenDeletes(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(webPath+"/delete", http.StatusOK)
	if p.text("delete-name") != "web" || !strings.Contains(p.text("delete-form"), "demo") {
		t.Errorf("the confirmation does not name the object: %q", p.text("delete-form"))
	}
	if _, checked := p.doc.Find("[data-testid=propagation-Background]").Attr("checked"); !checked {
		t.Error("Background is not the default")
	}
	fm := b.form(p, "[data-testid=delete-form]")
	if rv := f.stored(t, webAPIPath).GetResourceVersion(); fm.get("resourceVersion") != rv {
		t.Errorf("confirm form rv = %q, want %q", fm.get("resourceVersion"), rv)
	}
	f.noWrites(t, "the confirmation page")

	// Foreground: the object stays, marked, until its dependents are gone.
	d := fm.set("propagationPolicy", "Foreground").submit("", http.StatusOK)
	if got := d.text("pending-finalizers"); got != "foregroundDeletion" {
		t.Errorf("pending finalizers = %q", got)
	}
	if !d.has("follow-deletion") {
		t.Error("no link to follow the deletion")
	}
	stored := f.stored(t, webAPIPath)
	if stored == nil || stored.GetDeletionTimestamp() == nil {
		t.Fatalf("after a foreground delete: %v", stored)
	}
	ws := f.writes(http.MethodDelete)
	if len(ws) != 1 || !strings.Contains(string(ws[0].Body), `"propagationPolicy":"Foreground"`) || !strings.Contains(string(ws[0].Body), `"resourceVersion":"`+fm.get("resourceVersion")+`"`) {
		t.Errorf("DELETE = %+v", ws)
	}
	f.fake.Finalize("apps", "deployments", "demo", "web")
	if f.stored(t, webAPIPath) != nil {
		t.Error("finalized, the deployment is still there")
	}

	// Background: gone, and the server's Status is shown.
	p = b.get(settingsPath+"/delete", http.StatusOK)
	d = b.form(p, "[data-testid=delete-form]").submit("", http.StatusOK)
	if got := d.text("delete-status"); got != "Success" {
		t.Errorf("delete status = %q", got)
	}
	if d.has("follow-deletion") || d.has("object-link") {
		t.Error("a deleted object is linked")
	}
	if f.stored(t, settingsAPIPath) != nil {
		t.Error("the configmap is still there")
	}
}

func TestDeleteOfAChangedOrMissingObject(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(settingsPath+"/delete", http.StatusOK)
	f.fake.Modify(configMapGVK, "demo", "settings", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"changed": "yes"}) })
	fresh := f.stored(t, settingsAPIPath).GetResourceVersion()

	c := b.form(p, "[data-testid=delete-form]").set("propagationPolicy", "Orphan").set("gracePeriodSeconds", "5").submit("", http.StatusConflict)
	if c.text("edit-error-code") != "409" || !strings.Contains(c.text("edit-error"), "Nothing was deleted") {
		t.Errorf("error = %q", c.text("edit-error"))
	}
	fm := b.form(c, "[data-testid=delete-form]")
	if fm.get("resourceVersion") != fresh || fm.get("propagationPolicy") != "Orphan" || fm.get("gracePeriodSeconds") != "5" {
		t.Errorf("the confirmation after a conflict: rv %q (want %q), policy %q, grace %q", fm.get("resourceVersion"), fresh, fm.get("propagationPolicy"), fm.get("gracePeriodSeconds"))
	}
	if f.stored(t, settingsAPIPath) == nil {
		t.Fatal("deleted despite the precondition")
	}

	// Invalid choices: 400, nothing sent.
	before := len(f.writes())
	bad := b.form(c, "[data-testid=delete-form]").set("gracePeriodSeconds", "-1").submit("", http.StatusBadRequest)
	if bad.text("edit-error-code") != "400" {
		t.Errorf("grace -1: %q", bad.text("edit-error"))
	}
	b.form(c, "[data-testid=delete-form]").set("propagationPolicy", "Sideways").submit("", http.StatusBadRequest)
	if len(f.writes()) != before {
		t.Error("an invalid delete was sent")
	}

	// Gone meanwhile: 404.
	f.fake.Delete(configMapGVK, "demo", "settings")
	b.form(c, "[data-testid=delete-form]").submit("", http.StatusNotFound)
	b.get(settingsPath+"/delete", http.StatusNotFound)
	// A resource without the delete verb has no confirmation.
	b.get("/c/dev/apis/policy.example.com/v1/sessions/boot-x3000/delete", http.StatusMethodNotAllowed)
}

func TestScaleThroughTheScaleSubresource(t *testing.T) {
	for _, tc := range []struct {
		name, path, apiPath string
		desired             int
	}{
		{"deployment", webPath, webAPIPath, 2},
		{"custom resource", beaconPath, beaconAPIPath, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newEditFixture(t, apitest.Options{})
			b := newBrowser(t, f.harness)
			p := b.get(tc.path+"/scale", http.StatusOK)
			if got := p.text("scale-desired"); got != fmt.Sprint(tc.desired) {
				t.Errorf("desired = %q", got)
			}
			fm := b.form(p, "[data-testid=scale-form]")
			if fm.get("replicas") != fmt.Sprint(tc.desired) {
				t.Errorf("replicas field = %q", fm.get("replicas"))
			}
			a := fm.set("replicas", "5").submit("", http.StatusSeeOther)
			if a.location() != tc.path {
				t.Errorf("Location = %q", a.location())
			}
			if n, _, _ := unstructured.NestedInt64(f.stored(t, tc.apiPath).Object, "spec", "replicas"); n != 5 {
				t.Errorf("spec.replicas = %d", n)
			}
			ws := f.writes()
			if len(ws) != 1 || ws[0].Path != tc.apiPath+"/scale" || ws[0].Method != http.MethodPatch {
				t.Errorf("writes = %+v", ws)
			}
			if got := b.get(tc.path, http.StatusOK).text("notice"); !strings.Contains(got, "to 5 replicas") {
				t.Errorf("notice = %q", got)
			}

			// Changed since the form was loaded: 409, the form again with
			// the current numbers and the version to submit with.
			p = b.get(tc.path+"/scale", http.StatusOK)
			f.patchBehind(t, tc.apiPath, `{"metadata":{"labels":{"touched":"yes"}}}`)
			c := b.form(p, "[data-testid=scale-form]").set("replicas", "7").submit("", http.StatusConflict)
			cf := b.form(c, "[data-testid=scale-form]")
			if cf.get("replicas") != "7" || cf.get("resourceVersion") != f.stored(t, tc.apiPath).GetResourceVersion() {
				t.Errorf("after a conflict: replicas %q, rv %q", cf.get("replicas"), cf.get("resourceVersion"))
			}
			if c.text("edit-error-code") != "409" {
				t.Errorf("error = %q", c.text("edit-error"))
			}
			cf.submit("", http.StatusSeeOther)
			if n, _, _ := unstructured.NestedInt64(f.stored(t, tc.apiPath).Object, "spec", "replicas"); n != 7 {
				t.Errorf("spec.replicas = %d after resubmitting", n)
			}

			// Not a count: 400, nothing sent.
			before := len(f.writes())
			for _, bad := range []string{"-1", "two", "99999999999"} {
				e := b.form(b.get(tc.path+"/scale", http.StatusOK), "[data-testid=scale-form]").set("replicas", bad).submit("", http.StatusBadRequest)
				if b.form(e, "[data-testid=scale-form]").get("replicas") != bad {
					t.Errorf("%q is not kept in the form", bad)
				}
			}
			if len(f.writes()) != before {
				t.Error("an invalid scale was sent")
			}
		})
	}
}

func TestScaleOfAResourceWithoutScaleIs404(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	b.get(settingsPath+"/scale", http.StatusNotFound)
	b.get(settingsPath, http.StatusOK)
	b.post(settingsPath+"/scale", url.Values{"_csrf": {b.csrfToken()}, "replicas": {"2"}}, http.StatusNotFound, nil)
	f.noWrites(t, "scale without a scale subresource")
}

func TestRestartSetsThePodTemplateAnnotation(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(webPath, http.StatusOK)
	start := time.Now().Add(-time.Second)
	a := b.form(p, `form[action$="/restart"]`).submit("", http.StatusSeeOther)
	if a.location() != webPath {
		t.Errorf("Location = %q", a.location())
	}
	stored := f.stored(t, webAPIPath)
	at, _, _ := unstructured.NestedString(stored.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt")
	if ts, err := time.Parse(time.RFC3339, at); err != nil || ts.Before(start.Truncate(time.Second)) {
		t.Errorf("restartedAt = %q (%v)", at, err)
	}
	if labels, _, _ := unstructured.NestedStringMap(stored.Object, "spec", "template", "metadata", "labels"); labels["app"] != "web" {
		t.Errorf("the restart lost the template's labels: %v", labels)
	}
	ws := f.writes()
	if len(ws) != 1 || ws[0].ContentType != "application/merge-patch+json" || !strings.Contains(string(ws[0].Body), `"resourceVersion"`) {
		t.Errorf("writes = %+v", ws)
	}
	if got := b.get(webPath, http.StatusOK).text("notice"); !strings.HasPrefix(got, `Restarted deployment "web"`) {
		t.Errorf("notice = %q", got)
	}

	// Changed since the page was shown: not restarted, and the flash says so.
	p = b.get(webPath, http.StatusOK)
	f.patchBehind(t, webAPIPath, `{"metadata":{"labels":{"touched":"yes"}}}`)
	before := f.stored(t, webAPIPath).GetResourceVersion()
	b.form(p, `form[action$="/restart"]`).submit("", http.StatusSeeOther)
	if got := b.get(webPath, http.StatusOK).text("notice"); !strings.HasPrefix(got, "Not restarted") {
		t.Errorf("notice = %q", got)
	}
	if f.stored(t, webAPIPath).GetResourceVersion() != before {
		t.Error("a stale restart changed the object")
	}

	// Only workloads that roll their pods restart.
	values := url.Values{"_csrf": {b.csrfToken()}}
	for _, path := range []string{settingsPath, beaconPath, "/c/dev/apis/apps/v1/namespaces/demo/replicasets/x"} {
		b.post(path+"/restart", values, http.StatusMethodNotAllowed, nil)
	}
}

// A JSON-Patch-only server restarts too: the annotation is added, the
// template kept.
func TestRestartOnAJSONPatchOnlyServer(t *testing.T) {
	f := newEditFixture(t, apitest.Options{NoMergePatch: true})
	b := newBrowser(t, f.harness)
	p := b.get(webPath, http.StatusOK)
	b.form(p, `form[action$="/restart"]`).submit("", http.StatusSeeOther)
	stored := f.stored(t, webAPIPath)
	if at, _, _ := unstructured.NestedString(stored.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); at == "" {
		t.Errorf("no restartedAt: %v", stored.Object["spec"])
	}
	if labels, _, _ := unstructured.NestedStringMap(stored.Object, "spec", "template", "metadata", "labels"); labels["app"] != "web" {
		t.Errorf("the restart lost the template's labels: %v", labels)
	}
	ws := f.writes()
	var ops []map[string]any
	if len(ws) != 2 || json.Unmarshal(ws[1].Body, &ops) != nil || ops[0]["op"] != "test" {
		t.Errorf("writes = %+v", ws)
	}
}

// On a JSON-Patch-only server a stale version fails the patch's test op
// with a causeless 422: restart and scale still say it changed.
func TestStaleRestartAndScaleOnAJSONPatchOnlyServer(t *testing.T) {
	f := newEditFixture(t, apitest.Options{NoMergePatch: true})
	b := newBrowser(t, f.harness)
	obj := b.get(webPath, http.StatusOK)
	scale := b.get(webPath+"/scale", http.StatusOK)
	f.fake.Modify(deploymentGVK, "demo", "web", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"app": "web", "x": "y"}) })
	before := f.stored(t, webAPIPath).GetResourceVersion()

	b.form(obj, `form[action$="/restart"]`).submit("", http.StatusSeeOther)
	if got := b.get(webPath, http.StatusOK).text("notice"); !strings.HasPrefix(got, "Not restarted") {
		t.Errorf("notice = %q", got)
	}
	c := b.form(scale, "[data-testid=scale-form]").set("replicas", "4").submit("", http.StatusConflict)
	if c.text("edit-error-code") != "409" || !strings.Contains(c.text("edit-error"), "changed since you loaded it") {
		t.Errorf("scale error = %q", c.text("edit-error"))
	}
	cf := b.form(c, "[data-testid=scale-form]")
	if cf.get("replicas") != "4" || cf.get("resourceVersion") != before {
		t.Errorf("after a conflict: replicas %q, rv %q (want %s)", cf.get("replicas"), cf.get("resourceVersion"), before)
	}
	if f.stored(t, webAPIPath).GetResourceVersion() != before {
		t.Fatal("a stale write changed the object")
	}
	cf.submit("", http.StatusSeeOther)
	if n, _, _ := unstructured.NestedInt64(f.stored(t, webAPIPath).Object, "spec", "replicas"); n != 4 {
		t.Errorf("spec.replicas = %d after resubmitting", n)
	}
}

// One text is one object: a second YAML document is refused, not dropped.
func TestCreateRefusesASecondDocument(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p := b.get(configMapsPath+"/new", http.StatusOK)
	two := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
	e := b.form(p, "[data-testid=edit-form]").set("yaml", two).submit("review", http.StatusBadRequest)
	if !strings.HasPrefix(e.text("edit-error-position"), "Line 5") && !strings.HasPrefix(e.text("edit-error-position"), "Line 6") {
		t.Errorf("position = %q", e.text("edit-error-position"))
	}
	keepsText(t, e, two)
	f.noWrites(t, "two documents")
}

// A Namespace (whose object path is a prefix of the paths inside it) is
// edited and deleted like any object.
func TestNamespaceIsEditedAndDeleted(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	f.fake.Add(apitest.Object("v1", "Namespace", "", "scratch", nil))
	b := newBrowser(t, f.harness)
	const path = "/c/dev/api/v1/namespaces/scratch"
	obj := b.get(path, http.StatusOK)
	if got := obj.doc.Find("[data-testid=edit-link]").AttrOr("href", ""); got != path+"/edit" {
		t.Errorf("edit link = %q", got)
	}
	p, text := openEditor(t, b, path)
	edited := replaceLine(t, text, "  name: scratch", "  name: scratch\n  labels:\n    team: a")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	if got := r.text("patch-changes"); !strings.Contains(got, "metadata.labels") {
		t.Errorf("patch-changes = %q", got)
	}
	a := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if a.location() != path {
		t.Errorf("Location = %q", a.location())
	}
	if got := f.stored(t, "/api/v1/namespaces/scratch").GetLabels()["team"]; got != "a" {
		t.Errorf("label team = %q", got)
	}
	d := b.form(b.get(path+"/delete", http.StatusOK), "[data-testid=delete-form]").submit("", http.StatusOK)
	if !d.has("delete-result") || f.stored(t, "/api/v1/namespaces/scratch") != nil {
		t.Errorf("the namespace was not deleted:\n%s", d.body)
	}
	b.get(path+"/scale", http.StatusNotFound)
}

// A Secret kept by finalizers is answered whole to DELETE; the Deleted
// page shows it without its values.
func TestDeletedSecretPageShowsNoValue(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	for _, policy := range []string{"Foreground", "Orphan"} {
		p := b.get(credsPath+"/delete", http.StatusOK)
		d := b.form(p, "[data-testid=delete-form]").set("propagationPolicy", policy).submit("", http.StatusOK)
		if !d.has("pending-finalizers") {
			t.Errorf("%s: not pending:\n%s", policy, d.body)
		}
		leaksNone(t, "the Deleted page ("+policy+")", d.body, storedValues...)
		if !strings.Contains(d.text("delete-body"), "name: creds") {
			t.Errorf("%s: the answer is not shown: %q", policy, d.text("delete-body"))
		}
	}
}
