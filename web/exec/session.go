package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
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
	// firstSizeWait is how long the process waits for the browser's first
	// size, so that a shell starts at the size it is shown at.
	firstSizeWait = 2 * time.Second
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
	tg := s.target
	start := time.Now()
	mode := "exec"
	if tg.attach {
		mode = "attach"
	}
	s.log.Info("terminal started", "mode", mode, "command", tg.command, "tty", s.tty())

	first := s.firstSize()
	// A browser gone while it was awaited gets no process.
	if s.stream.Context.Err() != nil || !s.waitRunning() {
		s.log.Info("terminal ended", "mode", mode, "command", tg.command, "ended", endedBrowser, "duration", time.Since(start).Round(time.Millisecond))
		return nil
	}
	// The upstream outlives the browser by leaveGrace, so that the process
	// can be told to end: it has its own context.
	upCtx, cancelUp := context.WithCancel(context.WithoutCancel(s.stream.Context))
	defer cancelUp()
	stdin, stdinW := io.Pipe()
	var in io.Reader = stdin
	var resize *sizes
	if s.tty() {
		resize = &sizes{first: first, next: s.stream.Resize(), ctx: upCtx, given: make(chan struct{})}
		in = &afterSize{r: stdin, given: resize.given, ctx: upCtx}
	}
	done := make(chan error, 1)
	go func() {
		sess := apiclient.Session{
			Namespace: tg.pod.Namespace, Pod: tg.pod.Name, Container: tg.container.Name,
			Command: tg.command, Attach: tg.attach, TTY: s.tty(),
			Stdin:  in,
			Stdout: &output{stream: s.stream, channel: streaming.ChannelData},
			Stderr: &output{stream: s.stream, channel: streaming.ChannelDiagnostics},
		}
		if resize != nil {
			sess.Resize = resize
		}
		done <- s.client.Stream(upCtx, sess)
	}()
	typed := make(chan struct{}, 1)
	go pumpInput(s.stream.Input(), stdinW, typed)

	var idle <-chan time.Time
	if s.idle > 0 {
		timer := time.NewTimer(s.idle)
		defer timer.Stop()
		idle = timer.C
		finished := make(chan struct{})
		defer close(finished)
		go func() {
			for {
				select {
				case <-typed:
					timer.Reset(s.idle)
				case <-finished:
					return
				}
			}
		}()
	}

	var err error
	ended := endedExit
	select {
	case err = <-done:
	case <-s.stream.Context.Done():
		ended = endedBrowser
		err = s.leave(stdinW, done, cancelUp)
	case <-idle:
		ended = endedIdle
		err = s.leave(stdinW, done, cancelUp)
	}
	_ = stdinW.Close()

	st, code := endStatus(err)
	if ended == endedExit && code < 0 {
		ended = endedError
	}
	attrs := []any{"mode", mode, "command", tg.command, "ended", ended, "duration", time.Since(start).Round(time.Millisecond)}
	if code >= 0 {
		attrs = append(attrs, "exitCode", code)
	} else if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	s.log.Info("terminal ended", attrs...)
	if ended == endedIdle {
		// An attached process is the container's own: it was let go, not
		// ended.
		what := "its process was ended"
		if tg.attach {
			what = "the container's process goes on"
		}
		return &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonTimeout, Code: http.StatusRequestTimeout,
			Message: fmt.Sprintf("The terminal received no input for %v and was closed; %s.", s.idle, what)}
	}
	return st
}

func (s *session) tty() bool { return !s.target.attach || s.target.container.Attachable }

// leave ends the process when nobody is left to use it: a shell is told
// to exit, a program gets end-of-input, then stdin closes; whatever is
// still running after leaveGrace loses its connection. An attached
// process is the container's own: it is only let go, never told to end.
func (s *session) leave(stdin *io.PipeWriter, done <-chan error, cancel context.CancelFunc) error {
	go func() {
		switch {
		case s.target.attach:
		case s.target.shell:
			_, _ = io.WriteString(stdin, leaveShell)
		case s.tty():
			_, _ = io.WriteString(stdin, endOfInput)
		}
		_ = stdin.Close()
	}()
	grace := time.NewTimer(leaveGrace)
	defer grace.Stop()
	select {
	case err := <-done:
		return err
	case <-grace.C:
		cancel()
		return <-done
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

// sizes feeds the browser's terminal sizes to the executor: the first one
// given, then each resize.
type sizes struct {
	first *apiclient.TerminalSize
	next  <-chan []byte
	ctx   context.Context
	// given is closed when the executor asks for a size after the first:
	// it asks only once it has sent the last one.
	given     chan struct{}
	givenOnce sync.Once
}

// afterSize holds stdin back until the first size is on its way: the
// executor sends sizes and stdin from goroutines of their own, and a
// command typed at once must not run at the server's default size.
type afterSize struct {
	r      io.Reader
	given  <-chan struct{}
	ctx    context.Context
	waited bool
}

func (a *afterSize) Read(p []byte) (int, error) {
	if !a.waited {
		a.waited = true
		// An executor of a protocol without sizes (older than
		// v3.channel.k8s.io) never asks: stdin goes anyway.
		t := time.NewTimer(firstSizeWait)
		select {
		case <-a.given:
		case <-a.ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return a.r.Read(p)
}

// maxCells bounds a size: no screen has more, and a process asked for a
// huge terminal may allocate for it.
const maxCells = 1000

// parseSize reads a resize frame, {"Width":w,"Height":h}.
func parseSize(p []byte) (*apiclient.TerminalSize, bool) {
	var sz struct{ Width, Height int }
	if json.Unmarshal(p, &sz) != nil || sz.Width < 1 || sz.Height < 1 || sz.Width > maxCells || sz.Height > maxCells {
		return nil, false
	}
	return &apiclient.TerminalSize{Width: uint16(sz.Width), Height: uint16(sz.Height)}, true
}

// Next returns the next size, or nil when the session ends.
func (q *sizes) Next() *apiclient.TerminalSize {
	if f := q.first; f != nil {
		q.first = nil
		return f
	}
	q.givenOnce.Do(func() { close(q.given) })
	for {
		select {
		case p := <-q.next:
			if sz, ok := parseSize(p); ok {
				return sz
			}
		case <-q.ctx.Done():
			return nil
		}
	}
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

// firstSize waits briefly for the browser's first size.
func (s *session) firstSize() *apiclient.TerminalSize {
	if !s.tty() {
		return nil
	}
	t := time.NewTimer(firstSizeWait)
	defer t.Stop()
	for {
		select {
		case p := <-s.stream.Resize():
			if sz, ok := parseSize(p); ok {
				return sz
			}
		case <-t.C:
			return nil
		case <-s.stream.Context.Done():
			return nil
		}
	}
}

// slots caps the terminals one identity holds open.
type slots struct {
	mu  sync.Mutex
	n   map[string]int
	max int
}

func newSlots(max int) *slots { return &slots{n: map[string]int{}, max: max} }

func (s *slots) acquire(who string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[who] >= s.max {
		terminals := "terminals"
		if s.max == 1 {
			terminals = "terminal"
		}
		return nil, echo.NewHTTPError(http.StatusTooManyRequests,
			fmt.Sprintf("You already have %d %s open, the most one user may. Close one, then try again.", s.max, terminals))
	}
	s.n[who]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.n[who]--; s.n[who] <= 0 {
				delete(s.n, who)
			}
		})
	}, nil
}
