package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

const webAPIPath = "/apis/apps/v1/namespaces/demo/deployments/web"

// openEditor loads the editor of the object at path.
func openEditor(t *testing.T, b *browser, path string) (webPage, string) {
	t.Helper()
	p := b.get(path+"/edit", http.StatusOK)
	return p, editorText(t, p)
}

// withLabel adds a label line under the deployment's metadata.labels.
func withLabel(t *testing.T, text, key, value string) string {
	t.Helper()
	return replaceLine(t, text, "    app: web", "    app: web\n    "+key+": "+value)
}

// patchBehind changes an object as another client would: a merge patch
// straight to the fake, as kubectl edit (its User-Agent names the field
// manager).
func (f *editFixture) patchBehind(t *testing.T, apiPath, patch string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPatch, f.fake.URL+apiPath, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.fake.Token)
	req.Header.Set("Content-Type", "application/merge-patch+json")
	req.Header.Set("User-Agent", "kubectl-edit/v1.36.0")
	resp, err := f.fake.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("patch behind the editor's back: %d", resp.StatusCode)
	}
}

func TestEditPageShowsTheObjectWithoutStatusOrManagedFields(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	stored := f.stored(t, webAPIPath)

	for _, want := range []string{"apiVersion: apps/v1\nkind: Deployment\n", "  name: web\n", "  replicas: 2\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("editor text lacks %q:\n%s", want, text)
		}
	}
	for _, absent := range []string{"\nstatus:", "managedFields", "kube-controller-manager", "readyReplicas"} {
		if strings.Contains(text, absent) {
			t.Errorf("editor text contains %q:\n%s", absent, text)
		}
	}
	// Status is shown apart, read-only.
	if !p.has("status-toggle") || !strings.Contains(p.text("status-yaml"), "readyReplicas: 2") {
		t.Errorf("no read-only status: %q", p.text("status-yaml"))
	}
	if p.doc.Find("[data-testid=edit-form] [data-testid=status-yaml]").Length() != 0 {
		t.Error("the status is inside the form")
	}
	fm := b.form(p, "[data-testid=edit-form]")
	if got := fm.get("resourceVersion"); got != stored.GetResourceVersion() {
		t.Errorf("form resourceVersion = %q, want %q", got, stored.GetResourceVersion())
	}
	if got := fm.get("base"); got != text {
		t.Errorf("form base differs from the text:\n%s", got)
	}
	if fm.action != webPath+"/edit" {
		t.Errorf("form action = %q", fm.action)
	}
	ta := p.doc.Find("[data-testid=yaml-editor]")
	if got := ta.AttrOr("data-loaded-rv", ""); got != stored.GetResourceVersion() {
		t.Errorf("data-loaded-rv = %q", got)
	}
	if got := ta.AttrOr("data-live-url", ""); got != webPath+"/edit?rv="+stored.GetResourceVersion() {
		t.Errorf("data-live-url = %q", got)
	}
	if got := ta.AttrOr("data-schema-url", ""); got != "/c/dev/schema/apis/apps/v1/deployments" {
		t.Errorf("data-schema-url = %q", got)
	}
	if title := p.text("write-title"); !strings.Contains(title, "Edit") || !strings.Contains(title, "web") {
		t.Errorf("title = %q", title)
	}

	// A resource the server does not let anyone patch has no editor.
	p = b.get("/c/dev/apis/policy.example.com/v1/sessions/boot-x3000/edit", http.StatusMethodNotAllowed)
	if p.has("edit-form") || p.text("error-code") != "405" || !strings.Contains(p.text("error-message"), "does not allow patching sessions") {
		t.Errorf("405 page: code %q, message %q", p.text("error-code"), p.text("error-message"))
	}
	// A missing object is a 404.
	b.get("/c/dev/apis/apps/v1/namespaces/demo/deployments/nope/edit", http.StatusNotFound)
	f.noWrites(t, "opening editors")
}

func TestReviewDryRunsAMergePatchWithTheLoadedVersion(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	rv := b.form(p, "[data-testid=edit-form]").get("resourceVersion")
	edited := withLabel(t, text, "tier", "frontend")

	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	if !r.has("review-form") {
		t.Fatalf("no review:\n%s", r.body)
	}
	if got := r.text("patch-changes"); !strings.Contains(got, "metadata.labels.tier") || !strings.Contains(got, "frontend") {
		t.Errorf("patch-changes = %q", got)
	}
	if got := r.text("patch-type"); !strings.Contains(got, "merge patch") {
		t.Errorf("patch-type = %q", got)
	}
	var added []string
	r.doc.Find("[data-testid=dry-run-diff] .diff-add").Each(func(_ int, s *goquery.Selection) {
		added = append(added, s.Find(".diff-text").Text())
	})
	if len(added) != 1 || !strings.HasPrefix(added[0], "+") || strings.TrimSpace(added[0][1:]) != "tier: frontend" {
		t.Errorf("dry-run diff adds %q, want the label", added)
	}
	keepsText(t, r, edited)
	rf := b.form(r, "[data-testid=review-form]")
	if rf.get("base") != text || rf.get("resourceVersion") != rv {
		t.Errorf("the review form lost the base or the version (%q)", rf.get("resourceVersion"))
	}

	ws := f.writes()
	if len(ws) != 1 {
		t.Fatalf("the fake saw %d writes, want one dry-run PATCH", len(ws))
	}
	w := ws[0]
	if w.Method != http.MethodPatch || w.Path != webAPIPath || w.Query.Get("dryRun") != "All" || w.ContentType != "application/merge-patch+json" {
		t.Errorf("write = %s %s ?%s %s", w.Method, w.Path, w.Query.Encode(), w.ContentType)
	}
	var body struct {
		Metadata struct {
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec any `json:"spec"`
	}
	if err := json.Unmarshal(w.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Metadata.ResourceVersion != rv || body.Metadata.Labels["tier"] != "frontend" || len(body.Metadata.Labels) != 1 || body.Spec != nil {
		t.Errorf("patch body = %s, want only the label with resourceVersion %s", w.Body, rv)
	}
	if got := f.stored(t, webAPIPath).GetLabels()["tier"]; got != "" {
		t.Errorf("the review stored the label (%q)", got)
	}

	// Back to the editor keeps the text and the version as loaded.
	e := rf.submit("edit", http.StatusOK)
	keepsText(t, e, edited)
	if got := b.form(e, "[data-testid=edit-form]").get("resourceVersion"); got != rv {
		t.Errorf("back in the editor, resourceVersion = %q", got)
	}
	if len(f.writes()) != 1 {
		t.Error("going back to the editor wrote something")
	}
}

func TestReviewWithoutChangesSaysSo(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	for _, action := range []string{"review", "apply"} {
		// The browser sends CRLF; the text is still the one loaded.
		e := b.form(p, "[data-testid=edit-form]").send(action, http.StatusOK, nil)
		if got := e.text("edit-notice"); !strings.Contains(got, "No changes") {
			t.Errorf("%s: notice = %q", action, got)
		}
		keepsText(t, e, text)
	}
	f.noWrites(t, "unchanged text")
}

func TestApplySavesRedirectsAndFlashesOnce(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	draftKey := p.doc.Find("[data-testid=yaml-editor]").AttrOr("data-draft-key", "")
	if draftKey == "" {
		t.Fatal("no draft key")
	}
	r := b.form(p, "[data-testid=edit-form]").set("yaml", withLabel(t, text, "tier", "frontend")).submit("review", http.StatusOK)
	a := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if a.location() != webPath {
		t.Errorf("Location = %q, want the object page", a.location())
	}
	stored := f.stored(t, webAPIPath)
	if stored.GetLabels()["tier"] != "frontend" || stored.GetLabels()["app"] != "web" {
		t.Errorf("stored labels = %v", stored.GetLabels())
	}
	ws := f.writes()
	if len(ws) != 2 || ws[1].Query.Has("dryRun") {
		t.Errorf("writes: %d, want the dry run then the real PATCH", len(ws))
	}

	next := b.get(a.location(), http.StatusOK)
	want := fmt.Sprintf("Saved deployment \"web\": now at version %s.", stored.GetResourceVersion())
	if got := next.text("notice"); got != want {
		t.Errorf("notice = %q, want %q", got, want)
	}
	if got := next.doc.Find("body").AttrOr("data-clear-draft", ""); got != draftKey {
		t.Errorf("body data-clear-draft = %q, want %q", got, draftKey)
	}
	again := b.get(a.location(), http.StatusOK)
	if again.has("notice") {
		t.Errorf("the flash is shown twice: %q", again.text("notice"))
	}
	if _, ok := again.doc.Find("body").Attr("data-clear-draft"); ok {
		t.Error("data-clear-draft is set twice")
	}
}

// Someone changed another field: the conflict page says the two changes
// are disjoint, re-applying reviews mine on theirs, and both are saved.
func TestConflictWithDisjointChangesReapplies(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	loadedRV := b.form(p, "[data-testid=edit-form]").get("resourceVersion")
	edited := withLabel(t, text, "tier", "frontend")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)

	f.patchBehind(t, webAPIPath, `{"spec":{"replicas":5}}`)
	liveRV := f.stored(t, webAPIPath).GetResourceVersion()

	c := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusConflict)
	if !c.has("conflict") || !c.has("disjoint") || c.has("conflicts") {
		t.Fatalf("not a disjoint conflict page:\n%s", c.body)
	}
	if got := c.text("live-rv"); got != liveRV {
		t.Errorf("live-rv = %q, want %q", got, liveRV)
	}
	if got := c.text("changed-by"); !strings.HasPrefix(got, "kubectl-edit (Update") {
		t.Errorf("changed-by = %q", got)
	}
	if got := c.text("their-changes"); !strings.Contains(got, "spec.replicas") || !strings.Contains(got, "5") {
		t.Errorf("their-changes = %q", got)
	}
	if got := c.text("my-changes"); !strings.Contains(got, "metadata.labels.tier") {
		t.Errorf("my-changes = %q", got)
	}
	keepsText(t, c, edited)
	cf := b.form(c, "[data-testid=conflict-form]")
	if cf.get("resourceVersion") != loadedRV || cf.get("base") != text {
		t.Error("the conflict form lost the version or text as loaded")
	}

	rp := cf.submit("reapply", http.StatusOK)
	if !rp.has("reapplied") || !strings.Contains(rp.text("reapplied"), liveRV) {
		t.Fatalf("no re-applied notice:\n%s", rp.body)
	}
	merged := rp.textarea("yaml")
	if !strings.Contains(merged, "tier: frontend") || !strings.Contains(merged, "replicas: 5") {
		t.Errorf("the re-applied text lacks a change:\n%s", merged)
	}
	if got := b.form(rp, "[data-testid=review-form]").get("resourceVersion"); got != liveRV {
		t.Errorf("re-applied resourceVersion = %q, want %q", got, liveRV)
	}
	if got := rp.text("patch-changes"); strings.Contains(got, "replicas") {
		t.Errorf("the re-applied patch undoes their change: %q", got)
	}
	b.form(rp, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	stored := f.stored(t, webAPIPath)
	if replicas, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); replicas != 5 || stored.GetLabels()["tier"] != "frontend" {
		t.Errorf("stored replicas %d, labels %v: want both changes", replicas, stored.GetLabels())
	}
}

// Both changed the same label: the conflict table shows the three values;
// overwriting reviews with a warning naming what is lost, and mine wins.
func TestConflictOnTheSameFieldOverwrites(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := replaceLine(t, text, "    app: web", "    app: mine")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	f.patchBehind(t, webAPIPath, `{"metadata":{"labels":{"app":"theirs"}}}`)

	c := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusConflict)
	if !c.has("overlap") || c.has("disjoint") {
		t.Fatalf("not an overlapping conflict:\n%s", c.body)
	}
	var rows [][]string
	c.doc.Find("[data-testid=conflicts] tbody tr").Each(func(_ int, tr *goquery.Selection) {
		var row []string
		tr.Find("th, td").Each(func(_ int, cell *goquery.Selection) { row = append(row, strings.TrimSpace(cell.Text())) })
		rows = append(rows, row)
	})
	if want := [][]string{{"metadata.labels.app", "web", "theirs", "mine"}}; fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("conflict rows = %q, want %q", rows, want)
	}
	keepsText(t, c, edited)

	o := b.form(c, "[data-testid=conflict-form]").submit("overwrite", http.StatusOK)
	if !o.has("overwrite-warning") {
		t.Fatalf("no overwrite warning:\n%s", o.body)
	}
	if got := o.text("overwrite-lost"); !strings.Contains(got, "metadata.labels.app") || !strings.Contains(got, "theirs") {
		t.Errorf("overwrite-lost = %q", got)
	}
	keepsText(t, o, edited)
	b.form(o, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if got := f.stored(t, webAPIPath).GetLabels()["app"]; got != "mine" {
		t.Errorf("label app = %q, want mine", got)
	}
}

func TestConflictWhenTheObjectWasDeleted(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := withLabel(t, text, "tier", "frontend")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	f.fake.Delete(deploymentGVK, "demo", "web")

	c := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusConflict)
	if !strings.Contains(c.text("conflict"), "deleted") {
		t.Errorf("the conflict page does not say it was deleted: %q", c.text("conflict"))
	}
	if c.has("reapply") || c.has("overwrite") || c.has("object-link") {
		t.Error("a deleted object offers re-apply, overwrite or a link to itself")
	}
	keepsText(t, c, edited)
	// Back to the text: the editor shows it although the object is gone.
	e := b.form(c, "[data-testid=conflict-form]").submit("edit", http.StatusOK)
	keepsText(t, e, edited)
}

func TestInvalidChangeShowsTheCauseAtItsLine(t *testing.T) {
	f := newEditFixture(t, apitest.Options{Immutable: map[string][]string{"services": {"spec.clusterIP"}}})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, apiSvcPath)
	edited := replaceLine(t, text, "  clusterIP: 10.96.0.10", "  clusterIP: 10.96.0.99")
	line := strings.Count(edited[:strings.Index(edited, "  clusterIP:")], "\n") + 1

	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusUnprocessableEntity)
	if e.text("edit-error-code") != "422" || e.text("edit-error-reason") != "Invalid" {
		t.Errorf("edit error code %q reason %q", e.text("edit-error-code"), e.text("edit-error-reason"))
	}
	causes := e.doc.Find("[data-testid=edit-error-causes] li")
	if causes.Length() != 1 {
		t.Fatalf("%d causes:\n%s", causes.Length(), e.body)
	}
	if got := causes.Find("code").Text(); got != "spec.clusterIP" {
		t.Errorf("cause field = %q", got)
	}
	if got := causes.Text(); !strings.Contains(got, "field is immutable") {
		t.Errorf("cause = %q", got)
	}
	if got := causes.Find(".line-ref").Text(); got != fmt.Sprintf("line %d", line) {
		t.Errorf("line-ref = %q, want line %d", got, line)
	}
	keepsText(t, e, edited)
	if got := f.stored(t, "/api/v1/namespaces/demo/services/api").Object["spec"].(map[string]any)["clusterIP"]; got != "10.96.0.10" {
		t.Errorf("clusterIP = %v", got)
	}
}

func TestYAMLSyntaxErrorKeepsTheTextExactly(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	// Trailing spaces, a tab in a comment, non-ASCII and HTML-looking text
	// must all come back as typed.
	edited := replaceLine(t, text, "  replicas: 2", "  replicas: 2: 3   ") + "# </textarea><b>ü\t€</b>\n"
	line := strings.Count(edited[:strings.Index(edited, "  replicas: 2: 3")], "\n") + 1
	for _, action := range []string{"review", "apply"} {
		e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).send(action, http.StatusBadRequest, nil)
		if e.text("edit-error-code") != "400" {
			t.Errorf("%s: edit error code %q", action, e.text("edit-error-code"))
		}
		if got := e.text("edit-error-position"); !strings.HasPrefix(got, fmt.Sprintf("Line %d", line)) {
			t.Errorf("%s: position %q, want line %d", action, got, line)
		}
		if got := e.doc.Find("[data-testid=yaml-editor]").AttrOr("data-error-line", ""); got != fmt.Sprint(line) {
			t.Errorf("%s: data-error-line = %q", action, got)
		}
		keepsText(t, e, edited)
	}
	f.noWrites(t, "unparsable YAML")
}

// The text keeps a leading blank line: HTML drops a newline that directly
// follows <textarea>, so the page must not lose the user's own.
func TestEditorTextKeepsALeadingNewline(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := "\n" + replaceLine(t, text, "  replicas: 2", "  replicas: [2")
	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusBadRequest)
	keepsText(t, e, edited)
}

func TestForbiddenPatchKeepsTheText(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	// From now on the user may read the object but not patch it.
	raw := f.rawObject(t, webAPIPath)
	f.fake.Override(webAPIPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(raw)
			return
		}
		apitest.WriteStatus(w, apitest.Forbidden("editor", strings.ToLower(r.Method), "apps", "deployments", "web"))
	})
	edited := withLabel(t, text, "tier", "frontend")
	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusForbidden)
	if e.text("edit-error-code") != "403" || e.text("edit-error-reason") != "Forbidden" {
		t.Errorf("edit error code %q reason %q", e.text("edit-error-code"), e.text("edit-error-reason"))
	}
	if got := e.text("edit-error-message"); !strings.Contains(got, `User "editor" cannot patch resource "deployments"`) {
		t.Errorf("message = %q", got)
	}
	keepsText(t, e, edited)
	if !e.has("status-toggle") {
		t.Error("the editor lost its read-only status")
	}
	if ws := f.writes(); len(ws) != 1 || ws[0].Method != http.MethodPatch {
		t.Errorf("writes = %d, want the refused PATCH", len(ws))
	}
}

// A server that takes only JSON Patch gets the change as one, guarded by
// a test of the loaded resourceVersion.
func TestJSONPatchFallbackIsReviewedAndApplied(t *testing.T) {
	f := newEditFixture(t, apitest.Options{NoMergePatch: true})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	rv := b.form(p, "[data-testid=edit-form]").get("resourceVersion")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", withLabel(t, text, "tier", "frontend")).submit("review", http.StatusOK)
	if got := r.text("patch-type"); !strings.Contains(got, "JSON Patch") {
		t.Errorf("patch-type = %q", got)
	}
	ws := f.writes()
	if len(ws) != 2 {
		t.Fatalf("writes = %d, want the refused merge patch and the JSON Patch", len(ws))
	}
	if ws[0].ContentType != "application/merge-patch+json" || ws[1].ContentType != "application/json-patch+json" {
		t.Errorf("content types %q, %q", ws[0].ContentType, ws[1].ContentType)
	}
	for _, w := range ws {
		if w.Query.Get("dryRun") != "All" {
			t.Errorf("a review sent %s without dryRun", w.ContentType)
		}
	}
	var ops []map[string]any
	if err := json.Unmarshal(ws[1].Body, &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) < 2 || ops[0]["op"] != "test" || ops[0]["path"] != "/metadata/resourceVersion" || ops[0]["value"] != rv {
		t.Errorf("JSON Patch = %s, want a test of resourceVersion %s first", ws[1].Body, rv)
	}
	if strings.Contains(r.text("patch-body"), "merge") {
		t.Errorf("patch body = %q", r.text("patch-body"))
	}
	b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	if got := f.stored(t, webAPIPath).GetLabels()["tier"]; got != "frontend" {
		t.Errorf("label tier = %q", got)
	}
}

// On a JSON-Patch-only server a stale version fails the test op with a
// causeless 422; the console tells it is a conflict.
func TestJSONPatchOnlyServerStaleVersionIsAConflict(t *testing.T) {
	f := newEditFixture(t, apitest.Options{NoMergePatch: true})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := withLabel(t, text, "tier", "frontend")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusOK)
	f.fake.Modify(deploymentGVK, "demo", "web", func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, int64(4), "spec", "replicas")
	})
	c := b.form(r, "[data-testid=review-form]").submit("apply", http.StatusConflict)
	if !c.has("conflict") || !c.has("disjoint") {
		t.Fatalf("not a conflict page:\n%s", c.body)
	}
	keepsText(t, c, edited)
	rp := b.form(c, "[data-testid=conflict-form]").submit("reapply", http.StatusOK)
	b.form(rp, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)
	stored := f.stored(t, webAPIPath)
	if replicas, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); replicas != 4 || stored.GetLabels()["tier"] != "frontend" {
		t.Errorf("replicas %d labels %v", replicas, stored.GetLabels())
	}
}

// A causeless 422 on an object that did not move on is an error, not a
// conflict.
func TestCauselessInvalidOnAnUnchangedObjectIsShownAsSuch(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	raw := f.rawObject(t, webAPIPath)
	f.fake.Override(webAPIPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(raw)
			return
		}
		apitest.WriteStatus(w, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: "the server rejected our request due to an error in our request",
		})
	})
	edited := withLabel(t, text, "tier", "frontend")
	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusUnprocessableEntity)
	if !e.has("edit-error") || e.has("conflict") {
		t.Fatalf("not an editor with the error:\n%s", e.body)
	}
	keepsText(t, e, edited)
}

func TestTextOverTheLimitIsRefusedBeforeAnyWrite(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := text + "# " + strings.Repeat("x", 3<<20) + "\n"
	for _, action := range []string{"review", "apply"} {
		e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).send(action, http.StatusRequestEntityTooLarge, nil)
		if e.text("edit-error-code") != "413" || !strings.Contains(e.text("edit-error-message"), "larger than 3 MiB; nothing was sent") {
			t.Errorf("%s: error %q %q", action, e.text("edit-error-code"), e.text("edit-error-message"))
		}
		keepsText(t, e, edited)
	}
	f.noWrites(t, "a text over 3 MiB")
}

// An edit cannot turn the object into another kind.
func TestEditCannotChangeTheKind(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	edited := replaceLine(t, text, "kind: Deployment", "kind: StatefulSet")
	e := b.form(p, "[data-testid=edit-form]").set("yaml", edited).submit("review", http.StatusBadRequest)
	if !strings.Contains(e.text("edit-error-message"), "kind cannot change") {
		t.Errorf("message = %q", e.text("edit-error-message"))
	}
	keepsText(t, e, edited)
	f.noWrites(t, "a changed kind")
}

// The flash is for the page the browser shows next: the scripts, styles
// and fetches that page (or another tab) makes do not take it.
func TestFlashIsTakenByThePageNotBySubresources(t *testing.T) {
	f := newEditFixture(t, apitest.Options{})
	b := newBrowser(t, f.harness)
	p, text := openEditor(t, b, webPath)
	css := p.doc.Find(`link[rel=stylesheet]`).AttrOr("href", "")
	js := p.doc.Find(`script[type=module]`).AttrOr("src", "")
	r := b.form(p, "[data-testid=edit-form]").set("yaml", withLabel(t, text, "tier", "frontend")).submit("review", http.StatusOK)
	b.form(r, "[data-testid=review-form]").submit("apply", http.StatusSeeOther)

	b.getWith(css, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "style", "Sec-Fetch-Mode": "no-cors"})
	b.getWith(js, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "script", "Sec-Fetch-Mode": "cors"})
	b.getWith("/c/dev/schema/apis/apps/v1/deployments", http.StatusNotFound, map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"})
	next := b.getWith(webPath, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"})
	if got := next.text("notice"); !strings.HasPrefix(got, `Saved deployment "web"`) {
		t.Errorf("notice = %q: a subresource request took the flash", got)
	}
	if again := b.get(webPath, http.StatusOK); again.has("notice") {
		t.Error("the flash is shown twice")
	}
}
