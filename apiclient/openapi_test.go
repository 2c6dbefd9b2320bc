package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

var (
	deploymentRes = Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true}
	widgetRes     = Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true}
)

// openAPIClusters is the Clusters of one context "dev" pointing at fake.
func openAPIClusters(t testing.TB, fake *apitest.Server) *Clusters {
	t.Helper()
	cs, err := FromKubeconfig(fake.Kubeconfig("dev"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func clientOf(t testing.TB, cs *Clusters, id Identity) *Client {
	t.Helper()
	c, err := cs.Client("dev", id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kindSchema is KindSchema's answer, decoded.
type kindSchema struct {
	Root    string                    `json:"root"`
	Schemas map[string]map[string]any `json:"schemas"`
}

func getKindSchema(t *testing.T, c *Client, r Resource) kindSchema {
	t.Helper()
	raw, err := c.KindSchema(context.Background(), r)
	if err != nil {
		t.Fatalf("KindSchema(%s): %v", r.Kind, err)
	}
	var ks kindSchema
	if err := json.Unmarshal(raw, &ks); err != nil {
		t.Fatalf("KindSchema(%s) = %.200s: %v", r.Kind, raw, err)
	}
	return ks
}

// at follows properties (and "items", "additionalProperties") from a schema.
func at(t *testing.T, ks kindSchema, schemaName string, path ...string) map[string]any {
	t.Helper()
	n := ks.Schemas[schemaName]
	if n == nil {
		t.Fatalf("no schema %s (have %v)", schemaName, slices.Sorted(maps.Keys(ks.Schemas)))
	}
	for _, p := range path {
		var next any
		switch p {
		case "items", "additionalProperties":
			next = n[p]
		default:
			props, _ := n["properties"].(map[string]any)
			next = props[p]
		}
		m, ok := next.(map[string]any)
		if !ok {
			t.Fatalf("%s: no %s in %v", schemaName, strings.Join(path, "."), n)
		}
		n = m
	}
	return n
}

func sameJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	var gv any
	_ = json.Unmarshal(g, &gv)
	if !reflect.DeepEqual(gv, w) {
		t.Errorf("%s = %s\nwant %s", what, g, want)
	}
}

const (
	meta        = "io.k8s.apimachinery.pkg.apis.meta.v1."
	deployment  = "io.k8s.api.apps.v1.Deployment"
	intOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	quantity    = "io.k8s.apimachinery.pkg.api.resource.Quantity"
)

func TestKindSchemaBuiltinKind(t *testing.T) {
	fake := apitest.NewServer(t, apitest.AppsV1())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	ks := getKindSchema(t, clientOf(t, openAPIClusters(t, fake), Identity{}), deploymentRes)

	if ks.Root != deployment {
		t.Errorf("root = %q", ks.Root)
	}
	// Only what Deployment reaches: not DeploymentList nor ListMeta.
	want := []string{
		"io.k8s.api.apps.v1.Deployment", "io.k8s.api.apps.v1.DeploymentCondition", "io.k8s.api.apps.v1.DeploymentSpec",
		"io.k8s.api.apps.v1.DeploymentStatus", "io.k8s.api.apps.v1.DeploymentStrategy", "io.k8s.api.apps.v1.RollingUpdateDeployment",
		"io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.ContainerPort", "io.k8s.api.core.v1.EnvVar", "io.k8s.api.core.v1.HTTPGetAction",
		"io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.PodTemplateSpec", "io.k8s.api.core.v1.Probe", "io.k8s.api.core.v1.ResourceRequirements",
		quantity, meta + "LabelSelector", meta + "LabelSelectorRequirement", meta + "ObjectMeta", meta + "OwnerReference", meta + "Time", intOrString,
	}
	if got := slices.Sorted(maps.Keys(ks.Schemas)); !slices.Equal(got, want) {
		t.Errorf("schemas = %v\nwant %v", got, want)
	}

	// allOf-wrapped references keep the wrapper's description, not its default.
	sameJSON(t, "Deployment.spec", at(t, ks, deployment, "spec"),
		`{"$ref":"io.k8s.api.apps.v1.DeploymentSpec","description":"Specification of the desired behavior of the Deployment."}`)
	sameJSON(t, "maxSurge", at(t, ks, "io.k8s.api.apps.v1.RollingUpdateDeployment", "maxSurge")["$ref"], `"`+intOrString+`"`)
	// Bare references (items, additionalProperties) and lists of them.
	sameJSON(t, "ports", at(t, ks, "io.k8s.api.core.v1.Container", "ports"), `{"type":"array","items":{"$ref":"io.k8s.api.core.v1.ContainerPort"},
		"description":"List of ports to expose from the container."}`)
	sameJSON(t, "limits", at(t, ks, "io.k8s.api.core.v1.ResourceRequirements", "limits"), `{"type":"object",
		"additionalProperties":{"$ref":"`+quantity+`"},"description":"Limits describes the maximum amount of compute resources allowed."}`)
	// The types and the enum, format and required keywords.
	sameJSON(t, "replicas", at(t, ks, "io.k8s.api.apps.v1.DeploymentSpec", "replicas"),
		`{"type":"integer","format":"int32","description":"Number of desired pods."}`)
	sameJSON(t, "DeploymentSpec.required", ks.Schemas["io.k8s.api.apps.v1.DeploymentSpec"]["required"], `["selector","template"]`)
	sameJSON(t, "imagePullPolicy enum", at(t, ks, "io.k8s.api.core.v1.Container", "imagePullPolicy")["enum"], `["Always","IfNotPresent","Never"]`)
	sameJSON(t, "Time", ks.Schemas[meta+"Time"], `{"type":"string","format":"date-time",
		"description":"Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON."}`)
	// IntOrString (oneOf integer/string) has no type; Quantity (oneOf
	// string/number) neither, and is no int-or-string.
	sameJSON(t, "IntOrString", ks.Schemas[intOrString], `{"format":"int-or-string","x-kubernetes-int-or-string":true,
		"description":"IntOrString is a type that can hold an int32 or a string."}`)
	if q := ks.Schemas[quantity]; q["type"] != nil || q["x-kubernetes-int-or-string"] != nil || q["description"] == "" {
		t.Errorf("Quantity = %v", q)
	}

	raw, _ := json.Marshal(ks)
	for _, dropped := range []string{"allOf", "oneOf", "default", "x-kubernetes-list-type", "x-kubernetes-patch-strategy", "x-kubernetes-group-version-kind", "#/components"} {
		if strings.Contains(string(raw), `"`+dropped) {
			t.Errorf("%s was kept", dropped)
		}
	}
}

func TestKindSchemaCRD(t *testing.T) {
	fake := apitest.NewServer(t)
	fake.SetOpenAPI("example.com", "v1", apitest.WidgetOpenAPI())
	ks := getKindSchema(t, clientOf(t, openAPIClusters(t, fake), Identity{}), widgetRes)

	const widget = "com.example.v1.Widget"
	if ks.Root != widget || len(ks.Schemas) != 4 || ks.Schemas[widget+"List"] != nil || ks.Schemas[meta+"ListMeta"] != nil {
		t.Errorf("root %q, schemas %v", ks.Root, slices.Sorted(maps.Keys(ks.Schemas)))
	}
	sameJSON(t, "metadata", at(t, ks, widget, "metadata"), `{"$ref":"`+meta+`ObjectMeta","description":"Standard object's metadata."}`)
	sameJSON(t, "port", at(t, ks, widget, "spec", "port"), `{"description":"Port number or name.","x-kubernetes-int-or-string":true}`)
	sameJSON(t, "config", at(t, ks, widget, "spec", "config"),
		`{"type":"object","description":"Free-form configuration.","x-kubernetes-preserve-unknown-fields":true}`)
	template := at(t, ks, widget, "spec", "template")
	if template["x-kubernetes-embedded-resource"] != true || template["x-kubernetes-preserve-unknown-fields"] != true || template["properties"] == nil {
		t.Errorf("template = %v", template)
	}
	sameJSON(t, "mode", at(t, ks, widget, "spec", "mode"), `{"type":"string","enum":["Fast","Slow"]}`)
	sameJSON(t, "maybe", at(t, ks, widget, "spec", "maybe"), `{"type":"string","nullable":true}`)
	sameJSON(t, "sizes", at(t, ks, widget, "spec", "sizes"), `{"type":"array","items":{"type":"integer","format":"int64"}}`)
	sameJSON(t, "labels", at(t, ks, widget, "spec", "labels"), `{"type":"object","additionalProperties":{"type":"string"}}`)
}

// apiextensionsOpenAPI is a cut of apiextensions.k8s.io/v1 as kube-apiserver
// 1.36 serves it: JSONSchemaProps refers to itself directly (allOf-wrapped
// and bare) and through JSONSchemaPropsOrArray, and has fields named like
// keywords.
const apiextensionsOpenAPI = `{
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition": {
		"description": "CustomResourceDefinition represents a resource that should be exposed on the API server.",
		"type": "object", "required": ["spec"],
		"properties": {
			"spec": {"description": "spec describes how the user wants the resources to appear", "default": {},
				"allOf": [{"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation"}]}
		},
		"x-kubernetes-group-version-kind": [{"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition", "version": "v1"}]
	},
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation": {
		"description": "CustomResourceValidation is a list of validation methods for CustomResources.",
		"type": "object",
		"properties": {
			"openAPIV3Schema": {"description": "openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.",
				"allOf": [{"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"}]}
		}
	},
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps": {
		"description": "JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).",
		"type": "object",
		"properties": {
			"$ref": {"type": "string"},
			"type": {"type": "string"},
			"properties": {"type": "object", "additionalProperties": {"default": {},
				"allOf": [{"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"}]}},
			"items": {"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray"},
			"not": {"$ref": "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"},
			"x-kubernetes-int-or-string": {"description": "x-kubernetes-int-or-string specifies that this value is either an integer or a string.", "type": "boolean"}
		}
	},
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": {
		"description": "JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps or an array of JSONSchemaProps."
	},
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": {
		"description": "JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value."
	}
}`

func TestKindSchemaCycles(t *testing.T) {
	var schemas map[string]any
	if err := json.Unmarshal([]byte(apiextensionsOpenAPI), &schemas); err != nil {
		t.Fatal(err)
	}
	fake := apitest.NewServer(t)
	fake.SetOpenAPI("apiextensions.k8s.io", "v1", schemas)
	ks := getKindSchema(t, clientOf(t, openAPIClusters(t, fake), Identity{}),
		Resource{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Kind: "CustomResourceDefinition"})

	const ext = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
	if got := slices.Sorted(maps.Keys(ks.Schemas)); !slices.Equal(got, []string{ext + "CustomResourceDefinition", ext + "CustomResourceValidation", ext + "JSONSchemaProps", ext + "JSONSchemaPropsOrArray"}) {
		t.Errorf("schemas = %v", got)
	}
	props := ext + "JSONSchemaProps"
	sameJSON(t, "properties", at(t, ks, props, "properties"), `{"type":"object","additionalProperties":{"$ref":"`+props+`"}}`)
	sameJSON(t, "not", at(t, ks, props, "not"), `{"$ref":"`+props+`"}`)
	// Fields named like keywords are fields.
	sameJSON(t, "$ref field", at(t, ks, props, "$ref"), `{"type":"string"}`)
	sameJSON(t, "x-kubernetes-int-or-string field", at(t, ks, props, "x-kubernetes-int-or-string")["type"], `"boolean"`)
}

func TestKindSchemaMatchesGroupVersionKind(t *testing.T) {
	fake := apitest.NewServer(t)
	fake.SetOpenAPI("apps", "v1", map[string]any{
		// Same kind, other version: the name alone would mislead.
		"io.k8s.api.apps.v1.Deployment": map[string]any{"description": "v1beta2", "type": "object",
			"x-kubernetes-group-version-kind": []any{map[string]any{"group": "apps", "version": "v1beta2", "kind": "Deployment"}}},
		"custom.Deployment": map[string]any{"description": "the one", "type": "object",
			"x-kubernetes-group-version-kind": []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}}},
		// One schema for many kinds, as DeleteOptions is.
		"meta.DeleteOptions": map[string]any{"description": "delete options", "type": "object",
			"x-kubernetes-group-version-kind": []any{
				map[string]any{"group": "", "version": "v1", "kind": "DeleteOptions"},
				map[string]any{"group": "apps", "version": "v1", "kind": "DeleteOptions"},
			}},
	})
	c := clientOf(t, openAPIClusters(t, fake), Identity{})
	if ks := getKindSchema(t, c, deploymentRes); ks.Root != "custom.Deployment" || len(ks.Schemas) != 1 {
		t.Errorf("Deployment: %+v", ks)
	}
	if ks := getKindSchema(t, c, Resource{Group: "apps", Version: "v1", Kind: "DeleteOptions"}); ks.Root != "meta.DeleteOptions" {
		t.Errorf("DeleteOptions: %+v", ks)
	}
	for _, r := range []Resource{
		{Group: "apps", Version: "v1", Name: "statefulsets", Kind: "StatefulSet"},
		{Group: "apps", Version: "v1", Name: "deployments"}, // no kind
	} {
		if _, err := c.KindSchema(context.Background(), r); !errors.Is(err, ErrNoOpenAPI) {
			t.Errorf("%s: err = %v, want ErrNoOpenAPI", r.Name, err)
		}
	}
}

func TestKindSchemaErrors(t *testing.T) {
	status := func(code int32, reason metav1.StatusReason) metav1.Status {
		return metav1.Status{Code: code, Reason: reason, Message: string(reason)}
	}
	for _, tc := range []struct {
		name       string
		setup      func(*apitest.Server)
		noOpenAPI  bool
		statusCode int32 // of the server's Status the error wraps, if any
	}{
		{"no OpenAPI v3 (404)", func(*apitest.Server) {}, true, 404},
		{"group version not in the index", func(s *apitest.Server) {
			s.SetOpenAPI("", "v1", map[string]any{"Pod": map[string]any{}})
		}, true, 0},
		{"index forbidden (403)", func(s *apitest.Server) {
			s.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
			s.FailPath("/openapi/v3", apitest.Forbidden("alice", "get", "", "", ""))
		}, true, 403},
		{"document gone (404)", func(s *apitest.Server) {
			s.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
			s.FailPath("/openapi/v3/apis/apps/v1", apitest.NotFound("", "", ""))
		}, true, 404},
		{"index not JSON", func(s *apitest.Server) {
			s.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>console</html>")) })
		}, true, 0},
		{"document not JSON (kube-apiserver's empty 200)", func(s *apitest.Server) {
			s.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
			s.Override("/openapi/v3/apis/apps/v1", func(http.ResponseWriter, *http.Request) {})
		}, true, 0},
		{"index points elsewhere", func(s *apitest.Server) {
			s.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(`{"paths":{"apis/apps/v1":{"serverRelativeURL":"/openapi/v3/../../api/v1/secrets"}}}`))
			})
		}, true, 0},
		{"unauthorized (401) is a failure", func(s *apitest.Server) {
			s.FailPath("/openapi/v3", status(401, metav1.StatusReasonUnauthorized))
		}, false, 401},
		{"index 500 is a failure", func(s *apitest.Server) {
			s.FailPath("/openapi/v3", status(500, metav1.StatusReasonInternalError))
		}, false, 500},
		{"document 500 is a failure", func(s *apitest.Server) {
			s.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
			s.FailPath("/openapi/v3/apis/apps/v1", status(500, metav1.StatusReasonInternalError))
		}, false, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServer(t, apitest.AppsV1())
			tc.setup(fake)
			_, err := clientOf(t, openAPIClusters(t, fake), Identity{}).KindSchema(context.Background(), deploymentRes)
			if err == nil || errors.Is(err, ErrNoOpenAPI) != tc.noOpenAPI {
				t.Fatalf("err = %v, want ErrNoOpenAPI: %v", err, tc.noOpenAPI)
			}
			var st apierrors.APIStatus
			if got := errors.As(err, &st); got != (tc.statusCode != 0) || got && st.Status().Code != tc.statusCode {
				t.Errorf("err = %v, want the server's %d Status wrapped", err, tc.statusCode)
			}
		})
	}
}

// openAPIRequests counts the requests for the index and for documents.
func openAPIRequests(fake *apitest.Server) (index, docs int) {
	for _, r := range fake.Requests() {
		switch {
		case r.URL.Path == "/openapi/v3":
			index++
		case strings.HasPrefix(r.URL.Path, "/openapi/v3/"):
			docs++
		}
	}
	fake.ResetRequests()
	return index, docs
}

func TestKindSchemaCache(t *testing.T) {
	fake := apitest.NewServer(t, apitest.AppsV1())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	cs := openAPIClusters(t, fake)
	alice := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: "alice"}})
	bob := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: "bob"}})
	ctx := context.Background()
	call := func(c *Client, r Resource) ([]byte, error) {
		t.Helper()
		out, err := c.KindSchema(ctx, r)
		if err != nil && !errors.Is(err, ErrNoOpenAPI) {
			t.Fatal(err)
		}
		return out, err
	}
	expect := func(what string, wantIndex, wantDocs int) {
		t.Helper()
		if index, docs := openAPIRequests(fake); index != wantIndex || docs != wantDocs {
			t.Errorf("%s: %d index and %d document requests, want %d and %d", what, index, docs, wantIndex, wantDocs)
		}
	}

	first, _ := call(alice, deploymentRes)
	expect("first call", 1, 1)
	// Another user of the Clusters: the index again, as bob (it is the
	// authorization check), and not the document.
	again, _ := call(bob, deploymentRes)
	for _, r := range fake.Requests() {
		if r.Header.Get("Impersonate-User") != "bob" {
			t.Errorf("%s went as %q, want bob", r.URL, r.Header.Get("Impersonate-User"))
		}
	}
	expect("second call", 1, 0)
	if string(again) != string(first) {
		t.Error("the cached answer differs")
	}

	// An answer that the kind is not in the document is cached as well.
	daemonsets := Resource{Group: "apps", Version: "v1", Name: "daemonsets", Kind: "DaemonSet"}
	if _, err := call(alice, daemonsets); err == nil {
		t.Fatal("DaemonSet is not in the fixture")
	}
	expect("another kind", 1, 1)
	if _, err := call(alice, daemonsets); !errors.Is(err, ErrNoOpenAPI) {
		t.Errorf("cached absent kind: err = %v", err)
	}
	expect("the absent kind again", 1, 0)

	// A failed index is no cache hit.
	fake.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, apitest.Forbidden("alice", "get", "", "", ""))
	})
	if _, err := call(alice, deploymentRes); !errors.Is(err, ErrNoOpenAPI) || !apierrors.IsForbidden(err) {
		t.Errorf("forbidden index: err = %v", err)
	}
	fake.Override("/openapi/v3", nil)
	expect("forbidden index", 1, 0)

	// New content, new hash: fetched again.
	changed := apitest.AppsV1OpenAPI()
	changed[deployment].(map[string]any)["description"] = "Deployment, revised."
	fake.SetOpenAPI("apps", "v1", changed)
	ks := getKindSchema(t, alice, deploymentRes)
	expect("after a change", 1, 1)
	if ks.Schemas[deployment]["description"] != "Deployment, revised." {
		t.Errorf("after a change: %v", ks.Schemas[deployment]["description"])
	}

	// Another Clusters shares nothing.
	call(clientOf(t, openAPIClusters(t, fake), Identity{}), deploymentRes)
	expect("another Clusters", 1, 1)
}

func TestKindSchemaNoHashIsNotCached(t *testing.T) {
	fake := apitest.NewServer(t, apitest.AppsV1())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	// An index whose URLs name no hash (the fake serves the document at
	// the bare URL too).
	fake.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"paths":{"apis/apps/v1":{"serverRelativeURL":"/openapi/v3/apis/apps/v1"}}}`))
	})
	c := clientOf(t, openAPIClusters(t, fake), Identity{})
	for range 2 {
		getKindSchema(t, c, deploymentRes)
	}
	if index, docs := openAPIRequests(fake); index != 2 || docs != 2 {
		t.Errorf("%d index and %d document requests, want 2 and 2", index, docs)
	}
}

// awaitFlightWaiters waits until n callers wait on sc's document fetches.
func awaitFlightWaiters(t *testing.T, sc *kindSchemaCache, n int32) {
	t.Helper()
	apitest.WaitFor(t, 5*time.Second, func() error {
		if w := sc.waiting.Load(); w != n {
			return fmt.Errorf("%d callers waiting, want %d", w, n)
		}
		return nil
	})
}

func TestKindSchemaCacheSharesDocumentFetches(t *testing.T) {
	sc := newKindSchemaCache()
	var fetches atomic.Int32
	release := make(chan struct{})
	fetch := func(ctx context.Context) (*openAPIDocument, error) {
		fetches.Add(1)
		select {
		case <-release:
			return &openAPIDocument{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// The first caller leaves before the fetch ends: the others still get it.
	leaving, leave := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		_, err := sc.document(leaving, "dev /openapi/v3/apis/apps/v1?hash=A", fetch)
		left <- err
	}()
	awaitFlightWaiters(t, sc, 1)
	var wg sync.WaitGroup
	docs := make([]*openAPIDocument, 5)
	for i := range docs {
		wg.Go(func() {
			d, err := sc.document(context.Background(), "dev /openapi/v3/apis/apps/v1?hash=A", fetch)
			if err != nil {
				t.Error(err)
			}
			docs[i] = d
		})
	}
	awaitFlightWaiters(t, sc, 6)
	leave()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that left: %v", err)
	}
	close(release)
	wg.Wait()
	if fetches.Load() != 1 {
		t.Errorf("%d fetches, want 1", fetches.Load())
	}
	for _, d := range docs[1:] {
		if d == nil || d != docs[0] {
			t.Error("callers got different documents")
		}
	}
	// Another document is another fetch.
	if _, err := sc.document(context.Background(), "dev /openapi/v3/api/v1?hash=B", fetch); err != nil || fetches.Load() != 2 {
		t.Errorf("another document: %v after %d fetches", err, fetches.Load())
	}
}

func TestKindSchemaCacheIsBounded(t *testing.T) {
	sc := newKindSchemaCache()
	sc.maxEntries, sc.maxBytes = 3, 10
	key := func(kind string) kindSchemaKey {
		return kindSchemaKey{context: "dev", url: "/openapi/v3/apis/apps/v1?hash=A", gvk: deploymentRes.GroupVersion().WithKind(kind)}
	}
	has := func() string {
		var got []string
		for _, k := range []string{"A", "B", "C", "D", "E"} {
			if _, ok := sc.entries[key(k)]; ok {
				got = append(got, k)
			}
		}
		return strings.Join(got, "")
	}
	sc.add(key("A"), []byte("aa"), nil)
	sc.add(key("B"), nil, ErrNoOpenAPI)
	sc.add(key("C"), []byte("cc"), nil)
	sc.get(key("A")) // A is now the most recently used
	sc.add(key("D"), []byte("dd"), nil)
	if got := has(); got != "ACD" {
		t.Errorf("after 4 entries into 3: %s, want ACD", got)
	}
	sc.add(key("E"), []byte("eeeeeee"), nil) // 13 bytes: the least recently used two go
	if got := has(); got != "DE" || sc.size != 9 {
		t.Errorf("over the byte bound: %s holding %d bytes, want DE holding 9", got, sc.size)
	}
	sc.add(key("B"), []byte("a schema larger than the whole cache"), nil)
	if got := has(); got != "DE" {
		t.Errorf("an entry larger than the cache was kept: %s", got)
	}
	if e, ok := sc.get(key("E")); !ok || string(e.schema) != "eeeeeee" {
		t.Errorf("get(E) = %v, %v", e, ok)
	}
}
