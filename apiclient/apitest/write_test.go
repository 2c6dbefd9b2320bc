package apitest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// send makes one request with a body and decodes the JSON object answered.
func send(t *testing.T, s *apitest.Server, method, path, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), header: resp.Header}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %s", method, path, raw)
	}
	return a
}

func TestWritesRecorded(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.FailPath("/api/v1/namespaces/demo/pods/web-b", apitest.Forbidden("alice", "patch", "", "pods", "web-b"))
	get(t, s, "/api/v1/namespaces/demo/pods/web-a", "")
	a := send(t, s, http.MethodPatch, "/api/v1/namespaces/demo/pods/web-b?fieldManager=tabula", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`)
	if a.code != http.StatusForbidden || a.body["reason"] != string(metav1.StatusReasonForbidden) {
		t.Errorf("answer %d %v", a.code, a.body)
	}
	writes := s.Writes()
	if len(writes) != 1 {
		t.Fatalf("%d writes, want the PATCH only", len(writes))
	}
	w := writes[0]
	if w.Method != http.MethodPatch || w.Path != "/api/v1/namespaces/demo/pods/web-b" || w.Query.Get("fieldManager") != "tabula" ||
		w.ContentType != "application/merge-patch+json" || string(w.Body) != `{"metadata":{"labels":{"x":"y"}}}` {
		t.Errorf("write = %+v (body %s)", w, w.Body)
	}
	s.ResetRequests()
	if len(s.Writes()) != 0 || len(s.Requests()) != 0 {
		t.Error("ResetRequests kept writes")
	}
}

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

const (
	mergePatch = "application/merge-patch+json"
	jsonPatch  = "application/json-patch+json"

	deploymentPath = "/apis/apps/v1/namespaces/demo/deployments/web"
	lighthousePath = "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/fastnet"
)

// writable is a server with one object of each kind the write tests use:
// deployment, service and pod demo/web, lighthouse demo/fastnet, CSM
// session s-1.
func writable(t *testing.T, opts apitest.Options) *apitest.Server {
	t.Helper()
	s := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1(), apitest.CSMGroup(), apitest.MaritimeV1Alpha1())
	s.Add(apitest.Deployment("demo", "web", 3, map[string]string{"app": "web"}), apitest.Service("demo", "web", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web", nil), apitest.Lighthouse("demo", "fastnet", "Celtic Sea", 2), apitest.CSMSession("s-1", "boot", "compute", "running"))
	return s
}

// stored is the object as the server stores it now, read with a GET.
func stored(t *testing.T, s *apitest.Server, path string) *unstructured.Unstructured {
	t.Helper()
	a := get(t, s, path, "application/json")
	if a.code != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, a.code, a.body)
	}
	// Integers as int64, as unstructured keeps them.
	raw, _ := json.Marshal(a.body)
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

// wantStatus checks a's Status: code, reason and a message containing msg.
func wantStatus(t *testing.T, a answer, code int, reason metav1.StatusReason, msg string) {
	t.Helper()
	got, _ := a.body["reason"].(string) // omitted when Unknown ("")
	if a.code != code || a.body["kind"] != "Status" || got != string(reason) || !strings.Contains(fmt.Sprint(a.body["message"]), msg) {
		t.Fatalf("answer %d %v, want %d %s %q", a.code, a.body, code, reason, msg)
	}
}

func nested(o map[string]any, path ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(o, path...)
	return v
}

func TestUpdates(t *testing.T) {
	conflict := `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`
	for _, tc := range []struct {
		name              string
		opts              apitest.Options
		method, path, ct  string
		body              string
		code              int
		reason            metav1.StatusReason // "" for a success
		msg               string
		check             func(t *testing.T, a answer, before, after *unstructured.Unstructured)
		checkPath         string // the object before and after, for check; the request's path by default
		unchangedResource bool   // the store's resourceVersion must not move
	}{
		{name: "merge patch", method: http.MethodPatch, path: deploymentPath + "?fieldManager=tabula", ct: mergePatch,
			body: `{"metadata":{"labels":{"tier":"front"}},"spec":{"paused":true}}`, code: 200,
			check: func(t *testing.T, a answer, before, after *unstructured.Unstructured) {
				if after.GetLabels()["tier"] != "front" || after.GetLabels()["app"] != "web" || nested(after.Object, "spec", "paused") != true {
					t.Errorf("stored %v", after.Object)
				}
				if after.GetResourceVersion() == before.GetResourceVersion() || a.body["metadata"].(map[string]any)["resourceVersion"] != after.GetResourceVersion() {
					t.Errorf("resourceVersion %s -> %s, answered %v", before.GetResourceVersion(), after.GetResourceVersion(), a.body["metadata"])
				}
				mf := after.GetManagedFields()
				if len(mf) != 1 || mf[0].Manager != "tabula" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate || mf[0].APIVersion != "apps/v1" ||
					mf[0].Time == nil || time.Since(mf[0].Time.Time) > time.Minute || mf[0].FieldsType != "FieldsV1" {
					t.Errorf("managedFields %+v", mf)
				}
			}},
		{name: "merge patch with the current resourceVersion", method: http.MethodPatch, path: deploymentPath, ct: mergePatch + "; charset=utf-8",
			body: `{"metadata":{"resourceVersion":"%RV%"},"spec":{"replicas":5}}`, code: 200,
			check: func(t *testing.T, a answer, before, after *unstructured.Unstructured) {
				if nested(after.Object, "spec", "replicas") != int64(5) {
					t.Errorf("replicas %v", nested(after.Object, "spec", "replicas"))
				}
				if mf := after.GetManagedFields(); len(mf) != 1 || !strings.HasPrefix(mf[0].Manager, "Go-http-client") {
					t.Errorf("without fieldManager the manager is the User-Agent's product: %+v", mf)
				}
			}},
		{name: "merge patch with a stale resourceVersion", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":5}}`, code: 409, reason: metav1.StatusReasonConflict, msg: conflict,
			check: func(t *testing.T, a answer, _, _ *unstructured.Unstructured) {
				d := a.body["details"].(map[string]any)
				if d["name"] != "web" || d["group"] != "apps" || d["kind"] != "deployments" {
					t.Errorf("details %v", d)
				}
			}, unchangedResource: true},
		{name: "merge patch removing labels and annotations an object never had: the same object, no write", method: http.MethodPatch, path: "/api/v1/namespaces/demo/pods/web", ct: mergePatch,
			body: `{"metadata":{"resourceVersion":"%RV%","annotations":{"never":null},"labels":{"never":null},"finalizers":[]}}`, code: 200,
			check: func(t *testing.T, a answer, before, after *unstructured.Unstructured) {
				if before.GetLabels() != nil || before.GetAnnotations() != nil {
					t.Fatalf("the pod has labels or annotations to begin with: %v", before.Object["metadata"])
				}
				if a.body["metadata"].(map[string]any)["resourceVersion"] != before.GetResourceVersion() {
					t.Errorf("answered resourceVersion %v, want the stored %s", a.body["metadata"], before.GetResourceVersion())
				}
			}, unchangedResource: true},
		{name: "merge patch of the spec leaving empty metadata maps: stored without them", method: http.MethodPatch, path: "/api/v1/namespaces/demo/pods/web", ct: mergePatch,
			body: `{"metadata":{"labels":{"never":null}},"spec":{"nodeName":"n1"}}`, code: 200,
			check: func(t *testing.T, _ answer, _, after *unstructured.Unstructured) {
				if _, ok := after.Object["metadata"].(map[string]any)["labels"]; ok || nested(after.Object, "spec", "nodeName") != "n1" {
					t.Errorf("stored %v", after.Object)
				}
			}},
		{name: "JSON patch", method: http.MethodPatch, path: deploymentPath, ct: jsonPatch,
			body: `[{"op":"test","path":"/metadata/resourceVersion","value":"%RV%"},{"op":"replace","path":"/spec/replicas","value":1}]`, code: 200,
			check: func(t *testing.T, _ answer, _, after *unstructured.Unstructured) {
				if nested(after.Object, "spec", "replicas") != int64(1) {
					t.Errorf("replicas %v", nested(after.Object, "spec", "replicas"))
				}
			}},
		{name: "JSON patch whose test fails: 422 with kube-apiserver's generic message", method: http.MethodPatch, path: deploymentPath, ct: jsonPatch,
			body: `[{"op":"test","path":"/metadata/resourceVersion","value":"1"},{"op":"replace","path":"/spec/replicas","value":1}]`,
			code: 422, reason: metav1.StatusReasonInvalid, msg: "the server rejected our request due to an error in our request",
			check: func(t *testing.T, a answer, _, _ *unstructured.Unstructured) {
				if d := a.body["details"].(map[string]any); d["name"] != nil || d["causes"] != nil {
					t.Errorf("details %v", d)
				}
			}, unchangedResource: true},
		{name: "JSON patch that does not decode", method: http.MethodPatch, path: deploymentPath, ct: jsonPatch,
			body: `{"op":"add"}`, code: 400, reason: metav1.StatusReasonBadRequest, unchangedResource: true},
		{name: "malformed merge patch", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"spec":`, code: 400, reason: metav1.StatusReasonBadRequest, unchangedResource: true},
		{name: "strategic merge patch", method: http.MethodPatch, path: deploymentPath, ct: "application/strategic-merge-patch+json",
			body: `{}`, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			msg: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json", unchangedResource: true},
		{name: "NoMergePatch: merge patch", opts: apitest.Options{NoMergePatch: true}, method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"spec":{"replicas":1}}`, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			msg: "accepted media types include: application/json-patch+json", unchangedResource: true},
		{name: "NoMergePatch: JSON patch", opts: apitest.Options{NoMergePatch: true}, method: http.MethodPatch, path: deploymentPath, ct: jsonPatch,
			body: `[{"op":"replace","path":"/spec/replicas","value":1}]`, code: 200},
		{name: "patch renaming: 400", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"metadata":{"name":"other"}}`, code: 400, reason: metav1.StatusReasonBadRequest,
			msg: "the name of the object (other) does not match the name on the URL (web)", unchangedResource: true},
		{name: "patch moving namespace: 400", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"metadata":{"namespace":"other"}}`, code: 400, reason: metav1.StatusReasonBadRequest,
			msg: "the namespace of the provided object does not match the namespace sent on the request", unchangedResource: true},
		{name: "patch changing uid: 422", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"metadata":{"uid":"other"}}`, code: 422, reason: metav1.StatusReasonInvalid,
			msg: `Deployment.apps "web" is invalid: metadata.uid: Invalid value: "other": field is immutable`, unchangedResource: true},
		{name: "immutable field", opts: apitest.Options{Immutable: map[string][]string{"services": {"spec.clusterIP"}}},
			method: http.MethodPatch, path: "/api/v1/namespaces/demo/services/web", ct: mergePatch,
			body: `{"spec":{"clusterIP":"10.0.0.1"}}`, code: 422, reason: metav1.StatusReasonInvalid,
			msg: `Service "web" is invalid: spec.clusterIP: Invalid value: "10.0.0.1": field is immutable`,
			check: func(t *testing.T, a answer, _, _ *unstructured.Unstructured) {
				d := a.body["details"].(map[string]any)
				causes, _ := d["causes"].([]any)
				if d["name"] != "web" || d["kind"] != "Service" || len(causes) != 1 {
					t.Fatalf("details %v", d)
				}
				c := causes[0].(map[string]any)
				if c["reason"] != "FieldValueInvalid" || c["field"] != "spec.clusterIP" || c["message"] != `Invalid value: "10.0.0.1": field is immutable` {
					t.Errorf("cause %v", c)
				}
			}, unchangedResource: true},
		{name: "immutable field left alone", opts: apitest.Options{Immutable: map[string][]string{"services": {"spec.clusterIP"}}},
			method: http.MethodPatch, path: "/api/v1/namespaces/demo/services/web", ct: mergePatch,
			body: `{"spec":{"type":"NodePort"}}`, code: 200},
		{name: "dry run", method: http.MethodPatch, path: deploymentPath + "?dryRun=All", ct: mergePatch,
			body: `{"spec":{"replicas":7}}`, code: 200,
			check: func(t *testing.T, a answer, before, after *unstructured.Unstructured) {
				if nested(a.body, "spec", "replicas") != float64(7) || nested(after.Object, "spec", "replicas") != int64(3) {
					t.Errorf("answered %v, stored %v", nested(a.body, "spec", "replicas"), nested(after.Object, "spec", "replicas"))
				}
				if after.GetResourceVersion() != before.GetResourceVersion() || nested(a.body, "metadata", "resourceVersion") != before.GetResourceVersion() {
					t.Errorf("dry run moved the resourceVersion")
				}
			}, unchangedResource: true},
		{name: "dry run other than All: 422 as kube-apiserver", method: http.MethodPatch, path: deploymentPath + "?dryRun=Some", ct: mergePatch,
			body: `{"spec":{"replicas":7}}`, code: 422, reason: metav1.StatusReasonInvalid,
			msg: `PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`, unchangedResource: true},
		{name: "patch that changes nothing", method: http.MethodPatch, path: deploymentPath, ct: mergePatch,
			body: `{"spec":{"replicas":3}}`, code: 200,
			check: func(t *testing.T, _ answer, before, after *unstructured.Unstructured) {
				if after.GetResourceVersion() != before.GetResourceVersion() || after.GetManagedFields() != nil {
					t.Errorf("a no-op patch wrote: %v", after.Object["metadata"])
				}
			}, unchangedResource: true},
		{name: "status patch changes only the status", method: http.MethodPatch, path: lighthousePath + "/status", ct: mergePatch,
			body: `{"spec":{"coast":"elsewhere"},"status":{"replicas":1}}`, code: 200, checkPath: lighthousePath,
			check: func(t *testing.T, a answer, before, after *unstructured.Unstructured) {
				if nested(after.Object, "status", "replicas") != int64(1) || nested(after.Object, "spec", "coast") != "Celtic Sea" || after.GetGeneration() != 1 {
					t.Errorf("stored %v", after.Object)
				}
				if mf := after.GetManagedFields(); len(mf) != 1 || mf[0].Subresource != "status" {
					t.Errorf("managedFields %+v", mf)
				}
			}},
		{name: "main patch leaves the status to the subresource and bumps the generation", method: http.MethodPatch, path: lighthousePath, ct: mergePatch,
			body: `{"spec":{"keeper":"Ann"},"status":{"replicas":0}}`, code: 200,
			check: func(t *testing.T, _ answer, _, after *unstructured.Unstructured) {
				if nested(after.Object, "status", "replicas") != int64(2) || nested(after.Object, "spec", "keeper") != "Ann" || after.GetGeneration() != 2 {
					t.Errorf("stored %v", after.Object)
				}
			}},
		{name: "scale patch", method: http.MethodPatch, path: lighthousePath + "/scale", ct: mergePatch,
			body: `{"metadata":{"resourceVersion":"%RV%"},"spec":{"replicas":4}}`, code: 200, checkPath: lighthousePath,
			check: func(t *testing.T, a answer, _, after *unstructured.Unstructured) {
				if a.body["kind"] != "Scale" || nested(a.body, "spec", "replicas") != float64(4) || nested(a.body, "status", "selector") != "lighthouse=fastnet" ||
					nested(a.body, "metadata", "resourceVersion") != after.GetResourceVersion() {
					t.Errorf("answered %v", a.body)
				}
				if nested(after.Object, "spec", "replicas") != int64(4) || nested(after.Object, "spec", "coast") != "Celtic Sea" {
					t.Errorf("stored %v", after.Object)
				}
			}},
		{name: "scale JSON patch", method: http.MethodPatch, path: deploymentPath + "/scale", ct: jsonPatch,
			body: `[{"op":"test","path":"/metadata/resourceVersion","value":"%RV%"},{"op":"add","path":"/spec/replicas","value":0}]`, code: 200, checkPath: deploymentPath,
			check: func(t *testing.T, _ answer, _, after *unstructured.Unstructured) {
				if nested(after.Object, "spec", "replicas") != int64(0) {
					t.Errorf("stored %v", after.Object)
				}
			}},
		{name: "scale patch with a stale resourceVersion", method: http.MethodPatch, path: deploymentPath + "/scale", ct: mergePatch,
			body: `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":4}}`, code: 409, reason: metav1.StatusReasonConflict, msg: conflict, unchangedResource: true},
		{name: "negative scale", method: http.MethodPatch, path: deploymentPath + "/scale", ct: mergePatch,
			body: `{"spec":{"replicas":-1}}`, code: 422, reason: metav1.StatusReasonInvalid,
			msg: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`, unchangedResource: true},
		{name: "PUT", method: http.MethodPut, path: "/api/v1/namespaces/demo/services/web", ct: "application/json",
			body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"demo","resourceVersion":"%RV%"},"spec":{"type":"ExternalName"}}`, code: 200,
			check: func(t *testing.T, _ answer, before, after *unstructured.Unstructured) {
				if nested(after.Object, "spec", "clusterIP") != nil || nested(after.Object, "spec", "type") != "ExternalName" {
					t.Errorf("PUT did not replace: %v", after.Object)
				}
				if after.GetUID() != before.GetUID() || after.GetCreationTimestamp() != before.GetCreationTimestamp() {
					t.Errorf("system fields lost: %v", after.Object["metadata"])
				}
			}},
		{name: "PUT with a stale resourceVersion", method: http.MethodPut, path: deploymentPath, ct: "application/json",
			body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo","resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict, msg: conflict, unchangedResource: true},
		{name: "PUT of another kind", method: http.MethodPut, path: deploymentPath, ct: "application/json",
			body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"demo"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, msg: "the API version in the data (v1) does not match the expected API version (apps/v1)", unchangedResource: true},
		{name: "patch of a missing object", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/demo/deployments/nope", ct: mergePatch,
			body: `{}`, code: 404, reason: metav1.StatusReasonNotFound, msg: `deployments.apps "nope" not found`, checkPath: deploymentPath, unchangedResource: true},
		{name: "patch not advertised: 405", method: http.MethodPatch, path: "/apis/policy.example.com/v1/sessions/s-1", ct: mergePatch,
			body: `{}`, code: 405, reason: metav1.StatusReasonMethodNotAllowed, unchangedResource: true},
		{name: "patch of a collection: 405", method: http.MethodPatch, path: "/apis/apps/v1/namespaces/demo/deployments", ct: mergePatch,
			body: `{}`, code: 405, reason: metav1.StatusReasonMethodNotAllowed, checkPath: deploymentPath, unchangedResource: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := writable(t, tc.opts)
			checkPath := tc.checkPath
			if checkPath == "" {
				checkPath, _, _ = strings.Cut(tc.path, "?")
			}
			before := stored(t, s, checkPath)
			rv := s.ResourceVersion()
			a := send(t, s, tc.method, tc.path, tc.ct, strings.ReplaceAll(tc.body, "%RV%", before.GetResourceVersion()))
			if tc.reason != "" {
				wantStatus(t, a, tc.code, tc.reason, tc.msg)
			} else if a.code != tc.code || a.body["kind"] == "Status" {
				t.Fatalf("answer %d %v, want %d", a.code, a.body, tc.code)
			}
			if tc.unchangedResource != (s.ResourceVersion() == rv) {
				t.Errorf("store resourceVersion %s -> %s", rv, s.ResourceVersion())
			}
			if tc.check != nil {
				tc.check(t, a, before, stored(t, s, checkPath))
			}
		})
	}
}

// TestUpdateWatchEvents: a write is one MODIFIED; a dry run and a no-op
// none.
func TestUpdateWatchEvents(t *testing.T) {
	s := writable(t, apitest.Options{})
	wc := openWatch(t, s, "/apis/apps/v1/namespaces/demo/deployments?watch=1&resourceVersion="+s.ResourceVersion(), "application/json")
	for _, body := range []string{`{"spec":{"replicas":9}}`, `{"spec":{"replicas":3}}`} {
		if a := send(t, s, http.MethodPatch, deploymentPath+"?dryRun=All", mergePatch, body); a.code != 200 {
			t.Fatalf("dry run: %d %v", a.code, a.body)
		}
	}
	if a := send(t, s, http.MethodPatch, deploymentPath, mergePatch, `{"spec":{"replicas":3}}`); a.code != 200 {
		t.Fatalf("no-op: %d %v", a.code, a.body)
	}
	a := send(t, s, http.MethodPatch, deploymentPath, mergePatch, `{"spec":{"replicas":4}}`)
	if e := wc.next(); e.Type != "MODIFIED" || e.rv() != nested(a.body, "metadata", "resourceVersion") || nested(e.Object, "spec", "replicas") != float64(4) {
		t.Errorf("event %s rv %s %v, want the patch's MODIFIED", e.Type, e.rv(), e.Object["spec"])
	}
}

func TestCreate(t *testing.T) {
	const secrets = "/api/v1/namespaces/demo/secrets"
	secret := func(meta string) string {
		return `{"apiVersion":"v1","kind":"Secret","metadata":` + meta + `,"data":{"k":"dg=="}}`
	}
	for _, tc := range []struct {
		name   string
		path   string
		body   string
		code   int
		reason metav1.StatusReason // "" for a success
		msg    string
		check  func(t *testing.T, s *apitest.Server, created map[string]any)
	}{
		{name: "create", path: secrets + "?fieldManager=tabula", body: secret(`{"name":"s1","uid":"mine","creationTimestamp":"2000-01-01T00:00:00Z"}`), code: 201,
			check: func(t *testing.T, s *apitest.Server, created map[string]any) {
				obj := stored(t, s, secrets+"/s1")
				if obj.GetUID() == "" || obj.GetUID() == "mine" || obj.GetUID() == apitest.UIDFor("Secret", "demo", "s1") ||
					time.Since(obj.GetCreationTimestamp().Time) > time.Minute || obj.GetResourceVersion() != s.ResourceVersion() ||
					obj.GetNamespace() != "demo" || obj.GetGeneration() != 1 || nested(obj.Object, "data", "k") != "dg==" {
					t.Errorf("stored %v", obj.Object)
				}
				if mf := obj.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "tabula" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate {
					t.Errorf("managedFields %+v", mf)
				}
				if nested(created, "metadata", "uid") != string(obj.GetUID()) {
					t.Errorf("answered %v", created["metadata"])
				}
			}},
		{name: "apiVersion, kind and namespace default to the request's", path: secrets, body: `{"metadata":{"name":"s1"}}`, code: 201,
			check: func(t *testing.T, _ *apitest.Server, created map[string]any) {
				if created["apiVersion"] != "v1" || created["kind"] != "Secret" || nested(created, "metadata", "namespace") != "demo" {
					t.Errorf("answered %v", created)
				}
			}},
		{name: "generateName", path: secrets, body: secret(`{"generateName":"web-"}`), code: 201,
			check: func(t *testing.T, s *apitest.Server, created map[string]any) {
				name, _ := nested(created, "metadata", "name").(string)
				if !regexp.MustCompile(`^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(name) {
					t.Fatalf("generated name %q", name)
				}
				stored(t, s, secrets+"/"+name)
			}},
		{name: "existing name: 409 AlreadyExists", path: secrets, body: secret(`{"name":"taken"}`),
			code: 409, reason: metav1.StatusReasonAlreadyExists, msg: `secrets "taken" already exists`,
			check: func(t *testing.T, _ *apitest.Server, st map[string]any) {
				if d := st["details"].(map[string]any); d["name"] != "taken" || d["kind"] != "secrets" || d["group"] != nil {
					t.Errorf("details %v", d)
				}
			}},
		{name: "neither name nor generateName: 422", path: secrets, body: secret(`{"labels":{"a":"b"}}`),
			code: 422, reason: metav1.StatusReasonInvalid, msg: `Secret "" is invalid: metadata.name: Required value: name or generateName is required`,
			check: func(t *testing.T, _ *apitest.Server, st map[string]any) {
				causes, _ := st["details"].(map[string]any)["causes"].([]any)
				if len(causes) != 1 || causes[0].(map[string]any)["reason"] != "FieldValueRequired" || causes[0].(map[string]any)["field"] != "metadata.name" {
					t.Errorf("causes %v", causes)
				}
			}},
		{name: "invalid name: 422", path: secrets, body: secret(`{"name":"Not_Valid"}`),
			code: 422, reason: metav1.StatusReasonInvalid, msg: `Secret "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain`},
		{name: "another namespace in the body: 400", path: secrets, body: secret(`{"name":"s1","namespace":"other"}`),
			code: 400, reason: metav1.StatusReasonBadRequest, msg: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "another kind: 400", path: secrets, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"s1"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, msg: "the kind in the data (Pod) does not match the expected kind (Secret)"},
		{name: "another apiVersion: 400", path: secrets, body: `{"apiVersion":"apps/v1","kind":"Secret","metadata":{"name":"s1"}}`,
			code: 400, reason: metav1.StatusReasonBadRequest, msg: "the API version in the data (apps/v1) does not match the expected API version (v1)"},
		{name: "not a JSON object: 400", path: secrets, body: `[]`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "resourceVersion set: kube-apiserver's 500", path: secrets, body: secret(`{"name":"s1","resourceVersion":"5"}`),
			code: 500, reason: metav1.StatusReasonUnknown, msg: "resourceVersion should not be set on objects to be created"},
		{name: "dry run", path: secrets + "?dryRun=All", body: secret(`{"name":"s1"}`), code: 201,
			check: func(t *testing.T, s *apitest.Server, created map[string]any) {
				if nested(created, "metadata", "uid") == nil || nested(created, "metadata", "resourceVersion") != nil {
					t.Errorf("answered %v", created["metadata"])
				}
				if a := get(t, s, secrets+"/s1", ""); a.code != 404 {
					t.Errorf("dry run stored the object: %d", a.code)
				}
			}},
		{name: "status dropped where the status subresource serves it", path: "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses",
			body: `{"apiVersion":"maritime.tabula.dev/v1alpha1","kind":"Lighthouse","metadata":{"name":"eddystone"},"spec":{"coast":"Channel"},"status":{"replicas":3}}`, code: 201,
			check: func(t *testing.T, _ *apitest.Server, created map[string]any) {
				if created["status"] != nil || nested(created, "metadata", "generation") != float64(1) {
					t.Errorf("answered %v", created)
				}
			}},
		{name: "cluster-scoped: the body's namespace is cleared", path: "/api/v1/namespaces",
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team","namespace":"demo"}}`, code: 201,
			check: func(t *testing.T, _ *apitest.Server, created map[string]any) {
				if ns := nested(created, "metadata", "namespace"); ns != nil {
					t.Errorf("namespace %v", ns)
				}
			}},
		{name: "create not advertised: 405", path: "/apis/policy.example.com/v1/sessions", body: `{"metadata":{"name":"s-2"}}`,
			code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "POST to an object: 405", path: secrets + "/taken", body: secret(`{"name":"taken"}`),
			code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "POST to all namespaces: 405", path: "/api/v1/secrets", body: secret(`{"name":"s1","namespace":"demo"}`),
			code: 405, reason: metav1.StatusReasonMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := writable(t, apitest.Options{})
			s.Add(apitest.Object("v1", "Secret", "demo", "taken", nil))
			rv := s.ResourceVersion()
			a := send(t, s, http.MethodPost, tc.path, "application/json", tc.body)
			if tc.reason != "" || tc.code >= 400 {
				wantStatus(t, a, tc.code, tc.reason, tc.msg)
			} else if a.code != tc.code || a.body["kind"] == "Status" {
				t.Fatalf("answer %d %v, want %d", a.code, a.body, tc.code)
			}
			if stores := tc.code == 201 && !strings.Contains(tc.path, "dryRun"); stores != (s.ResourceVersion() != rv) {
				t.Errorf("store resourceVersion %s -> %s", rv, s.ResourceVersion())
			}
			if tc.check != nil {
				tc.check(t, s, a.body)
			}
		})
	}
}

func TestCreateWatchEvent(t *testing.T) {
	s := writable(t, apitest.Options{})
	wc := openWatch(t, s, "/api/v1/namespaces/demo/secrets?watch=1&resourceVersion="+s.ResourceVersion(), "application/json")
	send(t, s, http.MethodPost, "/api/v1/namespaces/demo/secrets?dryRun=All", "application/json", `{"metadata":{"name":"dry"}}`)
	a := send(t, s, http.MethodPost, "/api/v1/namespaces/demo/secrets", "application/json", `{"metadata":{"generateName":"s-"}}`)
	if e := wc.next(); e.Type != "ADDED" || e.name() != nested(a.body, "metadata", "name") || e.rv() != nested(a.body, "metadata", "resourceVersion") {
		t.Errorf("event %s %s %s, want ADDED of %v", e.Type, e.name(), e.rv(), a.body["metadata"])
	}
}

func TestDelete(t *testing.T) {
	const podPath = "/api/v1/namespaces/demo/pods/web"
	for _, tc := range []struct {
		name       string
		path, body string
		code       int
		reason     metav1.StatusReason // for a failure
		msg        string
		kept       bool // the object is still stored afterwards
		stores     bool // the store's resourceVersion moves
		check      func(t *testing.T, s *apitest.Server, a answer)
	}{
		{name: "most resources answer a Success Status", path: deploymentPath, code: 200, stores: true,
			check: func(t *testing.T, _ *apitest.Server, a answer) {
				d, _ := a.body["details"].(map[string]any)
				if a.body["kind"] != "Status" || a.body["status"] != "Success" || a.body["code"] != nil ||
					d["name"] != "web" || d["group"] != "apps" || d["kind"] != "deployments" || d["uid"] != string(apitest.UIDFor("Deployment", "demo", "web")) {
					t.Errorf("answer %v", a.body)
				}
			}},
		{name: "custom resources answer a Success Status", path: lighthousePath, code: 200, stores: true,
			check: func(t *testing.T, _ *apitest.Server, a answer) {
				if a.body["kind"] != "Status" || nested(a.body, "details", "kind") != "lighthouses" || nested(a.body, "details", "group") != "maritime.tabula.dev" {
					t.Errorf("answer %v", a.body)
				}
			}},
		{name: "pods answer the deleted object", path: podPath, code: 200, stores: true,
			check: func(t *testing.T, _ *apitest.Server, a answer) {
				if a.body["kind"] != "Pod" || nested(a.body, "metadata", "name") != "web" {
					t.Errorf("answer %v", a.body)
				}
			}},
		{name: "Foreground keeps the object with foregroundDeletion", path: deploymentPath,
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}`, code: 200, kept: true, stores: true,
			check: func(t *testing.T, s *apitest.Server, a answer) {
				obj := stored(t, s, deploymentPath)
				if a.body["kind"] != "Deployment" || !slices.Equal(obj.GetFinalizers(), []string{"foregroundDeletion"}) ||
					obj.GetDeletionTimestamp() == nil || obj.GetDeletionGracePeriodSeconds() == nil || *obj.GetDeletionGracePeriodSeconds() != 0 {
					t.Errorf("answer %v, stored %v", a.body["kind"], obj.Object["metadata"])
				}
			}},
		{name: "Foreground from the query", path: deploymentPath + "?propagationPolicy=Foreground", code: 200, kept: true, stores: true},
		{name: "Orphan keeps the object with orphan", path: deploymentPath, body: `{"propagationPolicy":"Orphan"}`, code: 200, kept: true, stores: true,
			check: func(t *testing.T, s *apitest.Server, a answer) {
				if obj := stored(t, s, deploymentPath); !slices.Equal(obj.GetFinalizers(), []string{"orphan"}) {
					t.Errorf("finalizers %v", obj.GetFinalizers())
				}
			}},
		{name: "Background", path: deploymentPath, body: `{"propagationPolicy":"Background","gracePeriodSeconds":0}`, code: 200, stores: true},
		{name: "preconditions that hold", path: deploymentPath, body: `{"preconditions":{"uid":"uid-Deployment-demo-web","resourceVersion":"%RV%"}}`, code: 200, stores: true},
		{name: "uid precondition: 409", path: deploymentPath, body: `{"preconditions":{"uid":"other"}}`, code: 409, reason: metav1.StatusReasonConflict, kept: true,
			msg: `Operation cannot be fulfilled on deployments.apps "web": StorageError: invalid object, Code: 4, Key: /registry/deployments/demo/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-Deployment-demo-web`},
		{name: "resourceVersion precondition: 409", path: lighthousePath, body: `{"preconditions":{"resourceVersion":"1"}}`, code: 409, reason: metav1.StatusReasonConflict, kept: true,
			msg: `Key: /registry/maritime.tabula.dev/lighthouses/demo/fastnet, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: `},
		{name: "dry run in the body", path: deploymentPath, body: `{"dryRun":["All"]}`, code: 200, kept: true,
			check: func(t *testing.T, _ *apitest.Server, a answer) {
				if a.body["status"] != "Success" {
					t.Errorf("answer %v", a.body)
				}
			}},
		{name: "dry run in the query", path: deploymentPath + "?dryRun=All&propagationPolicy=Foreground", code: 200, kept: true,
			check: func(t *testing.T, s *apitest.Server, a answer) {
				if nested(a.body, "metadata", "deletionTimestamp") == nil || stored(t, s, deploymentPath).GetDeletionTimestamp() != nil {
					t.Errorf("answer %v", a.body["metadata"])
				}
			}},
		{name: "unknown propagation policy: 422", path: deploymentPath, body: `{"propagationPolicy":"Later"}`, code: 422, reason: metav1.StatusReasonInvalid, kept: true,
			msg: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Later"`},
		{name: "not DeleteOptions: 400", path: deploymentPath, body: `{"kind":"Pod"}`, code: 400, reason: metav1.StatusReasonBadRequest, kept: true},
		{name: "missing: 404", path: "/apis/apps/v1/namespaces/demo/deployments/nope", code: 404, reason: metav1.StatusReasonNotFound, msg: `deployments.apps "nope" not found`},
		{name: "delete not advertised: 405", path: "/apis/policy.example.com/v1/sessions/s-1", code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "delete of a collection: 405", path: "/apis/apps/v1/namespaces/demo/deployments", code: 405, reason: metav1.StatusReasonMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := writable(t, apitest.Options{})
			target, _, _ := strings.Cut(tc.path, "?")
			targetRV, _ := nested(get(t, s, target, "").body, "metadata", "resourceVersion").(string)
			rv := s.ResourceVersion()
			a := send(t, s, http.MethodDelete, tc.path, "application/json", strings.ReplaceAll(tc.body, "%RV%", targetRV))
			if tc.code >= 400 {
				wantStatus(t, a, tc.code, tc.reason, tc.msg)
			} else if a.code != tc.code {
				t.Fatalf("answer %d %v, want %d", a.code, a.body, tc.code)
			}
			if got := get(t, s, target, "").code == 200; got != tc.kept && tc.code != 404 && tc.code != 405 {
				t.Errorf("kept = %v, want %v", got, tc.kept)
			}
			if tc.stores != (s.ResourceVersion() != rv) {
				t.Errorf("store resourceVersion %s -> %s", rv, s.ResourceVersion())
			}
			if tc.check != nil {
				tc.check(t, s, a)
			}
		})
	}
}

// TestFinalizers follows an object with a finalizer through its deletion:
// marked, marked again (no write), no new finalizer allowed, deleted when a
// patch removes the last one; and Finalize for the garbage collector's.
func TestFinalizers(t *testing.T) {
	s := writable(t, apitest.Options{})
	s.Modify(deploymentGVK, "demo", "web", func(o *unstructured.Unstructured) { o.SetFinalizers([]string{"example.com/protect"}) })
	wc := openWatch(t, s, "/apis/apps/v1/namespaces/demo/deployments?watch=1&resourceVersion="+s.ResourceVersion(), "application/json")

	a := send(t, s, http.MethodDelete, deploymentPath, "", "")
	if a.code != 200 || a.body["kind"] != "Deployment" || nested(a.body, "metadata", "deletionTimestamp") == nil {
		t.Fatalf("delete: %d %v", a.code, a.body)
	}
	if e := wc.next(); e.Type != "MODIFIED" || nested(e.Object, "metadata", "deletionTimestamp") == nil {
		t.Errorf("event %s %v", e.Type, e.Object["metadata"])
	}
	rv := s.ResourceVersion()
	if a := send(t, s, http.MethodDelete, deploymentPath, "", ""); a.code != 200 || s.ResourceVersion() != rv {
		t.Errorf("second delete: %d, resourceVersion %s -> %s", a.code, rv, s.ResourceVersion())
	}
	wantStatus(t, send(t, s, http.MethodPatch, deploymentPath, mergePatch, `{"metadata":{"finalizers":["example.com/protect","example.com/more"]}}`),
		422, metav1.StatusReasonInvalid, "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted")
	a = send(t, s, http.MethodPatch, deploymentPath, mergePatch, `{"metadata":{"finalizers":null}}`)
	if a.code != 200 || a.body["kind"] != "Deployment" {
		t.Fatalf("patch removing the finalizer: %d %v", a.code, a.body)
	}
	if e := wc.next(); e.Type != "DELETED" || e.name() != "web" {
		t.Errorf("event %s %s", e.Type, e.name())
	}
	if got := get(t, s, deploymentPath, ""); got.code != 404 {
		t.Errorf("after the last finalizer: %d", got.code)
	}

	if a := send(t, s, http.MethodDelete, lighthousePath, "application/json", `{"propagationPolicy":"Foreground"}`); a.code != 200 || a.body["kind"] != "Lighthouse" {
		t.Fatalf("foreground delete: %d %v", a.code, a.body)
	}
	lw := openWatch(t, s, "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses?watch=1&resourceVersion="+s.ResourceVersion(), "application/json")
	s.Finalize("maritime.tabula.dev", "lighthouses", "demo", "fastnet")
	if e := lw.next(); e.Type != "DELETED" || e.name() != "fastnet" || nested(e.Object, "metadata", "finalizers") != nil {
		t.Errorf("event %s %s %v", e.Type, e.name(), e.Object["metadata"])
	}

	s.Modify(podGVK, "demo", "web", func(o *unstructured.Unstructured) { o.SetFinalizers([]string{"example.com/protect"}) })
	s.Finalize("", "pods", "demo", "web")
	if pod := stored(t, s, "/api/v1/namespaces/demo/pods/web"); pod.GetFinalizers() != nil {
		t.Errorf("finalizers %v", pod.GetFinalizers())
	}
}

func TestWriteFailures(t *testing.T) {
	s := writable(t, apitest.Options{})
	s.FailResource("apps", "deployments", apitest.Forbidden("alice", "delete", "apps", "deployments", "web"))
	wantStatus(t, send(t, s, http.MethodDelete, deploymentPath, "", ""), 403, metav1.StatusReasonForbidden, `User "alice" cannot delete`)
	wantStatus(t, send(t, s, http.MethodPatch, deploymentPath+"/scale", mergePatch, `{}`), 403, metav1.StatusReasonForbidden, "")
	s.Override(lighthousePath, func(w http.ResponseWriter, r *http.Request) {
		apitest.WriteStatus(w, apitest.TooManyRequests(0))
	})
	wantStatus(t, send(t, s, http.MethodPut, lighthousePath, "application/json", `{}`), 429, metav1.StatusReasonTooManyRequests, "")
}
