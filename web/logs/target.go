package logs

import (
	"slices"

	"github.com/a-h/templ"
	corev1 "k8s.io/api/core/v1"

	"github.com/tabula-console/tabula/web/kube"
)

const (
	// maxSources bounds the containers one merged log follows, as kubectl's
	// --max-log-requests does.
	maxSources = 20
	// maxPods bounds the pods a merged log lists to find them.
	maxPods = 100
)

// Target is whose log a page shows: one pod, or the pods a selector picks.
type Target struct {
	Kind, Name string
	Namespace  string
	Pod        string
	Selector   string
	BackHref   templ.SafeURL
	// BySelector marks /logs/{namespace}?labelSelector=…, whose form must
	// carry the selector.
	BySelector bool
	// Started are the containers of the selected pods that have a log,
	// when the page was opened (multi-pod), as of PodsVersion; only names
	// are kept for the length of a follow.
	Started     []source
	PodCount    int
	MorePods    bool
	PodsVersion string
	// Containers are what the container picker offers.
	Containers []string
	Default    string
}

func (t Target) multi() bool { return t.Pod == "" }

// source is pod/container, the prefix of a merged log's lines.
type source struct{ pod, container string }

func (s source) String() string { return s.pod + "/" + s.container }

// sources are the containers of a merged log to read: all started ones,
// or those named container.
func (t Target) sources(container string) []source {
	if container == "" {
		return t.Started
	}
	var out []source
	for _, s := range t.Started {
		if s.container == container {
			out = append(out, s)
		}
	}
	return out
}

// addPods records what a merged log needs of the pods it starts with.
func (t *Target) addPods(pods []corev1.Pod) {
	t.PodCount = len(pods)
	for i := range pods {
		for _, n := range kube.ContainerNames(kube.PodContainers(&pods[i])) {
			if !slices.Contains(t.Containers, n) {
				t.Containers = append(t.Containers, n)
			}
		}
		t.Started = append(t.Started, startedContainers(&pods[i], "")...)
	}
}

// startedContainers are the containers of a pod that have run (all, or
// the one named only), so the API can serve their logs: a waiting
// container's log is an error.
func startedContainers(pod *corev1.Pod, only string) []source {
	var out []source
	for _, c := range kube.PodContainers(pod) {
		if c.Started && (only == "" || c.Name == only) {
			out = append(out, source{pod.Name, c.Name})
		}
	}
	return out
}
