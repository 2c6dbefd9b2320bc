package edit_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

const credsAPIPath = "/api/v1/namespaces/demo/secrets/creds"

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// storedValues are the seeded Secret's values in every form a page could
// leak them in.
var storedValues = []string{webtest.SecretPassword, b64(webtest.SecretPassword), webtest.SecretToken, b64(webtest.SecretToken), webtest.LastAppliedValue, b64(webtest.LastAppliedValue)}

// leaksNone fails if html holds any of values.
func leaksNone(t *testing.T, where, html string, values ...string) {
	t.Helper()
	for _, v := range values {
		if strings.Contains(html, v) {
			t.Errorf("%s shows the secret value %q", where, v)
		}
	}
}

// visibleHTML is the page without the hidden inputs that carry the user's
// own new values from page to page.
func visibleHTML(t *testing.T, p webtest.Page) string {
	t.Helper()
	doc := goquery.CloneDocument(p.Doc)
	doc.Find(`input[type=hidden][name^="secret.set:"]`).Remove()
	html, err := doc.Html()
	if err != nil {
		t.Fatal(err)
	}
	return html
}

func TestSecretEditorShowsNoValueUntilOneIsRevealed(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.CredsPath)
	leaksNone(t, "the Secret's editor", p.Body, storedValues...)
	if strings.Contains(p.Body, "last-applied-configuration") {
		t.Error("the editor shows the last-applied annotation")
	}
	var keys []string
	p.Doc.Find("[data-testid=secret-key]").Each(func(_ int, row *goquery.Selection) {
		keys = append(keys, row.Find("th code").Text())
		if row.Find("[data-testid=secret-masked]").Length() != 1 || row.Find("[data-testid=secret-reveal]").Length() != 1 {
			t.Errorf("key %s is not masked with a reveal button", row.Find("th code").Text())
		}
		if v := row.Find("[data-testid=secret-new-value]").AttrOr("value", ""); v != "" {
			t.Errorf("key %s: the new-value field is pre-filled with %q", row.Find("th code").Text(), v)
		}
	})
	if strings.Join(keys, ",") != "password,token" {
		t.Errorf("keys = %v", keys)
	}
	if !strings.Contains(p.Text("secret-data"), "(22 bytes)") {
		t.Errorf("the password's size is not shown: %q", p.Text("secret-data"))
	}

	r := b.Form(p, "[data-testid=edit-form]").Submit("reveal:password", http.StatusOK)
	revealed := r.Doc.Find("[data-testid=secret-revealed]")
	if revealed.Length() != 1 || revealed.Text() != webtest.SecretPassword {
		t.Errorf("revealed %d values: %q", revealed.Length(), revealed.Text())
	}
	leaksNone(t, "the page revealing the password", r.Body, webtest.SecretToken, b64(webtest.SecretToken), b64(webtest.SecretPassword), webtest.LastAppliedValue)
	webtest.KeepsText(t, r, text)
	f.NoWrites(t, "revealing a value")
	rec := f.Log.Records(t, "secret value revealed")
	if len(rec) != 1 || rec[0]["key"] != "password" || rec[0]["name"] != "creds" || rec[0]["who"] != "kubeconfig-context:dev" {
		t.Errorf("reveal log records = %v", rec)
	}
	leaksNone(t, "the log", f.Log.String(), storedValues...)
}

func TestSecretLabelChangeLeavesTheDataAlone(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	before := f.Stored(t, credsAPIPath).Object["data"]
	p, text := openEditor(t, b, webtest.CredsPath)
	edited := webtest.ReplaceLine(t, text, "    team: a", "    team: b")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Submit("review", http.StatusOK)
	leaksNone(t, "the review", r.Body, storedValues...)
	if r.Has("secret-changes") {
		t.Errorf("the review lists data changes: %q", r.Text("secret-changes"))
	}
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	for _, w := range f.Writes() {
		var body map[string]any
		if err := json.Unmarshal(w.Body, &body); err != nil {
			t.Fatal(err)
		}
		if _, ok := body["data"]; ok {
			t.Errorf("a label change sent data: %s", w.Body)
		}
		if _, ok := body["stringData"]; ok {
			t.Errorf("a label change sent stringData: %s", w.Body)
		}
	}
	after := f.Stored(t, credsAPIPath)
	if after.GetLabels()["team"] != "b" {
		t.Errorf("labels = %v", after.GetLabels())
	}
	if got, _ := json.Marshal(after.Object["data"]); string(got) != mustJSON(t, before) {
		t.Errorf("data changed: %s", got)
	}
	if _, ok := after.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]; !ok {
		t.Error("the save dropped the last-applied annotation the editor hides")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSecretNewValuesAndRemovedKeysAreSentButNeverShown(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, text := openEditor(t, b, webtest.CredsPath)
	const newToken, extraValue = "brand-new-token-value", "extra-value-typed"
	fm := b.Form(p, "[data-testid=edit-form]").
		Set("secret.set:token", newToken).
		Set("secret.remove", "password").
		Set("secret.newkey", "extra").
		Set("secret.newvalue", extraValue)
	r := fm.Submit("review", http.StatusOK)
	visible := visibleHTML(t, r)
	leaksNone(t, "the review", visible, append(storedValues, newToken, b64(newToken), extraValue, b64(extraValue))...)
	leaksNone(t, "the review (hidden fields included)", r.Body, storedValues...)
	changes := r.Text("secret-changes")
	for _, want := range []string{"data.token", "(new value, 21 bytes)", "data.password", "removed", "data.extra"} {
		if !strings.Contains(changes, want) {
			t.Errorf("secret-changes %q lacks %q", changes, want)
		}
	}
	if body := r.Text("patch-body"); !strings.Contains(body, `"password": null`) || strings.Contains(body, b64(newToken)) {
		t.Errorf("patch body = %s", body)
	}
	webtest.KeepsText(t, r, text)

	ws := f.Writes()
	if len(ws) != 1 {
		t.Fatalf("writes = %d", len(ws))
	}
	var body struct {
		Data map[string]*string `json:"data"`
	}
	if err := json.Unmarshal(ws[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Data["password"] != nil || body.Data["token"] == nil || *body.Data["token"] != b64(newToken) || body.Data["extra"] == nil || *body.Data["extra"] != b64(extraValue) {
		t.Errorf("patch body = %s", ws[0].Body)
	}
	if _, ok := body.Data["password"]; !ok {
		t.Errorf("the removed key is not sent as null: %s", ws[0].Body)
	}

	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	data := f.Stored(t, credsAPIPath).Object["data"].(map[string]any)
	if data["token"] != b64(newToken) || data["extra"] != b64(extraValue) || data["password"] != nil {
		t.Errorf("stored data = %v", data)
	}
	leaksNone(t, "the log", f.Log.String(), append(storedValues, newToken, b64(newToken), extraValue)...)
}

// A conflict on a Secret carries the new value on, shows none, and the
// re-applied save still sets it.
func TestSecretConflictKeepsTheNewValueHidden(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, _ := openEditor(t, b, webtest.CredsPath)
	const newToken = "rotated-token-after-conflict"
	r := b.Form(p, "[data-testid=edit-form]").Set("secret.set:token", newToken).Submit("review", http.StatusOK)
	patchBehind(t, f, credsAPIPath, `{"metadata":{"labels":{"rotated":"yes"}}}`)

	c := b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusConflict)
	leaksNone(t, "the conflict page", visibleHTML(t, c), append(storedValues, newToken, b64(newToken))...)
	if !c.Has("disjoint") {
		t.Fatalf("not a disjoint conflict:\n%s", c.Body)
	}
	rp := b.Form(c, "[data-testid=conflict-form]").Submit("reapply", http.StatusOK)
	leaksNone(t, "the re-applied review", visibleHTML(t, rp), append(storedValues, newToken, b64(newToken))...)
	b.Form(rp, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	stored := f.Stored(t, credsAPIPath)
	data := stored.Object["data"].(map[string]any)
	if data["token"] != b64(newToken) || data["password"] != b64(webtest.SecretPassword) || stored.GetLabels()["rotated"] != "yes" {
		t.Errorf("stored data %v labels %v", data, stored.GetLabels())
	}
}

// On a server that takes only JSON Patch, setting one key and removing
// another leaves the other values, and a new annotation the hidden
// last-applied one: the patch is derived from the object, not the view.
func TestSecretOnAJSONPatchOnlyServerKeepsWhatTheEditorHides(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{NoMergePatch: true})
	f.Fake.Add(apitest.Object("v1", "Secret", "demo", "trio", map[string]any{"data": map[string]any{
		"a": b64("value-a"), "b": b64("value-b"), "c": b64("value-c"),
	}}))
	b := webtest.NewBrowser(t, f)

	p, text := openEditor(t, b, webtest.CredsPath)
	edited := webtest.ReplaceLine(t, text, "    team: a", "    team: a\n  annotations:\n    note: hi")
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", edited).Set("secret.set:token", "rotated").Submit("review", http.StatusOK)
	leaksNone(t, "the JSON Patch review", visibleHTML(t, r), append(storedValues, "rotated", b64("rotated"))...)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	creds := f.Stored(t, credsAPIPath)
	data := creds.Object["data"].(map[string]any)
	if data["password"] != b64(webtest.SecretPassword) || data["token"] != b64("rotated") {
		t.Errorf("data = %v: the other key was lost", data)
	}
	if ann := creds.GetAnnotations(); ann["note"] != "hi" || ann["kubectl.kubernetes.io/last-applied-configuration"] == "" {
		t.Errorf("annotations = %v", ann)
	}

	p, _ = openEditor(t, b, "/c/dev/api/v1/namespaces/demo/secrets/trio")
	r = b.Form(p, "[data-testid=edit-form]").Set("secret.set:a", "new-a").Set("secret.remove", "b").Submit("review", http.StatusOK)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	data = f.Stored(t, "/api/v1/namespaces/demo/secrets/trio").Object["data"].(map[string]any)
	if len(data) != 2 || data["a"] != b64("new-a") || data["c"] != b64("value-c") {
		t.Errorf("data = %v, want a new, b removed, c kept", data)
	}
	for _, w := range f.Writes() {
		if w.ContentType == "application/json-patch+json" && strings.Contains(string(w.Body), `"path":"/data"`) {
			t.Errorf("a JSON Patch replaces all data: %s", w.Body)
		}
	}
}
