package webtest

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
)

// The fixtures below are consoles over seeded fakes that the tests of
// several features share. A fixture used by one feature's tests lives with
// them.

// New serves a console for contexts (default: "dev") over a fake serving
// core v1, apps/v1 and a lighthouses CRD, with token "secret-token" and
// nothing seeded.
func New(t testing.TB, contexts ...string) *Console {
	t.Helper()
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1(), apitest.GroupVersion{
		Group: "maritime.example.com", Version: "v1alpha1",
		Resources: []metav1.APIResource{{Name: "lighthouses", SingularName: "lighthouse", Kind: "Lighthouse", Namespaced: true, Verbs: []string{"get", "list"}, ShortNames: []string{"lh"}}},
	})
	fake.Token = "secret-token"
	return Start(t, fake, Options{Contexts: contexts})
}

// Demo serves a console against a fake following opts, seeded with a small
// demo namespace (Deployment web, its ReplicaSet web-5d9 and pods
// web-5d9-a and web-5d9-b), pod worker-1 in team-a, and a CSM-style
// cluster-scoped group with two sessions.
func Demo(t testing.TB, opts apitest.Options) (*Console, *apitest.Server) {
	t.Helper()
	return DemoWith(t, opts, Options{})
}

// DemoWith is Demo with the console built from console (a search budget,
// say).
func DemoWith(t testing.TB, opts apitest.Options, console Options) (*Console, *apitest.Server) {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1(), apitest.CSMGroup())
	deploy := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	rs := apitest.ReplicaSet("demo", "web-5d9", 2, map[string]string{"app": "web"}, deploy)
	fake.Add(
		deploy, rs,
		apitest.Pod("demo", "web-5d9-a", map[string]string{"app": "web"}, rs),
		apitest.Pod("demo", "web-5d9-b", map[string]string{"app": "web"}, rs),
		apitest.Pod("team-a", "worker-1", map[string]string{"app": "worker"}),
		apitest.CSMSession("boot-x3000", "boot", "compute-23.7", "running"),
		apitest.CSMSession("shutdown-x3001", "shutdown", "compute-23.7", "complete"),
	)
	return Start(t, fake, console), fake
}

// PodGVK is the kind of the pods fixtures seed, for the fake's Modify and
// Delete.
var PodGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

// SetPhase is a change for the fake's Modify: the pod's status.phase.
func SetPhase(phase string) func(*unstructured.Unstructured) {
	return func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, phase, "status", "phase")
	}
}

// Pods is New with pods web-1 and web-2 (app=web) and Deployment web in
// demo.
func Pods(t testing.TB) *Console {
	t.Helper()
	c := New(t)
	c.Fake.Add(
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-2", map[string]string{"app": "web"}),
		apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"}),
	)
	return c
}

// PodLogs is Pods with log lines: web-1's app writes two, at 10:00:00 and
// 10:00:01 on 2026-11-21 (UTC), and web-2's one between them.
func PodLogs(t testing.TB) *Console {
	t.Helper()
	c := Pods(t)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	c.Fake.AppendLogAt("demo", "web-1", "app", at, "GET /api/orders 200")
	c.Fake.AppendLogAt("demo", "web-1", "app", at.Add(time.Second), "level=warn msg=\"slow query\"")
	c.Fake.AppendLogAt("demo", "web-2", "app", at.Add(500*time.Millisecond), "GET /healthz 200")
	return c
}

// Paths of the objects Editable and WithAccess seed.
const (
	WebPath        = "/c/dev/apis/apps/v1/namespaces/demo/deployments/web"
	CredsPath      = "/c/dev/api/v1/namespaces/demo/secrets/creds"
	BeaconPath     = "/c/dev/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/beacon"
	ConfigMapsPath = "/c/dev/api/v1/namespaces/demo/configmaps"
	SettingsPath   = ConfigMapsPath + "/settings"
)

// Values of Editable's Secret creds, which no page may show unless
// revealed.
const (
	SecretPassword = "hunter2-plain-password"
	SecretToken    = "tok-7f3a9c-never-shown"
	// LastAppliedValue is only in the Secret's last-applied annotation.
	LastAppliedValue = "applied-copy-of-the-password"
)

// Editable serves a console, its log captured, over EditableFake.
func Editable(t testing.TB, opts apitest.Options) *Console {
	t.Helper()
	return Start(t, EditableFake(t, opts), Options{CaptureLog: true})
}

// EditableFake is a fake following opts that serves core (with
// configmaps), apps, a CRD with scale and a get/list-only group, seeded
// with one object of each kind the write pages change: in demo, Deployment
// web (with a status manager), Service api, Secret creds, ConfigMap
// settings, Lighthouse beacon, pod web-1, and the CSM session boot-x3000.
func EditableFake(t testing.TB, opts apitest.Options) *apitest.Server {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, coreWithConfigMaps(), apitest.AppsV1(), apitest.MaritimeV1Alpha1(), apitest.CSMGroup())
	fake.Token = "secret-token"

	web := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	then := metav1.NewTime(time.Now().Add(-time.Hour).UTC().Truncate(time.Second))
	web.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1",
		Time: &then, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}, Subresource: "status",
	}})

	creds := apitest.Object("v1", "Secret", "demo", "creds", map[string]any{
		"type": "Opaque",
		"data": map[string]any{
			"password": base64.StdEncoding.EncodeToString([]byte(SecretPassword)),
			"token":    base64.StdEncoding.EncodeToString([]byte(SecretToken)),
		},
	})
	creds.SetLabels(map[string]string{"team": "a"})
	creds.SetAnnotations(map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Secret","stringData":{"password":"` + LastAppliedValue + `"}}`,
	})

	settings := apitest.Object("v1", "ConfigMap", "demo", "settings", map[string]any{"data": map[string]any{"mode": "fast"}})

	fake.Add(
		web,
		apitest.Service("demo", "api", map[string]string{"app": "web"}),
		creds,
		settings,
		apitest.Lighthouse("demo", "beacon", "north", 3),
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.CSMSession("boot-x3000", "boot", "compute-23.7", "running"),
	)
	return fake
}

func coreWithConfigMaps() apitest.GroupVersion {
	core := apitest.CoreV1()
	core.Resources = append(core.Resources, metav1.APIResource{
		Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true,
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}, ShortNames: []string{"cm"},
	})
	return core
}

// Tokens of the users AccessRules knows.
const (
	ViewerToken = "viewer-token"
	EditorToken = "editor-token"
	// ConsoleToken is the kubeconfig's own user: an admin.
	ConsoleToken = "console-token"
)

// AccessRules are an admin (ConsoleToken), and a viewer (ViewerToken,
// alice@example.com) and an editor (EditorToken, bob@example.com) of
// namespace demo, as the view and edit ClusterRoles bound there.
func AccessRules() *apitest.Access {
	rules := []apitest.Rule{{Users: []string{"admin"}, Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}
	rules = append(rules, apitest.Viewer("tabula:viewers", "demo")...)
	rules = append(rules, apitest.Editor("tabula:editors", "demo")...)
	return &apitest.Access{
		Users: map[string]apitest.User{
			ConsoleToken: {Name: "admin"},
			ViewerToken:  {Name: "alice@example.com", Groups: []string{"tabula:viewers"}},
			EditorToken:  {Name: "bob@example.com", Groups: []string{"tabula:editors"}},
		},
		Rules: rules,
	}
}

// WithAccess serves a console, with Options.ActAs, against a fake that
// authorizes as kube-apiserver does by ac: tokens are users, the rules are
// enforced on every request, and the self-reviews answer from them. The
// kubeconfig's user is ConsoleToken. The fake serves core v1 (with
// configmaps), apps/v1 and extra, and holds in demo Deployment web, its pod
// web-1, ConfigMap settings and Secret creds.
func WithAccess(t testing.TB, ac *apitest.Access, extra ...apitest.GroupVersion) *Console {
	t.Helper()
	fake := apitest.NewServerWith(t, apitest.Options{Access: ac}, append([]apitest.GroupVersion{coreWithConfigMaps(), apitest.AppsV1()}, extra...)...)
	fake.Token = ConsoleToken
	c := Start(t, fake, Options{ActAs: true})
	// Requests carry users' tokens from here on: the fake's Access, not its
	// single Token, decides who they are.
	fake.Token = ""
	fake.Add(
		apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"}),
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.Object("v1", "ConfigMap", "demo", "settings", map[string]any{"data": map[string]any{"mode": "fast"}}),
		apitest.Object("v1", "Secret", "demo", "creds", map[string]any{"type": "Opaque"}),
	)
	return c
}

// SampledAt is when Usage's metrics-server took its samples.
var SampledAt = time.Now().Add(-30 * time.Second).UTC().Truncate(time.Second)

// Usage is Demo's demo content on a server that serves metrics.k8s.io
// (withMetrics) or not, with node node-1 (4 CPUs, 8Gi), samples of
// web-5d9-a (13m, 64Mi; it requests 100m and 64Mi, limits 500m and
// 128Mi), worker-1 and node-1; web-5d9-b has none yet. Its pages wait
// up to UsageWait for usage, so a loaded machine never turns a test's
// answer into "did not answer in time".
func Usage(t testing.TB, withMetrics bool) (*Console, *apitest.Server) {
	t.Helper()
	return UsageWaiting(t, withMetrics, UsageWait)
}

// UsageWait is how long Usage's pages wait for usage.
const UsageWait = 30 * time.Second

// UsageWaiting is Usage whose pages wait up to wait for usage.
func UsageWaiting(t testing.TB, withMetrics bool, wait time.Duration) (*Console, *apitest.Server) {
	t.Helper()
	gvs := []apitest.GroupVersion{apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1()}
	if withMetrics {
		gvs = append(gvs, apitest.MetricsV1Beta1())
	}
	fake := apitest.NewServer(t, gvs...)
	deploy := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	rs := apitest.ReplicaSet("demo", "web-5d9", 2, map[string]string{"app": "web"}, deploy)
	withRequests := apitest.Pod("demo", "web-5d9-a", map[string]string{"app": "web"}, rs)
	containers, _, _ := unstructured.NestedSlice(withRequests.Object, "spec", "containers")
	containers[0].(map[string]any)["resources"] = map[string]any{
		"requests": map[string]any{"cpu": "100m", "memory": "64Mi"},
		"limits":   map[string]any{"cpu": "500m", "memory": "128Mi"},
	}
	_ = unstructured.SetNestedSlice(withRequests.Object, containers, "spec", "containers")
	fake.Add(deploy, rs, withRequests,
		apitest.Pod("demo", "web-5d9-b", map[string]string{"app": "web"}, rs),
		apitest.Pod("team-a", "worker-1", map[string]string{"app": "worker"}),
		apitest.Node("node-1", "4", "8Gi"),
	)
	if withMetrics {
		fake.Add(
			apitest.PodMetrics("demo", "web-5d9-a", map[string]string{"app": "web"}, SampledAt, 15*time.Second,
				apitest.ContainerUsage{Name: "app", CPU: "12345678n", Memory: "65536Ki"}),
			apitest.PodMetrics("team-a", "worker-1", map[string]string{"app": "worker"}, SampledAt, 15*time.Second,
				apitest.ContainerUsage{Name: "app", CPU: "1500m", Memory: "12Gi"}),
			apitest.NodeMetrics("node-1", SampledAt, 20*time.Second, "250m", "2Gi"),
		)
	}
	return Start(t, fake, Options{Deps: web.Deps{List: web.ListLimits{UsageWait: wait}}}), fake
}

// MetricsRequests are the requests the fake got for metrics.k8s.io.
func MetricsRequests(fake *apitest.Server) []*url.URL {
	var out []*url.URL
	for _, r := range fake.Requests() {
		if strings.HasPrefix(r.URL.Path, "/apis/metrics.k8s.io/") {
			out = append(out, r.URL)
		}
	}
	return out
}
