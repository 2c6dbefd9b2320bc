//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/e2e/harness"
)

// The terminal journeys run real shells on this host: devcluster's kwok
// runs exec sessions into demo pods as local processes in a work directory
// per pod (docs/devcluster.md), so what a session leaves behind is visible
// in /proc.

// openTerminal opens the terminal of pod and waits until its session is
// open.
func openTerminal(t *testing.T, page playwright.Page, pod string) playwright.Locator {
	t.Helper()
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod+"/exec")
	term := page.GetByTestId("terminal")
	must(t, expect.Locator(term).ToHaveAttribute("data-state", "open"))
	return term
}

// typeLine types a line into the terminal as a user would.
func typeLine(t *testing.T, page playwright.Page, term playwright.Locator, line string) {
	t.Helper()
	must(t, term.Click())
	must(t, page.Keyboard().Type(line))
	must(t, page.Keyboard().Press("Enter"))
}

// screen is the text the terminal shows.
func screen(term playwright.Locator) playwright.Locator { return term.Locator(".xterm-rows") }

// From a Deployment's page to one of its pods' terminal: the shell runs,
// echoes what is typed, and prints its output.
func TestTerminalFromAWorkloadEchoesInput(t *testing.T) {
	cs, _ := clientset(t, "admin")
	runningPod(t, cs)
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments/web")
	must(t, page.GetByTestId("terminal-link").Click())
	must(t, expect.Locator(page.GetByTestId("pod-picker")).ToBeVisible())
	screenshot(t, page, "terminal-pod-picker-light.png")
	must(t, page.GetByTestId("pod-choice").First().Click())
	term := page.GetByTestId("terminal")
	must(t, expect.Locator(term).ToHaveAttribute("data-state", "open"))

	typeLine(t, page, term, "echo hello-$RANDOM")
	// The typed line shows $RANDOM; only the shell's output has digits.
	must(t, expect.Locator(screen(term)).ToContainText(regexp.MustCompile(`hello-\d+`)))
	screenshot(t, page, "terminal-light.png")

	must(t, page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}))
	typeLine(t, page, term, "printf '\\033[32mgreen\\033[0m and pwd: '; pwd")
	must(t, expect.Locator(screen(term)).ToContainText("green and pwd: /"))
	screenshot(t, page, "terminal-dark.png")
}

// The shell's terminal has the size the page shows, and follows the
// window.
func TestTerminalFollowsTheWindowSize(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	term := openTerminal(t, page, pod.Name)

	sttySize := func() {
		t.Helper()
		rows, err := term.GetAttribute("data-rows")
		must(t, err)
		cols, err := term.GetAttribute("data-cols")
		must(t, err)
		marker := strconv.FormatInt(time.Now().UnixNano()%100000, 10)
		typeLine(t, page, term, "echo size-"+marker+"; stty size")
		must(t, expect.Locator(screen(term)).ToContainText(regexp.MustCompile(`size-`+marker+`\s*`+rows+` `+cols+`(\D|$)`)))
	}
	sttySize()
	before, _ := term.GetAttribute("data-cols")
	must(t, page.SetViewportSize(900, 600))
	must(t, expect.Locator(term).Not().ToHaveAttribute("data-cols", before))
	typeLine(t, page, term, "clear")
	sttySize()
}

// exit 3 shows exit code 3, and Enter starts a new session.
func TestTerminalShowsTheExitCode(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	term := openTerminal(t, page, pod.Name)
	typeLine(t, page, term, "exit 3")
	must(t, expect.Locator(term).ToHaveAttribute("data-state", "exited"))
	must(t, expect.Locator(term).ToHaveAttribute("data-exit-code", "3"))
	must(t, expect.Locator(page.GetByTestId("terminal-status")).ToContainText("exited with code 3"))
	screenshot(t, page, "terminal-exited.png")

	// One key: a new session, a new shell.
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(term).ToHaveAttribute("data-state", "open"))
	typeLine(t, page, term, "echo again-$((40+2))")
	must(t, expect.Locator(screen(term)).ToContainText("again-42"))
}

// Closing the page ends the shell on the host: nothing is orphaned.
func TestClosingTheTerminalEndsTheProcess(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	dir := env.cluster.PodWorkDir("demo", pod.Name)
	apitest.WaitFor(t, 30*time.Second, harness.NoProcessesIn(dir)) // left by an earlier test
	page := newPage(t)
	term := openTerminal(t, page, pod.Name)
	typeLine(t, page, term, "echo ready-$((6*7))")
	must(t, expect.Locator(screen(term)).ToContainText("ready-42"))
	var procs []harness.HostProcess
	apitest.WaitFor(t, 10*time.Second, harness.ProcessesFoundIn(dir, &procs))
	t.Logf("the session's processes: %v", procs)

	must(t, page.Close())
	apitest.WaitFor(t, 20*time.Second, harness.NoProcessesIn(dir)) // or closing the page left the shell running
}

// A page of another origin cannot open a terminal socket, even in a browser
// that holds the console's cookies; nor can a same-origin request without
// the terminal page's token, or with another pod's.
func TestTerminalSocketRefusesOtherPagesAndMissingTokens(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	other := otherPod(t, cs, pod.Name)
	page := newPage(t)
	openTerminal(t, page, pod.Name) // the browser now has the console's cookies
	token, err := page.GetByTestId("terminal").GetAttribute("data-token")
	must(t, err)
	socket, err := page.GetByTestId("terminal").GetAttribute("data-socket")
	must(t, err)
	consoleURL, err := url.Parse(env.console.URL)
	must(t, err)
	wsURL := "ws://" + consoleURL.Host + socket

	// Another origin: a page served on another port of this host.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>elsewhere</title><p>elsewhere</p>`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	evil, err := page.Context().NewPage()
	must(t, err)
	_, err = evil.Goto("http://" + ln.Addr().String() + "/")
	must(t, err)
	result, err := evil.Evaluate(`([url, token]) => new Promise((resolve) => {
		const ws = new WebSocket(url, ["v4.base64.channel.k8s.io", "tabula.terminal-token." + token]);
		ws.onopen = () => resolve("opened");
		ws.onclose = (e) => resolve("closed " + e.code);
	})`, []any{wsURL, token})
	must(t, err)
	if result != "closed 1006" {
		t.Errorf("a cross-origin page's socket: %v, want it refused (closed 1006)", result)
	}

	// Same origin, the console's cookies, no or another token: refused.
	jar := page.Context()
	cookies, err := jar.Cookies(env.console.URL)
	must(t, err)
	var cookieHeader []string
	for _, c := range cookies {
		cookieHeader = append(cookieHeader, c.Name+"="+c.Value)
	}
	otherSocket := strings.Replace(socket, "/pods/"+pod.Name+"/", "/pods/"+other.Name+"/", 1)
	for name, tc := range map[string]struct {
		url       string
		protocols []string
	}{
		"no token":            {wsURL, []string{"v4.base64.channel.k8s.io"}},
		"another pod's token": {"ws://" + consoleURL.Host + otherSocket, []string{"v4.base64.channel.k8s.io", "tabula.terminal-token." + token}},
	} {
		d := websocket.Dialer{Subprotocols: tc.protocols, HandshakeTimeout: 10 * time.Second}
		ws, resp, err := d.Dial(tc.url, http.Header{"Origin": {env.console.URL}, "Cookie": {strings.Join(cookieHeader, "; ")}})
		if err == nil {
			ws.Close()
			t.Errorf("%s: the socket opened", name)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %v, want 403", name, err)
		}
	}
	// With the page's own token it opens: the refusals above were for the
	// reasons tested.
	d := websocket.Dialer{Subprotocols: []string{"v4.base64.channel.k8s.io", "tabula.terminal-token." + token}, HandshakeTimeout: 10 * time.Second}
	ws, _, err := d.Dial(wsURL, http.Header{"Origin": {env.console.URL}, "Cookie": {strings.Join(cookieHeader, "; ")}})
	if err != nil {
		t.Fatalf("the page's own token: %v", err)
	}
	ws.Close()
}

// otherPod is a Running demo pod other than name.
func otherPod(t *testing.T, cs *kubernetes.Clientset, name string) corev1.Pod {
	t.Helper()
	pods, err := cs.CoreV1().Pods("demo").List(t.Context(), metav1.ListOptions{})
	must(t, err)
	for _, p := range pods.Items {
		if p.Name != name && p.Status.Phase == corev1.PodRunning {
			return p
		}
	}
	t.Fatal("no second Running pod in demo")
	return corev1.Pod{}
}

// A debug container added from the pod page opens a terminal to it.
func TestDebugContainerOpensATerminal(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name)
	must(t, page.GetByTestId("debug-link").Click())
	must(t, expect.Locator(page.GetByTestId("debug-form")).ToBeVisible())
	name, err := page.GetByTestId("debug-name").InputValue()
	must(t, err)
	if !strings.HasPrefix(name, "debugger-") {
		t.Errorf("suggested name %q, want debugger-…", name)
	}
	screenshot(t, page, "debug-form-light.png")
	must(t, page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}))
	screenshot(t, page, "debug-form-dark.png")
	must(t, page.GetByTestId("debug-submit").Click())

	term := page.GetByTestId("terminal")
	must(t, expect.Locator(page.GetByTestId("terminal-container")).ToHaveText(name))
	must(t, expect.Locator(term).ToHaveAttribute("data-state", "open"))
	typeLine(t, page, term, "echo debug-$((2*21))")
	must(t, expect.Locator(screen(term)).ToContainText("debug-42"))

	got, err := cs.CoreV1().Pods("demo").Get(t.Context(), pod.Name, metav1.GetOptions{})
	must(t, err)
	found := false
	for _, ec := range got.Spec.EphemeralContainers {
		found = found || ec.Name == name && ec.TargetContainerName != "" && ec.TTY && ec.Stdin
	}
	if !found {
		t.Errorf("the pod's ephemeral containers %+v lack %s (targeted, stdin, tty)", got.Spec.EphemeralContainers, name)
	}
}

// Copy and paste work from the keyboard and from the context menu, which
// the keyboard opens too (Shift+F10) and drives with the arrows.
func TestTerminalCopyAndPasteByKeyboardAndMenu(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:    &playwright.Size{Width: 1360, Height: 900},
		Permissions: []string{"clipboard-read", "clipboard-write"},
	})
	term := openTerminal(t, page, pod.Name)
	typeLine(t, page, term, "echo copy-me-$((3*14))")
	must(t, expect.Locator(screen(term)).ToContainText("copy-me-42"))

	// The keyboard opens the menu; Select all, then Copy, by the keyboard.
	menu := page.GetByTestId("terminal-menu")
	must(t, page.Keyboard().Press("Shift+F10"))
	must(t, expect.Locator(menu).ToBeVisible())
	// Not a full-page screenshot: its resize of the viewport closes the menu.
	shot := filepath.Join(env.artifacts, "terminal-menu-light.png")
	_, err := page.Screenshot(playwright.PageScreenshotOptions{Path: &shot})
	must(t, err)
	// Nothing is selected, so Copy is disabled and Paste has the focus;
	// the arrow moves it to Select all.
	must(t, expect.Locator(menu.Locator(`[data-action="paste"]`)).ToBeFocused())
	must(t, page.Keyboard().Press("ArrowDown"))
	must(t, expect.Locator(menu.Locator(`[data-action="select-all"]`)).ToBeFocused())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(menu).ToBeHidden())
	must(t, page.Keyboard().Press("Control+Shift+C"))
	clip := func() string {
		v, err := page.Evaluate(`() => navigator.clipboard.readText()`)
		must(t, err)
		return v.(string)
	}
	apitest.WaitFor(t, 10*time.Second, func() error {
		if got := clip(); !strings.Contains(got, "copy-me-42") {
			return fmt.Errorf("the clipboard has %q, want the terminal's text", got)
		}
		return nil
	})

	// Paste from the menu runs what the clipboard holds.
	_, err = page.Evaluate(`() => navigator.clipboard.writeText("echo pasted-$((40+2))")`)
	must(t, err)
	must(t, term.Click(playwright.LocatorClickOptions{Button: playwright.MouseButtonRight}))
	must(t, expect.Locator(menu).ToBeVisible())
	must(t, menu.Locator(`[data-action="paste"]`).Click())
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(screen(term)).ToContainText("pasted-42"))

	// And Ctrl+Shift+V pastes from the keyboard.
	_, err = page.Evaluate(`() => navigator.clipboard.writeText("echo keyed-$((40+3))")`)
	must(t, err)
	must(t, term.Click())
	must(t, page.Keyboard().Press("Control+Shift+V"))
	must(t, page.Keyboard().Press("Enter"))
	must(t, expect.Locator(screen(term)).ToContainText("keyed-43"))
}
