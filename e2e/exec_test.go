//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/e2e/harness"
)

// The exec and attach tests run sessions through the real API server into
// kwok, which runs the commands on this host (see docs/devcluster.md).

// apiClient is the console's own upstream client, acting as admin.
func apiClient(t *testing.T) *apiclient.Client {
	t.Helper()
	cs, err := apiclient.Load(apiclient.LoadOptions{Kubeconfig: env.cluster.Kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("admin", apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// output collects a stream and lets a test wait for what it expects.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed on the next write
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	close(o.changed)
	o.changed = make(chan struct{})
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the output from offset `from` on matches re, and
// returns the match and the offset after it.
func (o *output) waitFor(t *testing.T, re *regexp.Regexp, from int, timeout time.Duration) ([]string, int) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		text := o.buf.String()[from:]
		changed := o.changed
		o.mu.Unlock()
		if loc := re.FindStringSubmatchIndex(text); loc != nil {
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = text[loc[2*i]:loc[2*i+1]]
				}
			}
			return m, from + loc[1]
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %q in the output after %s; it is:\n%s", re, timeout, text)
		}
	}
}

// session is one Stream running in the background.
type session struct {
	stdin  *io.PipeWriter
	stdout *output
	stderr *output
	ended  chan struct{} // closed when Stream has returned err
	err    error
	cancel context.CancelFunc
}

func startSession(t *testing.T, s apiclient.Session) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	ss := &session{stdin: pw, stdout: newOutput(), stderr: newOutput(), ended: make(chan struct{}), cancel: cancel}
	if !s.Attach {
		s.Stdin = pr
	}
	s.Stdout, s.Stderr = ss.stdout, ss.stderr
	c := apiClient(t)
	go func() {
		ss.err = c.Stream(ctx, s)
		close(ss.ended)
	}()
	t.Cleanup(func() {
		cancel()
		pw.Close()
	})
	return ss
}

// send writes a line to stdin; the write returns once the executor has
// read it.
func (s *session) send(t *testing.T, line string) {
	t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.stdin, line+"\n")
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			t.Fatalf("writing %q: %v", line, err)
		}
	case <-s.ended:
		t.Fatalf("the session ended (%v) before it read %q; stdout:\n%s", s.err, line, s.stdout.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the session did not read %q within 10s", line)
	}
}

// end waits for Stream to return.
func (s *session) end(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case <-s.ended:
		return s.err
	case <-time.After(timeout):
		t.Fatalf("the session did not end within %s; stdout:\n%s", timeout, s.stdout.String())
		return nil
	}
}

func randomWord(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// execUID is who exec'd processes run as: nobody when the tests (and so
// devcluster) run as root.
func execUID() string {
	if os.Geteuid() == 0 {
		return "65534"
	}
	return strconv.Itoa(os.Geteuid())
}

func TestExecShellEchoesRunsInThePodsDirectoryAndLeavesNothing(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	dir := env.cluster.PodWorkDir("demo", pod.Name)
	s := startSession(t, apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: pod.Spec.Containers[0].Name, Command: []string{"sh"}})

	word := "hello-" + randomWord(t)
	start := time.Now()
	s.send(t, "echo "+word)
	_, at := s.stdout.waitFor(t, regexp.MustCompile(regexp.QuoteMeta(word)+`\n`), 0, 10*time.Second)
	t.Logf("first echo after %s (connect, start sh, round trip)", time.Since(start).Round(time.Millisecond))

	s.send(t, "pwd; id -u; echo $HOME $TERM")
	m, at := s.stdout.waitFor(t, regexp.MustCompile(`(\S+)\n(\d+)\n(\S+) (\S+)\n`), at, 10*time.Second)
	if m[1] != dir || m[3] != dir || m[4] != "xterm-256color" {
		t.Errorf("pwd %q, HOME %q, TERM %q; want the pod's directory %s and xterm-256color", m[1], m[3], m[4], dir)
	}
	if m[2] != execUID() {
		t.Errorf("the shell runs as uid %s, want %s", m[2], execUID())
	}

	// The shell and what it starts are seen on the host while it runs.
	s.send(t, "sleep 300 &")
	var procs []harness.HostProcess
	apitest.WaitFor(t, 5*time.Second, harness.ProcessesFoundIn(dir, &procs))
	waitForCmdline(t, dir, []string{"sleep", "300"})

	// Echo round trips on an open session.
	var rtts []time.Duration
	for i := range 20 {
		w := word + "-" + strconv.Itoa(i)
		t0 := time.Now()
		s.send(t, "echo "+w)
		_, at = s.stdout.waitFor(t, regexp.MustCompile(regexp.QuoteMeta(w)+`\n`), at, 5*time.Second)
		rtts = append(rtts, time.Since(t0))
	}
	slices.Sort(rtts)
	t.Logf("echo round trip through the API server and kwok, 20 runs: median %s, max %s", rtts[len(rtts)/2].Round(10*time.Microsecond), rtts[len(rtts)-1].Round(10*time.Microsecond))

	// exit ends the shell (kwok never delivers the end of stdin), but not
	// its background child: kill it first, as a user would.
	s.send(t, "kill $!; exit")
	if err := s.end(t, 10*time.Second); err != nil {
		t.Fatalf("exit: %v", err)
	}
	t.Logf("the session's processes before exit: %v", procs)
	apitest.WaitFor(t, 5*time.Second, harness.NoProcessesIn(dir))
}

// waitForCmdline waits until a process with that command line is in dir.
func waitForCmdline(t *testing.T, dir string, want []string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		procs, err := harness.ProcessesIn(dir)
		return slices.ContainsFunc(procs, func(p harness.HostProcess) bool { return slices.Equal(p.Cmdline, want) }), err
	})
	if err != nil {
		procs, _ := harness.ProcessesIn(dir)
		t.Fatalf("no %q in %s: %v (processes: %v)", want, dir, err, procs)
	}
}

func TestExecExitCodes(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	container := pod.Spec.Containers[0].Name

	// A shell told to exit 3.
	s := startSession(t, apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: container, Command: []string{"sh"}})
	s.send(t, "exit 3")
	var exit *apiclient.ExitError
	if err := s.end(t, 10*time.Second); !errors.As(err, &exit) || exit.Code != 3 {
		t.Fatalf("exit 3: %v (%T), want *apiclient.ExitError{Code: 3}", err, err)
	}

	// A command with both outputs and no stdin.
	c := apiClient(t)
	var stdout, stderr bytes.Buffer
	err := c.Stream(t.Context(), apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: container,
		Command: []string{"sh", "-c", "echo out; echo err >&2; exit 42"}, Stdout: &stdout, Stderr: &stderr})
	if !errors.As(err, &exit) || exit.Code != 42 {
		t.Errorf("exit 42: %v (%T)", err, err)
	}
	if stdout.String() != "out\n" || stderr.String() != "err\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if err := c.Stream(t.Context(), apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: container,
		Command: []string{"true"}, Stdout: io.Discard}); err != nil {
		t.Errorf("true: %v", err)
	}
}

// sizes is a TerminalSizeQueue fed by the test.
type sizes chan apiclient.TerminalSize

func (q sizes) Next() *apiclient.TerminalSize {
	s, ok := <-q
	if !ok {
		return nil
	}
	return &s
}

func TestExecTTYFollowsResizes(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	q := make(sizes, 4)
	q <- apiclient.TerminalSize{Width: 100, Height: 30}
	s := startSession(t, apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: pod.Spec.Containers[0].Name,
		Command: []string{"sh"}, TTY: true, Resize: q})
	t.Cleanup(func() { close(q) })

	// Sizes travel on their own stream, apart from stdin, and reach the pty
	// when kwok gets to them: ask until the shell sees each.
	from := 0
	sttySize := func(rows, cols int) {
		t.Helper()
		want := regexp.MustCompile(`(?m)^` + strconv.Itoa(rows) + " " + strconv.Itoa(cols) + `\r?$`)
		err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			s.send(t, "stty size")
			loc := want.FindStringIndex(s.stdout.String()[from:])
			if loc != nil {
				from += loc[1]
			}
			return loc != nil, nil
		})
		if err != nil {
			t.Fatalf("stty size never reported %d %d: %v\n%s", rows, cols, err, s.stdout.String())
		}
	}
	sttySize(30, 100)
	q <- apiclient.TerminalSize{Width: 200, Height: 50}
	sttySize(50, 200)
	s.send(t, "exit")
	if err := s.end(t, 10*time.Second); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

func TestAttachFollowsTheDemoLog(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	s := startSession(t, apiclient.Session{Namespace: "demo", Pod: pod.Name, Container: pod.Spec.Containers[0].Name, Attach: true})
	// The dev control plane appends a line a second; attach starts at the end.
	s.stdout.waitFor(t, regexp.MustCompile(`level=\w+ msg=.*\n`), 0, 10*time.Second)
	s.cancel()
	if err := s.end(t, 10*time.Second); err == nil {
		t.Error("an attach ended by the client reports success")
	}
}

func TestKubectlExecRunsInThePodsDirectory(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	out := mustKubectl(t, "exec", "-n", "demo", pod.Name, "-c", pod.Spec.Containers[0].Name, "--", "sh", "-c", "pwd; echo $HOSTNAME")
	if want := env.cluster.PodWorkDir("demo", pod.Name) + "\n" + pod.Name + "\n"; out != want {
		t.Errorf("kubectl exec printed %q, want %q", out, want)
	}
	// kwok loses the exit code: kubectl sees an internal error naming it.
	_, errOut, err := kubectl(t, "exec", "-n", "demo", pod.Name, "--", "sh", "-c", "exit 3")
	if err == nil || !strings.Contains(errOut, "exit status 3") {
		t.Errorf("kubectl exec of exit 3: %v, stderr %q", err, errOut)
	}
}

// sleeper is a bare pod for kwok to run.
func sleeper(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/name": "exec-e2e"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "busybox:1.36", Args: []string{"sleep", "infinity"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("4Mi"),
				}},
			}},
			TerminationGracePeriodSeconds: new(int64(0)),
		},
	}
}

// createRunningPod creates a pod and waits until kwok runs it.
func createRunningPod(t *testing.T, cs kubernetes.Interface, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
	})
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodRunning, err
	})
	if err != nil {
		t.Fatalf("pod %s/%s is not Running: %v", pod.Namespace, pod.Name, err)
	}
	return got
}

// pwdOf runs pwd in a container through the API server.
func pwdOf(t *testing.T, namespace, pod, container string) string {
	t.Helper()
	var out bytes.Buffer
	if err := apiClient(t).Stream(t.Context(), apiclient.Session{Namespace: namespace, Pod: pod, Container: container,
		Command: []string{"pwd"}, Stdout: &out}); err != nil {
		t.Fatalf("pwd in %s/%s (%s): %v", namespace, pod, container, err)
	}
	return strings.TrimSpace(out.String())
}

func TestEphemeralContainerRunsAndExecsInANewPodsDirectory(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	pod := createRunningPod(t, cs, sleeper("demo", "exec-debug-"+randomWord(t)))

	// A pod created now gets its own directory once devcluster has seen it;
	// until kwok has its Exec, exec runs in the shared one.
	dir := env.cluster.PodWorkDir("demo", pod.Name)
	var last string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		last = pwdOf(t, "demo", pod.Name, "app")
		if last != dir && last != env.cluster.SharedWorkDir() {
			t.Fatalf("pwd in a new pod is %q, want %s or the shared %s", last, dir, env.cluster.SharedWorkDir())
		}
		return last == dir, nil
	})
	if err != nil {
		t.Fatalf("a new demo pod never got its own directory (pwd %q): %v", last, err)
	}

	// kubectl debug's way: add an ephemeral container through the subresource.
	pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, corev1.EphemeralContainer{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:1.36", Stdin: true, TTY: true},
		TargetContainerName:      "app",
	})
	if _, err := cs.CoreV1().Pods("demo").UpdateEphemeralContainers(ctx, pod.Name, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Pods("demo").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, st := range got.Status.EphemeralContainerStatuses {
			if st.Name == "debugger" && st.State.Running != nil {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the ephemeral container never ran: %v", err)
	}
	if got := pwdOf(t, "demo", pod.Name, "debugger"); got != dir {
		t.Errorf("pwd in the ephemeral container is %q, want %s", got, dir)
	}
}

func TestExecOutsideTheDemoNamespacesUsesTheSharedDirectory(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	ns := "exec-e2e-" + randomWord(t)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	// The ServiceAccount admission plugin rejects pods until the namespace
	// has its default ServiceAccount.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pod := createRunningPod(t, cs, sleeper(ns, "sleeper"))
	if got := pwdOf(t, ns, pod.Name, "app"); got != env.cluster.SharedWorkDir() {
		t.Errorf("pwd is %q, want the shared %s", got, env.cluster.SharedWorkDir())
	}
}
