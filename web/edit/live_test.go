package edit_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/edit"
	"github.com/tabula-console/tabula/web/webtest"
)

// change reads the next message of a live editor stream.
func change(c *webtest.WS, timeout time.Duration) edit.ChangeMessage {
	c.T.Helper()
	return webtest.NextData(c, timeout, func(edit.ChangeMessage) bool { return true })
}

// An open editor hears of every change to its object after the version it
// loaded, with who made it, and of its deletion.
func TestLiveEditorReportsChangesAndDeletion(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, _ := openEditor(t, b, webtest.WebPath)
	live := p.Doc.Find("[data-testid=yaml-editor]").AttrOr("data-live-url", "")
	if live == "" {
		t.Fatal("the editor names no live URL")
	}
	c := f.Dial(t, live)
	if !f.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	patchBehind(t, f, webAPIPath, `{"spec":{"replicas":3}}`)
	rv := f.Stored(t, webAPIPath).GetResourceVersion()
	m := change(c, 5*time.Second)
	if m.Type != "changed" || m.ResourceVersion != rv || m.Manager != "kubectl-edit" || m.Operation != "Update" || m.At.IsZero() {
		t.Errorf("message = %+v, want changed at %s by kubectl-edit", m, rv)
	}
	f.Fake.Delete(deploymentGVK, "demo", "web")
	if m := change(c, 5*time.Second); m.Type != "deleted" {
		t.Errorf("message = %+v, want deleted", m)
	}
	if n := len(f.Writes()); n != 1 {
		t.Errorf("the fake saw %d writes, want only the one behind the editor's back", n)
	}
}

// A change made between loading the editor and opening its stream is
// reported too: the stream watches from the loaded version.
func TestLiveEditorReportsAChangeMadeBeforeItOpened(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	p, _ := openEditor(t, b, webtest.WebPath)
	live := p.Doc.Find("[data-testid=yaml-editor]").AttrOr("data-live-url", "")
	patchBehind(t, f, webAPIPath, `{"metadata":{"labels":{"early":"yes"}}}`)
	rv := f.Stored(t, webAPIPath).GetResourceVersion()
	c := f.Dial(t, live)
	if m := change(c, 5*time.Second); m.Type != "changed" || m.ResourceVersion != rv {
		t.Errorf("message = %+v, want changed at %s", m, rv)
	}
}

func TestSchemaEndpoint(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	const path = "/c/dev/schema/apis/apps/v1/deployments"
	p := b.Get(path, http.StatusNotFound)
	if strings.TrimSpace(p.Body) != "{}" || !strings.HasPrefix(p.Resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("without OpenAPI: %q (%s)", p.Body, p.Resp.Header.Get("Content-Type"))
	}

	f.Fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	p = b.Get(path, http.StatusOK)
	var schema struct {
		Root    string                    `json:"root"`
		Schemas map[string]map[string]any `json:"schemas"`
	}
	if err := json.Unmarshal([]byte(p.Body), &schema); err != nil {
		t.Fatalf("%v: %s", err, p.Body)
	}
	if !strings.HasSuffix(schema.Root, ".Deployment") || schema.Schemas[schema.Root] == nil {
		t.Errorf("root = %q, schemas %d", schema.Root, len(schema.Schemas))
	}
	props, _ := schema.Schemas[schema.Root]["properties"].(map[string]any)
	if _, ok := props["spec"]; !ok {
		t.Errorf("the root schema has no spec: %v", schema.Schemas[schema.Root])
	}
	// The same kind from a namespaced collection path.
	b.Get("/c/dev/schema/apis/apps/v1/namespaces/demo/deployments", http.StatusOK)
	// Not a collection, or not served.
	b.Get("/c/dev/schema/apis/apps/v1/namespaces/demo/deployments/web", http.StatusNotFound)
	b.Get("/c/dev/schema/apis/apps/v1/gizmos", http.StatusNotFound)
	// A group without a document: no help, not an error.
	b.Get("/c/dev/schema/api/v1/pods", http.StatusNotFound)
}

// Every write the console sends is logged with who, what and the answer's
// code, and never with what was written.
func TestWritesAreLoggedWithoutTheirBodies(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	b := webtest.NewBrowser(t, f)
	const labelValue = "distinctive-label-value-0451"
	p, text := openEditor(t, b, webtest.WebPath)
	r := b.Form(p, "[data-testid=edit-form]").Set("yaml", withLabel(t, text, "tier", labelValue)).Submit("review", http.StatusOK)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	// A refused one too: a stale scale.
	s := b.Get(webtest.WebPath+"/scale", http.StatusOK)
	patchBehind(t, f, webAPIPath, `{"metadata":{"labels":{"x":"y"}}}`)
	b.Form(s, "[data-testid=scale-form]").Set("replicas", "4").Submit("", http.StatusConflict)
	// And a Secret's new value.
	p, _ = openEditor(t, b, webtest.CredsPath)
	const newValue = "a-new-secret-value-9921"
	r = b.Form(p, "[data-testid=edit-form]").Set("secret.set:token", newValue).Submit("review", http.StatusOK)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	// And a create and a delete.
	p = b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	r = b.Form(p, "[data-testid=edit-form]").Set("yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: logged\ndata:\n  k: "+labelValue+"\n").Submit("review", http.StatusOK)
	b.Form(r, "[data-testid=review-form]").Submit("apply", http.StatusSeeOther)
	b.Form(b.Get(webtest.SettingsPath+"/delete", http.StatusOK), "[data-testid=delete-form]").Submit("", http.StatusOK)

	type rec struct {
		verb, resource, name string
		dryRun               bool
		code                 float64
	}
	var got []rec
	for _, m := range f.Log.Records(t, "write") {
		if m["who"] != "kubeconfig-context:dev" || m["namespace"] != "demo" {
			t.Errorf("record %v: who or namespace", m)
		}
		for _, k := range []string{"group", "version", "resource", "name", "verb", "code", "dryRun"} {
			if _, ok := m[k]; !ok {
				t.Errorf("record %v lacks %s", m, k)
			}
		}
		got = append(got, rec{m["verb"].(string), m["resource"].(string), m["name"].(string), m["dryRun"].(bool), m["code"].(float64)})
	}
	want := []rec{
		{"patch", "deployments", "web", true, 200},
		{"patch", "deployments", "web", false, 200},
		{"patch", "deployments", "web/scale", false, 409},
		{"patch", "secrets", "creds", true, 200},
		{"patch", "secrets", "creds", false, 200},
		{"create", "configmaps", "logged", true, 200},
		{"create", "configmaps", "logged", false, 200},
		{"delete", "configmaps", "settings", false, 200},
	}
	if len(got) != len(want) {
		t.Fatalf("write records:\n%v\nwant:\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d = %v, want %v", i, got[i], want[i])
		}
	}
	leaksNone(t, "the log", f.Log.String(), append(storedValues, labelValue, newValue, b64(newValue))...)
}
