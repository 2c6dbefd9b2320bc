package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

var (
	lighthousesRes = apiclient.Resource{Group: "maritime.tabula.dev", Version: "v1alpha1", Name: "lighthouses", Kind: "Lighthouse", Namespaced: true,
		Subresources: []string{"status", "scale"}}
	secretsRes = apiclient.Resource{Version: "v1", Name: "secrets", Kind: "Secret", Namespaced: true}
)

// writeWorld is a fake with a deployment, a service and a pod demo/web, and
// a lighthouse demo/fastnet (a custom resource with status and scale).
func writeWorld(t *testing.T, opts apitest.Options) (*apitest.Server, *apiclient.Client) {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1(), apitest.MaritimeV1Alpha1())
	fake.Add(apitest.Deployment("demo", "web", 3, map[string]string{"app": "web"}), apitest.Service("demo", "web", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web", nil), apitest.Lighthouse("demo", "fastnet", "Celtic Sea", 2))
	return fake, clientFor(t, fake)
}

// current is the object as the fake stores it now.
func current(t *testing.T, c *apiclient.Client, r apiclient.Resource, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := c.GetObject(context.Background(), r, "demo", name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// statusOf is the server's Status an error carries.
func statusOf(t *testing.T, err error) metav1.Status {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("err = %v (%T), want an APIStatus", err, err)
	}
	return status.Status()
}

func TestPatch(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		opts        apitest.Options
		r           apiclient.Resource
		obj, sub    string
		mergePatch  string // %RV% is the object's resourceVersion, "1" a stale one
		wopts       apiclient.WriteOptions
		wantTypes   []string // the patch types sent, in order
		wantCode    int32    // of the error; 0 for none
		wantReason  metav1.StatusReason
		check       func(t *testing.T, res *apiclient.PatchResult, before, after *unstructured.Unstructured)
		wantMessage string
	}{
		{name: "merge patch", r: deploymentsRes, obj: "web", mergePatch: `{"metadata":{"resourceVersion":"%RV%"},"spec":{"replicas":5}}`,
			wantTypes: []string{apiclient.MergePatchType},
			check: func(t *testing.T, res *apiclient.PatchResult, before, after *unstructured.Unstructured) {
				replicas, _, _ := unstructured.NestedInt64(after.Object, "spec", "replicas")
				if replicas != 5 || res.Object.GetResourceVersion() != after.GetResourceVersion() || after.GetResourceVersion() == before.GetResourceVersion() {
					t.Errorf("stored replicas %d rv %s, answered rv %s", replicas, after.GetResourceVersion(), res.Object.GetResourceVersion())
				}
				if mf := after.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "tabula" {
					t.Errorf("managedFields %+v", mf)
				}
			}},
		{name: "a field manager of one's own", r: deploymentsRes, obj: "web", mergePatch: `{"spec":{"paused":true}}`,
			wopts: apiclient.WriteOptions{FieldManager: "tabula-edit"}, wantTypes: []string{apiclient.MergePatchType},
			check: func(t *testing.T, _ *apiclient.PatchResult, _, after *unstructured.Unstructured) {
				if mf := after.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "tabula-edit" {
					t.Errorf("managedFields %+v", mf)
				}
			}},
		{name: "stale resourceVersion: 409", r: deploymentsRes, obj: "web", mergePatch: `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":5}}`,
			wantTypes: []string{apiclient.MergePatchType}, wantCode: 409, wantReason: metav1.StatusReasonConflict,
			wantMessage: `Operation cannot be fulfilled on deployments.apps "web": the object has been modified`},
		{name: "415: JSON Patch with the resourceVersion test", opts: apitest.Options{NoMergePatch: true}, r: deploymentsRes, obj: "web",
			mergePatch: `{"metadata":{"resourceVersion":"%RV%","labels":{"app":null,"tier":"front"}},"spec":{"replicas":5}}`,
			wantTypes:  []string{apiclient.MergePatchType, apiclient.JSONPatchType},
			check: func(t *testing.T, res *apiclient.PatchResult, before, after *unstructured.Unstructured) {
				want := `[{"op":"test","path":"/metadata/resourceVersion","value":"` + before.GetResourceVersion() + `"},` +
					`{"op":"remove","path":"/metadata/labels/app"},{"op":"add","path":"/metadata/labels/tier","value":"front"},{"op":"add","path":"/spec/replicas","value":5}]`
				if res.Type != apiclient.JSONPatchType || string(res.Body) != want {
					t.Errorf("result %s %s, want %s", res.Type, res.Body, want)
				}
				replicas, _, _ := unstructured.NestedInt64(after.Object, "spec", "replicas")
				if replicas != 5 || after.GetLabels()["tier"] != "front" || after.GetLabels()["app"] != "" {
					t.Errorf("stored %v", after.Object)
				}
			}},
		{name: "415, stale resourceVersion: the failed test is kube-apiserver's generic 422", opts: apitest.Options{NoMergePatch: true}, r: deploymentsRes, obj: "web",
			mergePatch: `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":5}}`,
			wantTypes:  []string{apiclient.MergePatchType, apiclient.JSONPatchType}, wantCode: 422, wantReason: metav1.StatusReasonInvalid,
			wantMessage: "the server rejected our request due to an error in our request"},
		{name: "dry run", r: deploymentsRes, obj: "web", mergePatch: `{"spec":{"replicas":5}}`, wopts: apiclient.WriteOptions{DryRun: true},
			wantTypes: []string{apiclient.MergePatchType},
			check: func(t *testing.T, res *apiclient.PatchResult, before, after *unstructured.Unstructured) {
				answered, _, _ := unstructured.NestedInt64(res.Object.Object, "spec", "replicas")
				stored, _, _ := unstructured.NestedInt64(after.Object, "spec", "replicas")
				if answered != 5 || stored != 3 || after.GetResourceVersion() != before.GetResourceVersion() {
					t.Errorf("answered %d, stored %d", answered, stored)
				}
			}},
		{name: "status subresource", r: lighthousesRes, obj: "fastnet", sub: "status", mergePatch: `{"status":{"replicas":1}}`,
			wantTypes: []string{apiclient.MergePatchType},
			check: func(t *testing.T, res *apiclient.PatchResult, _, after *unstructured.Unstructured) {
				if n, _, _ := unstructured.NestedInt64(after.Object, "status", "replicas"); n != 1 || res.Object.GetKind() != "Lighthouse" {
					t.Errorf("stored status %v", after.Object["status"])
				}
			}},
		{name: "immutable field: 422 with its cause", opts: apitest.Options{Immutable: map[string][]string{"services": {"spec.clusterIP"}}},
			r: servicesRes, obj: "web", mergePatch: `{"spec":{"clusterIP":"10.0.0.1"}}`,
			wantTypes: []string{apiclient.MergePatchType}, wantCode: 422, wantReason: metav1.StatusReasonInvalid,
			wantMessage: `Service "web" is invalid: spec.clusterIP: Invalid value: "10.0.0.1": field is immutable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := writeWorld(t, tc.opts)
			before := current(t, c, tc.r, tc.obj)
			fake.ResetRequests()
			patch := strings.ReplaceAll(tc.mergePatch, "%RV%", before.GetResourceVersion())
			res, err := c.Patch(ctx, tc.r, "demo", tc.obj, tc.sub, []byte(patch), tc.wopts)
			writes := fake.Writes()
			if len(writes) != len(tc.wantTypes) {
				t.Fatalf("%d writes, want %d", len(writes), len(tc.wantTypes))
			}
			for i, w := range writes {
				path := tc.r.Path("demo", tc.obj)
				if tc.sub != "" {
					path += "/" + tc.sub
				}
				manager := tc.wopts.FieldManager
				if manager == "" {
					manager = "tabula"
				}
				if w.Method != http.MethodPatch || w.Path != path || w.ContentType != tc.wantTypes[i] || w.Query.Get("fieldManager") != manager ||
					(w.Query.Get("dryRun") == "All") != tc.wopts.DryRun {
					t.Errorf("write %d: %s %s %s %v", i, w.Method, w.Path, w.ContentType, w.Query)
				}
				if accept := fake.Requests()[i].Header.Get("Accept"); accept != "application/json" {
					t.Errorf("Accept %q", accept)
				}
			}
			if string(writes[0].Body) != patch {
				t.Errorf("sent %s, want %s", writes[0].Body, patch)
			}
			if tc.wantCode != 0 {
				st := statusOf(t, err)
				if st.Code != tc.wantCode || st.Reason != tc.wantReason || !strings.Contains(st.Message, tc.wantMessage) || res != nil {
					t.Fatalf("status %d %s %q, result %v", st.Code, st.Reason, st.Message, res)
				}
				if tc.wantReason == metav1.StatusReasonInvalid && strings.Contains(tc.wantMessage, "immutable") &&
					(st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "spec.clusterIP") {
					t.Errorf("causes lost: %+v", st.Details)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Type != tc.wantTypes[len(tc.wantTypes)-1] || string(res.Body) != string(writes[len(writes)-1].Body) {
				t.Errorf("result says %s %s, sent %s", res.Type, res.Body, writes[len(writes)-1].Body)
			}
			if tc.check != nil {
				tc.check(t, res, before, current(t, c, tc.r, tc.obj))
			}
		})
	}
}

// TestWritesAreNotRetried: a 429 with Retry-After, which client-go would
// retry up to ten times, is the caller's error after one request.
func TestWritesAreNotRetried(t *testing.T) {
	fake, c := writeWorld(t, apitest.Options{})
	ctx := context.Background()
	fake.FailResource("apps", "deployments", apitest.TooManyRequests(1))
	fake.FailResource("maritime.tabula.dev", "lighthouses", apitest.TooManyRequests(1))
	fake.FailResource("", "secrets", apitest.TooManyRequests(1))
	for name, write := range map[string]func() error{
		"Patch": func() error {
			_, err := c.Patch(ctx, deploymentsRes, "demo", "web", "", []byte(`{}`), apiclient.WriteOptions{})
			return err
		},
		"Create": func() error {
			_, err := c.Create(ctx, secretsRes, "demo", apitest.Object("v1", "Secret", "demo", "s", nil), apiclient.WriteOptions{})
			return err
		},
		"Delete": func() error {
			_, err := c.Delete(ctx, deploymentsRes, "demo", "web", apiclient.DeleteOptions{})
			return err
		},
		"ScaleTo": func() error {
			_, err := c.ScaleTo(ctx, lighthousesRes, "demo", "fastnet", 1, "", apiclient.WriteOptions{})
			return err
		},
	} {
		fake.ResetRequests()
		if st := statusOf(t, write()); st.Code != http.StatusTooManyRequests {
			t.Errorf("%s: %d", name, st.Code)
		}
		if n := len(fake.Writes()); n != 1 {
			t.Errorf("%s: %d requests, want 1", name, n)
		}
	}
}

// TestWritesCheckFirst: what cannot name one object fails before any request.
func TestWritesCheckFirst(t *testing.T) {
	fake, c := writeWorld(t, apitest.Options{})
	ctx := context.Background()
	fake.ResetRequests()
	for name, err := range map[string]error{
		"bad name": func() error {
			_, err := c.Patch(ctx, deploymentsRes, "demo", "../web", "", []byte(`{}`), apiclient.WriteOptions{})
			return err
		}(),
		"bad namespace": func() error {
			_, err := c.Create(ctx, secretsRes, "a/b", apitest.Object("v1", "Secret", "", "s", nil), apiclient.WriteOptions{})
			return err
		}(),
		"no name": func() error {
			_, err := c.Delete(ctx, deploymentsRes, "demo", "", apiclient.DeleteOptions{})
			return err
		}(),
		"no namespace": func() error {
			_, err := c.Delete(ctx, deploymentsRes, "", "web", apiclient.DeleteOptions{})
			return err
		}(),
		"no namespace to create in": func() error {
			_, err := c.Create(ctx, secretsRes, "", apitest.Object("v1", "Secret", "demo", "s", nil), apiclient.WriteOptions{})
			return err
		}(),
		"subresource not served": func() error {
			_, err := c.Patch(ctx, servicesRes, "demo", "web", "scale", []byte(`{}`), apiclient.WriteOptions{})
			return err
		}(),
		"no scale": func() error {
			_, err := c.ScaleTo(ctx, podsRes, "demo", "web", 1, "", apiclient.WriteOptions{})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestCreate(t *testing.T) {
	fake, c := writeWorld(t, apitest.Options{})
	ctx := context.Background()
	secret := func(name, generateName string) *unstructured.Unstructured {
		o := apitest.Object("v1", "Secret", "demo", name, map[string]any{"data": map[string]any{"k": "dg=="}})
		o.SetUID("")
		o.SetGenerateName(generateName)
		return o
	}

	fake.ResetRequests()
	created, err := c.Create(ctx, secretsRes, "demo", secret("s1", ""), apiclient.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ts := created.GetCreationTimestamp(); created.GetName() != "s1" || created.GetUID() == "" || created.GetResourceVersion() == "" || ts.IsZero() {
		t.Errorf("created %v", created.Object["metadata"])
	}
	w := fake.Writes()[0]
	var sent map[string]any
	if err := json.Unmarshal(w.Body, &sent); err != nil {
		t.Fatal(err)
	}
	if w.Method != http.MethodPost || w.Path != "/api/v1/namespaces/demo/secrets" || w.ContentType != "application/json" ||
		w.Query.Get("fieldManager") != "tabula" || sent["kind"] != "Secret" {
		t.Errorf("write %s %s %s %v %s", w.Method, w.Path, w.ContentType, w.Query, w.Body)
	}

	generated, err := c.Create(ctx, secretsRes, "demo", secret("", "web-"), apiclient.WriteOptions{})
	if err != nil || !strings.HasPrefix(generated.GetName(), "web-") || len(generated.GetName()) != len("web-")+5 {
		t.Errorf("generateName: %v %v", generated, err)
	}

	_, err = c.Create(ctx, secretsRes, "demo", secret("s1", ""), apiclient.WriteOptions{})
	if st := statusOf(t, err); !apierrors.IsAlreadyExists(err) || st.Message != `secrets "s1" already exists` || st.Details.Name != "s1" {
		t.Errorf("existing name: %+v", st)
	}

	_, err = c.Create(ctx, secretsRes, "demo", secret("", ""), apiclient.WriteOptions{})
	if st := statusOf(t, err); st.Code != 422 || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "metadata.name" {
		t.Errorf("no name: %+v", st)
	}

	copied := current(t, c, deploymentsRes, "web")
	copied.SetName("web-copy")
	rv := copied.GetResourceVersion()
	if _, err := c.Create(ctx, deploymentsRes, "demo", copied, apiclient.WriteOptions{}); err != nil {
		t.Errorf("an object copied with its resourceVersion: %v", err)
	}
	if copied.GetResourceVersion() != rv {
		t.Error("Create changed the caller's object")
	}

	dry, err := c.Create(ctx, secretsRes, "demo", secret("dry", ""), apiclient.WriteOptions{DryRun: true})
	if err != nil || dry.GetName() != "dry" {
		t.Fatalf("dry run: %v %v", dry, err)
	}
	if _, err := c.GetObject(ctx, secretsRes, "demo", "dry"); !apierrors.IsNotFound(err) {
		t.Errorf("a dry run created the object: %v", err)
	}

	// A manifest's apiVersion and kind find the collection.
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lh := apitest.Lighthouse("", "eddystone", "Channel", 1)
	r, ok := d.ForKind(lh.GetAPIVersion(), lh.GetKind())
	if !ok {
		t.Fatal("ForKind found no lighthouses")
	}
	if created, err := c.Create(ctx, r, "demo", lh, apiclient.WriteOptions{}); err != nil || created.GetNamespace() != "demo" {
		t.Errorf("lighthouse: %v %v", created, err)
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	grace := int64(0)
	for _, tc := range []struct {
		name       string
		r          apiclient.Resource
		obj        string
		opts       apiclient.DeleteOptions
		wantBody   string // the DeleteOptions sent; %UID% and %RV% are the object's
		wantKind   string // of the answer
		deleting   bool   // the answer has a deletionTimestamp
		kept       bool
		wantReason metav1.StatusReason // of an error
	}{
		{name: "a Status for most resources", r: deploymentsRes, obj: "web",
			wantBody: `{"kind":"DeleteOptions","apiVersion":"v1"}`, wantKind: "Status"},
		{name: "the object for pods", r: podsRes, obj: "web", opts: apiclient.DeleteOptions{GracePeriodSeconds: &grace},
			wantBody: `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}`, wantKind: "Pod"},
		{name: "a Status for custom resources", r: lighthousesRes, obj: "fastnet", wantKind: "Status"},
		{name: "Foreground keeps the object, marked", r: deploymentsRes, obj: "web", opts: apiclient.DeleteOptions{Propagation: "Foreground"},
			wantBody: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}`, wantKind: "Deployment", deleting: true, kept: true},
		{name: "preconditions that hold", r: deploymentsRes, obj: "web", opts: apiclient.DeleteOptions{UID: "%UID%", ResourceVersion: "%RV%"},
			wantBody: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"%UID%","resourceVersion":"%RV%"}}`, wantKind: "Status"},
		{name: "a uid precondition that does not hold: 409", r: deploymentsRes, obj: "web", opts: apiclient.DeleteOptions{UID: "other"},
			kept: true, wantReason: metav1.StatusReasonConflict},
		{name: "a resourceVersion precondition that does not hold: 409", r: deploymentsRes, obj: "web", opts: apiclient.DeleteOptions{ResourceVersion: "1"},
			kept: true, wantReason: metav1.StatusReasonConflict},
		{name: "dry run", r: deploymentsRes, obj: "web", opts: apiclient.DeleteOptions{DryRun: true, Propagation: "Background"},
			wantBody: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background","dryRun":["All"]}`, wantKind: "Status", kept: true},
		{name: "missing: 404", r: deploymentsRes, obj: "nope", wantReason: metav1.StatusReasonNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := writeWorld(t, apitest.Options{})
			var uid, rv string
			if tc.obj != "nope" {
				before := current(t, c, tc.r, tc.obj)
				uid, rv = string(before.GetUID()), before.GetResourceVersion()
			}
			fill := strings.NewReplacer("%UID%", uid, "%RV%", rv).Replace
			tc.opts.UID, tc.opts.ResourceVersion = fill(tc.opts.UID), fill(tc.opts.ResourceVersion)
			fake.ResetRequests()
			got, err := c.Delete(ctx, tc.r, "demo", tc.obj, tc.opts)
			w := fake.Writes()[0]
			if w.Method != http.MethodDelete || w.Path != tc.r.Path("demo", tc.obj) || w.ContentType != "application/json" ||
				tc.wantBody != "" && string(w.Body) != fill(tc.wantBody) {
				t.Errorf("write %s %s %s %s", w.Method, w.Path, w.ContentType, w.Body)
			}
			if tc.wantReason != "" {
				if st := statusOf(t, err); st.Reason != tc.wantReason || got != nil {
					t.Errorf("status %+v, answer %v", st, got)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got.GetKind() != tc.wantKind || (got.GetDeletionTimestamp() != nil) != tc.deleting {
				t.Errorf("answer %v", got.Object)
			}
			if tc.obj == "nope" {
				return
			}
			_, err = c.GetObject(ctx, tc.r, "demo", tc.obj)
			if kept := err == nil; kept != tc.kept {
				t.Errorf("kept = %v (%v)", kept, err)
			}
		})
	}
}

func TestScaleTo(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		opts       apitest.Options
		r          apiclient.Resource
		obj        string
		rv         string // "%RV%" for the current one
		wantWrites []string
		wantBody   string // of the first write
		wantReason metav1.StatusReason
		want       apiclient.Scale // ResourceVersion not compared
	}{
		{name: "custom resource with a scale subresource", r: lighthousesRes, obj: "fastnet", rv: "%RV%",
			wantWrites: []string{apiclient.MergePatchType}, wantBody: `{"metadata":{"resourceVersion":"%RV%"},"spec":{"replicas":5}}`,
			want: apiclient.Scale{Desired: 5, Current: 2, Selector: "lighthouse=fastnet"}},
		{name: "no precondition", r: deploymentsRes, obj: "web",
			wantWrites: []string{apiclient.MergePatchType}, wantBody: `{"spec":{"replicas":5}}`,
			want: apiclient.Scale{Desired: 5, Current: 3, Selector: "app=web"}},
		{name: "stale resourceVersion: 409", r: lighthousesRes, obj: "fastnet", rv: "1",
			wantWrites: []string{apiclient.MergePatchType}, wantReason: metav1.StatusReasonConflict},
		{name: "415: JSON Patch against the current Scale", opts: apitest.Options{NoMergePatch: true}, r: lighthousesRes, obj: "fastnet", rv: "%RV%",
			wantWrites: []string{apiclient.MergePatchType, apiclient.JSONPatchType},
			want:       apiclient.Scale{Desired: 5, Current: 2, Selector: "lighthouse=fastnet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := writeWorld(t, tc.opts)
			rv := current(t, c, tc.r, tc.obj).GetResourceVersion()
			fake.ResetRequests()
			got, err := c.ScaleTo(ctx, tc.r, "demo", tc.obj, 5, strings.ReplaceAll(tc.rv, "%RV%", rv), apiclient.WriteOptions{})
			writes := fake.Writes()
			if len(writes) != len(tc.wantWrites) {
				t.Fatalf("%d writes, want %d", len(writes), len(tc.wantWrites))
			}
			for i, w := range writes {
				if w.Method != http.MethodPatch || w.Path != tc.r.Path("demo", tc.obj)+"/scale" || w.ContentType != tc.wantWrites[i] {
					t.Errorf("write %d: %s %s %s", i, w.Method, w.Path, w.ContentType)
				}
			}
			if tc.wantBody != "" && string(writes[0].Body) != strings.ReplaceAll(tc.wantBody, "%RV%", rv) {
				t.Errorf("sent %s", writes[0].Body)
			}
			if len(writes) == 2 {
				if reqs := fake.Requests(); len(reqs) != 3 || reqs[1].Method != http.MethodGet || reqs[1].URL.Path != tc.r.Path("demo", tc.obj)+"/scale" {
					t.Errorf("the fallback did not read the Scale first: %d requests", len(reqs))
				}
				if want := `[{"op":"test","path":"/metadata/resourceVersion","value":"` + rv + `"},{"op":"add","path":"/spec/replicas","value":5}]`; string(writes[1].Body) != want {
					t.Errorf("JSON Patch %s, want %s", writes[1].Body, want)
				}
			}
			if tc.wantReason != "" {
				if st := statusOf(t, err); st.Reason != tc.wantReason {
					t.Errorf("status %+v", st)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			after := current(t, c, tc.r, tc.obj).GetResourceVersion()
			if got.ResourceVersion != after || after == rv {
				t.Errorf("scale resourceVersion %q, object %q (was %q)", got.ResourceVersion, after, rv)
			}
			got.ResourceVersion = ""
			if *got != tc.want {
				t.Errorf("scale %+v, want %+v", *got, tc.want)
			}
		})
	}
}

// The console's writes are recorded under LoadOptions.FieldManager, unless
// a write names its own.
func TestWritesUseTheConsolesFieldManager(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	c := clientWith(t, fake, apiclient.LoadOptions{FieldManager: "tabula-prod"})
	pods := apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}
	patch := []byte(`{"metadata":{"labels":{"tier":"web"}}}`)
	for _, tc := range []struct {
		opts apiclient.WriteOptions
		want string
	}{{apiclient.WriteOptions{}, "tabula-prod"}, {apiclient.WriteOptions{FieldManager: "tabula-edit"}, "tabula-edit"}} {
		if _, err := c.Patch(context.Background(), pods, "demo", "web-1", "", patch, tc.opts); err != nil {
			t.Fatal(err)
		}
		writes := fake.Writes()
		if got := writes[len(writes)-1].Query.Get("fieldManager"); got != tc.want {
			t.Errorf("fieldManager %q, want %q", got, tc.want)
		}
	}
	if err := apiclient.ValidFieldManager(strings.Repeat("x", 129)); err == nil {
		t.Errorf("a field manager of 129 characters is valid")
	}
}
