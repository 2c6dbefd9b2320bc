package edit_test

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
	"github.com/tabula-console/tabula/web/webtest"
)

const (
	settingsAPIPath = "/api/v1/namespaces/demo/configmaps/settings"
	beaconAPIPath   = "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/beacon"
)

// The object page offers the write actions the server advertises.
func TestObjectPageOffersActionsByVerbsAndSubresources(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	for _, tc := range []struct {
		path string
		want map[string]string // data-testid → href or form action
	}{
		{webtest.WebPath, map[string]string{"edit-link": webtest.WebPath + "/edit", "scale-link": webtest.WebPath + "/scale", "restart": webtest.WebPath + "/restart", "delete-link": webtest.WebPath + "/delete"}},
		{webtest.BeaconPath, map[string]string{"edit-link": webtest.BeaconPath + "/edit", "scale-link": webtest.BeaconPath + "/scale", "delete-link": webtest.BeaconPath + "/delete"}},
		{"/c/dev/api/v1/namespaces/demo/pods/web-1", map[string]string{"edit-link": "/c/dev/api/v1/namespaces/demo/pods/web-1/edit", "delete-link": "/c/dev/api/v1/namespaces/demo/pods/web-1/delete"}},
		{"/c/dev/apis/policy.example.com/v1/sessions/boot-x3000", map[string]string{}},
	} {
		p := b.Get(tc.path, http.StatusOK)
		for _, id := range []string{"edit-link", "scale-link", "restart", "delete-link"} {
			s := p.Doc.Find("[data-testid=" + id + "]")
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
		webtest.ConfigMapsPath:                       webtest.ConfigMapsPath + "/new",
		"/c/dev/api/v1/configmaps":                   "/c/dev/api/v1/configmaps/new",
		"/c/dev/api/v1/namespaces":                   "/c/dev/api/v1/namespaces/new",
		"/c/dev/apis/policy.example.com/v1/sessions": "",
	} {
		p := b.Get(path, http.StatusOK)
		got := p.Doc.Find("[data-testid=create-link]").AttrOr("href", "")
		if got != want {
			t.Errorf("%s: create link %q, want %q", path, got, want)
		}
	}
	f.NoWrites(t, "object and list pages")
}

func TestCreateReviewsWithADryRunThenCreates(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	text := webtest.EditorText(t, p)
	if want := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \n  namespace: demo\n"; text != want {
		t.Errorf("skeleton = %q, want %q", text, want)
	}
	fm := b.Form(p, "[data-testid=edit-form]")
	if fm.Action != webtest.ConfigMapsPath+"/new" {
		t.Errorf("form action = %q", fm.Action)
	}
	draftKey := p.Doc.Find("[data-testid=yaml-editor]").AttrOr("data-draft-key", "")
	edited := strings.Replace(text, "  name: \n", "  name: fresh\n", 1) + "data:\n  greeting: hello\n"

	r := fm.Set("yaml", edited).Submit("review", http.StatusOK)
	if !strings.Contains(r.Text("dry-run-diff"), "greeting: hello") {
		t.Errorf("dry run = %q", r.Text("dry-run-diff"))
	}
	webtest.KeepsText(t, r, edited)
	ws := f.Writes()
	if len(ws) != 1 || ws[0].Method != http.MethodPost || ws[0].Path != "/api/v1/namespaces/demo/configmaps" || ws[0].Query.Get("dryRun") != "All" {
		t.Fatalf("writes = %+v, want one dry-run POST", ws)
	}
	if f.Stored(t, "/api/v1/namespaces/demo/configmaps/fresh") != nil {
		t.Fatal("the review created the object")
	}

	a := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if a.Location() != webtest.ConfigMapsPath+"/fresh" {
		t.Errorf("Location = %q", a.Location())
	}
	created := f.Stored(t, "/api/v1/namespaces/demo/configmaps/fresh")
	if created == nil || created.Object["data"].(map[string]any)["greeting"] != "hello" {
		t.Fatalf("created = %v", created)
	}
	next := b.Get(a.Location(), http.StatusOK)
	if got := next.Text("notice"); got != `Created configmap "fresh".` {
		t.Errorf("notice = %q", got)
	}
	if got := next.Doc.Find("body").AttrOr("data-clear-draft", ""); got != draftKey || got == "" {
		t.Errorf("data-clear-draft = %q, want %q", got, draftKey)
	}

	// The same name again: 409 AlreadyExists, with a way to the existing one.
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusConflict)
	if e.Text("edit-error-reason") != "AlreadyExists" {
		t.Errorf("reason = %q", e.Text("edit-error-reason"))
	}
	link := e.Doc.Find("[data-testid=edit-error] a").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.AttrOr("href", "") == webtest.ConfigMapsPath+"/fresh"
	})
	if link.Length() != 1 {
		t.Errorf("no link to the existing object:\n%s", e.Body)
	}
	webtest.KeepsText(t, e, edited)
}

func TestCreateWithGenerateNameRedirectsToTheChosenName(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	edited := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: job-\ndata:\n  a: b\n"
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	if got := r.Text("write-title"); !strings.Contains(got, "job-") {
		t.Errorf("review title = %q", got)
	}
	webtest.KeepsText(t, r, edited)
	a := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	name, ok := strings.CutPrefix(a.Location(), webtest.ConfigMapsPath+"/job-")
	if !ok || len(name) != 5 {
		t.Fatalf("Location = %q, want a generated name", a.Location())
	}
	if f.Stored(t, "/api/v1/namespaces/demo/configmaps/job-"+name) == nil {
		t.Error("the generated object is not stored")
	}
	b.Get(a.Location(), http.StatusOK)
}

// The text's apiVersion and kind pick the collection, whatever list the
// create page was opened from; the page's namespace is the default.
func TestCreateGoesToTheCollectionTheTextNames(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	edited := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\nspec:\n  replicas: 1\n"
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	a := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if a.Location() != "/c/dev/apis/apps/v1/namespaces/demo/deployments/other" {
		t.Errorf("Location = %q", a.Location())
	}
	if f.Stored(t, "/apis/apps/v1/namespaces/demo/deployments/other") == nil {
		t.Error("no deployment created")
	}
	for _, w := range f.Writes() {
		if w.Path != "/apis/apps/v1/namespaces/demo/deployments" {
			t.Errorf("a write went to %s", w.Path)
		}
	}

	// From the all-namespaces list, ?namespace= picks where it goes.
	p = b.Get("/c/dev/api/v1/configmaps/new?namespace=team-a", http.StatusOK)
	if text := webtest.EditorText(t, p); !strings.Contains(text, "  namespace: team-a\n") {
		t.Errorf("skeleton = %q", text)
	}
	// A cluster-scoped kind gets no namespace.
	p = b.Get("/c/dev/api/v1/namespaces/new", http.StatusOK)
	if text := webtest.EditorText(t, p); strings.Contains(text, "namespace:") {
		t.Errorf("cluster-scoped skeleton = %q", text)
	}
	// A resource the server does not let anyone create has no create page.
	b.Get("/c/dev/apis/policy.example.com/v1/sessions/new", http.StatusMethodNotAllowed)
}

func TestCreateFailuresKeepTheText(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	skeleton := webtest.EditorText(t, p)

	// An unknown kind: 400 before anything is sent.
	unknown := "apiVersion: v1\nkind: Gizmo\nmetadata:\n  name: g\n"
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", unknown).Submit("review", http.StatusBadRequest)
	if !strings.Contains(e.Text("edit-error"), "Unknown kind") || !strings.Contains(e.Text("edit-error-message"), "Gizmo") {
		t.Errorf("error = %q", e.Text("edit-error"))
	}
	webtest.KeepsText(t, e, unknown)
	// No apiVersion or kind.
	bare := "metadata:\n  name: g\n"
	e = b.Form(p, "[data-testid=edit-form]").Set("yaml", bare).Submit("review", http.StatusBadRequest)
	webtest.KeepsText(t, e, bare)
	// Unparsable.
	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"
	e = b.Form(p, "[data-testid=edit-form]").Set("yaml", broken).Submit("review", http.StatusBadRequest)
	if e.Text("edit-error-position") == "" {
		t.Error("no position for a syntax error")
	}
	webtest.KeepsText(t, e, broken)
	// Too large.
	huge := skeleton + "# " + strings.Repeat("y", 3<<20) + "\n"
	e = b.Form(p, "[data-testid=edit-form]").Set("yaml", huge).Submit("review", http.StatusRequestEntityTooLarge)
	webtest.KeepsText(t, e, huge)
	f.NoWrites(t, "texts refused before sending")

	// The skeleton as it is has no name: the server's 422, at its line.
	e = b.Form(p, "[data-testid=edit-form]").Submit("review", http.StatusUnprocessableEntity)
	cause := e.Doc.Find("[data-testid=edit-error-causes] li")
	if cause.Find("code").Text() != "metadata.name" || cause.Find(".line-ref").Text() != "line 4" {
		t.Errorf("cause = %q", strings.TrimSpace(cause.Text()))
	}
	webtest.KeepsText(t, e, skeleton)
	f.NoRealWrites(t, "reviews of new objects")

	// A namespace in the text wins over the page's.
	elsewhere := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: team-a\n"
	e = b.Form(p, "[data-testid=edit-form]").Set("yaml", elsewhere).Submit("review", http.StatusOK)
	webtest.KeepsText(t, e, elsewhere)
	if ws := f.Writes(); ws[len(ws)-1].Path != "/api/v1/namespaces/team-a/configmaps" {
		t.Errorf("the dry run went to %s", ws[len(ws)-1].Path)
	}
}

func TestDeleteConfirmsThenDeletes(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.WebPath+"/delete", http.StatusOK)
	if p.Text("delete-name") != "web" || !strings.Contains(p.Text("delete-form"), "demo") {
		t.Errorf("the confirmation does not name the object: %q", p.Text("delete-form"))
	}
	if _, checked := p.Doc.Find("[data-testid=propagation-Background]").Attr("checked"); !checked {
		t.Error("Background is not the default")
	}
	fm := b.Form(p, "[data-testid=delete-form]")
	if rv := f.Stored(t, webAPIPath).GetResourceVersion(); fm.Get("resourceVersion") != rv {
		t.Errorf("confirm form rv = %q, want %q", fm.Get("resourceVersion"), rv)
	}
	f.NoWrites(t, "the confirmation page")

	// Foreground: the object stays, marked, until its dependents are gone.
	d := fm.Set("propagationPolicy", "Foreground").Submit("", http.StatusOK)
	if got := d.Text("pending-finalizers"); got != "foregroundDeletion" {
		t.Errorf("pending finalizers = %q", got)
	}
	if !d.Has("follow-deletion") {
		t.Error("no link to follow the deletion")
	}
	stored := f.Stored(t, webAPIPath)
	if stored == nil || stored.GetDeletionTimestamp() == nil {
		t.Fatalf("after a foreground delete: %v", stored)
	}
	ws := f.Writes(http.MethodDelete)
	if len(ws) != 1 || !strings.Contains(string(ws[0].Body), `"propagationPolicy":"Foreground"`) || !strings.Contains(string(ws[0].Body), `"resourceVersion":"`+fm.Get("resourceVersion")+`"`) {
		t.Errorf("DELETE = %+v", ws)
	}
	f.Fake.Finalize("apps", "deployments", "demo", "web")
	if f.Stored(t, webAPIPath) != nil {
		t.Error("finalized, the deployment is still there")
	}

	// Background: gone, and the server's Status is shown.
	p = b.Get(webtest.SettingsPath+"/delete", http.StatusOK)
	d = b.Form(p, "[data-testid=delete-form]").Submit("", http.StatusOK)
	if got := d.Text("delete-status"); got != "Success" {
		t.Errorf("delete status = %q", got)
	}
	if d.Has("follow-deletion") || d.Has("object-link") {
		t.Error("a deleted object is linked")
	}
	if f.Stored(t, settingsAPIPath) != nil {
		t.Error("the configmap is still there")
	}
}

func TestDeleteOfAChangedOrMissingObject(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.SettingsPath+"/delete", http.StatusOK)
	f.Fake.Modify(configMapGVK, "demo", "settings", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"changed": "yes"}) })
	fresh := f.Stored(t, settingsAPIPath).GetResourceVersion()

	c := b.Form(p, "[data-testid=delete-form]").Set("propagationPolicy", "Orphan").Set("gracePeriodSeconds", "5").Submit("", http.StatusConflict)
	if c.Text("edit-error-code") != "409" || !strings.Contains(c.Text("edit-error"), "Nothing was deleted") {
		t.Errorf("error = %q", c.Text("edit-error"))
	}
	fm := b.Form(c, "[data-testid=delete-form]")
	if fm.Get("resourceVersion") != fresh || fm.Get("propagationPolicy") != "Orphan" || fm.Get("gracePeriodSeconds") != "5" {
		t.Errorf("the confirmation after a conflict: rv %q (want %q), policy %q, grace %q", fm.Get("resourceVersion"), fresh, fm.Get("propagationPolicy"), fm.Get("gracePeriodSeconds"))
	}
	if f.Stored(t, settingsAPIPath) == nil {
		t.Fatal("deleted despite the precondition")
	}

	// Invalid choices: 400, nothing sent.
	before := len(f.Writes())
	bad := b.Form(c, "[data-testid=delete-form]").Set("gracePeriodSeconds", "-1").Submit("", http.StatusBadRequest)
	if bad.Text("edit-error-code") != "400" {
		t.Errorf("grace -1: %q", bad.Text("edit-error"))
	}
	b.Form(c, "[data-testid=delete-form]").Set("propagationPolicy", "Sideways").Submit("", http.StatusBadRequest)
	if len(f.Writes()) != before {
		t.Error("an invalid delete was sent")
	}

	// Gone meanwhile: 404.
	f.Fake.Delete(configMapGVK, "demo", "settings")
	b.Form(c, "[data-testid=delete-form]").Submit("", http.StatusNotFound)
	b.Get(webtest.SettingsPath+"/delete", http.StatusNotFound)
	// A resource without the delete verb has no confirmation.
	b.Get("/c/dev/apis/policy.example.com/v1/sessions/boot-x3000/delete", http.StatusMethodNotAllowed)
}

func TestScaleThroughTheScaleSubresource(t *testing.T) {
	for _, tc := range []struct {
		name, path, apiPath string
		desired             int
	}{
		{"deployment", webtest.WebPath, webAPIPath, 2},
		{"custom resource", webtest.BeaconPath, beaconAPIPath, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := webtest.Editable(t, apitest.Options{})
			b := webtest.NewBrowser(t, f)
			p := b.Get(tc.path+"/scale", http.StatusOK)
			if got := p.Text("scale-desired"); got != fmt.Sprint(tc.desired) {
				t.Errorf("desired = %q", got)
			}
			fm := b.Form(p, "[data-testid=scale-form]")
			if fm.Get("replicas") != fmt.Sprint(tc.desired) {
				t.Errorf("replicas field = %q", fm.Get("replicas"))
			}
			a := fm.Set("replicas", "5").Submit("", http.StatusSeeOther)
			if a.Location() != tc.path {
				t.Errorf("Location = %q", a.Location())
			}
			if n, _, _ := unstructured.NestedInt64(f.Stored(t, tc.apiPath).Object, "spec", "replicas"); n != 5 {
				t.Errorf("spec.replicas = %d", n)
			}
			ws := f.Writes()
			if len(ws) != 1 || ws[0].Path != tc.apiPath+"/scale" || ws[0].Method != http.MethodPatch {
				t.Errorf("writes = %+v", ws)
			}
			if got := b.Get(tc.path, http.StatusOK).Text("notice"); !strings.Contains(got, "to 5 replicas") {
				t.Errorf("notice = %q", got)
			}

			// Changed since the form was loaded: 409, the form again with
			// the current numbers and the version to submit with.
			p = b.Get(tc.path+"/scale", http.StatusOK)
			patchBehind(t, f, tc.apiPath, `{"metadata":{"labels":{"touched":"yes"}}}`)
			c := b.Form(p, "[data-testid=scale-form]").Set("replicas", "7").Submit("", http.StatusConflict)
			cf := b.Form(c, "[data-testid=scale-form]")
			if cf.Get("replicas") != "7" || cf.Get("resourceVersion") != f.Stored(t, tc.apiPath).GetResourceVersion() {
				t.Errorf("after a conflict: replicas %q, rv %q", cf.Get("replicas"), cf.Get("resourceVersion"))
			}
			if c.Text("edit-error-code") != "409" {
				t.Errorf("error = %q", c.Text("edit-error"))
			}
			cf.Submit("", http.StatusSeeOther)
			if n, _, _ := unstructured.NestedInt64(f.Stored(t, tc.apiPath).Object, "spec", "replicas"); n != 7 {
				t.Errorf("spec.replicas = %d after resubmitting", n)
			}

			// Not a count: 400, nothing sent.
			before := len(f.Writes())
			for _, bad := range []string{"-1", "two", "99999999999"} {
				e := b.Form(b.Get(tc.path+"/scale", http.StatusOK), "[data-testid=scale-form]").Set("replicas", bad).Submit("", http.StatusBadRequest)
				if b.Form(e, "[data-testid=scale-form]").Get("replicas") != bad {
					t.Errorf("%q is not kept in the form", bad)
				}
			}
			if len(f.Writes()) != before {
				t.Error("an invalid scale was sent")
			}
		})
	}
}

func TestScaleOfAResourceWithoutScaleIs404(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.SettingsPath+"/scale", http.StatusNotFound)
	b.Get(webtest.SettingsPath, http.StatusOK)
	b.Post(webtest.SettingsPath+"/scale", url.Values{"_csrf": {b.CSRFToken()}, "replicas": {"2"}}, http.StatusNotFound, nil)
	f.NoWrites(t, "scale without a scale subresource")
}

func TestRestartSetsThePodTemplateAnnotation(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.WebPath, http.StatusOK)
	start := time.Now().Add(-time.Second)
	a := b.Form(p, `form[action$="/restart"]`).Submit("", http.StatusSeeOther)
	if a.Location() != webtest.WebPath {
		t.Errorf("Location = %q", a.Location())
	}
	stored := f.Stored(t, webAPIPath)
	at, _, _ := unstructured.NestedString(stored.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt")
	if ts, err := time.Parse(time.RFC3339, at); err != nil || ts.Before(start.Truncate(time.Second)) {
		t.Errorf("restartedAt = %q (%v)", at, err)
	}
	if labels, _, _ := unstructured.NestedStringMap(stored.Object, "spec", "template", "metadata", "labels"); labels["app"] != "web" {
		t.Errorf("the restart lost the template's labels: %v", labels)
	}
	ws := f.Writes()
	if len(ws) != 1 || ws[0].ContentType != "application/merge-patch+json" || !strings.Contains(string(ws[0].Body), `"resourceVersion"`) {
		t.Errorf("writes = %+v", ws)
	}
	if got := b.Get(webtest.WebPath, http.StatusOK).Text("notice"); !strings.HasPrefix(got, `Restarted deployment "web"`) {
		t.Errorf("notice = %q", got)
	}

	// Changed since the page was shown: not restarted, and the flash says so.
	p = b.Get(webtest.WebPath, http.StatusOK)
	patchBehind(t, f, webAPIPath, `{"metadata":{"labels":{"touched":"yes"}}}`)
	before := f.Stored(t, webAPIPath).GetResourceVersion()
	b.Form(p, `form[action$="/restart"]`).Submit("", http.StatusSeeOther)
	if got := b.Get(webtest.WebPath, http.StatusOK).Text("notice"); !strings.HasPrefix(got, "Not restarted") {
		t.Errorf("notice = %q", got)
	}
	if f.Stored(t, webAPIPath).GetResourceVersion() != before {
		t.Error("a stale restart changed the object")
	}

	// Only workloads that roll their pods restart.
	values := url.Values{"_csrf": {b.CSRFToken()}}
	for _, path := range []string{webtest.SettingsPath, webtest.BeaconPath, "/c/dev/apis/apps/v1/namespaces/demo/replicasets/x"} {
		b.Post(path+"/restart", values, http.StatusMethodNotAllowed, nil)
	}
}

// A JSON-Patch-only server restarts too: the annotation is added, the
// template kept.
func TestRestartOnAJSONPatchOnlyServer(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{NoMergePatch: true})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.WebPath, http.StatusOK)
	b.Form(p, `form[action$="/restart"]`).Submit("", http.StatusSeeOther)
	stored := f.Stored(t, webAPIPath)
	if at, _, _ := unstructured.NestedString(stored.Object, "spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"); at == "" {
		t.Errorf("no restartedAt: %v", stored.Object["spec"])
	}
	if labels, _, _ := unstructured.NestedStringMap(stored.Object, "spec", "template", "metadata", "labels"); labels["app"] != "web" {
		t.Errorf("the restart lost the template's labels: %v", labels)
	}
	ws := f.Writes()
	var ops []map[string]any
	if len(ws) != 2 || json.Unmarshal(ws[1].Body, &ops) != nil || ops[0]["op"] != "test" {
		t.Errorf("writes = %+v", ws)
	}
}

// On a JSON-Patch-only server a stale version fails the patch's test op
// with a causeless 422: restart and scale still say it changed.
func TestStaleRestartAndScaleOnAJSONPatchOnlyServer(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{NoMergePatch: true})
	b := webtest.NewBrowser(t, f)
	obj := b.Get(webtest.WebPath, http.StatusOK)
	scale := b.Get(webtest.WebPath+"/scale", http.StatusOK)
	f.Fake.Modify(deploymentGVK, "demo", "web", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"app": "web", "x": "y"}) })
	before := f.Stored(t, webAPIPath).GetResourceVersion()

	b.Form(obj, `form[action$="/restart"]`).Submit("", http.StatusSeeOther)
	if got := b.Get(webtest.WebPath, http.StatusOK).Text("notice"); !strings.HasPrefix(got, "Not restarted") {
		t.Errorf("notice = %q", got)
	}
	c := b.Form(scale, "[data-testid=scale-form]").Set("replicas", "4").Submit("", http.StatusConflict)
	if c.Text("edit-error-code") != "409" || !strings.Contains(c.Text("edit-error"), "changed since you loaded it") {
		t.Errorf("scale error = %q", c.Text("edit-error"))
	}
	cf := b.Form(c, "[data-testid=scale-form]")
	if cf.Get("replicas") != "4" || cf.Get("resourceVersion") != before {
		t.Errorf("after a conflict: replicas %q, rv %q (want %s)", cf.Get("replicas"), cf.Get("resourceVersion"), before)
	}
	if f.Stored(t, webAPIPath).GetResourceVersion() != before {
		t.Fatal("a stale write changed the object")
	}
	cf.Submit("", http.StatusSeeOther)
	if n, _, _ := unstructured.NestedInt64(f.Stored(t, webAPIPath).Object, "spec", "replicas"); n != 4 {
		t.Errorf("spec.replicas = %d after resubmitting", n)
	}
}

// One text is one object: a second YAML document is refused, not dropped.
func TestCreateRefusesASecondDocument(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	two := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", two).Submit("review", http.StatusBadRequest)
	if !strings.HasPrefix(e.Text("edit-error-position"), "Line 5") && !strings.HasPrefix(e.Text("edit-error-position"), "Line 6") {
		t.Errorf("position = %q", e.Text("edit-error-position"))
	}
	webtest.KeepsText(t, e, two)
	f.NoWrites(t, "two documents")
}

// A Namespace (whose object path is a prefix of the paths inside it) is
// edited and deleted like any object.
func TestNamespaceIsEditedAndDeleted(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	f.Fake.Add(apitest.Object("v1", "Namespace", "", "scratch", nil))
	b := webtest.NewBrowser(t, f)
	const path = "/c/dev/api/v1/namespaces/scratch"
	obj := b.Get(path, http.StatusOK)
	if got := obj.Doc.Find("[data-testid=edit-link]").AttrOr("href", ""); got != path+"/edit" {
		t.Errorf("edit link = %q", got)
	}
	p, text := openEditor(t, b, path)
	edited := webtest.ReplaceLine(t, text, "  name: scratch", "  name: scratch\n  labels:\n    team: a")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	if got := r.Text("patch-changes"); !strings.Contains(got, "metadata.labels") {
		t.Errorf("patch-changes = %q", got)
	}
	a := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if a.Location() != path {
		t.Errorf("Location = %q", a.Location())
	}
	if got := f.Stored(t, "/api/v1/namespaces/scratch").GetLabels()["team"]; got != "a" {
		t.Errorf("label team = %q", got)
	}
	d := b.Form(b.Get(path+"/delete", http.StatusOK), "[data-testid=delete-form]").Submit("", http.StatusOK)
	if !d.Has("delete-result") || f.Stored(t, "/api/v1/namespaces/scratch") != nil {
		t.Errorf("the namespace was not deleted:\n%s", d.Body)
	}
	b.Get(path+"/scale", http.StatusNotFound)
}

// A Secret kept by finalizers is answered whole to DELETE; the Deleted
// page shows it without its values.
func TestDeletedSecretPageShowsNoValue(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	for _, policy := range []string{"Foreground", "Orphan"} {
		p := b.Get(webtest.CredsPath+"/delete", http.StatusOK)
		d := b.Form(p, "[data-testid=delete-form]").Set("propagationPolicy", policy).Submit("", http.StatusOK)
		if !d.Has("pending-finalizers") {
			t.Errorf("%s: not pending:\n%s", policy, d.Body)
		}
		leaksNone(t, "the Deleted page ("+policy+")", d.Body, storedValues...)
		if !strings.Contains(d.Text("delete-body"), "name: creds") {
			t.Errorf("%s: the answer is not shown: %q", policy, d.Text("delete-body"))
		}
	}
}
