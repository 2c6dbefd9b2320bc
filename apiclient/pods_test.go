package apiclient_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func int64p(v int64) *int64 { return &v }

func readLog(t *testing.T, c *apiclient.Client, pod string, opts apiclient.LogOptions) string {
	t.Helper()
	rc, err := c.Logs(context.Background(), "demo", pod, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLogs(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	fake.AppendLogAt("demo", "web-a", "app", t1, "one", "two", "three")

	if got := readLog(t, c, "web-a", apiclient.LogOptions{}); got != "one\ntwo\nthree\n" {
		t.Errorf("whole log %q", got)
	}
	if got := readLog(t, c, "web-a", apiclient.LogOptions{Container: "app", TailLines: int64p(2)}); got != "two\nthree\n" {
		t.Errorf("tail %q", got)
	}
	if got := readLog(t, c, "web-a", apiclient.LogOptions{Timestamps: true, TailLines: int64p(1)}); got != "2026-03-01T10:00:00.000000000Z three\n" {
		t.Errorf("timestamps %q", got)
	}
	if got := readLog(t, c, "web-a", apiclient.LogOptions{LimitBytes: int64p(6)}); got != "one\ntw" {
		t.Errorf("limitBytes %q", got)
	}
	q := fake.Requests()[len(fake.Requests())-1].URL
	if q.Path != "/api/v1/namespaces/demo/pods/web-a/log" || q.Query().Get("limitBytes") != "6" || q.Query().Has("follow") {
		t.Errorf("request %s", q)
	}

	_, err := c.Logs(context.Background(), "demo", "web-a", apiclient.LogOptions{Container: "nope"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "container nope is not valid for pod web-a") {
		t.Errorf("unknown container: %v", err)
	}
	if _, err := c.Logs(context.Background(), "demo", "missing", apiclient.LogOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("missing pod: %v", err)
	}
	if _, err := c.Logs(context.Background(), "demo", "", apiclient.LogOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("no pod name: %v", err)
	}
	fake.RestartLog("demo", "web-a", "app")
	if got := readLog(t, c, "web-a", apiclient.LogOptions{Previous: true, TailLines: int64p(1)}); got != "three\n" {
		t.Errorf("previous %q", got)
	}
}

func TestLogsFollow(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	fake.AppendLog("demo", "web-a", "app", "before")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc, err := c.Logs(ctx, "demo", "web-a", apiclient.LogOptions{Follow: true, TailLines: int64p(1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	lines := bufio.NewReader(rc)
	for i, want := range []string{"before\n", "after 1\n", "after 2\n"} {
		if i == 1 {
			fake.AppendLog("demo", "web-a", "app", "after 1", "after 2")
		}
		if got, err := lines.ReadString('\n'); got != want || err != nil {
			t.Fatalf("line %d: %q %v", i, got, err)
		}
	}
	// Ending ctx ends the stream.
	done := make(chan error, 1)
	go func() { _, err := lines.ReadString('\n'); done <- err }()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read a line after cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow still open after cancel")
	}
}

func TestGetAndListPods(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	for i := range 503 {
		fake.Add(apitest.Pod("demo", fmt.Sprintf("web-%03d", i), map[string]string{"app": "web"}))
	}
	fake.Add(apitest.Pod("demo", "db-0", map[string]string{"app": "db"}))
	c := clientFor(t, fake)
	ctx := context.Background()

	pod, err := c.GetPod(ctx, "demo", "web-007")
	if err != nil || pod.Name != "web-007" || pod.Status.Phase != corev1.PodRunning || pod.Spec.Containers[0].Name != "app" {
		t.Fatalf("GetPod: %+v %v", pod, err)
	}
	if _, err := c.GetPod(ctx, "demo", "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}

	fake.ResetRequests()
	pods, rv, more, err := c.ListPods(ctx, "demo", "app=web", 0)
	if err != nil || len(pods) != 503 || pods[502].Name != "web-502" || rv != fake.ResourceVersion() || more {
		t.Fatalf("ListPods: %d pods rv %s (store %s) more %v %v", len(pods), rv, fake.ResourceVersion(), more, err)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || reqs[0].URL.Query().Get("limit") != "500" || reqs[1].URL.Query().Get("continue") == "" {
		t.Errorf("%d requests", len(reqs))
	}
	// The list's version is where WatchPods follows on from.
	fake.Modify(podGVK, "demo", "web-001", setPhase("Failed"))
	fake.SendBookmarks()
	w := startWatch(t, func(ctx context.Context, emit func(apiclient.WatchEvent)) error {
		return c.WatchPods(ctx, "demo", "app=web", rv, func(typ string, pod *corev1.Pod) {
			emit(apiclient.WatchEvent{Type: typ, Name: pod.Name, ResourceVersion: pod.ResourceVersion, Table: &apiclient.Table{Served: apiclient.Representation(pod.Status.Phase)}})
		})
	})
	if ev := w.next(); ev.Type != "MODIFIED" || ev.Name != "web-001" || ev.Table.Served != "Failed" {
		t.Fatalf("WatchPods: %+v", ev)
	}
	fake.SendBookmarks()
	if ev := w.next(); ev.Type != "BOOKMARK" || ev.ResourceVersion != fake.ResourceVersion() {
		t.Fatalf("WatchPods bookmark: %+v", ev)
	}
}

func TestPodSelector(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1(), apitest.BatchV1())
	deploy := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	_ = unstructured.SetNestedSlice(deploy.Object, []any{
		map[string]any{"key": "tier", "operator": "In", "values": []any{"front", "edge"}},
		map[string]any{"key": "canary", "operator": "DoesNotExist"},
	}, "spec", "selector", "matchExpressions")
	empty := apitest.Deployment("demo", "empty", 1, nil)
	_ = unstructured.SetNestedField(empty.Object, map[string]any{}, "spec", "selector")
	fake.Add(
		deploy, empty,
		apitest.Job("demo", "migrate", map[string]string{"job-name": "migrate"}),
		apitest.Service("demo", "web", map[string]string{"app": "web", "tier": "front"}),
		apitest.Service("demo", "external", nil),
		apitest.Pod("demo", "web-a", nil),
	)
	c := clientFor(t, fake)
	ctx := context.Background()
	jobsRes := apiclient.Resource{Group: "batch", Version: "v1", Name: "jobs", Kind: "Job", Namespaced: true}
	for _, tc := range []struct {
		r    apiclient.Resource
		name string
		want string
	}{
		{deploymentsRes, "web", "app=web,!canary,tier in (edge,front)"},
		{jobsRes, "migrate", "job-name=migrate"},
		{servicesRes, "web", "app=web,tier=front"},
	} {
		if got, err := c.PodSelector(ctx, tc.r, "demo", tc.name); err != nil || got != tc.want {
			t.Errorf("%s %s: %q %v, want %q", tc.r.Name, tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		r    apiclient.Resource
		name string
	}{{servicesRes, "external"}, {podsRes, "web-a"}, {deploymentsRes, "empty"}} {
		_, err := c.PodSelector(ctx, tc.r, "demo", tc.name)
		var nse *apiclient.NoSelectorError
		if !errors.As(err, &nse) || !errors.Is(err, apiclient.ErrNoSelector) || nse.Name != tc.name {
			t.Errorf("%s %s: %v", tc.r.Name, tc.name, err)
		}
	}
	if _, err := c.PodSelector(ctx, deploymentsRes, "demo", "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
}

func TestListPodsStopsAtTheLimit(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	for i := range 503 {
		fake.Add(apitest.Pod("demo", fmt.Sprintf("web-%03d", i), map[string]string{"app": "web"}))
	}
	fake.Add(apitest.Pod("demo", "db-0", map[string]string{"app": "db"}))
	c := clientFor(t, fake)
	for _, tc := range []struct {
		limit      int64
		wantPods   int
		wantMore   bool
		wantLimits []string // the limit parameter of each request
	}{
		{limit: 10, wantPods: 10, wantMore: true, wantLimits: []string{"10"}},
		{limit: 501, wantPods: 501, wantMore: true, wantLimits: []string{"500", "1"}},
		{limit: 503, wantPods: 503, wantMore: false, wantLimits: []string{"500", "3"}},
		{limit: 600, wantPods: 503, wantMore: false, wantLimits: []string{"500", "100"}},
		{limit: 0, wantPods: 503, wantMore: false, wantLimits: []string{"500", "500"}},
	} {
		fake.ResetRequests()
		pods, rv, more, err := c.ListPods(context.Background(), "demo", "app=web", tc.limit)
		if err != nil || len(pods) != tc.wantPods || more != tc.wantMore || rv == "" {
			t.Errorf("limit %d: %d pods, more %v, rv %q, %v; want %d pods, more %v", tc.limit, len(pods), more, rv, err, tc.wantPods, tc.wantMore)
			continue
		}
		if pods[len(pods)-1].Name != fmt.Sprintf("web-%03d", tc.wantPods-1) {
			t.Errorf("limit %d: last pod %s", tc.limit, pods[len(pods)-1].Name)
		}
		var limits []string
		for _, r := range fake.Requests() {
			limits = append(limits, r.URL.Query().Get("limit"))
		}
		if !slices.Equal(limits, tc.wantLimits) {
			t.Errorf("limit %d: requests with limit %v, want %v", tc.limit, limits, tc.wantLimits)
		}
	}
}
