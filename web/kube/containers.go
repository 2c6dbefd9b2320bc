package kube

import (
	corev1 "k8s.io/api/core/v1"
)

// defaultContainerAnnotation names the container kubectl logs, exec and
// attach pick when none is given (KEP 2227).
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// Container kinds, as kubectl marks them when it lists a pod's
// containers; an app container's Kind is "".
const (
	InitContainer      = "init"
	EphemeralContainer = "ephemeral"
)

// Container is one of a pod's containers and what its status says of it.
type Container struct {
	Name string
	// Kind is "" (an app container), InitContainer or EphemeralContainer.
	Kind    string
	Running bool
	// Started: it has run (running now, or terminated), so the API serves
	// its log; a waiting container's log is an error.
	Started bool
	// Attachable: its process reads stdin with a TTY, so attaching to it
	// gives a terminal.
	Attachable bool
}

// PodContainers lists a pod's containers in the console's order: app
// containers, then init containers (which run first, and beside the app
// as sidecars), then ephemeral ones (added later, for debugging). Names
// are unique across the three, so the order only says how lists read.
func PodContainers(pod *corev1.Pod) []Container {
	type state struct{ running, started bool }
	states := map[string]state{}
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, s := range list {
			states[s.Name] = state{
				running: s.State.Running != nil,
				started: s.State.Running != nil || s.State.Terminated != nil || s.LastTerminationState.Terminated != nil,
			}
		}
	}
	out := make([]Container, 0, len(pod.Spec.Containers)+len(pod.Spec.InitContainers)+len(pod.Spec.EphemeralContainers))
	add := func(name, kind string, stdin, tty bool) {
		st := states[name]
		out = append(out, Container{Name: name, Kind: kind, Running: st.running, Started: st.started, Attachable: stdin && tty})
	}
	for _, c := range pod.Spec.Containers {
		add(c.Name, "", c.Stdin, c.TTY)
	}
	for _, c := range pod.Spec.InitContainers {
		add(c.Name, InitContainer, c.Stdin, c.TTY)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		add(c.Name, EphemeralContainer, c.Stdin, c.TTY)
	}
	return out
}

// DefaultContainer is the container kubectl picks when none is named
// (podcmd.FindOrDefaultContainerByName): the one the default-container
// annotation names, else the first app container. Where kubectl fails on
// an annotation naming no container, a page falls back to the first app
// container, so a stale annotation never hides a pod's logs or terminal.
// "" for a pod without containers.
func DefaultContainer(pod *corev1.Pod) string {
	if want := pod.Annotations[defaultContainerAnnotation]; want != "" && hasContainer(pod, want) {
		return want
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range PodContainers(pod) {
		if c.Name == name {
			return true
		}
	}
	return false
}

// ContainerNames are the names of containers, in their order.
func ContainerNames(containers []Container) []string {
	names := make([]string, len(containers))
	for i, c := range containers {
		names[i] = c.Name
	}
	return names
}
