package kube

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodContainersInKubectlsOrder(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	done := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
	pod := &corev1.Pod{
		Spec: corev1.PodSpec{
			InitContainers:      []corev1.Container{{Name: "setup"}, {Name: "proxy"}},
			Containers:          []corev1.Container{{Name: "sidecar"}, {Name: "app", Stdin: true, TTY: true}, {Name: "waiting"}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-x", Stdin: true, TTY: true}}},
		},
		Status: corev1.PodStatus{
			InitContainerStatuses:      []corev1.ContainerStatus{{Name: "setup", State: done}, {Name: "proxy", State: running}},
			ContainerStatuses:          []corev1.ContainerStatus{{Name: "sidecar", State: running}, {Name: "app", LastTerminationState: done}, {Name: "waiting"}},
			EphemeralContainerStatuses: []corev1.ContainerStatus{{Name: "debugger-x"}},
		},
	}
	want := []Container{
		{Name: "sidecar", Running: true, Started: true},
		{Name: "app", Started: true, Attachable: true}, // restarting: its last run has a log
		{Name: "waiting"},
		{Name: "setup", Kind: InitContainer, Started: true},
		{Name: "proxy", Kind: InitContainer, Running: true, Started: true},
		{Name: "debugger-x", Kind: EphemeralContainer, Attachable: true},
	}
	if got := PodContainers(pod); !slices.Equal(got, want) {
		t.Errorf("PodContainers =\n%+v\nwant\n%+v", got, want)
	}
	if got := ContainerNames(want); !slices.Equal(got, []string{"sidecar", "app", "waiting", "setup", "proxy", "debugger-x"}) {
		t.Errorf("ContainerNames = %q", got)
	}
}

func TestDefaultContainerIsKubectls(t *testing.T) {
	pod := func(annotation string) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "setup"}},
			Containers:     []corev1.Container{{Name: "sidecar"}, {Name: "app"}},
		}}
		if annotation != "" {
			p.ObjectMeta = metav1.ObjectMeta{Annotations: map[string]string{defaultContainerAnnotation: annotation}}
		}
		return p
	}
	for annotation, want := range map[string]string{
		"":      "sidecar", // the first app container
		"app":   "app",
		"setup": "setup", // kubectl finds init containers by name too
		"gone":  "sidecar",
	} {
		if got := DefaultContainer(pod(annotation)); got != want {
			t.Errorf("annotation %q: DefaultContainer = %q, want %q", annotation, got, want)
		}
	}
	if got := DefaultContainer(&corev1.Pod{}); got != "" {
		t.Errorf("a pod without containers: DefaultContainer = %q", got)
	}
}
