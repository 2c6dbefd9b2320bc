package apiclient_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// execFake serves core/v1 with pod demo/web-1 (container "app").
func execFake(t *testing.T, opts apitest.Options) (*apitest.Server, *apiclient.Client) {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", nil))
	return fake, clientFor(t, fake)
}

// syncBuffer is a bytes.Buffer safe for the executor's copy goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// sizeQueue hands the executor the sizes sent to it; closing it ends it.
type sizeQueue chan apiclient.TerminalSize

func (q sizeQueue) Next() *apiclient.TerminalSize {
	size, ok := <-q
	if !ok {
		return nil
	}
	return &size
}

// terminal is an interactive session running in the background.
type terminal struct {
	t     *testing.T
	fake  *apitest.Server
	in    *io.PipeWriter
	out   *syncBuffer
	sizes sizeQueue
	done  chan error
}

func startTerminal(t *testing.T, ctx context.Context, fake *apitest.Server, c *apiclient.Client, s apiclient.Session) *terminal {
	t.Helper()
	pr, pw := io.Pipe()
	term := &terminal{t: t, fake: fake, in: pw, out: &syncBuffer{}, sizes: make(sizeQueue, 4), done: make(chan error, 1)}
	s.Stdin, s.Stdout = pr, term.out
	if s.Resize == nil && s.TTY {
		s.Resize = term.sizes
	}
	go func() { term.done <- c.Stream(ctx, s) }()
	t.Cleanup(func() {
		_ = pw.Close()
		close(term.sizes)
	})
	return term
}

// waitSession waits, with a deadline, until the last session satisfies ok.
func waitSession(t *testing.T, fake *apitest.Server, ok func(apitest.ExecSession) bool) apitest.ExecSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ss, err := fake.WaitExec(ctx, func(ss []apitest.ExecSession) bool { return len(ss) > 0 && ok(ss[len(ss)-1]) })
	if err != nil {
		t.Fatal(err)
	}
	return ss[len(ss)-1]
}

func (term *terminal) typeAndWait(input, wantOutput string) {
	term.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(term.in, input)
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			term.t.Fatal(err)
		}
	case err := <-term.done:
		// The stream may end right after it read the input ("exit 2"):
		// closing the pipe ends a write still blocked, and a write that
		// went through says the input was read.
		_ = term.in.CloseWithError(errors.New("the stream ended"))
		if werr := <-written; werr != nil {
			term.t.Fatalf("Stream ended before reading %q: %v", input, err)
		}
		term.done <- err // for result
	}
	waitSession(term.t, term.fake, func(e apitest.ExecSession) bool { return strings.HasSuffix(e.Output, wantOutput) })
}

func (term *terminal) result() error {
	term.t.Helper()
	select {
	case err := <-term.done:
		return err
	case <-time.After(10 * time.Second):
		term.t.Fatal("Stream did not return")
		return nil
	}
}

func TestStreamExitZero(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	var out syncBuffer
	err := c.Stream(context.Background(), apiclient.Session{
		Namespace: "demo", Pod: "web-1", Command: []string{"sh", "-c", "echo hello 'two  words'; pwd"}, Stdout: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "hello two  words\n"+apitest.ExecWorkDir+"\n" {
		t.Errorf("stdout %q", got)
	}
	ss := fake.ExecSessions()
	if len(ss) != 1 || ss[0].End != apitest.ExecExited || ss[0].ExitCode != 0 || ss[0].Container != "app" ||
		ss[0].Protocol != apitest.ExecProtocolV5 || ss[0].TTY || ss[0].Stdin || !slices.Equal(ss[0].Command, []string{"sh", "-c", "echo hello 'two  words'; pwd"}) {
		t.Errorf("sessions %+v", ss)
	}
}

func TestStreamExitCodeKubeletAndKwok(t *testing.T) {
	for _, kwok := range []bool{false, true} {
		fake, c := execFake(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: kwok}})
		var out, errOut syncBuffer
		err := c.Stream(context.Background(), apiclient.Session{
			Namespace: "demo", Pod: "web-1", Container: "app", Command: []string{"sh", "-c", "echo hi; nope; exit 3"},
			Stdout: &out, Stderr: &errOut,
		})
		var exit *apiclient.ExitError
		if !errors.As(err, &exit) || exit.Code != 3 {
			t.Errorf("kwok=%v: err %v, want exit code 3", kwok, err)
		}
		if out.String() != "hi\n" || errOut.String() != "sh: nope: not found\n" {
			t.Errorf("kwok=%v: stdout %q stderr %q", kwok, out.String(), errOut.String())
		}
		if ss := fake.ExecSessions(); len(ss) != 1 || ss[0].End != apitest.ExecExited || ss[0].ExitCode != 3 {
			t.Errorf("kwok=%v: sessions %+v", kwok, ss)
		}
	}
}

func TestStreamTTYEchoesAndRunsLines(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	term := startTerminal(t, context.Background(), fake, c, apiclient.Session{
		Namespace: "demo", Pod: "web-1", Command: []string{"sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"}, TTY: true,
	})
	term.typeAndWait("echo hi\r", "hi\r\n"+apitest.ExecPrompt)
	term.typeAndWait("bogus\r", "sh: bogus: not found\r\n"+apitest.ExecPrompt)
	term.typeAndWait("exit 0\r", "exit 0\r\n")
	if err := term.result(); err != nil {
		t.Fatal(err)
	}
	want := "$ echo hi\r\nhi\r\n$ bogus\r\nsh: bogus: not found\r\n$ exit 0\r\n"
	if got := term.out.String(); got != want {
		t.Errorf("terminal shows %q, want %q", got, want)
	}
	e := fake.ExecSessions()[0]
	if e.Input != "echo hi\rbogus\rexit 0\r" || e.End != apitest.ExecExited || !e.TTY || !e.Stdin {
		t.Errorf("session %+v", e)
	}
}

func TestStreamResizeReachesTheProcess(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	term := startTerminal(t, context.Background(), fake, c, apiclient.Session{
		Namespace: "demo", Pod: "web-1", Command: []string{"sh"}, TTY: true,
	})
	term.sizes <- apiclient.TerminalSize{Width: 100, Height: 30}
	waitSession(t, fake, func(e apitest.ExecSession) bool { return len(e.Resizes) == 1 })
	term.typeAndWait("stty size\r", "30 100\r\n$ ")
	term.sizes <- apiclient.TerminalSize{Width: 200, Height: 50}
	waitSession(t, fake, func(e apitest.ExecSession) bool { return len(e.Resizes) == 2 })
	term.typeAndWait("stty size\r", "50 200\r\n$ ")
	term.typeAndWait("exit 7\r", "exit 7\r\n")
	var exit *apiclient.ExitError
	if err := term.result(); !errors.As(err, &exit) || exit.Code != 7 {
		t.Fatalf("err %v, want exit code 7", err)
	}
	if e := fake.ExecSessions()[0]; !slices.Equal(e.Resizes, []apitest.TerminalSize{{Width: 100, Height: 30}, {Width: 200, Height: 50}}) {
		t.Errorf("resizes %+v", e.Resizes)
	}
}

func TestStreamStdinWithoutTTY(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	var out, errOut syncBuffer
	// cat: stdin to stdout, until stdin ends (v5's CLOSE signal).
	err := c.Stream(context.Background(), apiclient.Session{
		Namespace: "demo", Pod: "web-1", Command: []string{"cat"}, Stdin: strings.NewReader("a\nb\n"), Stdout: &out,
	})
	if err != nil || out.String() != "a\nb\n" {
		t.Fatalf("cat: err %v, stdout %q", err, out.String())
	}
	if e := fake.ExecSessions()[0]; !e.StdinClosed || e.End != apitest.ExecExited || e.Input != "a\nb\n" {
		t.Errorf("cat session %+v", e)
	}
	// A shell reading lines, no echo, errors on stderr.
	out = syncBuffer{}
	err = c.Stream(context.Background(), apiclient.Session{
		Namespace: "demo", Pod: "web-1", Command: []string{"sh"}, Stdin: strings.NewReader("echo a\nnope\nexit 4\n"), Stdout: &out, Stderr: &errOut,
	})
	var exit *apiclient.ExitError
	if !errors.As(err, &exit) || exit.Code != 4 || out.String() != "a\n" || errOut.String() != "sh: nope: not found\n" {
		t.Errorf("sh: err %v, stdout %q, stderr %q", err, out.String(), errOut.String())
	}
}

func TestStreamKwokNeverDeliversStdinEnd(t *testing.T) {
	fake, c := execFake(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: true}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- c.Stream(ctx, apiclient.Session{
			Namespace: "demo", Pod: "web-1", Command: []string{"cat"}, Stdin: strings.NewReader("a\n"), Stdout: io.Discard,
		})
	}()
	waitSession(t, fake, func(e apitest.ExecSession) bool { return e.StdinClosed && e.Output == "a\n" })
	if e := fake.ExecSessions()[0]; e.End != apitest.ExecRunning {
		t.Fatalf("cat ended on stdin's end under kwok: %+v", e)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	waitSession(t, fake, func(e apitest.ExecSession) bool { return e.End == apitest.ExecDropped })
}

func TestStreamCancelledDropsTheSession(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	term := startTerminal(t, ctx, fake, c, apiclient.Session{Namespace: "demo", Pod: "web-1", Command: []string{"sh"}, TTY: true})
	term.typeAndWait("echo still here\r", "still here\r\n$ ")
	cancel()
	if err := term.result(); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	e := waitSession(t, fake, func(e apitest.ExecSession) bool { return e.End != apitest.ExecRunning })
	if e.End != apitest.ExecDropped {
		t.Errorf("session ended %q, want dropped", e.End)
	}
}

func TestStreamAttach(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	term := startTerminal(t, context.Background(), fake, c, apiclient.Session{
		Namespace: "demo", Pod: "web-1", Attach: true, TTY: true, Command: []string{"ignored"},
	})
	term.typeAndWait("echo attached\r", "attached\r\n$ ")
	term.typeAndWait("exit 2\r", "exit 2\r\n")
	var exit *apiclient.ExitError
	if err := term.result(); !errors.As(err, &exit) || exit.Code != 2 {
		t.Fatalf("err %v", err)
	}
	// No prompt before the first line: the main process was already running.
	if got := term.out.String(); !strings.HasPrefix(got, "echo attached\r\n") {
		t.Errorf("terminal shows %q", got)
	}
	e := fake.ExecSessions()[0]
	if !e.Attach || e.Command != nil || e.Container != "app" || e.End != apitest.ExecExited {
		t.Errorf("session %+v", e)
	}
	if r := fake.Requests()[0]; r.URL.Path != "/api/v1/namespaces/demo/pods/web-1/attach" || r.URL.Query().Has("command") {
		t.Errorf("request %s", r.URL)
	}
}

func TestStreamRefusals(t *testing.T) {
	ac := &apitest.Access{
		Users: map[string]apitest.User{
			"":             {Name: "admin", Groups: []string{"system:masters"}},
			"viewer-token": {Name: "alice", Groups: []string{"viewers"}},
			"getter-token": {Name: "carol"},
		},
		Rules: append([]apitest.Rule{
			{Groups: []string{"system:masters"}, Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			// get but not create: the WebSocket GET passes the filter, not Connect's create check.
			{Users: []string{"carol"}, Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/exec"}},
		}, apitest.Viewer("viewers", "demo")...),
	}
	fake := apitest.NewServerWith(t, apitest.Options{Access: ac}, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", nil), apitest.Object("v1", "Pod", "demo", "pending", map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "x"}}},
	}))
	waiting := apitest.Pod("demo", "starting", nil)
	_ = unstructured.SetNestedSlice(waiting.Object, []any{map[string]any{"name": "app", "state": map[string]any{"waiting": map[string]any{"reason": "ImagePullBackOff"}}}}, "status", "containerStatuses")
	fake.Add(waiting)

	for _, tc := range []struct {
		name, token, pod, container string
		code                        int32
		message                     string
	}{
		{"viewer", "viewer-token", "web-1", "", http.StatusForbidden, `pods "web-1" is forbidden: User "alice" cannot get resource "pods/exec" in API group "" in the namespace "demo"`},
		{"get without create", "getter-token", "web-1", "", http.StatusForbidden, `User "carol" cannot create resource "pods/exec"`},
		{"no such pod", "", "gone", "", http.StatusNotFound, `pods "gone" not found`},
		{"no such container", "", "web-1", "nope", http.StatusBadRequest, "container nope is not valid for pod web-1"},
		{"no node", "", "pending", "", http.StatusBadRequest, "pod pending does not have a host assigned"},
		{"not running", "", "starting", "app", http.StatusBadRequest, `container "app" in pod "starting" is waiting to start: ImagePullBackOff`},
	} {
		fake.ResetRequests()
		err := clientAs(t, fake, tc.token).Stream(context.Background(), apiclient.Session{
			Namespace: "demo", Pod: tc.pod, Container: tc.container, Command: []string{"sh"}, Stdout: io.Discard,
		})
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.Status().Code != tc.code || !strings.Contains(se.Error(), tc.message) {
			t.Errorf("%s: err %v, want %d %q", tc.name, err, tc.code, tc.message)
		}
		// The server's answer stands: no second try over SPDY.
		for _, r := range fake.Requests() {
			if r.Method != http.MethodGet {
				t.Errorf("%s: %s %s after the refusal", tc.name, r.Method, r.URL.Path)
			}
		}
	}
	if n := len(fake.ExecSessions()); n != 0 {
		t.Errorf("%d sessions from refused requests", n)
	}
}

func TestStreamServerWithoutExec(t *testing.T) {
	fake, c := execFake(t, apitest.Options{Exec: apitest.ExecOptions{NoExec: true}})
	d, err := c.Discovery(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pods, _ := d.Lookup("", "v1", "pods")
	if apiclient.SupportsExec(pods) || apiclient.SupportsAttach(pods) || !apiclient.SupportsEphemeralContainers(pods) {
		t.Errorf("pods subresources %v", pods.Subresources)
	}
	for _, attach := range []bool{false, true} {
		err := c.Stream(context.Background(), apiclient.Session{Namespace: "demo", Pod: "web-1", Attach: attach, Command: []string{"sh"}, Stdout: io.Discard})
		if !apierrors.IsNotFound(err) {
			t.Errorf("attach=%v: err %v, want 404", attach, err)
		}
	}
	if len(fake.ExecSessions()) != 0 {
		t.Error("sessions on a server without exec")
	}
}

func TestStreamUpgradeFailureFallsBackToSPDY(t *testing.T) {
	fake, c := execFake(t, apitest.Options{Exec: apitest.ExecOptions{NoWebSocket: true}})
	err := c.Stream(context.Background(), apiclient.Session{Namespace: "demo", Pod: "web-1", Command: []string{"sh"}, Stdout: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "not SPDY/3.1") {
		t.Fatalf("err %v, want the fake's SPDY refusal", err)
	}
	var methods []string
	for _, r := range fake.Requests() {
		if r.URL.Path == "/api/v1/namespaces/demo/pods/web-1/exec" {
			methods = append(methods, r.Method+" "+r.Header.Get("Upgrade"))
		}
	}
	if !slices.Equal(methods, []string{"GET websocket", "POST SPDY/3.1"}) {
		t.Errorf("requests %q: want a WebSocket upgrade, then SPDY", methods)
	}
	if len(fake.ExecSessions()) != 0 {
		t.Error("a session without an upgrade")
	}
}

func TestStreamRefusesBadNamesBeforeAnyRequest(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	for _, s := range []apiclient.Session{
		{Namespace: "demo", Pod: "../x", Command: []string{"sh"}},
		{Namespace: "", Pod: "web-1", Command: []string{"sh"}},
		{Namespace: "demo", Pod: "web-1", Container: "a/b", Command: []string{"sh"}},
		{Namespace: "demo", Pod: "web-1"}, // exec without a command
	} {
		if err := c.Stream(context.Background(), s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}
