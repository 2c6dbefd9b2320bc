package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Exec and attach (pods/{name}/exec, pods/{name}/attach) are served as
// kube-apiserver serves them to client-go's WebSocket executor: the checks
// of pkg/registry/core/pod/rest/subresources.go and strategy.go
// (streamLocation) in its order, then a WebSocket upgrade speaking the
// channel protocol, v5.channel.k8s.io (with the CLOSE signal) or
// v4.channel.k8s.io. Behind the socket runs a scripted fake process, one
// per session:
//
//   - A shell: sh, bash, ... alone or with -i, or a -c script that execs a
//     shell (the console's default probe); an attach is one too, without
//     the first prompt (the main process was already running). It runs a
//     line at a time: echo ARGS, pwd (ExecWorkDir), stty size (ROWS COLS
//     of the last resize, "0 0" before any), true, false, exit [N]; any
//     other command prints "sh: X: not found" (stderr) and sets status 127.
//     Commands split at ";", words at blanks, quotes '...' and "..." kept
//     together; no expansion. With a TTY it prints ExecPrompt.
//   - sh -c SCRIPT (any other script) runs SCRIPT and exits with its
//     last status; one of the commands above runs once and exits.
//   - Anything else (cat, ...) copies stdin to stdout.
//
// With a TTY, input passes a terminal's line discipline: every byte is
// echoed, "\r" (or "\n") echoes "\r\n" and hands the line over, DEL/BS
// erase, ^U kills the line, ^C drops it (status 130; cat exits 130), ^D on an empty
// line is the end of input; output's "\n" becomes "\r\n". Without one,
// lines end at "\n", nothing is echoed, stderr is its own channel.
//
// The end of stdin (v5's CLOSE signal) ends a shell (last status) or cat
// (0), except with ExecOptions.Kwok. When the process ends, the fake sends
// the channel-3 Status, closes the socket (1000) and records ExecExited;
// a connection lost before that is ExecDropped.

// Subprotocols the fake speaks, in its order of preference.
const (
	ExecProtocolV5 = "v5.channel.k8s.io"
	ExecProtocolV4 = "v4.channel.k8s.io"
)

// What the fake process prints.
const (
	// ExecPrompt is the interactive shell's prompt (TTY only).
	ExecPrompt = "$ "
	// ExecWorkDir is what pwd prints.
	ExecWorkDir = "/home/fake"
)

// Channels of the protocol (k8s.io/apimachinery/pkg/util/remotecommand).
const (
	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	chanResize = 4
	chanClose  = 255 // v5: [255, n] half-closes channel n
)

// maxExecRecord bounds the input and output an ExecSession keeps.
const maxExecRecord = 64 << 10

// TerminalSize is a resize the client sent on channel 4, in character cells.
type TerminalSize struct{ Width, Height uint16 }

// ExecEnd is how a session stands or ended.
type ExecEnd string

const (
	// ExecRunning: the process runs and the connection is open.
	ExecRunning ExecEnd = "running"
	// ExecExited: the process ended (ExitCode) and the fake reported it on
	// channel 3, then closed the connection (1000).
	ExecExited ExecEnd = "exited"
	// ExecDropped: the connection went away (the client closed it, its
	// context ended, or the server was closed) while the process still
	// ran. A kubelet would kill it; kwok leaves it running, orphaned.
	ExecDropped ExecEnd = "dropped"
)

// ExecSession is one exec or attach the fake upgraded, as far as it has
// gone. Requests refused before the upgrade (403, 404, 400...) are not
// sessions: Requests shows them.
type ExecSession struct {
	ID                        int // 1 for the first session, and so on
	Namespace, Pod, Container string
	// Command is the exec's command; nil for an attach.
	Command                    []string
	Attach                     bool
	TTY, Stdin, Stdout, Stderr bool
	Protocol                   string // the negotiated subprotocol
	Resizes                    []TerminalSize
	// Input is what arrived on stdin, Output what the fake sent on stdout
	// and stderr (the terminal echo included), each up to 64 KiB.
	Input, Output string
	// StdinClosed says the client half-closed stdin (v5's CLOSE signal).
	StdinClosed bool
	End         ExecEnd
	ExitCode    int // when End is ExecExited
}

func (e ExecSession) clone() ExecSession {
	e.Command = slices.Clone(e.Command)
	e.Resizes = slices.Clone(e.Resizes)
	return e
}

// ExecSessions returns the sessions so far, oldest first.
func (s *Server) ExecSessions() []ExecSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.execSnapshotLocked()
}

func (s *Server) execSnapshotLocked() []ExecSession {
	out := make([]ExecSession, 0, len(s.execSessions))
	for _, e := range s.execSessions {
		out = append(out, e.clone())
	}
	return out
}

// WaitExec waits until done, called with a snapshot of the sessions after
// each change, returns true, and returns that snapshot; when ctx ends
// first, it returns the last snapshot and an error naming it.
func (s *Server) WaitExec(ctx context.Context, done func([]ExecSession) bool) ([]ExecSession, error) {
	for {
		s.mu.Lock()
		snap := s.execSnapshotLocked()
		changed := s.execChanged
		s.mu.Unlock()
		if done(snap) {
			return snap, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return snap, fmt.Errorf("apitest: WaitExec: %w; sessions: %+v", ctx.Err(), snap)
		}
	}
}

// changeExec applies change to a session and wakes WaitExec.
func (s *Server) changeExec(e *ExecSession, change func(*ExecSession)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change(e)
	close(s.execChanged)
	s.execChanged = make(chan struct{})
}

func appendBounded(to string, b []byte) string {
	if room := maxExecRecord - len(to); room < len(b) {
		b = b[:max(room, 0)]
	}
	return to + string(b)
}

// execRequest is a parsed exec or attach request (PodExecOptions,
// PodAttachOptions).
type execRequest struct {
	namespace, pod, container  string
	command                    []string
	attach                     bool
	stdin, stdout, stderr, tty bool
}

func parseExecRequest(r *http.Request, req resourceRequest) (execRequest, *metav1.Status) {
	q := r.URL.Query()
	er := execRequest{namespace: req.namespace, pod: req.name, container: q.Get("container"), attach: req.sub == "attach"}
	for _, b := range []struct {
		name string
		to   *bool
	}{{"stdin", &er.stdin}, {"stdout", &er.stdout}, {"stderr", &er.stderr}, {"tty", &er.tty}} {
		if v := q.Get(b.name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				st := badRequest(fmt.Sprintf("invalid %s parameter %q", b.name, v))
				return er, &st
			}
			*b.to = on
		}
	}
	if !er.attach {
		er.command = q["command"]
		if len(er.command) == 0 {
			st := badRequest("you must specify at least one command for the container")
			return er, &st
		}
	}
	if !er.stdin && !er.stdout && !er.stderr {
		st := badRequest("you must specify at least 1 of stdin, stdout, stderr")
		return er, &st
	}
	return er, nil
}

// serveExec serves pods/{name}/exec and pods/{name}/attach.
func (s *Server) serveExec(w http.ResponseWriter, r *http.Request, req resourceRequest, opts Options) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	// A GET (a WebSocket upgrade) was authorized as "get"; kube-apiserver
	// (AuthorizePodWebsocketUpgradeCreatePermission) also requires
	// "create", which a POST was authorized for.
	if ac := opts.Access; ac != nil && r.Method == http.MethodGet {
		u, _ := ac.authenticate(r)
		a := requestAttributes(r)
		a.verb = "create"
		if !ac.allows(u, a) {
			WriteStatus(w, forbiddenStatus(u, a))
			return
		}
	}
	pod, found := s.getObject("", "pods", req.namespace, req.name)
	if !found {
		WriteStatus(w, NotFound("", "pods", req.name))
		return
	}
	er, st := parseExecRequest(r, req)
	if st == nil {
		er.container, st = streamContainer(pod, er.container)
	}
	if st == nil && fieldValue(pod, "spec.nodeName") == "" {
		bad := badRequest(fmt.Sprintf("pod %s does not have a host assigned", pod.GetName()))
		st = &bad
	}
	if st == nil {
		st = containerNotRunning(pod, er.container)
	}
	if st != nil {
		WriteStatus(w, *st)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		msg := "Upgrade request required"
		if strings.EqualFold(r.Header.Get("Upgrade"), "SPDY/3.1") {
			msg = "the fake API server serves exec and attach over WebSocket only (" + ExecProtocolV5 + ", " + ExecProtocolV4 + "), not SPDY/3.1"
		}
		WriteStatus(w, badRequest(msg))
		return
	}
	offered := websocket.Subprotocols(r)
	if opts.Exec.NoWebSocket || (!slices.Contains(offered, ExecProtocolV5) && !slices.Contains(offered, ExecProtocolV4)) {
		// What a server older than v5 answers (a runtime's WebSocket
		// handshake, golang.org/x/net/websocket, that speaks none of the
		// offered protocols): 403 and no body, which clients take as a
		// failed upgrade, not as a refusal.
		w.WriteHeader(http.StatusForbidden)
		return
	}
	up := websocket.Upgrader{
		Subprotocols: []string{ExecProtocolV5, ExecProtocolV4},
		CheckOrigin:  func(*http.Request) bool { return true }, // API clients send no Origin worth checking
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	s.mu.Lock()
	select {
	case <-s.store.shutdown:
		s.mu.Unlock()
		_ = conn.Close()
		return
	default:
	}
	s.execWG.Add(1)
	rec := &ExecSession{
		ID: len(s.execSessions) + 1, Namespace: er.namespace, Pod: er.pod, Container: er.container,
		Command: er.command, Attach: er.attach, TTY: er.tty, Stdin: er.stdin, Stdout: er.stdout, Stderr: er.stderr,
		Protocol: conn.Subprotocol(), End: ExecRunning,
	}
	s.execSessions = append(s.execSessions, rec)
	close(s.execChanged)
	s.execChanged = make(chan struct{})
	s.mu.Unlock()
	defer s.execWG.Done()
	s.runExec(conn, rec, er, opts.Exec)
}

// containerNames lists a pod's container names of one spec field.
func containerNames(pod *unstructured.Unstructured, field string) []string {
	list, _, _ := unstructured.NestedSlice(pod.Object, "spec", field)
	var out []string
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// streamContainer picks the container as kube-apiserver's validateContainer
// does: the only one when none is named, else one of any kind.
func streamContainer(pod *unstructured.Unstructured, name string) (string, *metav1.Status) {
	containers := containerNames(pod, "containers")
	all := slices.Concat(containers, containerNames(pod, "initContainers"), containerNames(pod, "ephemeralContainers"))
	switch {
	case name == "" && len(containers) == 1:
		return containers[0], nil
	case name == "" && len(containers) == 0:
		st := badRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.GetName()))
		return "", &st
	case name == "":
		st := badRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.GetName(), all))
		return "", &st
	case !slices.Contains(all, name):
		st := badRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.GetName()))
		return "", &st
	}
	return name, nil
}

// containerNotRunning is the 400 for a container whose status says it is
// waiting or terminated (a container without a status counts as running,
// so pods seeded without one can be exec'd into). The wording is the
// kubelet's for a container that has not started.
func containerNotRunning(pod *unstructured.Unstructured, name string) *metav1.Status {
	for _, field := range []string{"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"} {
		statuses, _, _ := unstructured.NestedSlice(pod.Object, "status", field)
		for _, raw := range statuses {
			cs, ok := raw.(map[string]any)
			if !ok || cs["name"] != name {
				continue
			}
			state, _ := cs["state"].(map[string]any)
			if _, running := state["running"]; running {
				return nil
			}
			msg := fmt.Sprintf("container %q in pod %q is terminated", name, pod.GetName())
			if waiting, ok := state["waiting"].(map[string]any); ok || state == nil {
				reason, _ := waiting["reason"].(string)
				if reason == "" {
					reason = "ContainerCreating"
				}
				msg = fmt.Sprintf("container %q in pod %q is waiting to start: %s", name, pod.GetName(), reason)
			}
			st := badRequest(msg)
			return &st
		}
	}
	return nil
}

// execConn writes channel messages to the client.
type execConn struct {
	conn *websocket.Conn
	mu   sync.Mutex
}

func (c *execConn) send(channel byte, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.conn.WriteMessage(websocket.BinaryMessage, append([]byte{channel}, data...))
}

// runExec runs one session until its process ends or its connection goes.
func (s *Server) runExec(conn *websocket.Conn, rec *ExecSession, er execRequest, opts ExecOptions) {
	wc := &execConn{conn: conn}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.store.shutdown:
			_ = conn.Close()
		case <-done:
		}
	}()
	defer conn.Close()

	broken := false
	p := &fakeProcess{
		tty: er.tty, attach: er.attach, kwok: opts.Kwok, command: er.command,
		out: func(channel byte, b []byte) {
			if broken || len(b) == 0 {
				return
			}
			if channel == chanStderr && (er.tty || !er.stderr) {
				channel = chanStdout // a terminal has one output
			}
			if channel == chanStdout && !er.stdout {
				return
			}
			s.changeExec(rec, func(e *ExecSession) { e.Output = appendBounded(e.Output, b) })
			if err := wc.send(channel, b); err != nil {
				broken = true
				_ = conn.Close() // the read below sees it: dropped
			}
		},
	}
	p.start(er.stdin)
	for !p.ended {
		typ, msg, err := conn.ReadMessage()
		if err != nil {
			s.changeExec(rec, func(e *ExecSession) { e.End = ExecDropped })
			return
		}
		if typ != websocket.BinaryMessage || len(msg) == 0 {
			continue
		}
		switch msg[0] {
		case chanStdin:
			s.changeExec(rec, func(e *ExecSession) { e.Input = appendBounded(e.Input, msg[1:]) })
			p.input(msg[1:])
		case chanResize:
			dec := json.NewDecoder(strings.NewReader(string(msg[1:])))
			for {
				var size TerminalSize
				if dec.Decode(&size) != nil {
					break
				}
				p.size = size
				s.changeExec(rec, func(e *ExecSession) { e.Resizes = append(e.Resizes, size) })
			}
		case chanClose:
			if rec.Protocol == ExecProtocolV5 && len(msg) > 1 && msg[1] == chanStdin {
				s.changeExec(rec, func(e *ExecSession) { e.StdinClosed = true })
				p.stdinClosed()
			}
		}
	}
	if broken {
		s.changeExec(rec, func(e *ExecSession) { e.End = ExecDropped })
		return
	}
	// The end, as the kubelet (or kwok) reports it: one Status on the
	// error channel, then a normal close.
	body, _ := json.Marshal(endStatus(opts.Kwok, p.commandLine(), p.code))
	if err := wc.send(chanError, body); err != nil {
		s.changeExec(rec, func(e *ExecSession) { e.End = ExecDropped })
		return
	}
	s.changeExec(rec, func(e *ExecSession) { e.End, e.ExitCode = ExecExited, p.code })
	wc.mu.Lock()
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	wc.mu.Unlock()
	// Wait (briefly) for the client's close, so it reads everything first.
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// endStatus is the channel-3 Status of a process's end: a kubelet's
// (Success, or Failure NonZeroExitCode with an ExitCode cause), or kwok's,
// whose local process's exit code reaches the client only as the text of
// an InternalError.
func endStatus(kwok bool, commandLine string, code int) metav1.Status {
	if code == 0 {
		return metav1.Status{Status: metav1.StatusSuccess}
	}
	if kwok {
		return apierrors.NewInternalError(fmt.Errorf("cmd wait: %s: exit status %d", commandLine, code)).ErrStatus
	}
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Reason:  "NonZeroExitCode",
		Message: fmt.Sprintf("command terminated with non-zero exit code: exit status %d", code),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(code)}}},
	}
}

// shells are the commands the fake runs as an interactive shell.
var shells = []string{"sh", "bash", "ash", "dash", "zsh", "ksh", "cmd", "cmd.exe", "powershell", "pwsh"}

// builtins are the commands the fake shell knows.
var builtins = []string{"echo", "pwd", "stty", "exit", "true", "false"}

// fakeProcess is the scripted process behind a session. With a TTY, input
// goes through a terminal's line discipline (echo, "\r" as Enter,
// backspace, ^C, ^D) and output's "\n" becomes "\r\n".
type fakeProcess struct {
	tty, attach, kwok bool
	command           []string
	out               func(channel byte, b []byte)

	cat        bool // copies stdin to stdout
	line       []byte
	echo       []byte // terminal echo not yet sent
	size       TerminalSize
	lastStatus int
	ended      bool
	code       int
}

func (p *fakeProcess) commandLine() string {
	if p.attach {
		return "sh"
	}
	return strings.Join(p.command, " ")
}

// start runs what needs no input: a script or a builtin runs to its end.
func (p *fakeProcess) start(stdin bool) {
	switch {
	case p.attach:
	case slices.Contains(shells, path.Base(p.command[0])):
		if len(p.command) >= 3 && p.command[1] == "-c" && !strings.Contains(p.command[2], "exec ") {
			p.runScript(p.command[2])
			p.finish(p.lastStatus)
			return
		}
		// sh, sh -i, or a -c script that execs a shell (the console's
		// "command -v bash >/dev/null && exec bash || exec sh").
		if p.tty {
			p.print(ExecPrompt)
		}
	case slices.Contains(builtins, p.command[0]):
		p.run(p.command)
		p.finish(p.lastStatus) // a no-op after exit's
		return
	default:
		p.cat = true
	}
	if !stdin && !p.attach {
		p.finish(p.lastStatus) // reads EOF at once
	}
}

func (p *fakeProcess) finish(code int) {
	if !p.ended {
		p.flushEcho()
		p.ended, p.code = true, code
	}
}

func (p *fakeProcess) print(s string) {
	p.flushEcho()
	if p.tty {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	p.out(chanStdout, []byte(s))
}

func (p *fakeProcess) printErr(s string) {
	p.flushEcho()
	if p.tty {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	p.out(chanStderr, []byte(s))
}

func (p *fakeProcess) flushEcho() {
	if len(p.echo) > 0 {
		b := p.echo
		p.echo = nil
		p.out(chanStdout, b)
	}
}

// input takes bytes from stdin.
func (p *fakeProcess) input(b []byte) {
	if !p.tty {
		if p.cat {
			p.out(chanStdout, b)
			return
		}
		p.line = append(p.line, b...)
		for !p.ended {
			i := slices.Index(p.line, '\n')
			if i < 0 {
				break
			}
			line := string(p.line[:i])
			p.line = p.line[i+1:]
			p.runScript(line)
		}
		return
	}
	for _, c := range b {
		if p.ended {
			return
		}
		switch c {
		case '\r', '\n':
			p.echo = append(p.echo, '\r', '\n')
			line := string(p.line)
			p.line = nil
			p.enter(line)
		case 0x7f, 0x08:
			if len(p.line) > 0 {
				p.line = p.line[:len(p.line)-1]
				p.echo = append(p.echo, '\b', ' ', '\b')
			}
		case 0x15: // ^U: kill the line, erasing it on the screen
			for range p.line {
				p.echo = append(p.echo, '\b', ' ', '\b')
			}
			p.line = nil
		case 0x03: // ^C
			p.echo = append(p.echo, '^', 'C', '\r', '\n')
			p.line = nil
			if p.cat {
				p.finish(130)
				return
			}
			p.lastStatus = 130
			p.prompt()
		case 0x04: // ^D: end of input on an empty line
			if len(p.line) == 0 {
				p.finish(p.lastStatus)
			}
		default:
			p.line = append(p.line, c)
			p.echo = append(p.echo, c)
		}
	}
	p.flushEcho()
}

// enter runs a line the terminal completed.
func (p *fakeProcess) enter(line string) {
	if p.cat {
		p.print(line + "\n")
		return
	}
	p.runScript(line)
	p.prompt()
}

func (p *fakeProcess) prompt() {
	if !p.ended && !p.cat {
		p.print(ExecPrompt)
	}
}

// stdinClosed is the end of stdin; kwok never delivers it.
func (p *fakeProcess) stdinClosed() {
	if p.kwok || p.ended {
		return
	}
	if !p.tty && !p.cat && len(p.line) > 0 {
		line := string(p.line)
		p.line = nil
		p.runScript(line)
	}
	p.finish(p.lastStatus)
}

// runScript runs the commands of a line or -c script in order.
func (p *fakeProcess) runScript(script string) {
	for _, words := range parseScript(script) {
		if p.ended || !p.run(words) {
			return
		}
	}
}

// run runs one command and reports whether the process goes on.
func (p *fakeProcess) run(words []string) bool {
	last := p.lastStatus
	p.lastStatus = 0
	switch words[0] {
	case "echo":
		p.print(strings.Join(words[1:], " ") + "\n")
	case "pwd":
		p.print(ExecWorkDir + "\n")
	case "stty":
		if len(words) == 2 && words[1] == "size" {
			p.print(fmt.Sprintf("%d %d\n", p.size.Height, p.size.Width))
		}
	case "true":
	case "false":
		p.lastStatus = 1
	case "exit":
		code := last
		if len(words) > 1 {
			n, err := strconv.Atoi(words[1])
			if err != nil {
				p.printErr("sh: exit: Illegal number: " + words[1] + "\n")
				p.lastStatus = 2
				return true
			}
			code = n & 0xff
		}
		p.finish(code)
		return false
	default:
		p.printErr("sh: " + words[0] + ": not found\n")
		p.lastStatus = 127
	}
	return true
}

// parseScript splits a script into commands at ";" and newlines, and each
// into words, honouring single and double quotes (no escapes, no
// expansion).
func parseScript(s string) [][]string {
	var (
		cmds   [][]string
		words  []string
		word   strings.Builder
		inWord bool
		quote  rune
	)
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
			words = nil
		}
	}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ';' || r == '\n':
			endCommand()
		case r == ' ' || r == '\t' || r == '\r':
			endWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endCommand()
	return cmds
}
