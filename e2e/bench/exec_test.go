package main

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestEncodeFrame(t *testing.T) {
	for _, protocol := range []string{protoV4Binary, protoV4Base64} {
		for _, tc := range []struct {
			channel byte
			payload string
		}{{chanStdin, "a"}, {chanStdin, "exit\r"}, {chanResize, `{"Width":200,"Height":50}`}, {chanStdin, "\x00\xff"}} {
			mt, data := encodeFrame(protocol, tc.channel, []byte(tc.payload))
			ch, payload, err := decodeFrame(nil, mt, data)
			if err != nil || ch != int(tc.channel) || string(payload) != tc.payload {
				t.Errorf("%s: channel %d %q came back as %d %q, %v", protocol, tc.channel, tc.payload, ch, payload, err)
			}
			if want := protocol == protoV4Base64; (mt == websocket.TextMessage) != want {
				t.Errorf("%s: message type %d", protocol, mt)
			}
		}
	}
}

func TestKeyAt(t *testing.T) {
	var line []byte
	for col := range lineKeys {
		line = append(line, keyAt(col))
	}
	if want := "#" + "abcdefghijklmnopqrstuvwxyz" + "abcdefghijklmnopqrstuvwxyz" + "abcdefg"; string(line) != want {
		t.Errorf("a line is %q, want %q", line, want)
	}
	for col := 1; col < lineKeys; col++ {
		if keyAt(col) == keyAt(col-1) {
			t.Errorf("keystrokes %d and %d are both %q", col-1, col, keyAt(col))
		}
	}
}

func TestScreenWaitFor(t *testing.T) {
	ctx := context.Background()
	s := newScreen()
	if _, err := s.waitFor(ctx, 0, nil, 20*time.Millisecond); err == nil {
		t.Fatal("waiting for any output found some in none")
	}
	s.Write([]byte("prompt$ "))
	m, err := s.waitFor(ctx, 0, nil, time.Second)
	if err != nil || m.end != 1 {
		t.Fatalf("any output: %+v, %v", m, err)
	}
	from := s.len()
	s.Write([]byte("\x1b[K"))
	s.Write([]byte("xy"))
	m, err = s.waitFor(ctx, from, []byte("y"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m.end != from+5 || m.extra != 4 {
		t.Errorf("match %+v, want end %d and 4 bytes before it", m, from+5)
	}
	s.mu.Lock()
	last := s.marks[len(s.marks)-1].at
	base := s.base
	s.mu.Unlock()
	if !m.at.Equal(last) {
		t.Errorf("the echo is timed at %v, not at the arrival of the write that held it (%v)", m.at, last)
	}
	if base != from {
		t.Errorf("output before the wait was kept: base %d, want %d", base, from)
	}
	// What was let go is not searched again.
	if _, err := s.waitFor(ctx, s.len(), []byte("y"), 20*time.Millisecond); err == nil || !strings.Contains(err.Error(), "within") {
		t.Errorf("an echo already consumed matched again: %v", err)
	}

	// A wait for output that arrives later wakes with it.
	go func() {
		time.Sleep(10 * time.Millisecond)
		s.Write([]byte("late"))
	}()
	if _, err := s.waitFor(ctx, s.len(), []byte("late"), 5*time.Second); err != nil {
		t.Fatal(err)
	}

	// The end of the session ends waits, with its reason.
	s.end(fmt.Errorf("status Failure: gone"))
	if _, err := s.waitFor(ctx, s.len(), []byte("z"), 5*time.Second); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("wait after the end: %v", err)
	}
	if err := s.waitEnd(ctx, time.Second); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("waitEnd: %v", err)
	}
}

// fakeTerminalConsole serves a terminal page and its socket as the console
// does (cookie, page token, Origin, resize first), with a shell that
// echoes every keystroke after echoDelay.
type fakeTerminalConsole struct {
	*fakeConsole
	echoDelay time.Duration

	mu    sync.Mutex
	lines [][]string // per session, the lines entered
}

const fakeTerminalPath = "/c/admin/api/v1/namespaces/demo/pods/web-1/exec"

func newFakeTerminalConsole(t *testing.T, echoDelay time.Duration) *fakeTerminalConsole {
	f := &fakeTerminalConsole{fakeConsole: newFakeConsole(t), echoDelay: echoDelay}
	upgrader := websocket.Upgrader{
		Subprotocols: []string{protoV4Base64, protoV4Binary},
		CheckOrigin:  func(r *http.Request) bool { return r.Header.Get("Origin") == "http://"+r.Host },
	}
	f.mux.HandleFunc(fakeTerminalPath, func(w http.ResponseWriter, r *http.Request) {
		cookie, err := r.Cookie("csrf")
		if !websocket.IsWebSocketUpgrade(r) {
			secret := "s3cret"
			if err != nil {
				http.SetCookie(w, &http.Cookie{Name: "csrf", Value: secret, Path: "/", HttpOnly: true})
			} else {
				secret = cookie.Value
			}
			socket := fakeTerminalPath + "?container=app"
			fmt.Fprintf(w, `<!doctype html><title>web-1 · exec</title><main><div class="terminal" id="terminal" data-socket="%s" data-token="%s"></div></main>`,
				html.EscapeString(socket), "tok-"+secret)
			return
		}
		if err != nil || r.URL.Query().Get("container") != "app" || !slices.Contains(websocket.Subprotocols(r), terminalTokenPrefix+"tok-"+cookie.Value) {
			http.Error(w, "This terminal was not opened from its own page.", http.StatusForbidden)
			return
		}
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		f.shell(c)
	})
	return f
}

// shell plays an interactive shell on a TTY behind the socket.
func (f *fakeTerminalConsole) shell(c *websocket.Conn) {
	protocol := c.Subprotocol()
	out := func(ch byte, s string) error {
		mt, data := encodeFrame(protocol, ch, []byte(s))
		return c.WriteMessage(mt, data)
	}
	fail := func(msg string) {
		_ = out(chanStatus, `{"status":"Failure","message":"`+msg+`"}`)
		closeNormal(c)
	}
	f.mu.Lock()
	session := len(f.lines)
	f.lines = append(f.lines, nil)
	f.mu.Unlock()
	fr := &frameReader{conn: c}
	ch, payload, err := fr.next()
	if err != nil {
		return
	}
	if ch != chanResize || string(payload) != `{"Width":200,"Height":50}` {
		fail(fmt.Sprintf("the first frame is %d %q, not the size", ch, payload))
		return
	}
	prompt := "$ "
	_ = out(chanData, "bash: no job control in this shell\r\n"+prompt)
	var line []byte
	for {
		ch, payload, err := fr.next()
		if err != nil {
			return
		}
		if ch != chanStdin {
			continue
		}
		for _, b := range payload {
			if b != '\r' {
				line = append(line, b)
				time.Sleep(f.echoDelay)
				_ = out(chanData, string(b))
				continue
			}
			entered := string(line)
			line = line[:0]
			f.mu.Lock()
			f.lines[session] = append(f.lines[session], entered)
			f.mu.Unlock()
			_ = out(chanData, "\r\n")
			switch {
			case entered == "exit":
				_ = out(chanStatus, `{"status":"Success"}`)
				closeNormal(c)
				waitClosed(c)
				return
			case strings.HasPrefix(entered, "PS1="):
				prompt = strings.ReplaceAll(strings.TrimPrefix(entered, "PS1="), `\`, "")
			case strings.HasPrefix(entered, "#"):
			default:
				_ = out(chanData, "bash: "+entered+": command not found\r\n")
			}
			_ = out(chanData, "\x1b[?2004h"+prompt)
		}
	}
}

func TestTypeKeys(t *testing.T) {
	ctx := context.Background()
	const delay = 2 * time.Millisecond
	f := newFakeTerminalConsole(t, delay)
	ws := testWSClient(t, f.fakeConsole)
	var paths []*echoPath
	for _, protocol := range []string{protoV4Binary, protoV4Base64} {
		term, err := openConsoleTerminal(ctx, ws, fakeTerminalPath, protocol)
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		t.Cleanup(term.close)
		if term.container != "app" {
			t.Errorf("container %q, want app (from the socket URL)", term.container)
		}
		paths = append(paths, &echoPath{name: protocol, term: term})
	}
	// A local shell on a pty, as kubectl exec -i -t runs: the pty's line
	// discipline echoes.
	cmd := exec.CommandContext(ctx, "sh", "-i")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	term, err := startPTY(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(term.close)
	paths = append(paths, &echoPath{name: "pty", term: term})

	const warmup, keys = 3, 2*lineKeys + 10
	if err := typeKeys(ctx, paths, warmup, keys); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if p.err != nil || p.exitErr != nil {
			t.Errorf("%s: %v; exit: %v", p.name, p.err, p.exitErr)
		}
		if len(p.samples) != keys {
			t.Errorf("%s: %d samples, want %d", p.name, len(p.samples), keys)
		}
		if p.noisy != 0 {
			t.Errorf("%s: %d echoes came with other output", p.name, p.noisy)
		}
	}
	for _, p := range paths[:2] {
		s := slices.Clone(p.samples)
		slices.Sort(s)
		if s[0] < delay {
			t.Errorf("%s: an echo the fake delays by %v took %v", p.name, delay, s[0])
		}
	}
	// Each console session saw the prompt set, whole comment lines of
	// lineKeys keystrokes, the half line entered before exit, and exit.
	var line strings.Builder
	for col := range lineKeys {
		line.WriteByte(keyAt(col))
	}
	full := line.String()
	want := []string{`PS1=BENCH_PROMPT\>\ `, full, full, full[:warmup+keys-2*lineKeys], "exit"}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.lines) != 2 {
		t.Fatalf("%d console sessions, want 2", len(f.lines))
	}
	for i, lines := range f.lines {
		if !slices.Equal(lines, want) {
			t.Errorf("session %d: lines %q, want %q", i, lines, want)
		}
	}
}

func TestOpenConsoleTerminalRefused(t *testing.T) {
	f := newFakeTerminalConsole(t, 0)
	// A page whose token is not the one the socket wants.
	f.mux.HandleFunc("/c/admin/api/v1/namespaces/demo/pods/stale/exec", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>stale</title><div id="terminal" data-socket="%s?container=app" data-token="tok-old"></div>`, fakeTerminalPath)
	})
	// A page without a terminal.
	f.mux.HandleFunc("/c/admin/api/v1/namespaces/demo/pods/none/exec", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Forbidden</title><p>no</p>`)
	})
	ws := testWSClient(t, f.fakeConsole)
	_, err := openConsoleTerminal(context.Background(), ws, "/c/admin/api/v1/namespaces/demo/pods/stale/exec", protoV4Binary)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "not opened from its own page") {
		t.Errorf("a socket refused for its token: %v, want the 403 and its reason", err)
	}
	_, err = openConsoleTerminal(context.Background(), ws, "/c/admin/api/v1/namespaces/demo/pods/none/exec", protoV4Binary)
	if err == nil || !strings.Contains(err.Error(), "no #terminal") || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a page without a terminal: %v", err)
	}
}

// The client-go path against the apitest fake's scripted shell: the
// console's default command, a TTY of the bench's size, exit ends it.
func TestStreamTerminal(t *testing.T) {
	ctx := context.Background()
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", nil))
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(fake.Kubeconfig(contextName), kubeconfig); err != nil {
		t.Fatal(err)
	}
	client, err := adminClient(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	term := startStream(ctx, client, "web-1", "app")
	t.Cleanup(term.close)
	s := term.screen()
	if _, err := s.waitFor(ctx, 0, []byte(apitest.ExecPrompt), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// The size travels on its own channel, so the shell may see it after
	// the prompt: wait until the fake has applied it.
	resized, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := fake.WaitExec(resized, func(ss []apitest.ExecSession) bool { return len(ss) == 1 && len(ss[0].Resizes) > 0 }); err != nil {
		t.Fatalf("no resize reached the fake: %v", err)
	}
	from := s.len()
	if err := term.send([]byte("stty size\r")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.waitFor(ctx, from, []byte(fmt.Sprintf("%d %d\r\n", termRows, termCols)), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	p := &echoPath{name: pathClientGo, term: term}
	if err := p.exit(ctx); err != nil {
		t.Fatalf("exit: %v", err)
	}
	sessions := fake.ExecSessions()
	if len(sessions) != 1 || !sessions[0].TTY || !slices.Equal(sessions[0].Command, shellCommand) {
		t.Errorf("sessions %+v, want one with a TTY running %q", sessions, shellCommand)
	}
	if err := term.send([]byte("x")); err == nil {
		t.Error("a keystroke after the end was taken")
	}
}

func TestReportExec(t *testing.T) {
	ms := func(n ...float64) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, x := range n {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	res := execResult{pod: "web-1", container: "app", paths: []*echoPath{
		{name: pathConsole, samples: ms(2, 2, 2, 2, 4)},
		{name: pathConsoleBase64, err: fmt.Errorf("refused")},
		{name: pathKubectl, samples: ms(1, 1, 1, 1, 2), noisy: 1},
		{name: pathClientGo, samples: ms(0.5, 0.5, 0.5, 0.5, 1)},
	}}
	var out strings.Builder
	reportExec(&out, options{execKeys: 5, execWarmup: 1}, res, nil)
	got := out.String()
	for _, want := range []string{
		"pod demo/web-1, container app",
		"| console: terminal socket (`v4.channel.k8s.io`) → console → API server → kwok | 5 | 2.00 ms | 4.00 ms | 4.00 ms | 4.00 ms |",
		"| console: terminal socket (`v4.base64.channel.k8s.io`) → console → API server → kwok | 0 | n/a |",
		"over `kubectl exec`**: p50 ×2.00 (+1.00 ms), p99 ×2.00 (+2.00 ms).",
		"over the client-go executor alone (the console's own cost: one more loopback WebSocket, its framing and copying): p50 ×4.00 (+1.50 ms)",
		"- console-base64 failed: refused.",
		"- kubectl: 1 echoes came after other output.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if err := res.failed(); err == nil || !strings.Contains(err.Error(), "console-base64: refused") {
		t.Errorf("failed() = %v", err)
	}
	out.Reset()
	reportExec(&out, options{execKeys: 5}, execResult{}, fmt.Errorf("no Running pod in demo"))
	if !strings.Contains(out.String(), "Not measured: no Running pod in demo") {
		t.Errorf("report of a failure:\n%s", out.String())
	}
}
