package main

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/utils/gotpl"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

const crashLoopAnnotation = "devcluster.tabula.dev/crash-loop"

// podLifecycle is kwok's lifecycle of devcluster's pod stages, as kwok loads
// them from the config devcluster writes.
func podLifecycle(t *testing.T) lifecycle.Lifecycle {
	t.Helper()
	_, objs := loadKwokConfig(t, execUser{})
	var podStages []*internalversion.Stage
	for _, s := range config.FilterWithType[*internalversion.Stage](objs) {
		if s.Spec.ResourceRef.Kind == "Pod" {
			podStages = append(podStages, s)
		}
	}
	lc, err := lifecycle.NewLifecycle(podStages)
	if err != nil {
		t.Fatal(err)
	}
	return lc
}

// candidates are the stages kwok may pick for the pod: every matching one,
// since all of devcluster's stages have the same (zero) weight.
func candidates(t *testing.T, lc lifecycle.Lifecycle, pod *corev1.Pod) []string {
	t.Helper()
	stages, err := lc.ListAllPossible(t.Context(), podEvent(pod))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range stages {
		names = append(names, s.Name())
	}
	slices.Sort(names)
	return names
}

func podEvent(pod *corev1.Pod) *lifecycle.Event {
	return &lifecycle.Event{Labels: pod.Labels, Annotations: pod.Annotations, Data: pod}
}

// scheduledPod is a pod the scheduler has bound to a kwok node, as kwok first
// sees it.
func scheduledPod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "crash", Name: "app-1", UID: "u-1", Annotations: annotations},
		Spec: corev1.PodSpec{
			NodeName:       "kwok-node-0",
			InitContainers: []corev1.Container{{Name: "setup", Image: "busybox:1.36"}},
			Containers:     []corev1.Container{{Name: "app", Image: "nginx"}, {Name: "sidecar", Image: "envoy"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		}},
	}
}

var crashLoop = map[string]string{crashLoopAnnotation: "true"}

func TestCrashLoopAnnotationSelectsOnlyTheCrashLoopStage(t *testing.T) {
	lc := podLifecycle(t)
	readyPod := func(annotations map[string]string, owner string) *corev1.Pod {
		p := scheduledPod(annotations)
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: owner, Name: "job", UID: "j-1"}}
		}
		return p
	}
	deleting := func(annotations map[string]string) *corev1.Pod {
		p := scheduledPod(annotations)
		now := metav1.Now()
		p.DeletionTimestamp = &now
		return p
	}
	debugged := readyPod(crashLoop, "")
	debugged.Spec.EphemeralContainers = []corev1.EphemeralContainer{{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:1.36"},
	}}
	for name, tc := range map[string]struct {
		pod  *corev1.Pod
		want []string
	}{
		"annotated, pending":       {scheduledPod(crashLoop), []string{"pod-crash-loop"}},
		"annotated once running":   {readyPod(crashLoop, ""), []string{"pod-crash-loop"}},
		"annotated job pod":        {readyPod(crashLoop, "Job"), []string{"pod-crash-loop"}},
		"annotated, being deleted": {deleting(crashLoop), []string{"pod-delete"}},
		// Its ephemeral container starts first; the crash loop goes on after.
		"annotated, being debugged":        {debugged, []string{"pod-ephemeral-containers"}},
		"not annotated, pending":           {scheduledPod(nil), []string{"pod-ready"}},
		"annotation not true":              {scheduledPod(map[string]string{crashLoopAnnotation: "false"}), []string{"pod-ready"}},
		"other annotations, pending":       {scheduledPod(map[string]string{"team": "a"}), []string{"pod-ready"}},
		"not annotated, running job pod":   {readyPod(nil, "Job"), []string{"pod-complete"}},
		"not annotated, running and ready": {readyPod(nil, ""), nil},
		"not annotated, being deleted":     {deleting(nil), []string{"pod-delete"}},
	} {
		if got := candidates(t, lc, tc.pod); !slices.Equal(got, tc.want) {
			t.Errorf("%s: stages %v, want %v", name, got, tc.want)
		}
	}
}

// playCrashLoop plays the crash-loop stage on the pod with kwok's renderer,
// and returns the status patch it makes, decoded and raw, and its delay.
func playCrashLoop(t *testing.T, pod *corev1.Pod) (corev1.PodStatus, map[string]any, time.Duration) {
	t.Helper()
	lc := podLifecycle(t)
	stage, err := lc.Match(t.Context(), podEvent(pod))
	if err != nil {
		t.Fatal(err)
	}
	if stage == nil || stage.Name() != "pod-crash-loop" {
		t.Fatalf("stage %v, want pod-crash-loop", stage)
	}
	delay, _, err := stage.Delay(t.Context(), podEvent(pod), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// kwok's pod controller supplies these; a fixed answer stands in.
	renderer := gotpl.NewRenderer(gotpl.FuncMap{
		"NodeIPsWith": func(string) []string { return []string{"10.0.0.1"} },
		"PodIPsWith": func(string, bool, string, string, string) ([]string, error) {
			return []string{"10.0.0.7"}, nil
		},
	})
	var raw map[string]any
	_, err = stage.DoSteps(0, nil, pod, renderer,
		func(*internalversion.StageEvent) error { return nil },
		func() error { t.Error("the stage deletes the pod"); return nil },
		func(p *lifecycle.Patch) error {
			if p.Subresource != "status" {
				t.Errorf("patch of %q, want status", p.Subresource)
			}
			return json.Unmarshal(p.Data, &raw)
		},
		func(*lifecycle.Apply) error { t.Error("the stage applies an object"); return nil },
	)
	if err != nil {
		t.Fatal(err)
	}
	var patch struct {
		Status corev1.PodStatus `json:"status"`
	}
	data, _ := json.Marshal(raw)
	if err := json.Unmarshal(data, &patch); err != nil {
		t.Fatalf("patch %s: %v", data, err)
	}
	return patch.Status, raw["status"].(map[string]any), delay
}

func condition(status corev1.PodStatus, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == typ {
			return &status.Conditions[i]
		}
	}
	return nil
}

func TestCrashLoopFirstCrashStartsThePodAtOnce(t *testing.T) {
	status, raw, delay := playCrashLoop(t, scheduledPod(crashLoop))
	if delay != 0 {
		t.Errorf("a pending pod waits %s", delay)
	}
	if status.Phase != corev1.PodRunning || status.StartTime == nil || status.PodIP != "10.0.0.7" || status.HostIP != "10.0.0.1" {
		t.Errorf("phase %s, start %v, pod IP %q, host IP %q", status.Phase, status.StartTime, status.PodIP, status.HostIP)
	}
	for _, typ := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		c := condition(status, typ)
		if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "ContainersNotReady" ||
			c.Message != "containers with unready status: [app sidecar]" || c.LastTransitionTime.IsZero() {
			t.Errorf("%s: %+v", typ, c)
		}
	}
	if c := condition(status, corev1.PodInitialized); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("Initialized: %+v", c)
	}
	if got := status.ContainerStatuses; len(got) != 2 || got[0].Name != "app" || got[1].Name != "sidecar" {
		t.Fatalf("container statuses %+v", got)
	}
	for _, c := range status.ContainerStatuses {
		if c.Ready || c.RestartCount != 1 || c.Started == nil || *c.Started {
			t.Errorf("%s: ready %v, restarts %d, started %v", c.Name, c.Ready, c.RestartCount, c.Started)
		}
		w := c.State.Waiting
		if w == nil || w.Reason != "CrashLoopBackOff" || w.Message != "back-off 10s restarting failed container="+c.Name+" pod=app-1_crash(u-1)" {
			t.Errorf("%s waiting: %+v", c.Name, w)
		}
		last := c.LastTerminationState.Terminated
		if last == nil || last.Reason != "Error" || last.ExitCode != 1 || last.StartedAt.IsZero() || last.FinishedAt.IsZero() {
			t.Errorf("%s last state: %+v", c.Name, last)
		}
	}
	if init := status.InitContainerStatuses; len(init) != 1 || init[0].State.Terminated == nil || init[0].State.Terminated.Reason != "Completed" {
		t.Errorf("init container statuses %+v", init)
	}
	if _, ok := raw["podIPs"]; !ok {
		t.Errorf("no pod IPs in %v", raw)
	}
}

func TestCrashLoopRestartsEveryTenSecondsAndKeepsWhatStays(t *testing.T) {
	since := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	pod := scheduledPod(crashLoop)
	pod.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, PodIP: "10.0.0.7", HostIP: "10.0.0.1", StartTime: &since,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: since},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: since},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: since},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, LastTransitionTime: since},
		},
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "sidecar", RestartCount: 7},
			{Name: "app", RestartCount: 3},
		},
	}
	status, raw, delay := playCrashLoop(t, pod)
	if delay != 10*time.Second {
		t.Errorf("a crash-looping pod waits %s, want the 10s back-off", delay)
	}
	for _, c := range status.ContainerStatuses {
		want := map[string]int32{"app": 4, "sidecar": 8}[c.Name]
		if c.RestartCount != want {
			t.Errorf("%s: restartCount %d, want %d", c.Name, c.RestartCount, want)
		}
	}
	for _, typ := range []corev1.PodConditionType{corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady} {
		if c := condition(status, typ); c == nil || !c.LastTransitionTime.Equal(&since) {
			t.Errorf("%s: %+v, want its transition time kept", typ, c)
		}
	}
	for _, key := range []string{"startTime", "podIP", "podIPs", "hostIP", "initContainerStatuses"} {
		if _, ok := raw[key]; ok {
			t.Errorf("a restart rewrites %s: %v", key, raw[key])
		}
	}

	// A Ready pod annotated later turns not Ready now, and its count starts.
	pod.Status.Conditions[2].Status = corev1.ConditionTrue
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true}, {Name: "sidecar", Ready: true}}
	status, _, _ = playCrashLoop(t, pod)
	if c := condition(status, corev1.PodReady); c == nil || c.Status != corev1.ConditionFalse || c.LastTransitionTime.Equal(&since) {
		t.Errorf("Ready: %+v, want False from now", c)
	}
	if c := status.ContainerStatuses[0]; c.RestartCount != 1 || c.State.Waiting == nil {
		t.Errorf("app: %+v", c)
	}
}
