package exec

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mattn/go-shellwords"
	corev1 "k8s.io/api/core/v1"

	"github.com/tabula-console/tabula/web/kube"
)

// terminalContainers are what a pod's terminal may open to, in kubectl's
// order (kube.PodContainers), init containers only while they run (a
// sidecar): one that has finished has nothing left to open to. The default
// is kubectl's (kube.DefaultContainer), or the first when that is not one
// of them.
func terminalContainers(pod *corev1.Pod) ([]kube.Container, string) {
	var out []kube.Container
	for _, c := range kube.PodContainers(pod) {
		if c.Kind != kube.InitContainer || c.Running {
			out = append(out, c)
		}
	}
	def := kube.DefaultContainer(pod)
	if !slices.ContainsFunc(out, func(c kube.Container) bool { return c.Name == def }) && len(out) > 0 {
		def = out[0].Name
	}
	return out, def
}

// pickContainer is the container a request names, or the default; a name
// the pod lacks is a 404 that lists what it has.
func pickContainer(containers []kube.Container, def, want string) (kube.Container, error) {
	if want == "" {
		want = def
	}
	i := slices.IndexFunc(containers, func(c kube.Container) bool { return c.Name == want })
	if i < 0 {
		return kube.Container{}, echo.NewHTTPError(http.StatusNotFound,
			fmt.Sprintf("This pod has no container %q. Its containers: %s.", want, strings.Join(kube.ContainerNames(containers), ", ")))
	}
	return containers[i], nil
}

// shellCommand starts the best shell an image has, in one exec: bash if
// it is there, else sh. Windows images have neither.
var (
	shellCommand   = []string{"sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"}
	windowsCommand = []string{"cmd"}
)

// osLabel is the well-known node and nodeSelector label of the OS.
const osLabel = "kubernetes.io/os"

// isWindows says whether a pod runs Windows by what its own spec says:
// spec.os, or a nodeSelector on the OS label. nodeOS is the OS label of
// its node when the caller could read it ("" otherwise).
func isWindows(pod *corev1.Pod, nodeOS string) bool {
	if pod.Spec.OS != nil && pod.Spec.OS.Name != "" {
		return pod.Spec.OS.Name == corev1.Windows
	}
	if os := pod.Spec.NodeSelector[osLabel]; os != "" {
		return os == string(corev1.Windows)
	}
	return nodeOS == string(corev1.Windows)
}

// maxCommandLength bounds the command field.
const maxCommandLength = 4096

// parseCommand splits the command field as a POSIX shell splits words
// (quotes and backslashes, no expansion), since that is how users write
// commands; "" means the default shell.
func parseCommand(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if len(s) > maxCommandLength {
		return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The command is longer than %d bytes.", maxCommandLength))
	}
	p := shellwords.NewParser()
	args, err := p.Parse(s)
	if err != nil || len(args) == 0 {
		return nil, echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("The command %q could not be split into words (an unclosed quote?). Write it as in a shell, e.g. ls -la /tmp or sh -c 'echo hi'.", s))
	}
	if p.Position >= 0 {
		// The parser stops at ; & | and the like: the command runs
		// without a shell, so these would not mean what they say.
		return nil, echo.NewHTTPError(http.StatusBadRequest,
			fmt.Sprintf("The command %q uses shell operators; it runs without a shell. Wrap it: sh -c '…'.", s))
	}
	return args, nil
}
