package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/creack/pty"
	"github.com/gorilla/websocket"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient"
)

// The keystroke echo measurement types into one shell per path, all in the
// same pod, one keystroke at a time, and times each until the pty's echo of
// it comes back. The paths take turns, keystroke by keystroke, so that
// noise on the machine falls on all of them alike.

const (
	execNamespace = "demo"
	// Subprotocols of the console's terminal socket.
	protoV4Binary       = "v4.channel.k8s.io"
	protoV4Base64       = "v4.base64.channel.k8s.io"
	terminalTokenPrefix = "tabula.terminal-token."
	chanStdin           = 0
	chanResize          = 4

	// termCols and termRows are every path's terminal size: wide enough
	// that a line of lineKeys never wraps (readline redraws on a wrap).
	termCols, termRows = 200, 50
	// lineKeys keystrokes make one line: '#' then letters, a comment, so
	// that Enter runs nothing; then the next line starts at a new prompt.
	lineKeys = 60
	// promptMark is the prompt the bench sets. The line that sets it echoes
	// with backslashes, so only the prompt itself matches.
	promptMark   = "BENCH_PROMPT> "
	setPrompt    = `PS1=BENCH_PROMPT\>\ ` + "\r"
	keyTimeout   = 10 * time.Second
	startTimeout = 30 * time.Second
)

// shellCommand is the console's default command (web/exec's shellCommand),
// which its page runs when it is given none: kubectl and the client-go
// executor run the same, so every path types into the same shell.
var shellCommand = []string{"sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"}

// keyAt is the keystroke at column col of a line: '#' first, then letters
// in turn. Consecutive keystrokes differ, so a late echo is never taken
// for the next one's.
func keyAt(col int) byte {
	if col == 0 {
		return '#'
	}
	return 'a' + byte((col-1)%26)
}

// screen collects a terminal's output, and when each piece arrived: the
// time of an echo is taken where it is read, not where a waiter wakes.
type screen struct {
	mu      sync.Mutex
	base    int // offset of buf[0] in the whole output
	buf     []byte
	marks   []mark
	changed chan struct{} // closed on the next write or end
	ended   bool
	endErr  error
}

// mark is the arrival of the output up to offset end.
type mark struct {
	end int
	at  time.Time
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	at := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	s.marks = append(s.marks, mark{end: s.base + len(s.buf), at: at})
	s.wake()
	return len(p), nil
}

func (s *screen) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// end records that the session ended: err nil is a clean end.
func (s *screen) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended, s.endErr = true, err
		s.wake()
	}
}

// len is the length of the whole output so far.
func (s *screen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base + len(s.buf)
}

// match is where a wait found what it waited for.
type match struct {
	at    time.Time // arrival of its last byte
	end   int       // offset after it
	extra int       // other bytes between the wait's start and it
}

// waitFor waits until want appears in the output from offset from on;
// empty want waits for any output. Output before from is let go.
func (s *screen) waitFor(ctx context.Context, from int, want []byte, timeout time.Duration) (match, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		from = max(from, s.base)
		s.discard(from)
		text := s.buf[from-s.base:]
		i := bytes.Index(text, want)
		if len(want) == 0 && len(text) == 0 {
			i = -1
		}
		if i >= 0 {
			m := match{end: from + i + len(want), extra: i}
			if len(want) == 0 {
				m.end = from + 1
			}
			j, _ := slices.BinarySearchFunc(s.marks, m.end, func(k mark, end int) int { return k.end - end })
			m.at = s.marks[j].at
			s.mu.Unlock()
			return m, nil
		}
		ended, endErr, changed := s.ended, s.endErr, s.changed
		tail := lastBytes(text, 200)
		s.mu.Unlock()
		if ended {
			if endErr == nil {
				endErr = errors.New("the process ended")
			}
			return match{}, fmt.Errorf("%w before %q came; the last output: %q", endErr, want, tail)
		}
		select {
		case <-changed:
		case <-timer.C:
			return match{}, fmt.Errorf("no %q within %s; the last output: %q", want, timeout, tail)
		case <-ctx.Done():
			return match{}, ctx.Err()
		}
	}
}

// discard lets go of the output before offset from, and of the arrival
// marks that end before it.
func (s *screen) discard(from int) {
	if n := from - s.base; n > 0 {
		n = min(n, len(s.buf))
		s.buf = s.buf[:copy(s.buf, s.buf[n:])]
		s.base += n
	}
	i := 0
	for i < len(s.marks) && s.marks[i].end <= from {
		i++
	}
	s.marks = s.marks[:copy(s.marks, s.marks[i:])]
}

// waitEnd waits for the session to end and returns how it ended.
func (s *screen) waitEnd(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ended, err, changed := s.ended, s.endErr, s.changed
		tail := lastBytes(s.buf, 200)
		s.mu.Unlock()
		if ended {
			return err
		}
		select {
		case <-changed:
		case <-timer.C:
			return fmt.Errorf("the session did not end within %s; the last output: %q", timeout, tail)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func lastBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// terminal is one session the bench types into.
type terminal interface {
	send(p []byte) error
	screen() *screen
	// close lets go of whatever is left of the session.
	close()
}

// echoPath is one way to the pod's shell, and its measurements.
type echoPath struct {
	name    string
	term    terminal
	samples []time.Duration
	noisy   int   // echoes that came after other output
	err     error // the path failed: it is left out from then on
	exitErr error // how the shell did not end cleanly
	col     int   // keystrokes on the current line
}

// prepare waits for the shell to start, then sets the bench's prompt.
func (p *echoPath) prepare(ctx context.Context) error {
	s := p.term.screen()
	if _, err := s.waitFor(ctx, 0, nil, startTimeout); err != nil {
		return fmt.Errorf("waiting for the shell: %w", err)
	}
	return p.line(ctx, setPrompt)
}

// line sends text that ends a line and waits for the next prompt.
func (p *echoPath) line(ctx context.Context, text string) error {
	s := p.term.screen()
	from := s.len()
	if err := p.term.send([]byte(text)); err != nil {
		return err
	}
	if _, err := s.waitFor(ctx, from, []byte(promptMark), startTimeout); err != nil {
		return fmt.Errorf("waiting for the prompt after %q: %w", text, err)
	}
	p.col = 0
	return nil
}

// key types one keystroke and times its echo; record keeps the time. At
// the end of a line it presses Enter and waits for the next prompt.
func (p *echoPath) key(ctx context.Context, record bool) error {
	c := keyAt(p.col)
	s := p.term.screen()
	from := s.len()
	start := time.Now()
	if err := p.term.send([]byte{c}); err != nil {
		return fmt.Errorf("sending %q: %w", c, err)
	}
	m, err := s.waitFor(ctx, from, []byte{c}, keyTimeout)
	if err != nil {
		return fmt.Errorf("echo of %q: %w", c, err)
	}
	if record {
		p.samples = append(p.samples, m.at.Sub(start))
		if m.extra > 0 {
			p.noisy++
		}
	}
	if p.col++; p.col == lineKeys {
		return p.line(ctx, "\r")
	}
	return nil
}

// exit ends the shell as a user would, and waits for the session's end.
// A half-typed comment line is entered first, or exit would join it.
func (p *echoPath) exit(ctx context.Context) error {
	if p.col > 0 {
		if err := p.line(ctx, "\r"); err != nil {
			return err
		}
	}
	if err := p.term.send([]byte("exit\r")); err != nil {
		return err
	}
	return p.term.screen().waitEnd(ctx, startTimeout)
}

// typeKeys prepares every path, types warmup then keys keystrokes into
// each, taking turns (the first of each round rotates), and exits them.
func typeKeys(ctx context.Context, paths []*echoPath, warmup, keys int) error {
	for _, p := range paths {
		if p.err == nil {
			p.err = p.prepare(ctx)
		}
	}
	for i := range warmup + keys {
		for j := range paths {
			p := paths[(i+j)%len(paths)]
			if p.err != nil {
				continue
			}
			if err := p.key(ctx, i >= warmup); err != nil {
				p.err = err
				slog.Warn("keystroke echo path failed", "path", p.name, "err", err)
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for _, p := range paths {
		if p.err == nil {
			p.exitErr = p.exit(ctx)
		}
	}
	return nil
}

// wsTerminal is a console terminal socket, as the terminal page opens it.
type wsTerminal struct {
	conn     *websocket.Conn
	protocol string
	scr      *screen
	wmu      sync.Mutex
}

// consoleTerminal is what opening a console terminal learned.
type consoleTerminal struct {
	*wsTerminal
	container string // from the page's socket URL
}

// openConsoleTerminal loads the terminal page pagePath with a fresh cookie
// jar, as a browser would, then opens its socket with the page's token
// and protocol, and sends the terminal's size first.
func openConsoleTerminal(ctx context.Context, ws *wsClient, pagePath, protocol string) (*consoleTerminal, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	socket, token, err := terminalPage(ctx, browser, ws.origin+pagePath)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(socket)
	if err != nil {
		return nil, fmt.Errorf("the page's socket %q: %w", socket, err)
	}
	d := websocket.Dialer{
		Jar:              jar,
		HandshakeTimeout: 30 * time.Second,
		Subprotocols:     []string{protocol, terminalTokenPrefix + token},
	}
	conn, resp, err := d.DialContext(ctx, ws.base.String()+socket, http.Header{"Origin": {ws.origin}})
	if err != nil {
		return nil, handshakeError("terminal socket "+socket, err, resp)
	}
	if p := conn.Subprotocol(); p != protocol {
		conn.Close()
		return nil, fmt.Errorf("terminal socket %s: server chose subprotocol %q, want %q", socket, p, protocol)
	}
	t := &wsTerminal{conn: conn, protocol: protocol, scr: newScreen()}
	go t.read()
	size, _ := json.Marshal(struct{ Width, Height int }{termCols, termRows})
	if err := t.write(chanResize, size); err != nil {
		t.close()
		return nil, fmt.Errorf("sending the terminal size: %w", err)
	}
	return &consoleTerminal{wsTerminal: t, container: u.Query().Get("container")}, nil
}

// terminalPage loads a terminal page and reads its socket and token.
func terminalPage(ctx context.Context, browser *http.Client, pageURL string) (socket, token string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Accept", "text/html")
	resp, err := browser.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", "", fmt.Errorf("GET %s: %w", pageURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("GET %s: %s: %s", pageURL, resp.Status, describeBody(resp.Header.Get("Content-Type"), body))
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return "", "", fmt.Errorf("GET %s: %w", pageURL, err)
	}
	term := doc.Find("#terminal")
	socket, _ = term.Attr("data-socket")
	token, _ = term.Attr("data-token")
	if socket == "" || token == "" {
		return "", "", fmt.Errorf("GET %s: no #terminal with data-socket and data-token in %s", pageURL, describeBody("text/html", body))
	}
	return socket, token, nil
}

func (t *wsTerminal) send(p []byte) error { return t.write(chanStdin, p) }
func (t *wsTerminal) screen() *screen     { return t.scr }

func (t *wsTerminal) write(channel byte, p []byte) error {
	mt, data := encodeFrame(t.protocol, channel, p)
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_ = t.conn.SetWriteDeadline(time.Now().Add(keyTimeout))
	return t.conn.WriteMessage(mt, data)
}

// read puts channels 1 and 2 on the screen until the server closes; the
// session ended cleanly if it closed normally after a Success status.
func (t *wsTerminal) read() {
	fr := &frameReader{conn: t.conn}
	var status *streamStatus
	for {
		ch, payload, err := fr.next()
		if err != nil {
			switch {
			case !isNormalClose(err):
				t.scr.end(err)
			case status == nil:
				t.scr.end(errors.New("the console closed the socket without a status"))
			case status.failed():
				t.scr.end(fmt.Errorf("the console's final status: %s", status))
			default:
				t.scr.end(nil)
			}
			return
		}
		switch ch {
		case chanData, chanDiagnostics:
			_, _ = t.scr.Write(payload)
		case chanStatus:
			s := parseStatus(payload)
			status = &s
		}
	}
}

func (t *wsTerminal) close() {
	_ = t.conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	t.conn.Close()
}

// encodeFrame frames payload for channel as protocol does: base64 text
// ('0'+channel, then standard base64) or binary (the channel byte, then
// the payload).
func encodeFrame(protocol string, channel byte, payload []byte) (messageType int, data []byte) {
	if strings.Contains(protocol, "base64") {
		data = append([]byte{'0' + channel}, base64.StdEncoding.EncodeToString(payload)...)
		return websocket.TextMessage, data
	}
	return websocket.BinaryMessage, append([]byte{channel}, payload...)
}

// ptyTerminal is a program on a pseudo-terminal: kubectl exec -i -t
// needs one to pass its terminal on.
type ptyTerminal struct {
	cmd  *exec.Cmd
	f    *os.File // the pty's master side
	scr  *screen
	done chan struct{}
}

func startPTY(cmd *exec.Cmd) (*ptyTerminal, error) {
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: termCols, Rows: termRows})
	if err != nil {
		return nil, err
	}
	t := &ptyTerminal{cmd: cmd, f: f, scr: newScreen(), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		// Reading ends (EIO) once the program and its children have
		// closed the terminal.
		_, _ = io.Copy(t.scr, f)
		err := cmd.Wait()
		if err != nil {
			err = fmt.Errorf("%s: %w", cmd.Args[0], err)
		}
		t.scr.end(err)
	}()
	return t, nil
}

func (t *ptyTerminal) send(p []byte) error {
	_, err := t.f.Write(p)
	return err
}

func (t *ptyTerminal) screen() *screen { return t.scr }

func (t *ptyTerminal) close() {
	select {
	case <-t.done:
	default:
		_ = t.cmd.Process.Kill()
	}
	t.f.Close()
	<-t.done
}

// streamTerminal is client-go's executor, driven from the bench itself
// (apiclient.Stream, what the console runs upstream).
type streamTerminal struct {
	stdin  *io.PipeWriter
	scr    *screen
	cancel context.CancelFunc
	done   chan struct{}
}

func startStream(ctx context.Context, client *apiclient.Client, pod, container string) *streamTerminal {
	ctx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	t := &streamTerminal{stdin: pw, scr: newScreen(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		err := client.Stream(ctx, apiclient.Session{
			Namespace: execNamespace, Pod: pod, Container: container,
			Command: shellCommand, TTY: true,
			Stdin: pr, Stdout: t.scr,
			Resize: &oneSize{size: &apiclient.TerminalSize{Width: termCols, Height: termRows}, ctx: ctx},
		})
		// Writes to stdin fail from now on rather than wait for a reader
		// (closing the reading side instead would make client-go log).
		pw.Close()
		t.scr.end(err)
	}()
	return t
}

func (t *streamTerminal) send(p []byte) error {
	_, err := t.stdin.Write(p)
	return err
}

func (t *streamTerminal) screen() *screen { return t.scr }

func (t *streamTerminal) close() {
	t.cancel()
	t.stdin.Close()
	<-t.done
}

// oneSize gives one terminal size, then none until ctx ends.
type oneSize struct {
	size *apiclient.TerminalSize
	ctx  context.Context
}

func (q *oneSize) Next() *apiclient.TerminalSize {
	if s := q.size; s != nil {
		q.size = nil
		return s
	}
	<-q.ctx.Done()
	return nil
}

// Paths of the measurement, in the report's order.
const (
	pathConsole       = "console"
	pathConsoleBase64 = "console-base64"
	pathKubectl       = "kubectl"
	pathClientGo      = "client-go"
)

// execResult is the keystroke echo measurement.
type execResult struct {
	pod, container string
	paths          []*echoPath
}

// failed joins the errors of the paths that failed.
func (r execResult) failed() error {
	var errs []error
	for _, p := range r.paths {
		if p.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.name, p.err))
		} else if p.exitErr != nil {
			errs = append(errs, fmt.Errorf("%s: ending the shell: %w", p.name, p.exitErr))
		}
	}
	return errors.Join(errs...)
}

func (r execResult) path(name string) *echoPath {
	for _, p := range r.paths {
		if p.name == name {
			return p
		}
	}
	return nil
}

// execTargets is what the measurement opens its paths with.
type execTargets struct {
	ws         *wsClient
	kubeconfig string
	kubectl    string
	client     kubernetes.Interface
}

// measureExec opens the four paths to one Running pod of demo (o.execPod
// or the first by name) and types into them.
func measureExec(ctx context.Context, o options, tg execTargets) (execResult, error) {
	pod := o.execPod
	if pod == "" {
		var err error
		if pod, err = firstRunningPod(ctx, tg.client, execNamespace); err != nil {
			return execResult{}, err
		}
	}
	res := execResult{pod: pod}
	pagePath := "/c/" + contextName + "/api/v1/namespaces/" + execNamespace + "/pods/" + pod + "/exec"
	// The console's page picks the container (its default); the other
	// paths open the same one.
	bin, err := openConsoleTerminal(ctx, tg.ws, pagePath, protoV4Binary)
	if err != nil {
		return res, fmt.Errorf("console terminal: %w", err)
	}
	res.container = bin.container
	res.paths = append(res.paths, &echoPath{name: pathConsole, term: bin})
	b64 := &echoPath{name: pathConsoleBase64}
	if t, err := openConsoleTerminal(ctx, tg.ws, pagePath, protoV4Base64); err != nil {
		b64.err = err
	} else {
		b64.term = t
	}
	res.paths = append(res.paths, b64)

	kubectl := &echoPath{name: pathKubectl}
	args := append([]string{"--kubeconfig", tg.kubeconfig, "--context", contextName,
		"exec", "-i", "-t", "-n", execNamespace, pod, "-c", res.container, "--"}, shellCommand...)
	cmd := exec.CommandContext(ctx, tg.kubectl, args...)
	if t, err := startPTY(cmd); err != nil {
		kubectl.err = err
	} else {
		kubectl.term = t
	}
	res.paths = append(res.paths, kubectl)

	direct := &echoPath{name: pathClientGo}
	if client, err := adminClient(tg.kubeconfig); err != nil {
		direct.err = err
	} else {
		direct.term = startStream(ctx, client, pod, res.container)
	}
	res.paths = append(res.paths, direct)

	defer func() {
		for _, p := range res.paths {
			if p.term != nil {
				p.term.close()
			}
		}
	}()
	return res, typeKeys(ctx, res.paths, o.execWarmup, o.execKeys)
}

// adminClient is the console's upstream client, acting as the kubeconfig's
// admin context.
func adminClient(kubeconfig string) (*apiclient.Client, error) {
	cs, err := apiclient.Load(apiclient.LoadOptions{Kubeconfig: kubeconfig})
	if err != nil {
		return nil, err
	}
	return cs.Client(contextName, apiclient.Identity{})
}

func firstRunningPod(ctx context.Context, client kubernetes.Interface, ns string) (string, error) {
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing pods in %s: %w", ns, err)
	}
	var names []string
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no Running pod in %s", ns)
	}
	slices.Sort(names)
	return names[0], nil
}

// execRows are the report's rows: path, and what it goes through.
var execRows = []struct{ path, label string }{
	{pathConsole, "console: terminal socket (`" + protoV4Binary + "`) → console → API server → kwok"},
	{pathConsoleBase64, "console: terminal socket (`" + protoV4Base64 + "`) → console → API server → kwok"},
	{pathKubectl, "`kubectl exec -i -t` on a pty → API server → kwok"},
	{pathClientGo, "client-go executor in the bench (`apiclient.Stream`, the console's upstream leg) → API server → kwok"},
}

func reportExec(w io.Writer, o options, res execResult, err error) {
	fmt.Fprintf(w, "\n### Keystroke echo: pod %s/%s, container %s, the console's default shell with a %d×%d TTY, %d keystrokes per path (after %d warm-up), taking turns\n\n",
		execNamespace, res.pod, res.container, termCols, termRows, o.execKeys, o.execWarmup)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		return
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	sorted := map[string][]time.Duration{}
	fmt.Fprintln(w, "| path | samples | p50 | p95 | p99 | max |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, row := range execRows {
		p := res.path(row.path)
		if p == nil || len(p.samples) == 0 {
			fmt.Fprintf(w, "| %s | 0 | n/a | | | |\n", row.label)
			continue
		}
		s := slices.Clone(p.samples)
		slices.Sort(s)
		sorted[row.path] = s
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", row.label, len(s),
			ms(percentile(s, 0.50)), ms(percentile(s, 0.95)), ms(percentile(s, 0.99)), ms(percentile(s, 1)))
	}
	fmt.Fprintln(w)
	over := func(a, b string, what string) {
		sa, sb := sorted[a], sorted[b]
		if len(sa) == 0 || len(sb) == 0 {
			return
		}
		line := func(p float64) string {
			x, y := percentile(sa, p), percentile(sb, p)
			return fmt.Sprintf("×%.2f (%+.2f ms)", float64(x)/float64(y), float64(x-y)/float64(time.Millisecond))
		}
		fmt.Fprintf(w, "- %s: p50 %s, p99 %s.\n", what, line(0.50), line(0.99))
	}
	over(pathConsole, pathKubectl, "**Console (`"+protoV4Binary+"`) over `kubectl exec`**")
	over(pathConsoleBase64, pathKubectl, "Console (`"+protoV4Base64+"`) over `kubectl exec`")
	over(pathConsole, pathClientGo, "Console (`"+protoV4Binary+"`) over the client-go executor alone (the console's own cost: one more loopback WebSocket, its framing and copying)")
	over(pathKubectl, pathClientGo, "`kubectl exec` over the client-go executor alone (kubectl's process and its pty)")
	fmt.Fprintln(w, "- Timed: from writing one keystroke (the socket's channel 0, the pty's master side, the executor's stdin) until its echo, printed by the remote shell through kwok's pty, is read back (channel 1, the master side, stdout).")
	for _, p := range res.paths {
		switch {
		case p.err != nil:
			fmt.Fprintf(w, "- %s failed: %v.\n", p.name, p.err)
		case p.exitErr != nil:
			fmt.Fprintf(w, "- %s: `exit` did not end the session cleanly: %v.\n", p.name, p.exitErr)
		}
		if p.noisy > 0 {
			fmt.Fprintf(w, "- %s: %d echoes came after other output.\n", p.name, p.noisy)
		}
	}
}
