package exec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gorilla/websocket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/exec"
	"github.com/tabula-console/tabula/web/webtest"
)

// The terminal's tests drive the console as terminal.js does: the page is
// loaded with a cookie jar, its socket is dialled from the console's
// origin with the page's token as a subprotocol, a size goes on channel 4
// before anything else, keystrokes on channel 0, and output, the final
// Status and the close are read back. The fake API server runs a scripted
// shell behind each upstream session and records what reached it.

// Paths of the terminal fixture's objects.
const (
	termPod      = "/c/dev/api/v1/namespaces/demo/pods/web-1"
	termExec     = termPod + "/exec"
	termTTYPod   = "/c/dev/api/v1/namespaces/demo/pods/tty-1"
	termWorkload = "/c/dev/apis/apps/v1/namespaces/demo/deployments/web"
	// termWait bounds every wait for the console or the fake.
	termWait = 10 * time.Second
)

// shellCommand is the exec a terminal runs without a command.
var shellCommand = []string{"sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"}

// leaveShell is what the console types into a shell whose browser left.
const leaveShell = "\x03\x15exit\n"

// runningStatus, waitingStatus and terminatedStatus are container statuses.
func runningStatus(name string) map[string]any {
	return map[string]any{"name": name, "ready": true, "restartCount": int64(0), "state": map[string]any{"running": map[string]any{"startedAt": "2026-01-01T00:00:00Z"}}}
}

func waitingStatus(name string) map[string]any {
	return map[string]any{"name": name, "ready": false, "restartCount": int64(0), "state": map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}}
}

func terminatedStatus(name string) map[string]any {
	return map[string]any{"name": name, "ready": false, "restartCount": int64(0), "state": map[string]any{"terminated": map[string]any{"exitCode": int64(0), "reason": "Completed"}}}
}

// podWith is a demo pod with the given containers and their statuses.
func podWith(name string, labels map[string]string, containers, statuses []any) *unstructured.Unstructured {
	pod := apitest.Pod("demo", name, labels)
	_ = unstructured.SetNestedSlice(pod.Object, containers, "spec", "containers")
	_ = unstructured.SetNestedSlice(pod.Object, statuses, "status", "containerStatuses")
	return pod
}

// newTermFixture serves a console, its log captured, over a fake following
// opts with, in demo: Deployment web and its pods web-1 and web-2
// (containers app and sidecar), tty-1 (container console with stdin and a
// TTY, to attach to), done-1 (its container terminated) and stuck-1 (its
// container waiting). With opts.Access, requests act as the token in
// webtest.TokenHeader (see webtest.WithAccess).
// more change the server's web.Deps further.
func newTermFixture(t *testing.T, opts apitest.Options, cfg exec.Config, more ...func(*web.Deps)) *webtest.Console {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1())
	fake.Token = "secret-token"
	if opts.Access != nil {
		fake.Token = webtest.ConsoleToken
	}
	o := webtest.Options{Deps: web.Deps{Terminal: cfg}, ActAs: opts.Access != nil, CaptureLog: true}
	for _, change := range more {
		change(&o.Deps)
	}
	two := []any{
		map[string]any{"name": "app", "image": "registry.example.com/app:1"},
		map[string]any{"name": "sidecar", "image": "registry.example.com/proxy:1"},
	}
	twoRunning := []any{runningStatus("app"), runningStatus("sidecar")}
	web := map[string]string{"app": "web"}
	fake.Add(
		apitest.Deployment("demo", "web", 2, web),
		podWith("web-1", web, two, twoRunning),
		podWith("web-2", web, two, twoRunning),
		podWith("tty-1", map[string]string{"app": "tty"},
			[]any{map[string]any{"name": "console", "image": "busybox", "stdin": true, "tty": true}}, []any{runningStatus("console")}),
		podWith("done-1", map[string]string{"app": "batch"},
			[]any{map[string]any{"name": "app", "image": "busybox"}}, []any{terminatedStatus("app")}),
		podWith("stuck-1", map[string]string{"app": "batch"},
			[]any{map[string]any{"name": "app", "image": "busybox"}}, []any{waitingStatus("app")}),
	)
	f := webtest.Start(t, fake, o)
	if opts.Access != nil {
		fake.Token = ""
	}
	return f
}

// browser is a webtest.Browser that also opens terminals, as terminal.js
// does.
type browser struct {
	*webtest.Browser
	t *testing.T
}

func newBrowser(t *testing.T, f *webtest.Console) *browser {
	return &browser{Browser: webtest.NewBrowser(t, f), t: t}
}

// termPage is a terminal page as the browser loaded it.
type termPage struct {
	webtest.Page
	socket, token string
}

// terminal loads a terminal page, which must offer a terminal.
func (b *browser) terminal(path string, hdr map[string]string) termPage {
	b.t.Helper()
	p := b.GetWith(path, http.StatusOK, hdr)
	el := p.Doc.Find("[data-testid=terminal]")
	if el.Length() != 1 {
		b.t.Fatalf("GET %s: no terminal on the page:\n%s", path, webtest.Clip(p.Body))
	}
	return termPage{Page: p, socket: el.AttrOr("data-socket", ""), token: el.AttrOr("data-token", "")}
}

// termDial is how a socket is dialled; the zero value is terminal.js from
// the console's page, without a token.
type termDial struct {
	origin   string // "" : the console's own
	protocol string // "" : v4.base64.channel.k8s.io
	token    string // "" : none offered
	header   map[string]string
}

func (b *browser) tryTerminal(socket string, d termDial) (*websocket.Conn, *http.Response, error) {
	protocol := cmpOr(d.protocol, streaming.ProtocolV4Base64Channel)
	protocols := []string{protocol}
	if d.token != "" {
		protocols = append(protocols, "tabula.terminal-token."+d.token)
	}
	header := http.Header{"Origin": {cmpOr(d.origin, b.Console.URL)}}
	for k, v := range d.header {
		header.Set(k, v)
	}
	dialer := websocket.Dialer{Jar: b.Client.Jar, Subprotocols: protocols, HandshakeTimeout: termWait}
	return dialer.Dial("ws"+strings.TrimPrefix(b.Console.URL, "http")+socket, header)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// refused sends the handshake (as a browser would, with the jar's cookies)
// and expects it refused with status; it returns the refusal's message.
// Refusals of the terminal's own checks are error pages, those of the
// origin check plain text.
func (b *browser) refused(socket string, d termDial, status int, why string) string {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.Console.URL+socket, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	protocols := cmpOr(d.protocol, streaming.ProtocolV4Base64Channel)
	if d.token != "" {
		protocols += ", tabula.terminal-token." + d.token
	}
	for k, v := range map[string]string{
		"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": protocols,
		"Origin": cmpOr(d.origin, b.Console.URL),
	} {
		req.Header.Set(k, v)
	}
	for k, v := range d.header {
		req.Header.Set(k, v)
	}
	p := b.Do(req, status)
	if msg := p.Text("error-message"); msg != "" {
		return msg
	}
	return strings.TrimSpace(p.Body)
}

// open dials the page's socket as terminal.js does.
func (b *browser) open(p termPage, protocol string, hdr map[string]string) *termConn {
	b.t.Helper()
	protocol = cmpOr(protocol, streaming.ProtocolV4Base64Channel)
	ws, resp, err := b.tryTerminal(p.socket, termDial{protocol: protocol, token: p.token, header: hdr})
	if err != nil {
		b.t.Fatalf("dial %s: %v (response %s)", p.socket, err, webtest.StatusText(resp))
	}
	b.t.Cleanup(func() { _ = ws.Close() })
	if ws.Subprotocol() != protocol {
		b.t.Fatalf("subprotocol %q, want %q", ws.Subprotocol(), protocol)
	}
	return &termConn{t: b.t, ws: ws, protocol: protocol}
}

// termConn is an open terminal socket.
type termConn struct {
	t        *testing.T
	ws       *websocket.Conn
	protocol string
	out      strings.Builder // channels 1 and 2 so far
	seen     int             // out up to here was matched by expect
}

func (c *termConn) send(channel byte, payload []byte) {
	c.t.Helper()
	typ, data, err := streaming.Encode(c.protocol, channel, payload)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.ws.WriteMessage(typ, data); err != nil {
		c.t.Fatalf("send on channel %d: %v", channel, err)
	}
}

func (c *termConn) resize(width, height int) {
	c.t.Helper()
	c.send(streaming.ChannelResize, fmt.Appendf(nil, `{"Width":%d,"Height":%d}`, width, height))
}

func (c *termConn) typeText(s string) {
	c.t.Helper()
	c.send(streaming.ChannelInput, []byte(s))
}

// next reads one frame.
func (c *termConn) next(deadline time.Time) (byte, []byte, error) {
	_ = c.ws.SetReadDeadline(deadline)
	typ, data, err := c.ws.ReadMessage()
	if err != nil {
		return 0, nil, err
	}
	if typ == websocket.BinaryMessage && !strings.HasPrefix(c.protocol, "v4.channel") || typ == websocket.TextMessage && !streaming.IsBase64(c.protocol) {
		c.t.Fatalf("a %d message on %s", typ, c.protocol)
	}
	ch, payload, err := streaming.Decode(c.protocol, typ, data)
	if err != nil {
		c.t.Fatalf("frame %q: %v", data, err)
	}
	return ch, payload, nil
}

// expect reads output until, after what earlier expects matched, it
// holds want.
func (c *termConn) expect(want string) {
	c.t.Helper()
	deadline := time.Now().Add(termWait)
	for {
		if i := strings.Index(c.out.String()[c.seen:], want); i >= 0 {
			c.seen += i + len(want)
			return
		}
		ch, payload, err := c.next(deadline)
		if err != nil {
			c.t.Fatalf("no %q in the output %q: %v", want, c.out.String()[c.seen:], err)
		}
		switch ch {
		case streaming.ChannelData, streaming.ChannelDiagnostics:
			c.out.Write(payload)
		case streaming.ChannelError:
			c.t.Fatalf("waiting for %q: the session ended: %s (output %q)", want, payload, c.out.String())
		default:
			c.t.Fatalf("a frame on channel %d", ch)
		}
	}
}

// end reads to the end of the session: exactly one Status on channel 3,
// then the close, whose code it returns.
func (c *termConn) end() (metav1.Status, int) {
	c.t.Helper()
	deadline := time.Now().Add(termWait)
	var st *metav1.Status
	for {
		ch, payload, err := c.next(deadline)
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) {
				c.t.Fatalf("waiting for the end: %v (output %q)", err, c.out.String())
			}
			if st == nil {
				c.t.Fatalf("closed %d without a Status (output %q)", ce.Code, c.out.String())
			}
			return *st, ce.Code
		}
		switch ch {
		case streaming.ChannelData, streaming.ChannelDiagnostics:
			if st != nil {
				c.t.Fatalf("output after the Status: %q", payload)
			}
			c.out.Write(payload)
		case streaming.ChannelError:
			if st != nil {
				c.t.Fatalf("a second Status: %s", payload)
			}
			st = &metav1.Status{}
			if err := json.Unmarshal(payload, st); err != nil {
				c.t.Fatalf("Status %q: %v", payload, err)
			}
		default:
			c.t.Fatalf("a frame on channel %d", ch)
		}
	}
}

// exitCode is a channel-3 Status's exit code: 0 for Success, the ExitCode
// cause of a NonZeroExitCode, -1 for anything else.
func exitCode(st metav1.Status) int {
	if st.Status == metav1.StatusSuccess {
		return 0
	}
	if st.Reason != "NonZeroExitCode" || st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != "ExitCode" {
		return -1
	}
	var n int
	if _, err := fmt.Sscan(st.Details.Causes[0].Message, &n); err != nil {
		return -1
	}
	return n
}

// waitExec waits until done holds for the fake's sessions.
func waitExec(t *testing.T, fake *apitest.Server, done func([]apitest.ExecSession) bool) []apitest.ExecSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), termWait)
	defer cancel()
	ss, err := fake.WaitExec(ctx, done)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// lastExec waits until the fake's newest session satisfies ok.
func lastExec(t *testing.T, fake *apitest.Server, ok func(apitest.ExecSession) bool) apitest.ExecSession {
	t.Helper()
	ss := waitExec(t, fake, func(ss []apitest.ExecSession) bool { return len(ss) > 0 && ok(ss[len(ss)-1]) })
	return ss[len(ss)-1]
}

func ended(e apitest.ExecSession) bool { return e.End != apitest.ExecRunning }

// podRequests are the fake's requests about pods.
func podRequests(fake *apitest.Server) []string {
	var out []string
	for _, r := range fake.Requests() {
		if strings.Contains(r.URL.Path, "/pods") {
			out = append(out, r.Method+" "+r.URL.Path)
		}
	}
	return out
}

func TestTerminalPage(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)

	p := b.terminal(termExec, nil)
	if p.socket != termExec+"?container=app" {
		t.Errorf("data-socket %q, want the page's URL naming the default container", p.socket)
	}
	if len(p.token) < 40 {
		t.Errorf("data-token %q", p.token)
	}
	el := p.Doc.Find("[data-testid=terminal]")
	for attr, want := range map[string]string{"data-mode": "exec", "data-shell": "true", "data-title": "demo/web-1 · app"} {
		if got := el.AttrOr(attr, ""); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}
	if got := p.Text("terminal-container"); got != "app" {
		t.Errorf("container %q", got)
	}
	var options []string
	p.Doc.Find("[data-testid=terminal-container-picker] option").Each(func(_ int, s *goquery.Selection) {
		options = append(options, s.AttrOr("value", ""))
	})
	if !slices.Equal(options, []string{"app", "sidecar"}) {
		t.Errorf("container picker %q", options)
	}
	if got := p.Doc.Find("[data-testid=terminal-container-picker] option[selected]").AttrOr("value", ""); got != "app" {
		t.Errorf("selected container %q", got)
	}
	cmd := p.Doc.Find("[data-testid=terminal-command]")
	if cmd.AttrOr("value", "") != "" || cmd.AttrOr("placeholder", "") != "a shell: bash, else sh" {
		t.Errorf("command field %s", webtest.Outer(cmd))
	}
	if got := p.Doc.Find("[data-testid=terminal-controls]").AttrOr("action", ""); got != termExec {
		t.Errorf("controls action %q", got)
	}
	if p.Doc.Find(`script[type=module][src*="terminal"]`).Length() != 1 || p.Doc.Find(`link[rel=stylesheet][href*="terminal"]`).Length() != 1 {
		t.Error("the page does not load the terminal bundle and its stylesheet")
	}
	if got := p.Doc.Find("[data-testid=terminal-switch]").Length(); got != 0 {
		t.Errorf("an attach link for a container without stdin and tty")
	}

	// Another container, a command: both round-trip into the socket URL.
	command := `ls -la '/tmp/a b'`
	p = b.terminal(termExec+"?container=sidecar&command="+url.QueryEscape(command), nil)
	u, err := url.Parse(p.socket)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != termExec || u.Query().Get("container") != "sidecar" || u.Query().Get("command") != command {
		t.Errorf("data-socket %q", p.socket)
	}
	if got := p.Doc.Find("[data-testid=terminal-command]").AttrOr("value", ""); got != command {
		t.Errorf("command field %q, want %q", got, command)
	}
	if got := p.Doc.Find("[data-testid=terminal]").AttrOr("data-shell", ""); got != "false" {
		t.Errorf("data-shell %q for a command", got)
	}
	if got := p.Doc.Find("[data-testid=terminal-container-picker] option[selected]").AttrOr("value", ""); got != "sidecar" {
		t.Errorf("selected container %q", got)
	}

	bad := b.Get(termExec+"?command="+url.QueryEscape(`echo 'unclosed`), http.StatusBadRequest)
	if got := bad.Text("error-message"); !strings.Contains(got, "unclosed quote") {
		t.Errorf("400 page says %q", got)
	}
	bad = b.Get(termExec+"?command="+url.QueryEscape("ls | wc"), http.StatusBadRequest)
	if got := bad.Text("error-message"); !strings.Contains(got, "sh -c") {
		t.Errorf("400 page says %q", got)
	}
	missing := b.Get(termExec+"?container=nope", http.StatusNotFound)
	if got := missing.Text("error-message"); got != `This pod has no container "nope". Its containers: app, sidecar.` {
		t.Errorf("404 page says %q", got)
	}
	b.Get("/c/dev/api/v1/namespaces/demo/pods/nope/exec", http.StatusNotFound)
	b.Get("/c/dev/api/v1/namespaces/demo/pods/nope/attach", http.StatusNotFound)
	b.Get("/c/dev/api/v1/namespaces/demo/configmaps/x/attach", http.StatusNotFound)

	// Attach: the container's own process; no command.
	a := b.terminal(termTTYPod+"/attach", nil)
	if a.socket != termTTYPod+"/attach?container=console" {
		t.Errorf("attach data-socket %q", a.socket)
	}
	el = a.Doc.Find("[data-testid=terminal]")
	if el.AttrOr("data-mode", "") != "attach" || el.AttrOr("data-shell", "") != "false" {
		t.Errorf("attach terminal %s", webtest.Outer(el))
	}
	if a.Has("terminal-command") {
		t.Error("an attach page has a command field")
	}
	if got := a.Doc.Find("[data-testid=terminal-switch]").AttrOr("href", ""); got != termTTYPod+"/exec?container=console" {
		t.Errorf("attach page's switch %q", got)
	}
	e := b.terminal(termTTYPod+"/exec", nil)
	if got := e.Doc.Find("[data-testid=terminal-switch]").AttrOr("href", ""); got != termTTYPod+"/attach?container=console" {
		t.Errorf("exec page's switch to attach %q", got)
	}
	if a.token == e.token {
		t.Error("attach and exec pages share a token")
	}

	// A container that is not running is offered, with a notice.
	d := b.terminal("/c/dev/api/v1/namespaces/demo/pods/done-1/exec", nil)
	if got := d.Text("terminal-notice"); !strings.Contains(got, "not running yet") {
		t.Errorf("notice %q", got)
	}

	// Loading pages opens no session.
	if ss := f.Fake.ExecSessions(); len(ss) != 0 {
		t.Errorf("pages opened sessions: %+v", ss)
	}
}

// A server without pods/exec and pods/attach offers no terminal anywhere.
func TestTerminalOnAServerWithoutExec(t *testing.T) {
	f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{NoExec: true}}, exec.Config{})
	b := newBrowser(t, f)
	for _, path := range []string{termExec, termTTYPod + "/attach"} {
		p := b.Get(path, http.StatusNotFound)
		if got := p.Text("error-message"); !strings.Contains(got, "serves no") {
			t.Errorf("%s: 404 page says %q", path, got)
		}
	}
	pod := b.Get(termPod, http.StatusOK)
	if pod.Has("terminal-link") {
		t.Error("the pod page links a terminal the server does not serve")
	}
	if !pod.Has("debug-link") {
		t.Error("debug containers are served, but the pod page has no Debug link")
	}
	workload := b.Get(termWorkload, http.StatusOK)
	if workload.Has("terminal-link") {
		t.Error("the Deployment page links a terminal the server does not serve")
	}
	b.Get(termWorkload+"/exec", http.StatusNotFound)
	// The socket is refused too (before any token is looked at: there is
	// no page to have one).
	b.refused(termExec+"?container=app", termDial{token: "x"}, http.StatusNotFound, "NoExec")
}

// editorsMayDebug are accessRules with editors also allowed to add debug
// containers in demo.
func editorsMayDebug() *apitest.Access {
	ac := webtest.AccessRules()
	ac.Rules = append(ac.Rules, apitest.Rule{Groups: []string{"tabula:editors"}, Namespaces: []string{"demo"}, Verbs: []string{"patch"}, APIGroups: []string{""}, Resources: []string{"pods/ephemeralcontainers"}})
	return ac
}

// Terminal and Debug are offered only to users the server would let use
// them, and are hidden, not disabled, for the others.
func TestTerminalAndDebugLinksFollowTheUsersAccess(t *testing.T) {
	f := newTermFixture(t, apitest.Options{Access: editorsMayDebug()}, exec.Config{})
	b := newBrowser(t, f)

	editor := b.GetWith(termPod, http.StatusOK, webtest.As(webtest.EditorToken))
	if got := editor.Doc.Find("[data-testid=terminal-link]").AttrOr("href", ""); got != termExec {
		t.Errorf("editor's Terminal link %q", got)
	}
	if got := editor.Doc.Find("[data-testid=debug-link]").AttrOr("href", ""); got != termPod+"/debug" {
		t.Errorf("editor's Debug link %q", got)
	}
	if got := b.GetWith(termWorkload, http.StatusOK, webtest.As(webtest.EditorToken)).Doc.Find("[data-testid=terminal-link]").AttrOr("href", ""); got != termWorkload+"/exec" {
		t.Errorf("editor's Deployment Terminal link %q", got)
	}
	et := b.terminal(termExec, webtest.As(webtest.EditorToken))
	if got := et.Doc.Find("[data-testid=debug-link]").AttrOr("href", ""); got != termPod+"/debug" {
		t.Errorf("editor's terminal page Debug link %q", got)
	}

	viewer := b.GetWith(termPod, http.StatusOK, webtest.As(webtest.ViewerToken))
	for _, id := range []string{"terminal-link", "debug-link"} {
		if s := viewer.Doc.Find("[data-testid=" + id + "]"); s.Length() != 0 {
			t.Errorf("the viewer's pod page has %s: %s", id, webtest.Outer(s))
		}
	}
	if strings.Contains(viewer.Body, "/exec") || strings.Contains(viewer.Body, "/debug") {
		t.Error("the viewer's pod page mentions exec or debug")
	}
	if b.GetWith(termWorkload, http.StatusOK, webtest.As(webtest.ViewerToken)).Has("terminal-link") {
		t.Error("the viewer's Deployment page has a Terminal link")
	}
	// Reached by URL, the page says why and opens nothing: no socket, no
	// token.
	vt := b.GetWith(termExec, http.StatusForbidden, webtest.As(webtest.ViewerToken))
	if got := vt.Text("terminal-denied"); !strings.Contains(got, "pods/exec") {
		t.Errorf("the viewer's terminal page says %q", got)
	}
	if vt.Has("terminal") || vt.Has("debug-link") {
		t.Error("the viewer's terminal page offers a terminal or Debug")
	}
}

// A workload's Terminal leads to its pods, each to its terminal.
func TestWorkloadTerminalPicksAPod(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	href := b.Get(termWorkload, http.StatusOK).Doc.Find("[data-testid=terminal-link]").AttrOr("href", "")
	if href != termWorkload+"/exec" {
		t.Fatalf("Deployment Terminal link %q", href)
	}
	picker := b.Get(href, http.StatusOK)
	links := map[string]string{}
	picker.Doc.Find("[data-testid=pod-choice]").Each(func(_ int, s *goquery.Selection) {
		links[s.Text()] = s.AttrOr("href", "")
	})
	want := map[string]string{
		"web-1": "/c/dev/api/v1/namespaces/demo/pods/web-1/exec",
		"web-2": "/c/dev/api/v1/namespaces/demo/pods/web-2/exec",
	}
	if fmt.Sprint(links) != fmt.Sprint(want) {
		t.Errorf("pod picker %v, want %v", links, want)
	}
	p := b.terminal(links["web-2"], nil)
	if p.socket != "/c/dev/api/v1/namespaces/demo/pods/web-2/exec?container=app" {
		t.Errorf("picked pod's socket %q", p.socket)
	}
	// A pod has no pods to pick from; a cluster-scoped object has none.
	b.Get("/c/dev/api/v1/namespaces/demo/configmaps/x/exec", http.StatusNotFound)
}

// One session, in each framing the browser may pick: size first, then
// keystrokes; output; later sizes; the exit code as kubelets and kwok
// report it; the normal close.
func TestTerminalSessionFraming(t *testing.T) {
	for _, protocol := range []string{streaming.ProtocolV4Base64Channel, streaming.ProtocolV4Channel} {
		for _, kwok := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/kwok=%v", protocol, kwok), func(t *testing.T) {
				f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: kwok}}, exec.Config{})
				b := newBrowser(t, f)
				p := b.terminal(termExec, nil)

				c := b.open(p, protocol, nil)
				c.resize(100, 30)
				// Typed at once, before the prompt: the shell has the
				// browser's size from the first keystroke.
				c.typeText("stty size\r")
				c.expect("\r\n30 100\r\n" + apitest.ExecPrompt)
				c.typeText("echo hello-term\r")
				c.expect("\r\nhello-term\r\n" + apitest.ExecPrompt)
				c.resize(132, 43)
				lastExec(t, f.Fake, func(e apitest.ExecSession) bool { return len(e.Resizes) == 2 })
				c.typeText("stty size\r")
				c.expect("\r\n43 132\r\n")
				c.typeText("exit 3\r")
				st, code := c.end()
				if code != websocket.CloseNormalClosure {
					t.Errorf("close code %d", code)
				}
				if st.Status != metav1.StatusFailure || exitCode(st) != 3 {
					t.Errorf("Status %+v, want Failure NonZeroExitCode with ExitCode 3", st)
				}

				e := lastExec(t, f.Fake, ended)
				if e.End != apitest.ExecExited || e.ExitCode != 3 || e.Container != "app" || !e.TTY || !e.Stdin ||
					!slices.Equal(e.Command, shellCommand) || e.Attach {
					t.Errorf("upstream session %+v", e)
				}
				if len(e.Resizes) != 2 || e.Resizes[0] != (apitest.TerminalSize{Width: 100, Height: 30}) {
					t.Errorf("the shell did not start at the browser's size: %+v", e.Resizes)
				}
				if e.Input != "stty size\recho hello-term\rstty size\rexit 3\r" {
					t.Errorf("upstream input %q", e.Input)
				}

				// exit 0 is a Success.
				c = b.open(p, protocol, nil)
				c.resize(80, 24)
				c.typeText("exit 0\r")
				st, code = c.end()
				if st.Status != metav1.StatusSuccess || code != websocket.CloseNormalClosure {
					t.Errorf("exit 0: Status %+v, close %d", st, code)
				}
			})
		}
	}
}

// A command from the page's field runs without a shell; its stderr and
// status come through.
func TestTerminalRunsTheCommandField(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	p := b.terminal(termExec+"?container=sidecar&command="+url.QueryEscape(`sh -c 'echo from-field; nope; exit 7'`), nil)
	c := b.open(p, "", nil)
	c.resize(80, 24)
	c.expect("from-field\r\n")
	c.expect("sh: nope: not found\r\n")
	st, _ := c.end()
	if exitCode(st) != 7 {
		t.Errorf("Status %+v", st)
	}
	e := lastExec(t, f.Fake, ended)
	if e.Container != "sidecar" || !slices.Equal(e.Command, []string{"sh", "-c", "echo from-field; nope; exit 7"}) {
		t.Errorf("upstream session %+v", e)
	}
}

// The socket opens only with its own page's token, from the console's
// origin; refusals make no upstream call.
func TestTerminalSocketNeedsItsPagesToken(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Unix())
	f := newTermFixture(t, apitest.Options{}, exec.Config{Now: func() time.Time { return time.Unix(clock.Load(), 0) }})
	b := newBrowser(t, f)
	p := b.terminal(termExec, nil)
	other := newBrowser(t, f)
	other.terminal(termExec, nil) // its own CSRF cookie, and its own page
	stranger := newBrowser(t, f)
	f.Fake.ResetRequests()

	for _, tc := range []struct {
		why    string
		b      *browser
		socket string
		token  string
	}{
		{"no token", b, p.socket, ""},
		{"a forged token", b, p.socket, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"not a token", b, p.socket, "%%%"},
		{"another pod", b, "/c/dev/api/v1/namespaces/demo/pods/web-2/exec?container=app", p.token},
		{"another container", b, termExec + "?container=sidecar", p.token},
		{"no container", b, termExec, p.token},
		{"attach with an exec token", b, termPod + "/attach?container=app", p.token},
		{"another namespace", b, "/c/dev/api/v1/namespaces/other/pods/web-1/exec?container=app", p.token},
		{"another browser's cookie", other, p.socket, p.token},
		{"no cookie", stranger, p.socket, p.token},
	} {
		msg := tc.b.refused(tc.socket, termDial{token: tc.token}, http.StatusForbidden, tc.why)
		if !strings.Contains(msg, "not opened from its own page") {
			t.Errorf("%s: refused with %q", tc.why, msg)
		}
	}
	if reqs := podRequests(f.Fake); len(reqs) != 0 {
		t.Errorf("refused handshakes reached the API server: %q", reqs)
	}

	// Another site's page cannot open it, even with the cookie and token:
	// nothing at all is sent upstream.
	for _, origin := range []string{"https://evil.example", "http://127.0.0.1.evil.example", "null"} {
		b.refused(p.socket, termDial{token: p.token, origin: origin}, http.StatusForbidden, "origin "+origin)
	}
	if reqs := f.Fake.Requests(); len(reqs) != 0 {
		t.Errorf("cross-origin handshakes made %d upstream requests, first %s", len(reqs), reqs[0].URL)
	}
	if ss := f.Fake.ExecSessions(); len(ss) != 0 {
		t.Errorf("refused handshakes opened sessions: %+v", ss)
	}

	// The page's own token opens it, until it expires.
	c := b.open(p, "", nil)
	c.resize(80, 24)
	c.typeText("exit\r")
	if st, _ := c.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("Status %+v", st)
	}
	clock.Add(int64((13 * time.Hour).Seconds()))
	b.refused(p.socket, termDial{token: p.token}, http.StatusForbidden, "an expired token")
	if ss := f.Fake.ExecSessions(); len(ss) != 1 {
		t.Errorf("%d sessions, want 1", len(ss))
	}
}

// A user's terminals are capped: one more gets a 429 Status, and a slot
// freed is a slot to use.
func TestTerminalCapPerUser(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{MaxPerUser: 1})
	b := newBrowser(t, f)
	p := b.terminal(termExec, nil)

	first := b.open(p, "", nil)
	first.resize(80, 24)
	first.expect(apitest.ExecPrompt)

	second := b.open(p, "", nil)
	second.resize(80, 24)
	st, code := second.end()
	if st.Code != http.StatusTooManyRequests || !strings.Contains(st.Message, "You already have 1 terminal open") {
		t.Errorf("second terminal's Status %+v", st)
	}
	if code != websocket.CloseTryAgainLater {
		t.Errorf("second terminal closed %d", code)
	}
	if ss := f.Fake.ExecSessions(); len(ss) != 1 {
		t.Errorf("%d upstream sessions, want 1", len(ss))
	}

	first.typeText("exit\r")
	if st, code := first.end(); st.Status != metav1.StatusSuccess || code != websocket.CloseNormalClosure {
		t.Errorf("first terminal: %+v, close %d", st, code)
	}
	third := b.open(p, "", nil)
	third.resize(80, 24)
	third.typeText("echo third\r")
	third.expect("\r\nthird\r\n")
	third.typeText("exit\r")
	if st, _ := third.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("third terminal: %+v", st)
	}
}

// A browser that goes away, abruptly or saying so, leaves no shell: the
// console types the leave sequence and the process exits within the grace
// (a cut connection would be "dropped"), on kwok too, which never
// delivers the end of stdin.
func TestClosingTheBrowserEndsTheShell(t *testing.T) {
	for _, kwok := range []bool{false, true} {
		for _, abrupt := range []bool{true, false} {
			t.Run(fmt.Sprintf("kwok=%v/abrupt=%v", kwok, abrupt), func(t *testing.T) {
				f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: kwok}}, exec.Config{})
				b := newBrowser(t, f)
				c := b.open(b.terminal(termExec, nil), "", nil)
				c.resize(80, 24)
				c.typeText("echo before\r")
				c.expect("\r\nbefore\r\n" + apitest.ExecPrompt)
				c.typeText("half a li")
				c.expect("half a li")
				if abrupt {
					_ = c.ws.UnderlyingConn().Close()
				} else {
					_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
					_ = c.ws.Close()
				}
				e := lastExec(t, f.Fake, ended)
				if e.End != apitest.ExecExited {
					t.Fatalf("the shell was not told to exit: %+v", e)
				}
				if !strings.HasSuffix(e.Input, leaveShell) || e.ExitCode != 130 {
					t.Errorf("upstream input %q, exit code %d", e.Input, e.ExitCode)
				}
				if strings.Contains(e.Output, "half a li\r\n") {
					t.Errorf("the half-typed line was run: %q", e.Output)
				}
				rec := waitLog(t, f.Log, "terminal ended")
				if rec["ended"] != "browser" {
					t.Errorf("log %v", rec)
				}
			})
		}
	}
}

// A program other than a shell, left by the browser with a half-typed
// line, gets the end of its input.
func TestClosingTheBrowserEndsACommandsInput(t *testing.T) {
	for _, kwok := range []bool{false, true} {
		t.Run(fmt.Sprintf("kwok=%v", kwok), func(t *testing.T) {
			f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: kwok}}, exec.Config{})
			b := newBrowser(t, f)
			c := b.open(b.terminal(termExec+"?command=cat", nil), "", nil)
			c.resize(80, 24)
			c.typeText("line\r")
			c.expect("line\r\nline\r\n")
			c.typeText("half")
			c.expect("half")
			_ = c.ws.UnderlyingConn().Close()
			e := lastExec(t, f.Fake, ended)
			if e.End != apitest.ExecExited || e.ExitCode != 0 {
				t.Fatalf("cat was not given the end of its input: %+v", e)
			}
		})
	}
}

// Leaving an attached terminal lets the container's process be: nothing
// is typed into it.
func TestClosingAnAttachedTerminalTypesNothing(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	c := b.open(b.terminal(termTTYPod+"/attach", nil), "", nil)
	c.resize(80, 24)
	c.typeText("echo attached\r")
	c.expect("\r\nattached\r\n")
	_ = c.ws.UnderlyingConn().Close()
	e := lastExec(t, f.Fake, ended)
	if !e.Attach || e.Container != "console" || !e.TTY || e.Command != nil {
		t.Errorf("upstream session %+v", e)
	}
	if e.Input != "echo attached\r" {
		t.Errorf("leaving an attach typed into the container's process: %q", e.Input)
	}
	if !e.StdinClosed {
		t.Error("stdin was not closed")
	}
}

// A terminal without keystrokes for the idle timeout ends, and its shell
// with it.
func TestIdleTerminalEnds(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{IdleTimeout: 300 * time.Millisecond})
	b := newBrowser(t, f)
	c := b.open(b.terminal(termExec, nil), "", nil)
	c.resize(80, 24)
	c.expect(apitest.ExecPrompt)
	st, code := c.end()
	if st.Status != metav1.StatusFailure || st.Reason != metav1.StatusReasonTimeout || st.Code != http.StatusRequestTimeout ||
		st.Message != "The terminal received no input for 300ms and was closed; its process was ended." {
		t.Errorf("Status %+v", st)
	}
	if code != websocket.CloseNormalClosure {
		t.Errorf("close %d", code)
	}
	e := lastExec(t, f.Fake, ended)
	if e.End != apitest.ExecExited || e.Input != leaveShell {
		t.Errorf("the idle shell was not told to exit: %+v", e)
	}
	if rec := waitLog(t, f.Log, "terminal ended"); rec["ended"] != "idle" {
		t.Errorf("log %v", rec)
	}

	// An attached terminal is let go, its process left running.
	c = b.open(b.terminal(termTTYPod+"/attach", nil), "", nil)
	c.resize(80, 24)
	st, _ = c.end()
	if st.Reason != metav1.StatusReasonTimeout || !strings.Contains(st.Message, "no input for 300ms") || strings.Contains(st.Message, "ended") {
		t.Errorf("attach Status %+v", st)
	}
	e = lastExec(t, f.Fake, func(e apitest.ExecSession) bool { return e.Attach && ended(e) })
	if e.Input != "" {
		t.Errorf("an idle attach typed %q", e.Input)
	}
}

// Refusals that come after the upgrade (the API server's, a container
// that is not running) are the session's Status, which the page shows.
func TestTerminalRefusalsAreItsStatus(t *testing.T) {
	t.Run("forbidden", func(t *testing.T) {
		ac := webtest.AccessRules()
		ac.NoReviewAPI = true // the console cannot know: the server decides
		f := newTermFixture(t, apitest.Options{Access: ac}, exec.Config{})
		b := newBrowser(t, f)
		c := b.open(b.terminal(termExec, webtest.As(webtest.ViewerToken)), "", webtest.As(webtest.ViewerToken))
		c.resize(80, 24)
		st, code := c.end()
		if st.Code != http.StatusForbidden || !strings.Contains(st.Message, `User "alice@example.com" cannot`) || !strings.Contains(st.Message, `"pods/exec"`) {
			t.Errorf("Status %+v", st)
		}
		if code != websocket.CloseNormalClosure {
			t.Errorf("close %d", code)
		}
		if ss := f.Fake.ExecSessions(); len(ss) != 0 {
			t.Errorf("sessions %+v", ss)
		}
		// The editor's terminal works.
		c = b.open(b.terminal(termExec, webtest.As(webtest.EditorToken)), "", webtest.As(webtest.EditorToken))
		c.resize(80, 24)
		c.typeText("exit\r")
		if st, _ := c.end(); st.Status != metav1.StatusSuccess {
			t.Errorf("editor's Status %+v", st)
		}
	})
	t.Run("not running", func(t *testing.T) {
		f := newTermFixture(t, apitest.Options{}, exec.Config{StartWait: 300 * time.Millisecond, StartPoll: 20 * time.Millisecond})
		b := newBrowser(t, f)
		for pod, want := range map[string]string{
			"done-1":  `container "app" in pod "done-1" is terminated`,
			"stuck-1": `container "app" in pod "stuck-1" is waiting to start: ContainerCreating`,
		} {
			c := b.open(b.terminal("/c/dev/api/v1/namespaces/demo/pods/"+pod+"/exec", nil), "", nil)
			c.resize(80, 24)
			c.expect("Waiting for container app to start…\r\n")
			st, code := c.end()
			if st.Code != http.StatusBadRequest || st.Message != want || code != websocket.CloseNormalClosure {
				t.Errorf("%s: Status %+v, close %d", pod, st, code)
			}
		}
	})
	t.Run("pod gone", func(t *testing.T) {
		f := newTermFixture(t, apitest.Options{}, exec.Config{})
		b := newBrowser(t, f)
		p := b.terminal("/c/dev/api/v1/namespaces/demo/pods/web-2/exec", nil)
		f.Fake.Delete(webtest.PodGVK, "demo", "web-2")
		c := b.open(p, "", nil)
		c.resize(80, 24)
		st, _ := c.end()
		if st.Code != http.StatusNotFound || !strings.Contains(st.Message, `"web-2" not found`) {
			t.Errorf("Status %+v", st)
		}
	})
	t.Run("no WebSocket upstream", func(t *testing.T) {
		f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{NoWebSocket: true}}, exec.Config{})
		b := newBrowser(t, f)
		c := b.open(b.terminal(termExec, nil), "", nil)
		c.resize(80, 24)
		st, code := c.end()
		if st.Status != metav1.StatusFailure || st.Message == "" || exitCode(st) >= 0 {
			t.Errorf("Status %+v", st)
		}
		if code != websocket.CloseNormalClosure && code != websocket.CloseTryAgainLater {
			t.Errorf("close %d", code)
		}
	})
}

// A container that starts while its terminal waits is opened once it runs.
func TestTerminalWaitsForItsContainerToStart(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{StartPoll: 20 * time.Millisecond})
	b := newBrowser(t, f)
	c := b.open(b.terminal("/c/dev/api/v1/namespaces/demo/pods/stuck-1/exec", nil), "", nil)
	c.resize(80, 24)
	c.expect("Waiting for container app to start…\r\n")
	if ss := f.Fake.ExecSessions(); len(ss) != 0 {
		t.Fatalf("a session before the container runs: %+v", ss)
	}
	f.Fake.Modify(webtest.PodGVK, "demo", "stuck-1", func(pod *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(pod.Object, []any{runningStatus("app")}, "status", "containerStatuses")
	})
	c.expect(apitest.ExecPrompt)
	c.typeText("exit 2\r")
	if st, _ := c.end(); exitCode(st) != 2 {
		t.Errorf("Status %+v", st)
	}
}

// waitLog waits for a log record with msg and returns the last one.
func waitLog(t *testing.T, logs *webtest.Log, msg string) map[string]any {
	t.Helper()
	var last map[string]any
	apitest.WaitFor(t, termWait, func() error {
		recs := logs.Records(t, msg)
		if len(recs) == 0 {
			return fmt.Errorf("no %q log record in:\n%s", msg, logs.String())
		}
		last = recs[len(recs)-1]
		return nil
	})
	return last
}

// Each terminal's start and end are logged with who opened what and how it
// ended; nothing typed, and nothing shown, ever is.
func TestTerminalLogsWhoWhatAndHowLongButNoKeystrokes(t *testing.T) {
	const secret = "s3cr3t-typed"
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	c := b.open(b.terminal(termExec+"?container=sidecar", nil), "", nil)
	c.resize(80, 24)
	c.typeText("echo " + secret + "\r")
	c.expect("\r\n" + secret + "\r\n")
	c.typeText("exit 4\r")
	if st, _ := c.end(); exitCode(st) != 4 {
		t.Fatalf("Status %+v", st)
	}
	end := waitLog(t, f.Log, "terminal ended")
	started := waitLog(t, f.Log, "terminal started")
	for _, rec := range []map[string]any{started, end} {
		for k, want := range map[string]any{
			"who": "kubeconfig-context:dev", "context": "dev", "namespace": "demo", "pod": "web-1", "container": "sidecar", "mode": "exec",
		} {
			if rec[k] != want {
				t.Errorf("%s: %s = %v, want %v", rec["msg"], k, rec[k], want)
			}
		}
		if fmt.Sprint(rec["command"]) != fmt.Sprint(shellCommand) {
			t.Errorf("%s: command %v", rec["msg"], rec["command"])
		}
	}
	if end["exitCode"] != float64(4) || end["ended"] != "exit" {
		t.Errorf("end record %v", end)
	}
	if d, ok := end["duration"].(float64); !ok || d <= 0 {
		t.Errorf("end record's duration %v", end["duration"])
	}
	if strings.Contains(f.Log.String(), secret) {
		t.Errorf("the log holds what was typed:\n%s", f.Log.String())
	}
}

// The debug form adds an ephemeral container as kubectl debug does, then
// opens a terminal to it.
func TestDebugContainer(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	href := b.Get(termPod, http.StatusOK).Doc.Find("[data-testid=debug-link]").AttrOr("href", "")
	if href != termPod+"/debug" {
		t.Fatalf("Debug link %q", href)
	}
	p := b.Get(href, http.StatusOK)
	form := b.Form(p, "[data-testid=debug-form]")
	if form.Action != termPod+"/debug" {
		t.Errorf("form action %q", form.Action)
	}
	rv := stored(t, f, "web-1").GetResourceVersion()
	name := form.Get("name")
	if form.Get("image") != "busybox:1.37" || form.Get("resourceVersion") != rv || !strings.HasPrefix(name, "debugger-") {
		t.Errorf("form values %v (pod at %s)", form.Values, rv)
	}
	var targets []string
	p.Doc.Find("[data-testid=debug-target] option").Each(func(_ int, s *goquery.Selection) { targets = append(targets, s.AttrOr("value", "")) })
	if !slices.Equal(targets, []string{"", "app", "sidecar"}) {
		t.Errorf("targets %q", targets)
	}
	if got := p.Doc.Find("[data-testid=debug-target] option[selected]").AttrOr("value", ""); got != "app" {
		t.Errorf("default target %q", got)
	}
	form.Set("target", "sidecar")

	// No CSRF token: refused, nothing sent.
	f.Fake.ResetRequests()
	noToken := url.Values{}
	for k, v := range form.Values {
		if k != csrf.Field {
			noToken[k] = v
		}
	}
	b.Post(form.Action, noToken, http.StatusForbidden, nil)
	if ws := f.Fake.Writes(); len(ws) != 0 {
		t.Fatalf("a form without its token wrote %v", ws)
	}

	done := form.Submit("", http.StatusSeeOther)
	want := termExec + "?container=" + name
	if done.Location() != want {
		t.Errorf("redirect to %q, want %q", done.Location(), want)
	}
	pod := stored(t, f, "web-1")
	ecs, _, _ := unstructured.NestedSlice(pod.Object, "spec", "ephemeralContainers")
	if len(ecs) != 1 {
		t.Fatalf("ephemeral containers %v", ecs)
	}
	ec := ecs[0].(map[string]any)
	if ec["name"] != name || ec["image"] != "busybox:1.37" || ec["stdin"] != true || ec["tty"] != true || ec["targetContainerName"] != "sidecar" {
		t.Errorf("ephemeral container %v", ec)
	}
	if ws := f.Fake.Writes(); len(ws) != 1 || ws[0].Method != http.MethodPatch || !strings.HasSuffix(ws[0].Path, "/pods/web-1/ephemeralcontainers") {
		t.Errorf("writes %v", ws)
	}
	if recs := f.Log.Records(t, "write"); len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0]), "ephemeralcontainers") {
		t.Errorf("write log %v", recs)
	}

	// Its terminal: the picker lists it as ephemeral, the session reaches it.
	term := b.terminal(done.Location(), nil)
	if got := term.Doc.Find("[data-testid=terminal-container-picker] option[selected]").Text(); !strings.Contains(got, name) || !strings.Contains(got, "ephemeral") {
		t.Errorf("selected container %q", got)
	}
	c := b.open(term, "", nil)
	c.resize(80, 24)
	c.typeText("exit\r")
	if st, _ := c.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("Status %+v", st)
	}
	if e := lastExec(t, f.Fake, ended); e.Container != name {
		t.Errorf("session in %q, want %q", e.Container, name)
	}
}

// stored is the pod as the fake has it.
func stored(t *testing.T, f *webtest.Console, name string) *unstructured.Unstructured {
	t.Helper()
	return f.Stored(t, "/api/v1/namespaces/demo/pods/"+name)
}

// A form that is out of date or invalid is shown again, with what was
// typed kept.
func TestDebugFormFailuresKeepWhatWasTyped(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	form := b.Form(b.Get(termPod+"/debug", http.StatusOK), "[data-testid=debug-form]")
	form.Set("image", "alpine:3.20").Set("name", "dbg")

	// Changed since the form was loaded: 409, the current version loaded.
	f.Fake.Modify(webtest.PodGVK, "demo", "web-1", func(pod *unstructured.Unstructured) { pod.SetLabels(map[string]string{"app": "web", "changed": "yes"}) })
	current := stored(t, f, "web-1").GetResourceVersion()
	p := form.Submit("", http.StatusConflict)
	if got := p.Text("debug-error"); !strings.Contains(got, "changed since this form was loaded") {
		t.Errorf("409 says %q", got)
	}
	again := b.Form(p, "[data-testid=debug-form]")
	if again.Get("image") != "alpine:3.20" || again.Get("name") != "dbg" || again.Get("resourceVersion") != current {
		t.Errorf("409 form %v, want the typed image and name at version %s", again.Values, current)
	}
	if pod := stored(t, f, "web-1"); pod.GetResourceVersion() != current {
		t.Error("the stale form changed the pod")
	}
	for _, tc := range []struct{ field, value, says string }{
		{"name", "Bad_Name", `"Bad_Name" is not a container name`},
		{"name", "sidecar", `already has a container named "sidecar"`},
		{"image", "", "An image is needed"},
		{"image", "busybox latest", "contains whitespace"},
		{"target", "nope", `no container "nope" to target`},
	} {
		bad := b.Form(p, "[data-testid=debug-form]")
		bad.Set(tc.field, tc.value)
		shown := bad.Submit("", http.StatusBadRequest)
		if got := shown.Text("debug-error"); !strings.Contains(got, tc.says) {
			t.Errorf("%s=%q: the page says %q", tc.field, tc.value, got)
		}
		kept := b.Form(shown, "[data-testid=debug-form]")
		for _, k := range []string{"image", "name"} {
			if want := bad.Get(k); kept.Get(k) != want && !(k == "name" && want == "") {
				t.Errorf("%s=%q: %s %q not kept (%q)", tc.field, tc.value, k, want, kept.Get(k))
			}
		}
	}
	if ws := f.Fake.Writes(); len(ws) != 1 {
		t.Errorf("writes %d, want only the stale one", len(ws))
	}
	// The re-shown form, submitted, works.
	if done := again.Submit("", http.StatusSeeOther); done.Location() != termExec+"?container=dbg" {
		t.Errorf("redirect %q", done.Location())
	}
}

// A server without debug containers offers none.
func TestDebugOnAServerWithoutEphemeralContainers(t *testing.T) {
	f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{NoEphemeralContainers: true}}, exec.Config{})
	b := newBrowser(t, f)
	pod := b.Get(termPod, http.StatusOK)
	if pod.Has("debug-link") || !pod.Has("terminal-link") {
		t.Errorf("pod page: debug link %v, terminal link %v", pod.Has("debug-link"), pod.Has("terminal-link"))
	}
	if b.terminal(termExec, nil).Has("debug-link") {
		t.Error("the terminal page offers Debug")
	}
	b.Get(termPod+"/debug", http.StatusNotFound)
	b.Post(termPod+"/debug", url.Values{csrf.Field: {b.CSRFToken()}, "image": {"busybox"}}, http.StatusNotFound, nil)
	b.Get(termWorkload+"/debug", http.StatusNotFound)
	if ws := f.Fake.Writes(); len(ws) != 0 {
		t.Errorf("writes %v", ws)
	}
}

// A debug container still pulling its image: its terminal waits, saying
// so, and opens once it runs.
func TestDebugContainerStillStarting(t *testing.T) {
	f := newTermFixture(t, apitest.Options{Exec: apitest.ExecOptions{EphemeralWaiting: true}}, exec.Config{StartPoll: 20 * time.Millisecond})
	b := newBrowser(t, f)
	form := b.Form(b.Get(termPod+"/debug", http.StatusOK), "[data-testid=debug-form]")
	form.Set("name", "dbg")
	done := form.Submit("", http.StatusSeeOther)
	term := b.terminal(done.Location(), nil)
	if got := term.Text("terminal-notice"); !strings.Contains(got, "dbg is not running yet") {
		t.Errorf("notice %q", got)
	}
	c := b.open(term, "", nil)
	c.resize(80, 24)
	c.expect("Waiting for container dbg to start…\r\n")
	f.Fake.Modify(webtest.PodGVK, "demo", "web-1", func(pod *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(pod.Object, []any{runningStatus("dbg")}, "status", "ephemeralContainerStatuses")
	})
	c.expect(apitest.ExecPrompt)
	c.typeText("exit\r")
	if st, _ := c.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("Status %+v", st)
	}
	if e := lastExec(t, f.Fake, ended); e.Container != "dbg" {
		t.Errorf("session %+v", e)
	}
}

// A browser that leaves before its terminal started (before sending its
// size) starts nothing upstream.
func TestTerminalLeftBeforeItStartedStartsNothing(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{})
	b := newBrowser(t, f)
	c := b.open(b.terminal(termExec, nil), "", nil)
	_ = c.ws.UnderlyingConn().Close()
	// The socket's request is logged once its handler returned.
	apitest.WaitFor(t, termWait, func() error {
		if !slices.ContainsFunc(f.Log.Records(t, "http request"), func(r map[string]any) bool {
			return r["path"] == termExec && r["status"] == float64(http.StatusSwitchingProtocols)
		}) {
			return fmt.Errorf("the socket's handler did not return:\n%s", f.Log.String())
		}
		return nil
	})
	if ss := f.Fake.ExecSessions(); len(ss) != 0 {
		t.Errorf("a session for a browser that had left: %+v", ss)
	}
}

// Under a base path, the page's socket and links carry it, and the socket
// is served there.
func TestTerminalUnderABasePath(t *testing.T) {
	f := newTermFixture(t, apitest.Options{}, exec.Config{}, func(d *web.Deps) { d.BasePath = "/tabula" })
	b := newBrowser(t, f)
	if got := b.Get("/tabula"+termPod, http.StatusOK).Doc.Find("[data-testid=terminal-link]").AttrOr("href", ""); got != "/tabula"+termExec {
		t.Errorf("Terminal link %q", got)
	}
	p := b.terminal("/tabula"+termExec, nil)
	if p.socket != "/tabula"+termExec+"?container=app" {
		t.Errorf("data-socket %q", p.socket)
	}
	if got := p.Doc.Find("[data-testid=debug-link]").AttrOr("href", ""); got != "/tabula"+termPod+"/debug" {
		t.Errorf("Debug link %q", got)
	}
	c := b.open(p, "", nil)
	c.resize(80, 24)
	c.typeText("exit\r")
	if st, _ := c.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("Status %+v", st)
	}
	form := b.Form(b.Get("/tabula"+termPod+"/debug", http.StatusOK), "[data-testid=debug-form]")
	form.Set("name", "dbg")
	if got := form.Submit("", http.StatusSeeOther).Location(); got != "/tabula"+termExec+"?container=dbg" {
		t.Errorf("debug redirect %q", got)
	}
}

// The cap counts each identity's terminals on their own.
func TestTerminalCapIsPerIdentity(t *testing.T) {
	f := newTermFixture(t, apitest.Options{Access: webtest.AccessRules()}, exec.Config{MaxPerUser: 1})
	b := newBrowser(t, f)
	editor := b.open(b.terminal(termExec, webtest.As(webtest.EditorToken)), "", webtest.As(webtest.EditorToken))
	editor.resize(80, 24)
	editor.expect(apitest.ExecPrompt)
	again := b.open(b.terminal(termExec, webtest.As(webtest.EditorToken)), "", webtest.As(webtest.EditorToken))
	again.resize(80, 24)
	if st, _ := again.end(); st.Code != http.StatusTooManyRequests {
		t.Errorf("the editor's second terminal: %+v", st)
	}
	admin := b.open(b.terminal(termExec, webtest.As(webtest.ConsoleToken)), "", webtest.As(webtest.ConsoleToken))
	admin.resize(80, 24)
	admin.typeText("exit\r")
	if st, _ := admin.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("another user's terminal: %+v", st)
	}
	editor.typeText("exit\r")
	if st, _ := editor.end(); st.Status != metav1.StatusSuccess {
		t.Errorf("the editor's terminal: %+v", st)
	}
}
