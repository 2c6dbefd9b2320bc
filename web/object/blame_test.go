package object

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// blameObject is a Deployment written by three managers as the API server
// records them: kubectl's server-side apply, kubectl edit, Tabula's editor,
// and the controller's status.
const blameObject = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {
    "name": "web", "namespace": "demo",
    "labels": {"app": "web", "tier": "frontend"},
    "annotations": {"team": "shop"},
    "managedFields": [
      {"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1", "time": "2026-11-26T10:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}, "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {".": {}, "f:name": {}, "f:image": {}}}}}}}},
      {"manager": "kubectl-edit", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-11-26T11:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:labels": {"f:tier": {}}}}},
      {"manager": "tabula", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-11-26T11:30:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:team": {}}}}},
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-11-26T11:45:00Z", "fieldsType": "FieldsV1", "subresource": "status",
       "fieldsV1": {"f:status": {"f:replicas": {}}}}
    ]
  },
  "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}},
  "status": {"replicas": 3}
}`

func objectOf(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

var blameNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// ownersOf is "manager/operation[/subresource]" of each line whose text
// is text (trimmed).
func ownersOf(v *views.BlameView, text string) []string {
	for _, l := range v.Lines {
		if strings.TrimSpace(l.Text) == text {
			var out []string
			for _, o := range l.Owners {
				s := o.Manager + "/" + o.Operation
				if o.Subresource != "" {
					s += "/" + o.Subresource
				}
				out = append(out, s)
			}
			return out
		}
	}
	return []string{"(no such line)"}
}

func TestBlameAttributesEachFieldToItsManager(t *testing.T) {
	v := blameView(objectOf(t, blameObject), "/c/dev/apis/apps/v1/namespaces/demo/deployments/web", "", blameNow)
	for text, want := range map[string][]string{
		"app: web":          {"kubectl/Apply"},
		"tier: frontend":    {"kubectl-edit/Update"},
		"annotations:":      {"tabula/Update"}, // added whole: its "."
		"team: shop":        {"tabula/Update"},
		"replicas: 3":       {"kubectl/Apply"}, // spec's, the first in the YAML
		"-":                 {"kubectl/Apply"}, // the container, a keyed element
		"image: nginx:1.27": {"kubectl/Apply"},
		"spec:":             nil, // a map some of whose fields are owned
	} {
		if got := ownersOf(v, text); !slices.Equal(got, want) {
			t.Errorf("%q: owners %q, want %q", text, got, want)
		}
	}
	var statusReplicas []string
	for i, l := range v.Lines {
		if strings.TrimSpace(l.Text) == "status:" {
			for _, o := range v.Lines[i+1].Owners {
				statusReplicas = append(statusReplicas, o.Manager+"/"+o.Subresource)
			}
		}
	}
	if !slices.Equal(statusReplicas, []string{"kube-controller-manager/status"}) {
		t.Errorf("status.replicas owners %q", statusReplicas)
	}
	for _, l := range v.Lines {
		if strings.Contains(l.Text, "managedFields") {
			t.Errorf("the view shows managedFields itself: %q", l.Text)
		}
	}
	var names []string
	for _, m := range v.Managers {
		names = append(names, m.Name)
	}
	// Newest write first.
	if want := []string{"kube-controller-manager", "tabula", "kubectl-edit", "kubectl"}; !slices.Equal(names, want) {
		t.Errorf("legend %q, want %q", names, want)
	}
	if m := v.Managers[3]; m.Age != "120m" || m.Lines != 5 || !slices.Equal(m.Writes, []string{"Apply"}) || m.Href != "/c/dev/apis/apps/v1/namespaces/demo/deployments/web?blame=1&manager=kubectl&view=yaml" {
		t.Errorf("kubectl in the legend: %+v", m)
	}
	if m := v.Managers[0]; !slices.Equal(m.Writes, []string{"Update (status)"}) {
		t.Errorf("the controller's writes: %q", m.Writes)
	}
}

func TestBlameFilterDimsOtherManagers(t *testing.T) {
	v := blameView(objectOf(t, blameObject), "/x", "kubectl-edit", blameNow)
	bright := 0
	for _, l := range v.Lines {
		if !l.Dim {
			bright++
			if strings.TrimSpace(l.Text) != "tier: frontend" {
				t.Errorf("%q is bright under the kubectl-edit filter", l.Text)
			}
		}
	}
	if bright != 1 {
		t.Errorf("%d bright lines, want 1", bright)
	}
	if !slices.ContainsFunc(v.Managers, func(m views.BlameManager) bool { return m.Name == "kubectl-edit" && m.Current }) {
		t.Errorf("the filtered manager is not marked in the legend")
	}
}

func TestBlameOfASecretKeepsItsValuesMasked(t *testing.T) {
	secret := objectOf(t, `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": "demo",
		"managedFields": [{"manager": "kubectl", "operation": "Apply", "time": "2026-11-26T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:password": {}}}}]},
		"data": {"password": "czNjcjN0"}}`)
	v := blameView(maskedIfSecret(secret), "/x", "", blameNow)
	for _, l := range v.Lines {
		if strings.Contains(l.Text, "czNjcjN0") || strings.Contains(l.Text, "s3cr3t") {
			t.Errorf("a Secret's value shows: %q", l.Text)
		}
	}
	if got := ownersOf(v, "password: hidden (6 bytes)"); !slices.Equal(got, []string{"kubectl/Apply"}) {
		t.Errorf("the masked key's owner: %q", got)
	}
	if secret.Object["data"].(map[string]any)["password"] != "czNjcjN0" {
		t.Errorf("masking changed the object read")
	}
}

func TestBlameSaysWhatItCannotRead(t *testing.T) {
	none := blameView(objectOf(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}`), "/x", "", blameNow)
	if len(none.Notes) != 1 || !strings.Contains(none.Notes[0], "no managedFields") || len(none.Lines) == 0 {
		t.Errorf("an object without managedFields: notes %q, %d lines", none.Notes, len(none.Lines))
	}
	bad := objectOf(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": [
		"nonsense",
		{"manager": "odd", "fieldsType": "FieldsV2", "fieldsV1": {}},
		{"manager": "broken", "fieldsType": "FieldsV1", "fieldsV1": {"x:data": {}}},
		{"manager": "kubectl", "operation": "Update", "time": "not a time", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}]},
		"data": {"a": "b"}}`)
	v := blameView(bad, "/x", "", blameNow)
	if len(v.Notes) != 3 {
		t.Errorf("notes %q, want one per unreadable entry", v.Notes)
	}
	if got := ownersOf(v, "a: b"); !slices.Equal(got, []string{"kubectl/Update"}) {
		t.Errorf("the readable entry's field: %q", got)
	}
	weird := objectOf(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "managedFields": "not a list"}}`)
	if v := blameView(weird, "/x", "", blameNow); len(v.Notes) != 1 {
		t.Errorf("managedFields not a list: notes %q", v.Notes)
	}
}

func TestBlameOfListsOfScalarsAndMultiLineStrings(t *testing.T) {
	o := objectOf(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["a/b", "c/d"],
		"managedFields": [{"manager": "m", "operation": "Update", "time": "2026-11-26T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:finalizers": {".": {}, "v:\"c/d\"": {}}}, "f:data": {"f:conf": {}}}}]},
		"data": {"conf": "line 1\nline 2"}}`)
	v := blameView(o, "/x", "", blameNow)
	if got := ownersOf(v, "- c/d"); !slices.Equal(got, []string{"m/Update"}) {
		t.Errorf("a set element: %q", got)
	}
	if got := ownersOf(v, "- a/b"); len(got) != 0 {
		t.Errorf("an element m does not own: %q", got)
	}
	if got := ownersOf(v, `conf: "line 1\nline 2"`); !slices.Equal(got, []string{"m/Update"}) {
		t.Errorf("a multi-line string on one line: %q (lines %+v)", got, v.Lines)
	}
}

func BenchmarkBlameView(b *testing.B) {
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(blameObject), &m); err != nil {
		b.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	b.ReportAllocs()
	for b.Loop() {
		if v := blameView(obj, "/x", "", blameNow); len(v.Lines) == 0 {
			b.Fatal("no lines")
		}
	}
}

// A scalar written without the encoder reads back as the same value.
func TestYAMLScalarReadsBackTheSame(t *testing.T) {
	for _, v := range []any{"nginx:1.27", "web", "a/b", "yes", "No", "null", "1.5", "0x1F", "1e3", "10", "-x", "v1", "apps/v1", "", "a b", "a: b", "#x", "~", int64(3), true, nil, 1.5, "web-5d9-a"} {
		text := yamlScalar(v)
		var back any
		if err := yaml.Unmarshal([]byte("x: "+text), &back); err != nil {
			t.Errorf("%#v as %q: %v", v, text, err)
			continue
		}
		got := back.(map[string]any)["x"]
		if f, ok := got.(float64); ok {
			if i, isInt := v.(int64); isInt && float64(i) == f {
				continue
			}
		}
		if got != v {
			t.Errorf("%#v written %q reads back as %#v", v, text, got)
		}
	}
}

// BenchmarkObjectYAMLView is the plain YAML view of the same object, for
// BenchmarkBlameView to be read against.
func BenchmarkObjectYAMLView(b *testing.B) {
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(blameObject), &m); err != nil {
		b.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	b.ReportAllocs()
	for b.Loop() {
		if text, err := objectYAML(obj, false); err != nil || text == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkYAMLTab and BenchmarkBlameTab render the YAML tab of the same
// object without and with its owners, the page's body as the handler
// renders it (the budget: owners add at most 20 % to the YAML view).
func BenchmarkYAMLTab(b *testing.B)  { benchmarkYAMLTab(b, false) }
func BenchmarkBlameTab(b *testing.B) { benchmarkYAMLTab(b, true) }

func benchmarkYAMLTab(b *testing.B, blame bool) {
	var m map[string]any
	if err := utiljson.Unmarshal([]byte(blameObject), &m); err != nil {
		b.Fatal(err)
	}
	in := Input{
		URLs:      page.URLsOf(context.Background()).In("dev"),
		Resource:  apiclient.Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true},
		Namespace: "demo", Name: "web", View: viewYAML, Blame: blame,
		Object: &unstructured.Unstructured{Object: m}, Now: blameNow,
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		p, err := Model(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if err := views.Object(p).Render(context.Background(), &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
