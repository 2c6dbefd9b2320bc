package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/page"
)

// Timings of a session.
const (
	// pingInterval keeps the socket busy for proxies and meshes that cut
	// connections quiet for a minute.
	pingInterval = 20 * time.Second
	// leaveGrace is how long a process the browser left has to end after
	// it was told to, before the upstream connection is cut.
	leaveGrace = 5 * time.Second
)

// leaveShell is typed into a shell whose browser went away: interrupt
// what runs in the foreground, clear a half-typed line, then exit. kwok,
// and runtimes whose exec is not the pty's controlling process, leave the
// process running when only the connection goes.
const leaveShell = "\x03\x15exit\n"

// endOfInput ends the input of a program reading a terminal, which a
// closed stdin does not deliver through every runtime (kwok): Ctrl-U
// kills a half-typed line, on which Ctrl-D alone would only hand over
// what was typed, then Ctrl-D on the empty line is the end of input.
const endOfInput = "\x15\x04"

// serveSession upgrades, then takes one of the user's terminal slots,
// resolves the pod and container, and runs the session. Refusals after the
// token check come as a Status on channel 3, which the page shows: a
// refused handshake tells a browser nothing.
func (h *Handler) serveSession(c echo.Context, t page.Target, attach bool) error {
	// Sizes are always accepted, and ignored by a session without a TTY.
	stream, err := h.env.UpgradeWith(c, page.UpgradeOptions{Input: true, Resize: true, PingInterval: pingInterval})
	if stream == nil {
		return err
	}
	stream.Finish(h.session(c, t, stream, attach))
	return nil
}

// session runs one terminal on an open stream; the error it returns (a
// refusal) is the stream's final Status.
func (h *Handler) session(c echo.Context, t page.Target, stream *page.Stream, attach bool) error {
	release, err := h.slots.acquire(t.Client.IdentityKey())
	if err != nil {
		return err
	}
	defer release()
	setupCtx, cancel := h.env.WithDeadline(stream.Context)
	tg, err := h.resolve(setupCtx, c, t, attach)
	cancel()
	if err != nil {
		return err
	}
	s := &session{
		stream: stream,
		client: t.Client,
		target: tg,
		idle:   h.idle,
		wait:   h.startWait,
		poll:   h.startPoll,
		log:    h.log.With("who", page.Who(c), "context", t.Client.ContextName(), "namespace", tg.pod.Namespace, "pod", tg.pod.Name, "container", tg.container.Name),
	}
	if st := s.run(); st != nil {
		_ = stream.SendStatus(stream.Context, st)
	}
	return nil
}

// session is one terminal: a browser socket and an upstream exec or attach.
type session struct {
	stream *page.Stream
	client *apiclient.Client
	target target
	idle   time.Duration
	// wait bounds how long the session waits for its container to start
	// (a debug container pulling its image), and poll how often it looks.
	wait, poll time.Duration
	log        *slog.Logger
}

// How a session ended, for the log.
const (
	endedExit    = "exit"    // the process ended
	endedBrowser = "browser" // the browser went away
	endedIdle    = "idle"    // no keystroke for the idle timeout
	endedError   = "error"   // the upstream connection failed or was refused
)

// run runs the session to its end and returns the Status to send the
// browser, if it is still there.
func (s *session) run() *metav1.Status {
	start := time.Now()
	s.log.Info("terminal started", "mode", s.mode(), "command", s.target.command, "tty", s.tty())

	first := s.firstSize()
	// A browser gone while it was awaited gets no process.
	if s.stream.Context.Err() != nil || !s.waitRunning() {
		s.logEnd(start, endedBrowser, -1, nil)
		return nil
	}
	ended, err := s.serve(first)
	st, code := endStatus(err)
	if ended == endedExit && code < 0 {
		ended = endedError
	}
	s.logEnd(start, ended, code, err)
	if ended == endedIdle {
		return s.idleStatus()
	}
	return st
}

// serve runs the process until it ends, the browser leaves, or no key is
// typed for s.idle, and returns which of the three (endedExit,
// endedBrowser, endedIdle) with the process's error: nil, an
// *apiclient.ExitError, or why the upstream connection failed. A process
// nobody is left to use is told to end first (leave).
func (s *session) serve(first *apiclient.TerminalSize) (ended string, err error) {
	up := s.startUpstream(first)
	defer up.cancel()
	typed := make(chan struct{}, 1)
	go pumpInput(s.stream.Input(), up.stdin, typed)
	idle, stopIdle := idleTimer(s.idle, typed)
	defer stopIdle()

	ended = endedExit
	select {
	case err = <-up.done:
	case <-s.stream.Context.Done():
		ended = endedBrowser
		err = s.leave(up)
	case <-idle:
		ended = endedIdle
		err = s.leave(up)
	}
	_ = up.stdin.Close()
	return ended, err
}

// upstream is the process a session runs, over a connection of its own.
type upstream struct {
	// done receives how the process ended, once: nil, an
	// *apiclient.ExitError, or why the connection failed or was refused.
	done <-chan error
	// stdin is the process's input; closing it ends the input.
	stdin *io.PipeWriter
	// cancel cuts the connection; the session calls it once it is over.
	cancel context.CancelFunc
}

// startUpstream starts the exec or attach at first, the browser's first
// size (nil: none came). Its connection outlives the browser's, so that a
// process the browser left can be told to end (leave): it has a context of
// its own, which only cancel ends. With a TTY the browser's resizes
// follow, and input waits until the first size is on its way (afterSize).
func (s *session) startUpstream(first *apiclient.TerminalSize) *upstream {
	ctx, cancel := context.WithCancel(context.WithoutCancel(s.stream.Context))
	stdin, stdinW := io.Pipe()
	tg := s.target
	sess := apiclient.Session{
		Namespace: tg.pod.Namespace, Pod: tg.pod.Name, Container: tg.container.Name,
		Command: tg.command, Attach: tg.attach, TTY: s.tty(),
		Stdin:  stdin,
		Stdout: &output{stream: s.stream, channel: streaming.ChannelData},
		Stderr: &output{stream: s.stream, channel: streaming.ChannelDiagnostics},
	}
	if s.tty() {
		resize := &sizes{first: first, next: s.stream.Resize(), ctx: ctx, given: make(chan struct{})}
		sess.Stdin = &afterSize{r: stdin, given: resize.given, ctx: ctx}
		sess.Resize = resize
	}
	done := make(chan error, 1)
	go func() { done <- s.client.Stream(ctx, sess) }()
	return &upstream{done: done, stdin: stdinW, cancel: cancel}
}

// idleTimer fires when d passes without a keystroke; typed tells it of each
// one, which starts d again. With d <= 0 it never fires. stop releases it.
func idleTimer(d time.Duration, typed <-chan struct{}) (fired <-chan time.Time, stop func()) {
	if d <= 0 {
		return nil, func() {}
	}
	timer := time.NewTimer(d)
	finished := make(chan struct{})
	go func() {
		for {
			select {
			case <-typed:
				timer.Reset(d)
			case <-finished:
				return
			}
		}
	}()
	return timer.C, func() {
		close(finished)
		timer.Stop()
	}
}

// logEnd logs how the session ended, with the process's exit code when it
// has one (code >= 0), else the error, if any.
func (s *session) logEnd(start time.Time, ended string, code int, err error) {
	attrs := []any{"mode", s.mode(), "command", s.target.command, "ended", ended, "duration", time.Since(start).Round(time.Millisecond)}
	if code >= 0 {
		attrs = append(attrs, "exitCode", code)
	} else if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	s.log.Info("terminal ended", attrs...)
}

// idleStatus is the Status of a session closed for want of input.
func (s *session) idleStatus() *metav1.Status {
	// An attached process is the container's own: it was let go, not
	// ended.
	what := "its process was ended"
	if s.target.attach {
		what = "the container's process goes on"
	}
	return &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonTimeout, Code: http.StatusRequestTimeout,
		Message: fmt.Sprintf("The terminal received no input for %v and was closed; %s.", s.idle, what)}
}

// mode names the session's kind in the log.
func (s *session) mode() string {
	if s.target.attach {
		return "attach"
	}
	return "exec"
}

func (s *session) tty() bool { return !s.target.attach || s.target.container.Attachable }

// leave ends the process when nobody is left to use it: a shell is told
// to exit, a program gets end-of-input, then stdin closes; whatever is
// still running after leaveGrace loses its connection. An attached
// process is the container's own: it is only let go, never told to end.
func (s *session) leave(up *upstream) error {
	go func() {
		switch {
		case s.target.attach:
		case s.target.shell:
			_, _ = io.WriteString(up.stdin, leaveShell)
		case s.tty():
			_, _ = io.WriteString(up.stdin, endOfInput)
		}
		_ = up.stdin.Close()
	}()
	grace := time.NewTimer(leaveGrace)
	defer grace.Stop()
	select {
	case err := <-up.done:
		return err
	case <-grace.C:
		up.cancel()
		return <-up.done
	}
}

// endStatus is the channel-3 Status of how the process ended, and its
// exit code (-1 when it has none: refused, or the connection failed).
func endStatus(err error) (*metav1.Status, int) {
	if err == nil {
		st := apiclient.ExitStatus(0)
		return &st, 0
	}
	if exit, ok := errors.AsType[*apiclient.ExitError](err); ok {
		st := apiclient.ExitStatus(exit.Code)
		return &st, exit.Code
	}
	if errors.Is(err, context.Canceled) {
		return nil, -1
	}
	st := page.StatusFor(err)
	return &st, -1
}

// pumpInput copies keystrokes to the process, in order, telling typed
// about each (for the idle timer). It ends when the browser's input does.
func pumpInput(in <-chan []byte, stdin *io.PipeWriter, typed chan<- struct{}) {
	for p := range in {
		if _, err := stdin.Write(p); err != nil {
			return
		}
		select {
		case typed <- struct{}{}:
		default:
		}
	}
}

// output sends what the process writes to the browser. Once the browser is
// gone it swallows it, so the executor keeps reading while the process is
// told to end.
type output struct {
	stream  *page.Stream
	channel byte
}

func (o *output) Write(p []byte) (int, error) {
	_ = o.stream.Send(o.stream.Context, o.channel, p)
	return len(p), nil
}

// waitRunning waits, saying so in the terminal, for a container that was
// not running when the page was made: a debug container just added is
// still pulling its image. It reports false when the browser left. Past
// s.wait, or when the container ended, the server is asked anyway and
// its answer shown.
func (s *session) waitRunning() bool {
	c := s.target.container
	if c.Running {
		return true
	}
	_ = s.stream.Send(s.stream.Context, streaming.ChannelData, []byte("Waiting for container "+c.Name+" to start…\r\n"))
	deadline := time.NewTimer(s.wait)
	defer deadline.Stop()
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	for {
		select {
		case <-s.stream.Context.Done():
			return false
		case <-deadline.C:
			return true
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(s.stream.Context, max(s.poll*5, 5*time.Second))
		pod, err := s.client.GetPod(ctx, s.target.pod.Namespace, s.target.pod.Name)
		cancel()
		if err != nil {
			continue
		}
		if state, ok := containerState(pod, c.Name); ok && (state.Running != nil || state.Terminated != nil) {
			return true
		}
	}
}

// containerState is the state of one of a pod's containers, of any kind.
func containerState(pod *corev1.Pod, name string) (corev1.ContainerState, bool) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, st := range list {
			if st.Name == name {
				return st.State, true
			}
		}
	}
	return corev1.ContainerState{}, false
}
