//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clientset builds a typed client acting as the user of a context of the
// console's kubeconfig: admin, editor, viewer, outsider, or second (the
// second cluster's admin).
func clientset(t *testing.T, contextName string) (*kubernetes.Clientset, *rest.Config) {
	t.Helper()
	cfg := restConfig(t, contextName)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg
}

func TestDemoPodsReachRunning(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	for _, app := range []string{"web", "api"} {
		var last string
		err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := cs.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
			if err != nil {
				return false, err
			}
			running := 0
			for _, p := range pods.Items {
				if p.Status.Phase == corev1.PodRunning && podReady(&p) {
					running++
				}
			}
			last = describePods(pods.Items)
			return len(pods.Items) > 0 && running == len(pods.Items), nil
		})
		if err != nil {
			t.Fatalf("pods app=%s did not all reach Running and Ready: %v; last seen: %s", app, err, last)
		}
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func describePods(pods []corev1.Pod) string {
	var parts []string
	for _, p := range pods {
		parts = append(parts, p.Name+"="+string(p.Status.Phase))
	}
	return strings.Join(parts, ", ")
}

// runningPod returns a Running pod of the web Deployment.
func runningPod(t *testing.T, cs *kubernetes.Clientset) corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				pod = p
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no Running web pod: %v", err)
	}
	return pod
}

func TestPodLogsReturnLinesAndFollowSeesNewOnes(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	ctx := t.Context()

	raw, err := cs.CoreV1().Pods("demo").GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatalf("pods/log: %v", err)
	}
	if lines := strings.Count(string(raw), "\n"); lines < 2 {
		t.Fatalf("pods/log returned %d lines:\n%s", lines, raw)
	}

	// A follow that starts at the last line must see lines written after it
	// started; the dev control plane appends one per second.
	followCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tail := int64(1)
	stream, err := cs.CoreV1().Pods("demo").GetLogs(pod.Name, &corev1.PodLogOptions{Follow: true, TailLines: &tail}).Stream(followCtx)
	if err != nil {
		t.Fatalf("pods/log?follow=true: %v", err)
	}
	defer stream.Close()
	sc := bufio.NewScanner(stream)
	seen := map[string]bool{}
	for len(seen) < 3 && sc.Scan() {
		seen[sc.Text()] = true
	}
	if len(seen) < 3 {
		t.Fatalf("follow saw %d distinct lines before %v: %v", len(seen), sc.Err(), seen)
	}
}

func TestCRDTableCarriesPrinterColumns(t *testing.T) {
	_, cfg := clientset(t, "admin")
	table := getTable(t, cfg, "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses")
	type col struct {
		typ      string
		priority int32
	}
	got := map[string]col{}
	for _, c := range table.ColumnDefinitions {
		got[c.Name] = col{c.Type, c.Priority}
	}
	want := map[string]col{
		"Name":      {"string", 0},
		"Coast":     {"string", 0},
		"Range":     {"integer", 0},
		"Lit":       {"boolean", 0},
		"Inspected": {"date", 0},
		"Keeper":    {"string", 1},
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("column %s = %+v (present %v), want %+v", name, g, ok, w)
		}
	}
	if len(table.Rows) < 3 {
		t.Errorf("Table has %d rows, want the seeded lighthouses", len(table.Rows))
	}
}

func getTable(t *testing.T, cfg *rest.Config, path string) metav1.Table {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, cfg.Host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" {
		t.Fatalf("GET %s returned kind %q, want Table", path, table.Kind)
	}
	return table
}

func TestViewerIsForbiddenSecretsInDemo(t *testing.T) {
	cs, _ := clientset(t, "viewer")
	if _, err := cs.CoreV1().ConfigMaps("demo").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("viewer cannot even list configmaps in demo: %v", err)
	}
	_, err := cs.CoreV1().Secrets("demo").List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("viewer listing secrets in demo: got %v, want 403 Forbidden", err)
	}
}

func TestOutsiderIsForbiddenListingPods(t *testing.T) {
	cs, _ := clientset(t, "outsider")
	_, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("outsider listing pods: got %v, want 403 Forbidden", err)
	}
}

// The editor user saves an edit through the console in demo, where it may
// edit, and it lands; the same save in team-a, where it has no access, is
// refused with the API server's 403, the text kept, and nothing changed.
func TestEditorCanEditDemoOnly(t *testing.T) {
	admin, _ := clientset(t, "admin")
	const name = "e2e-editor-edit"
	for _, ns := range []string{"demo", "team-a"} {
		_, err := admin.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Data:       map[string]string{"step": "0"},
		}, metav1.CreateOptions{})
		must(t, err)
		t.Cleanup(func() {
			_ = admin.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	editPath := func(ns string) string { return "/c/editor/api/v1/namespaces/" + ns + "/configmaps/" + name + "/edit" }
	setStep := func(step string) func(url.Values) {
		return func(v url.Values) { v.Set("yaml", replaceOnce(t, v.Get("yaml"), `step: "0"`, `step: "`+step+`"`)) }
	}
	stepIn := func(ns string) string {
		t.Helper()
		cm, err := admin.CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
		must(t, err)
		return cm.Data["step"]
	}

	// In demo: review, then apply, then the object page; the change is there.
	s := newFormSession(t)
	editor := s.get(editPath("demo"))
	editor.want(t, http.StatusOK, "edit-form")
	review := s.submit(editor, "[data-testid=edit-form]", "review", setStep("1"))
	review.want(t, http.StatusOK, "dry-run-diff")
	saved := s.submit(review, "[data-testid=review-form]", "apply", nil)
	saved.want(t, http.StatusOK, "notice")
	if !strings.HasSuffix(saved.url.Path, "/configmaps/"+name) {
		t.Errorf("after apply: %s, want the object page", saved.url)
	}
	if got := stepIn("demo"); got != "1" {
		t.Fatalf("demo's step after the editor's save: %q, want 1", got)
	}

	// In team-a the editor may not even open the editor...
	if p := s.get(editPath("team-a")); p.status != http.StatusForbidden {
		t.Errorf("the editor's edit page in team-a: %d, want 403", p.status)
	}
	// ...and a save posted there anyway (demo's form, sent to team-a's
	// object of the same name) is refused upstream and says so.
	refused := s.submitTo(editor, "[data-testid=edit-form]", editPath("team-a"), "apply", setStep("2"))
	refused.want(t, http.StatusForbidden, "edit-error")
	if code := refused.testID("edit-error-code").Text(); code != "403" {
		t.Errorf("edit-error-code %q, want 403", code)
	}
	if text := refused.doc.Find("textarea#yaml").Text(); !strings.Contains(text, `step: "2"`) {
		t.Errorf("the refused text was not kept: %q", text)
	}
	if got := stepIn("team-a"); got != "0" {
		t.Errorf("team-a's step after a refused save: %q, want 0", got)
	}
}

func TestConsoleHomeNamesTheCRDGroup(t *testing.T) {
	resp, err := http.Get(env.console.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q", ct)
	}
	if !strings.Contains(string(body), "maritime.tabula.dev") {
		t.Error("home page does not name the CRD's group maritime.tabula.dev")
	}
}

func TestConsoleReadinessAndMetrics(t *testing.T) {
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200} {
		resp, err := http.Get(env.console.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if path == "/metrics" && !strings.Contains(string(body), "tabula_upstream_requests_total") {
			t.Error("/metrics lacks tabula_upstream_requests_total")
		}
	}
}
