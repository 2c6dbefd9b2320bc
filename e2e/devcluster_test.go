//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/e2e/harness"
)

// bin/devcluster without --seed becomes ready, with metrics.k8s.io served.
// It used to wait for the metrics of every node, which kwok never reports
// for a node that runs no pod, and gave up at its ready timeout.
func TestDevClusterWithoutSeedBecomesReady(t *testing.T) {
	start := time.Now()
	dc, err := harness.StartDevCluster(t.Context(), harness.DevClusterOptions{
		DataDir: t.TempDir(),
		// Ready in about 5 s here, beside the suite's seeded cluster;
		// before the fix it waited for node metrics until this deadline,
		// then gave up, and the harness shows its log.
		ReadyTimeout: 2 * time.Minute,
		Timeout:      3 * time.Minute,
	})
	if err != nil {
		t.Fatalf("devcluster without --seed: %v", err)
	}
	t.Cleanup(func() {
		if err := dc.Stop(30 * time.Second); err != nil {
			t.Errorf("stopping it: %v", err)
		}
	})
	t.Logf("ready in %s", time.Since(start).Round(time.Second))

	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: dc.Kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: "admin"},
	).ClientConfig()
	must(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	must(t, err)
	// Ready means metrics.k8s.io answers now (its idle nodes have no usage).
	raw, err := cs.RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("metrics.k8s.io at the ready line: %v %s", err, raw)
	}
	var list struct{ Kind string }
	if err := json.Unmarshal(raw, &list); err != nil || list.Kind != "NodeMetricsList" {
		t.Fatalf("node metrics: %v %s", err, raw)
	}
	// And nothing was seeded.
	pods, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{})
	must(t, err)
	if len(pods.Items) != 0 {
		t.Errorf("%d pods in demo without --seed", len(pods.Items))
	}
}

// A pod annotated devcluster.tabula.dev/crash-loop: "true" reports what a
// kubelet reports for a container that keeps exiting with code 1 (the kwok
// stage stages/pod-crash-loop.yaml), and its restarts go on counting; a pod
// beside it without the annotation still becomes Ready.
func TestDevClusterCrashLoopAnnotation(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	ns := "crash-loop-" + randomWord(t)
	freshNamespace(t, cs, ns)
	// The ServiceAccount admission plugin rejects pods until the namespace
	// has its default ServiceAccount.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	must(t, err)
	pod := func(name string, annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
			Spec: corev1.PodSpec{
				Containers:                    []corev1.Container{{Name: "app", Image: "busybox:1.36", Command: []string{"false"}}},
				TerminationGracePeriodSeconds: new(int64(0)),
			},
		}
	}
	// Every status the crashing pod ever has: it must never be Ready, as it
	// would be if kwok's pod-ready stage ran first (the crash-loop stage
	// would then take it over at its next play).
	watcher, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=crashing"})
	must(t, err)
	t.Cleanup(watcher.Stop)
	everReady := make(chan bool, 1)
	go func() {
		ready := false
		for ev := range watcher.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && podReady(p) {
				ready = true
			}
		}
		everReady <- ready
	}()
	for _, p := range []*corev1.Pod{
		pod("crashing", map[string]string{"devcluster.tabula.dev/crash-loop": "true"}),
		pod("healthy", nil),
	} {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		must(t, err)
	}

	// get waits until the crashing pod's status satisfies done, and returns it.
	var last string
	get := func(what string, done func(*corev1.Pod) bool) *corev1.Pod {
		t.Helper()
		var got *corev1.Pod
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			var err error
			if got, err = cs.CoreV1().Pods(ns).Get(ctx, "crashing", metav1.GetOptions{}); err != nil {
				return false, err
			}
			last = crashState(got)
			return done(got), nil
		})
		if err != nil {
			t.Fatalf("crashing pod never %s: %v; last seen %s", what, err, last)
		}
		return got
	}
	crashLooping := func(p *corev1.Pod) bool {
		ready := podCondition(p, corev1.PodReady)
		statuses := p.Status.ContainerStatuses
		return p.Status.Phase == corev1.PodRunning && ready != nil && ready.Status == corev1.ConditionFalse &&
			len(statuses) == 1 && statuses[0].State.Waiting != nil && statuses[0].State.Waiting.Reason == "CrashLoopBackOff" &&
			statuses[0].RestartCount >= 1
	}
	first := get("crash-looped", crashLooping)
	ready := podCondition(first, corev1.PodReady)
	app := first.Status.ContainerStatuses[0]
	if ready.Reason != "ContainersNotReady" || ready.LastTransitionTime.IsZero() {
		t.Errorf("Ready condition %+v", ready)
	}
	if c := podCondition(first, corev1.ContainersReady); c == nil || c.Status != corev1.ConditionFalse || c.Reason != "ContainersNotReady" {
		t.Errorf("ContainersReady condition %+v", c)
	}
	wantMessage := fmt.Sprintf("back-off 10s restarting failed container=app pod=crashing_%s(%s)", ns, first.UID)
	if app.State.Waiting.Message != wantMessage || app.Ready {
		t.Errorf("app: ready %v, waiting %q, want %q", app.Ready, app.State.Waiting.Message, wantMessage)
	}
	if term := app.LastTerminationState.Terminated; term == nil || term.Reason != "Error" || term.ExitCode != 1 ||
		term.StartedAt.IsZero() || term.FinishedAt.IsZero() {
		t.Errorf("app's last state %+v, want terminated with Error, exit code 1", app.LastTerminationState)
	}

	// kwok plays the stage again after its 10 s back-off.
	later := get("restarted again", func(p *corev1.Pod) bool {
		return crashLooping(p) && p.Status.ContainerStatuses[0].RestartCount > app.RestartCount
	})
	if c := podCondition(later, corev1.PodReady); !c.LastTransitionTime.Equal(&ready.LastTransitionTime) {
		t.Errorf("Ready moved from %s to %s while it stayed False", ready.LastTransitionTime, c.LastTransitionTime)
	}
	watcher.Stop()
	if <-everReady {
		t.Error("the crashing pod was Ready at some point")
	}

	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "healthy", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && podReady(p), err
	})
	if err != nil {
		t.Fatalf("the pod without the annotation is not Ready: %v", err)
	}
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func crashState(p *corev1.Pod) string {
	s := fmt.Sprintf("phase %s", p.Status.Phase)
	if c := podCondition(p, corev1.PodReady); c != nil {
		s += fmt.Sprintf(", Ready %s", c.Status)
	}
	for _, c := range p.Status.ContainerStatuses {
		s += fmt.Sprintf(", %s restarts %d", c.Name, c.RestartCount)
		if c.State.Waiting != nil {
			s += ", waiting " + c.State.Waiting.Reason
		}
	}
	return s
}
