package edit_test

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
	"github.com/tabula-console/tabula/web/webtest"
)

const webAPIPath = "/apis/apps/v1/namespaces/demo/deployments/web"

// openEditor loads the editor of the object at path.
func openEditor(t *testing.T, b *webtest.Browser, path string) (webtest.Page, string) {
	t.Helper()
	p := b.Get(path+"/edit", http.StatusOK)
	return p, webtest.EditorText(t, p)
}

// withLabel adds a label line under the deployment's metadata.labels.
func withLabel(t *testing.T, text, key, value string) string {
	t.Helper()
	return webtest.ReplaceLine(t, text, "    app: web", "    app: web\n    "+key+": "+value)
}

// patchBehind changes an object as another client would: a merge patch
// straight to the fake, as kubectl edit (its User-Agent names the field
// manager).
func patchBehind(t *testing.T, f *webtest.Console, apiPath, patch string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPatch, f.Fake.URL+apiPath, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.Fake.Token)
	req.Header.Set("Content-Type", "application/merge-patch+json")
	req.Header.Set("User-Agent", "kubectl-edit/v1.36.0")
	resp, err := f.Fake.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("patch behind the editor's back: %d", resp.StatusCode)
	}
}

func TestEditPageShowsTheObjectWithoutStatusOrManagedFields(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	stored := f.Stored(t, webAPIPath)

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
	if !p.Has("status-toggle") || !strings.Contains(p.Text("status-yaml"), "readyReplicas: 2") {
		t.Errorf("no read-only status: %q", p.Text("status-yaml"))
	}
	if p.Doc.Find("[data-testid=edit-form] [data-testid=status-yaml]").Length() != 0 {
		t.Error("the status is inside the form")
	}
	fm := b.Form(p, "[data-testid=edit-form]")
	if got := fm.Get("resourceVersion"); got != stored.GetResourceVersion() {
		t.Errorf("form resourceVersion = %q, want %q", got, stored.GetResourceVersion())
	}
	if got := fm.Get("base"); got != text {
		t.Errorf("form base differs from the text:\n%s", got)
	}
	if fm.Action != webtest.WebPath+"/edit" {
		t.Errorf("form action = %q", fm.Action)
	}
	ta := p.Doc.Find("[data-testid=yaml-editor]")
	if got := ta.AttrOr("data-loaded-rv", ""); got != stored.GetResourceVersion() {
		t.Errorf("data-loaded-rv = %q", got)
	}
	if got := ta.AttrOr("data-live-url", ""); got != webtest.WebPath+"/edit?rv="+stored.GetResourceVersion() {
		t.Errorf("data-live-url = %q", got)
	}
	if got := ta.AttrOr("data-schema-url", ""); got != "/c/dev/schema/apis/apps/v1/deployments" {
		t.Errorf("data-schema-url = %q", got)
	}
	if title := p.Text("write-title"); !strings.Contains(title, "Edit") || !strings.Contains(title, "web") {
		t.Errorf("title = %q", title)
	}

	// A resource the server does not let anyone patch has no editor.
	p = b.Get("/c/dev/apis/policy.example.com/v1/sessions/boot-x3000/edit", http.StatusMethodNotAllowed)
	if p.Has("edit-form") || p.Text("error-code") != "405" || !strings.Contains(p.Text("error-message"), "does not allow patching sessions") {
		t.Errorf("405 page: code %q, message %q", p.Text("error-code"), p.Text("error-message"))
	}
	// A missing object is a 404.
	b.Get("/c/dev/apis/apps/v1/namespaces/demo/deployments/nope/edit", http.StatusNotFound)
	f.NoWrites(t, "opening editors")
}

func TestReviewDryRunsAMergePatchWithTheLoadedVersion(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	rv := b.Form(p, "[data-testid=edit-form]").Get("resourceVersion")
	edited := withLabel(t, text, "tier", "frontend")

	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	if !r.Has("review-form") {
		t.Fatalf("no review:\n%s", r.Body)
	}
	if got := r.Text("patch-changes"); !strings.Contains(got, "metadata.labels.tier") || !strings.Contains(got, "frontend") {
		t.Errorf("patch-changes = %q", got)
	}
	if got := r.Text("patch-type"); !strings.Contains(got, "merge patch") {
		t.Errorf("patch-type = %q", got)
	}
	var added []string
	r.Doc.Find("[data-testid=dry-run-diff] .diff-add").Each(func(_ int, s *goquery.Selection) {
		added = append(added, s.Find(".diff-text").Text())
	})
	if len(added) != 1 || !strings.HasPrefix(added[0], "+") || strings.TrimSpace(added[0][1:]) != "tier: frontend" {
		t.Errorf("dry-run diff adds %q, want the label", added)
	}
	webtest.KeepsText(t, r, edited)
	rf := b.Form(r, "[data-testid=review-form]")
	if rf.Get("base") != text || rf.Get("resourceVersion") != rv {
		t.Errorf("the review form lost the base or the version (%q)", rf.Get("resourceVersion"))
	}

	ws := f.Writes()
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
	if got := f.Stored(t, webAPIPath).GetLabels()["tier"]; got != "" {
		t.Errorf("the review stored the label (%q)", got)
	}

	// Back to the editor keeps the text and the version as loaded.
	e := rf.Submit("edit", http.StatusOK)
	webtest.KeepsText(t, e, edited)
	if got := b.Form(e, "[data-testid=edit-form]").Get("resourceVersion"); got != rv {
		t.Errorf("back in the editor, resourceVersion = %q", got)
	}
	if len(f.Writes()) != 1 {
		t.Error("going back to the editor wrote something")
	}
}

func TestReviewWithoutChangesSaysSo(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	for _, action := range []string{"review", "apply"} {
		// The browser sends CRLF; the text is still the one loaded.
		e := b.Form(p, "[data-testid=edit-form]").Send(action, http.StatusOK, nil)
		if got := e.Text("edit-notice"); !strings.Contains(got, "No changes") {
			t.Errorf("%s: notice = %q", action, got)
		}
		webtest.KeepsText(t, e, text)
	}
	f.NoWrites(t, "unchanged text")
}

func TestApplySavesRedirectsAndFlashesOnce(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	draftKey := p.Doc.Find("[data-testid=yaml-editor]").AttrOr("data-draft-key", "")
	if draftKey == "" {
		t.Fatal("no draft key")
	}
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", withLabel(t, text, "tier", "frontend")).Submit("review", http.StatusOK)
	a := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if a.Location() != webtest.WebPath {
		t.Errorf("Location = %q, want the object page", a.Location())
	}
	stored := f.Stored(t, webAPIPath)
	if stored.GetLabels()["tier"] != "frontend" || stored.GetLabels()["app"] != "web" {
		t.Errorf("stored labels = %v", stored.GetLabels())
	}
	ws := f.Writes()
	if len(ws) != 2 || ws[1].Query.Has("dryRun") {
		t.Errorf("writes: %d, want the dry run then the real PATCH", len(ws))
	}

	next := b.Get(a.Location(), http.StatusOK)
	want := fmt.Sprintf("Saved deployment \"web\": now at version %s.", stored.GetResourceVersion())
	if got := next.Text("notice"); got != want {
		t.Errorf("notice = %q, want %q", got, want)
	}
	if got := next.Doc.Find("body").AttrOr("data-clear-draft", ""); got != draftKey {
		t.Errorf("body data-clear-draft = %q, want %q", got, draftKey)
	}
	again := b.Get(a.Location(), http.StatusOK)
	if again.Has("notice") {
		t.Errorf("the flash is shown twice: %q", again.Text("notice"))
	}
	if _, ok := again.Doc.Find("body").Attr("data-clear-draft"); ok {
		t.Error("data-clear-draft is set twice")
	}
}

// Someone changed another field: the conflict page says the two changes
// are disjoint, re-applying reviews mine on theirs, and both are saved.
func TestConflictWithDisjointChangesReapplies(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	loadedRV := b.Form(p, "[data-testid=edit-form]").Get("resourceVersion")
	edited := withLabel(t, text, "tier", "frontend")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)

	patchBehind(t, f, webAPIPath, `{"spec":{"replicas":5}}`)
	liveRV := f.Stored(t, webAPIPath).GetResourceVersion()

	c := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusConflict)
	if !c.Has("conflict") || !c.Has("disjoint") || c.Has("conflicts") {
		t.Fatalf("not a disjoint conflict page:\n%s", c.Body)
	}
	if got := c.Text("live-rv"); got != liveRV {
		t.Errorf("live-rv = %q, want %q", got, liveRV)
	}
	if got := c.Text("changed-by"); !strings.HasPrefix(got, "kubectl-edit (Update") {
		t.Errorf("changed-by = %q", got)
	}
	if got := c.Text("their-changes"); !strings.Contains(got, "spec.replicas") || !strings.Contains(got, "5") {
		t.Errorf("their-changes = %q", got)
	}
	if got := c.Text("my-changes"); !strings.Contains(got, "metadata.labels.tier") {
		t.Errorf("my-changes = %q", got)
	}
	webtest.KeepsText(t, c, edited)
	cf := b.Form(c, "[data-testid=conflict-form]")
	if cf.Get("resourceVersion") != loadedRV || cf.Get("base") != text {
		t.Error("the conflict form lost the version or text as loaded")
	}

	rp := cf.Submit("reapply", http.StatusOK)
	if !rp.Has("reapplied") || !strings.Contains(rp.Text("reapplied"), liveRV) {
		t.Fatalf("no re-applied notice:\n%s", rp.Body)
	}
	merged := rp.Textarea("yaml")
	if !strings.Contains(merged, "tier: frontend") || !strings.Contains(merged, "replicas: 5") {
		t.Errorf("the re-applied text lacks a change:\n%s", merged)
	}
	if got := b.Form(rp, "[data-testid=review-form]").Get("resourceVersion"); got != liveRV {
		t.Errorf("re-applied resourceVersion = %q, want %q", got, liveRV)
	}
	if got := rp.Text("patch-changes"); strings.Contains(got, "replicas") {
		t.Errorf("the re-applied patch undoes their change: %q", got)
	}
	b.Form(rp, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	stored := f.Stored(t, webAPIPath)
	if replicas, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); replicas != 5 || stored.GetLabels()["tier"] != "frontend" {
		t.Errorf("stored replicas %d, labels %v: want both changes", replicas, stored.GetLabels())
	}
}

// Both changed the same label: the conflict table shows the three values;
// overwriting reviews with a warning naming what is lost, and mine wins.
func TestConflictOnTheSameFieldOverwrites(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := webtest.ReplaceLine(t, text, "    app: web", "    app: mine")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	patchBehind(t, f, webAPIPath, `{"metadata":{"labels":{"app":"theirs"}}}`)

	c := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusConflict)
	if !c.Has("overlap") || c.Has("disjoint") {
		t.Fatalf("not an overlapping conflict:\n%s", c.Body)
	}
	var rows [][]string
	c.Doc.Find("[data-testid=conflicts] tbody tr").Each(func(_ int, tr *goquery.Selection) {
		var row []string
		tr.Find("th, td").Each(func(_ int, cell *goquery.Selection) { row = append(row, strings.TrimSpace(cell.Text())) })
		rows = append(rows, row)
	})
	if want := [][]string{{"metadata.labels.app", "web", "theirs", "mine"}}; fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("conflict rows = %q, want %q", rows, want)
	}
	webtest.KeepsText(t, c, edited)

	o := b.Form(c, "[data-testid=conflict-form]").Submit("overwrite", http.StatusOK)
	if !o.Has("overwrite-warning") {
		t.Fatalf("no overwrite warning:\n%s", o.Body)
	}
	if got := o.Text("overwrite-lost"); !strings.Contains(got, "metadata.labels.app") || !strings.Contains(got, "theirs") {
		t.Errorf("overwrite-lost = %q", got)
	}
	webtest.KeepsText(t, o, edited)
	b.Form(o, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if got := f.Stored(t, webAPIPath).GetLabels()["app"]; got != "mine" {
		t.Errorf("label app = %q, want mine", got)
	}
}

func TestConflictWhenTheObjectWasDeleted(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := withLabel(t, text, "tier", "frontend")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	f.Fake.Delete(deploymentGVK, "demo", "web")

	c := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusConflict)
	if !strings.Contains(c.Text("conflict"), "deleted") {
		t.Errorf("the conflict page does not say it was deleted: %q", c.Text("conflict"))
	}
	if c.Has("reapply") || c.Has("overwrite") || c.Has("object-link") {
		t.Error("a deleted object offers re-apply, overwrite or a link to itself")
	}
	webtest.KeepsText(t, c, edited)
	// Back to the text: the editor shows it although the object is gone.
	e := b.Form(c, "[data-testid=conflict-form]").Submit("edit", http.StatusOK)
	webtest.KeepsText(t, e, edited)
}

func TestInvalidChangeShowsTheCauseAtItsLine(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{Immutable: map[string][]string{"services": {"spec.clusterIP"}}})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, apiSvcPath)
	edited := webtest.ReplaceLine(t, text, "  clusterIP: 10.96.0.10", "  clusterIP: 10.96.0.99")
	line := strings.Count(edited[:strings.Index(edited, "  clusterIP:")], "\n") + 1

	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusUnprocessableEntity)
	if e.Text("edit-error-code") != "422" || e.Text("edit-error-reason") != "Invalid" {
		t.Errorf("edit error code %q reason %q", e.Text("edit-error-code"), e.Text("edit-error-reason"))
	}
	causes := e.Doc.Find("[data-testid=edit-error-causes] li")
	if causes.Length() != 1 {
		t.Fatalf("%d causes:\n%s", causes.Length(), e.Body)
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
	webtest.KeepsText(t, e, edited)
	if got := f.Stored(t, "/api/v1/namespaces/demo/services/api").Object["spec"].(map[string]any)["clusterIP"]; got != "10.96.0.10" {
		t.Errorf("clusterIP = %v", got)
	}
}

func TestYAMLSyntaxErrorKeepsTheTextExactly(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	// Trailing spaces, a tab in a comment, non-ASCII and HTML-looking text
	// must all come back as typed.
	edited := webtest.ReplaceLine(t, text, "  replicas: 2", "  replicas: 2: 3   ") + "# </textarea><b>ü\t€</b>\n"
	line := strings.Count(edited[:strings.Index(edited, "  replicas: 2: 3")], "\n") + 1
	for _, action := range []string{"review", "apply"} {
		e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Send(action, http.StatusBadRequest, nil)
		if e.Text("edit-error-code") != "400" {
			t.Errorf("%s: edit error code %q", action, e.Text("edit-error-code"))
		}
		if got := e.Text("edit-error-position"); !strings.HasPrefix(got, fmt.Sprintf("Line %d", line)) {
			t.Errorf("%s: position %q, want line %d", action, got, line)
		}
		if got := e.Doc.Find("[data-testid=yaml-editor]").AttrOr("data-error-line", ""); got != fmt.Sprint(line) {
			t.Errorf("%s: data-error-line = %q", action, got)
		}
		webtest.KeepsText(t, e, edited)
	}
	f.NoWrites(t, "unparsable YAML")
}

// The text keeps a leading blank line: HTML drops a newline that directly
// follows <textarea>, so the page must not lose the user's own.
func TestEditorTextKeepsALeadingNewline(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := "\n" + webtest.ReplaceLine(t, text, "  replicas: 2", "  replicas: [2")
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusBadRequest)
	webtest.KeepsText(t, e, edited)
}

func TestForbiddenPatchKeepsTheText(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	// From now on the user may read the object but not patch it.
	raw := rawObject(t, f, webAPIPath)
	f.Fake.Override(webAPIPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(raw)
			return
		}
		apitest.WriteStatus(w, apitest.Forbidden("editor", strings.ToLower(r.Method), "apps", "deployments", "web"))
	})
	edited := withLabel(t, text, "tier", "frontend")
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusForbidden)
	if e.Text("edit-error-code") != "403" || e.Text("edit-error-reason") != "Forbidden" {
		t.Errorf("edit error code %q reason %q", e.Text("edit-error-code"), e.Text("edit-error-reason"))
	}
	if got := e.Text("edit-error-message"); !strings.Contains(got, `User "editor" cannot patch resource "deployments"`) {
		t.Errorf("message = %q", got)
	}
	webtest.KeepsText(t, e, edited)
	if !e.Has("status-toggle") {
		t.Error("the editor lost its read-only status")
	}
	if ws := f.Writes(); len(ws) != 1 || ws[0].Method != http.MethodPatch {
		t.Errorf("writes = %d, want the refused PATCH", len(ws))
	}
}

// A server that takes only JSON Patch gets the change as one, guarded by
// a test of the loaded resourceVersion.
func TestJSONPatchFallbackIsReviewedAndApplied(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{NoMergePatch: true})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	rv := b.Form(p, "[data-testid=edit-form]").Get("resourceVersion")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", withLabel(t, text, "tier", "frontend")).Submit("review", http.StatusOK)
	if got := r.Text("patch-type"); !strings.Contains(got, "JSON Patch") {
		t.Errorf("patch-type = %q", got)
	}
	ws := f.Writes()
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
	if strings.Contains(r.Text("patch-body"), "merge") {
		t.Errorf("patch body = %q", r.Text("patch-body"))
	}
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	if got := f.Stored(t, webAPIPath).GetLabels()["tier"]; got != "frontend" {
		t.Errorf("label tier = %q", got)
	}
}

// On a JSON-Patch-only server a stale version fails the test op with a
// causeless 422; the console tells it is a conflict.
func TestJSONPatchOnlyServerStaleVersionIsAConflict(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{NoMergePatch: true})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := withLabel(t, text, "tier", "frontend")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	f.Fake.Modify(deploymentGVK, "demo", "web", func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, int64(4), "spec", "replicas")
	})
	c := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusConflict)
	if !c.Has("conflict") || !c.Has("disjoint") {
		t.Fatalf("not a conflict page:\n%s", c.Body)
	}
	webtest.KeepsText(t, c, edited)
	rp := b.Form(c, "[data-testid=conflict-form]").Submit("reapply", http.StatusOK)
	b.Form(rp, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	stored := f.Stored(t, webAPIPath)
	if replicas, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); replicas != 4 || stored.GetLabels()["tier"] != "frontend" {
		t.Errorf("replicas %d labels %v", replicas, stored.GetLabels())
	}
}

// A causeless 422 on an object that did not move on is an error, not a
// conflict.
func TestCauselessInvalidOnAnUnchangedObjectIsShownAsSuch(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	raw := rawObject(t, f, webAPIPath)
	f.Fake.Override(webAPIPath, func(w http.ResponseWriter, r *http.Request) {
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
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusUnprocessableEntity)
	if !e.Has("edit-error") || e.Has("conflict") {
		t.Fatalf("not an editor with the error:\n%s", e.Body)
	}
	webtest.KeepsText(t, e, edited)
}

func TestTextOverTheLimitIsRefusedBeforeAnyWrite(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := text + "# " + strings.Repeat("x", 3<<20) + "\n"
	for _, action := range []string{"review", "apply"} {
		e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Send(action, http.StatusRequestEntityTooLarge, nil)
		if e.Text("edit-error-code") != "413" || !strings.Contains(e.Text("edit-error-message"), "larger than 3 MiB; nothing was sent") {
			t.Errorf("%s: error %q %q", action, e.Text("edit-error-code"), e.Text("edit-error-message"))
		}
		webtest.KeepsText(t, e, edited)
	}
	f.NoWrites(t, "a text over 3 MiB")
}

// An edit cannot turn the object into another kind.
func TestEditCannotChangeTheKind(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	edited := webtest.ReplaceLine(t, text, "kind: Deployment", "kind: StatefulSet")
	e := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusBadRequest)
	if !strings.Contains(e.Text("edit-error-message"), "kind cannot change") {
		t.Errorf("message = %q", e.Text("edit-error-message"))
	}
	webtest.KeepsText(t, e, edited)
	f.NoWrites(t, "a changed kind")
}

// The flash is for the page the browser shows next: the scripts, styles
// and fetches that page (or another tab) makes do not take it.
func TestFlashIsTakenByThePageNotBySubresources(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.WebPath)
	css := f.Server.AssetURL("app.css")
	js := p.Doc.Find(`script[type=module]`).AttrOr("src", "")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", withLabel(t, text, "tier", "frontend")).Submit("review", http.StatusOK)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)

	b.GetWith(css, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "style", "Sec-Fetch-Mode": "no-cors"})
	b.GetWith(js, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "script", "Sec-Fetch-Mode": "cors"})
	b.GetWith("/c/dev/schema/apis/apps/v1/deployments", http.StatusNotFound, map[string]string{"Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "cors"})
	next := b.GetWith(webtest.WebPath, http.StatusOK, map[string]string{"Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate"})
	if got := next.Text("notice"); !strings.HasPrefix(got, `Saved deployment "web"`) {
		t.Errorf("notice = %q: a subresource request took the flash", got)
	}
	if again := b.Get(webtest.WebPath, http.StatusOK); again.Has("notice") {
		t.Error("the flash is shown twice")
	}
}
