package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// clientFor is a Client for fake, acting with the kubeconfig's own identity.
func clientFor(t *testing.T, fake *apitest.Server) *apiclient.Client {
	t.Helper()
	return clientWith(t, fake, apiclient.LoadOptions{})
}

// clientWith is clientFor with load options, such as an Observer.
func clientWith(t *testing.T, fake *apitest.Server, opts apiclient.LoadOptions) *apiclient.Client {
	t.Helper()
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	podsRes        = apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true, Subresources: []string{"log", "status"}}
	servicesRes    = apiclient.Resource{Version: "v1", Name: "services", Kind: "Service", Namespaced: true}
	deploymentsRes = apiclient.Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true, Subresources: []string{"scale"}}
	sessionsRes    = apiclient.Resource{Group: "policy.example.com", Version: "v1", Name: "sessions", Kind: "Session"}
)

func TestResourcePath(t *testing.T) {
	for _, tc := range []struct {
		r        apiclient.Resource
		ns, name string
		want     string
	}{
		{podsRes, "demo", "web-1", "/api/v1/namespaces/demo/pods/web-1"},
		{podsRes, "", "", "/api/v1/pods"},
		{podsRes, "demo", "", "/api/v1/namespaces/demo/pods"},
		{deploymentsRes, "", "", "/apis/apps/v1/deployments"},
		{sessionsRes, "ignored-for-cluster-scope", "s 1", "/apis/policy.example.com/v1/sessions/s%201"},
		{apiclient.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Name: "clusterroles"}, "", "a/b?c", "/apis/rbac.authorization.k8s.io/v1/clusterroles/a%2Fb%3Fc"},
	} {
		if got := tc.r.Path(tc.ns, tc.name); got != tc.want {
			t.Errorf("Path(%q, %q) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
	}
}

func TestGetObject(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.CSMGroup())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}), apitest.CSMSession("s-1", "boot", "compute", "running"))
	fake.FailResource("", "services", apitest.Forbidden("alice", "get", "", "services", "web"))
	c := clientFor(t, fake)
	ctx := context.Background()

	pod, err := c.GetObject(ctx, podsRes, "demo", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	if pod.GetKind() != "Pod" || pod.GetUID() != apitest.UIDFor("Pod", "demo", "web-1") || pod.GetLabels()["app"] != "web" {
		t.Errorf("pod = %v", pod.Object)
	}
	if cs, _, _ := unstructured.NestedSlice(pod.Object, "status", "containerStatuses"); len(cs) != 1 {
		t.Errorf("container statuses lost")
	}
	last := fake.Requests()[len(fake.Requests())-1]
	if last.Header.Get("Accept") != "application/json" || last.URL.Path != "/api/v1/namespaces/demo/pods/web-1" {
		t.Errorf("request %s Accept %q", last.URL.Path, last.Header.Get("Accept"))
	}
	if s, err := c.GetObject(ctx, sessionsRes, "", "s-1"); err != nil || s.GetName() != "s-1" {
		t.Errorf("cluster-scoped CSM session: %v %v", s, err)
	}

	for _, tc := range []struct {
		name   string
		r      apiclient.Resource
		obj    string
		code   int32
		reason metav1.StatusReason
		msg    string
	}{
		{"missing", podsRes, "nope", http.StatusNotFound, metav1.StatusReasonNotFound, `pods "nope" not found`},
		{"forbidden", servicesRes, "web", http.StatusForbidden, metav1.StatusReasonForbidden, `User "alice" cannot get resource "services"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.GetObject(ctx, tc.r, "demo", tc.obj)
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("err = %v (%T), want an APIStatus", err, err)
			}
			st := status.Status()
			if st.Code != tc.code || st.Reason != tc.reason || !strings.Contains(st.Message, tc.msg) {
				t.Errorf("status = %d %s %q", st.Code, st.Reason, st.Message)
			}
		})
	}
}

// wantStatus asserts err carries the server's Status with code and reason.
func wantStatus(t *testing.T, err error, code int32, reason metav1.StatusReason) {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("err = %v (%T), want an APIStatus", err, err)
	}
	if st := status.Status(); st.Code != code || st.Reason != reason {
		t.Errorf("status = %d %s %q, want %d %s", st.Code, st.Reason, st.Message, code, reason)
	}
}

// An object is read up to a bound: a server that answers without end (or
// with an answer no object can be) is a bad response, not the console's
// memory.
func TestObjectAnswersAreBounded(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	var sent atomic.Int64
	fake.Override("/api/v1/namespaces/demo/pods/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("a", 64<<10))
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"endless","annotations":{"x":"`))
		for r.Context().Err() == nil && sent.Load() < 256<<20 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	_, err := clientFor(t, fake).GetObject(context.Background(), podsRes, "demo", "endless")
	var bad *apiclient.BadResponseError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("GetObject of an endless answer = %v, want a BadResponseError saying it is too large", err)
	}
	if n := sent.Load(); n >= 256<<20 {
		t.Errorf("the whole answer was read (%d MiB)", n>>20)
	}
}
