//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/playwright-community/playwright-go"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// liveConn is a console WebSocket in base64.channel.k8s.io, as the page's
// live.js opens it.
type liveConn struct {
	t  *testing.T
	ws *websocket.Conn
}

func dialLive(t *testing.T, path string) *liveConn {
	t.Helper()
	u, err := url.Parse(env.console.URL + path)
	must(t, err)
	origin := u.Scheme + "://" + u.Host
	u.Scheme = "ws"
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 10 * time.Second}
	ws, resp, err := d.Dial(u.String(), http.Header{"Origin": {origin}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", path, err, status)
	}
	if ws.Subprotocol() != "base64.channel.k8s.io" {
		t.Fatalf("negotiated %q", ws.Subprotocol())
	}
	t.Cleanup(func() { _ = ws.Close() })
	return &liveConn{t: t, ws: ws}
}

// next reads the next frame on any channel, failing the test at deadline.
func (c *liveConn) next(deadline time.Time) (int, []byte) {
	c.t.Helper()
	must(c.t, c.ws.SetReadDeadline(deadline))
	typ, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("reading the live stream: %v", err)
	}
	if typ != websocket.TextMessage || len(data) == 0 {
		c.t.Fatalf("frame type %d, %d bytes: want a base64 text frame", typ, len(data))
	}
	payload, err := base64.StdEncoding.DecodeString(string(data[1:]))
	must(c.t, err)
	return int(data[0] - '0'), payload
}

type listMsg struct {
	Type, UID, Key, RV, HTML, Notice string
}

// untilList reads list messages until match accepts one.
func (c *liveConn) untilList(timeout time.Duration, match func(listMsg) bool) listMsg {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ch, payload := c.next(deadline)
		if ch == 3 {
			c.t.Fatalf("channel 3: %s", payload)
		}
		if ch != 1 {
			continue
		}
		var m listMsg
		must(c.t, json.Unmarshal(payload, &m))
		if match(m) {
			return m
		}
	}
}

func freshNamespace(t *testing.T, cs *kubernetes.Clientset, name string) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func configMap(t *testing.T, cs *kubernetes.Clientset, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Data:       map[string]string{"k": "v"},
	}, metav1.CreateOptions{})
	must(t, err)
	return cm
}

// A live list that loses its connection resumes from the last version it
// saw: what changed while it was away arrives, nothing twice.
func TestLiveListResumesAfterTheConnectionIsCut(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ns := "live-resume"
	freshNamespace(t, cs, ns)
	list, err := cs.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	must(t, err)
	path := "/c/admin/api/v1/namespaces/" + ns + "/configmaps?resourceVersion="

	first := dialLive(t, path+list.ResourceVersion)
	configMap(t, cs, ns, "before-cut")
	seen := first.untilList(30*time.Second, func(m listMsg) bool { return m.Type == "ADDED" && m.Key == ns+"/before-cut" })
	if !strings.Contains(seen.HTML, `data-key="`+ns+`/before-cut"`) || !strings.Contains(seen.HTML, "before-cut</a>") {
		t.Fatalf("row html: %s", seen.HTML)
	}
	must(t, first.ws.Close())

	configMap(t, cs, ns, "while-away")
	again := dialLive(t, path+seen.RV)
	// Only the test's own objects count: the controller manager adds
	// kube-root-ca.crt to a new namespace whenever it gets to it.
	ours := func(m listMsg) bool {
		return m.Type == "ADDED" && (m.Key == ns+"/before-cut" || m.Key == ns+"/while-away")
	}
	got := again.untilList(30*time.Second, ours)
	if got.Key != ns+"/while-away" {
		t.Fatalf("after resuming from %s the first ADDED is %q, want %s/while-away", seen.RV, got.Key, ns)
	}
}

// A watch too old for the API server (410 Gone) relists the page instead of
// failing, and says so. PodTemplates skip the dev control plane's watch
// cache, so compacting etcd expires every older resourceVersion for them.
func TestLiveListRelistsWhenTheWatchExpired(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ns := "live-expired"
	freshNamespace(t, cs, ns)
	template := func(name string) {
		_, err := cs.CoreV1().PodTemplates(ns).Create(t.Context(), &corev1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}}},
		}, metav1.CreateOptions{})
		must(t, err)
	}
	list, err := cs.CoreV1().PodTemplates(ns).List(t.Context(), metav1.ListOptions{})
	must(t, err)
	// Two writes: the API server watches etcd from the list's version + 1,
	// which must be older than the compaction for the watch to expire.
	template("survivor")
	template("survivor-2")
	if _, err := env.cluster.CompactEtcd(t.Context()); err != nil {
		t.Fatalf("compacting etcd: %v", err)
	}
	conn := dialLive(t, "/c/admin/api/v1/namespaces/"+ns+"/podtemplates?resourceVersion="+list.ResourceVersion)
	m := conn.untilList(30*time.Second, func(m listMsg) bool { return m.Type == "RELIST" })
	if !strings.Contains(m.Notice, "410") || !strings.Contains(m.HTML, "survivor") || m.RV == "" {
		t.Fatalf("RELIST = %+v", m)
	}
	template("after-relist")
	conn.untilList(30*time.Second, func(m listMsg) bool { return m.Type == "ADDED" && m.Key == ns+"/after-relist" })
}

// Following a kwok pod's log through the console sees lines written after
// the stream started (the dev control plane appends one per second).
func TestLiveLogFollowSeesNewLines(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	conn := dialLive(t, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log?follow=1&tailLines=1")
	deadline := time.Now().Add(30 * time.Second)
	var stamps []time.Time
	for len(stamps) < 3 {
		ch, payload := conn.next(deadline)
		if ch != 1 {
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(payload), "\n"), "\n") {
			ts, _, ok := strings.Cut(line, " ")
			at, err := time.Parse(time.RFC3339Nano, ts)
			if !ok || err != nil {
				t.Fatalf("line without a timestamp: %q", line)
			}
			stamps = append(stamps, at)
		}
	}
	if !stamps[2].After(stamps[0]) {
		t.Fatalf("followed lines are not new: %v", stamps)
	}
}

// A WebSocket upgrade from another origin is refused before it happens.
func TestCrossOriginWebSocketIsRefused(t *testing.T) {
	u, err := url.Parse(env.console.URL + "/c/admin/api/v1/namespaces/demo/pods")
	must(t, err)
	u.Scheme = "ws"
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}}
	_, resp, err := d.Dial(u.String(), http.Header{"Origin": {"http://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin dial: err %v, response %+v; want 403", err, resp)
	}

	// And from a real page on another origin, the browser's socket never opens.
	page := newPage(t)
	must(t, page.Route("http://evil.test/**", func(r playwright.Route) {
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(200), ContentType: playwright.String("text/html"), Body: "<!doctype html><title>evil</title>"})
	}))
	_, err = page.Goto("http://evil.test/")
	must(t, err)
	result, err := page.Evaluate(`(url) => new Promise((resolve) => {
		const ws = new WebSocket(url, ["base64.channel.k8s.io"]);
		ws.onopen = () => resolve("open");
		ws.onclose = (e) => resolve("closed " + e.code);
	})`, u.String())
	must(t, err)
	if result != "closed 1006" {
		t.Fatalf("cross-origin WebSocket from a page: %v, want closed 1006", result)
	}
}

func scaleDeployment(t *testing.T, cs *kubernetes.Clientset, ns, name string, replicas int32) {
	t.Helper()
	_, err := cs.AppsV1().Deployments(ns).UpdateScale(context.Background(), name, &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       autoscalingv1.ScaleSpec{Replicas: replicas},
	}, metav1.UpdateOptions{})
	must(t, err)
}

// With the Deployment list and the pods list open, scaling to 5 adds the
// new pods' rows without a reload, and scaling back removes them.
func TestJourneyScalingShowsLiveInOpenLists(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const ns, app = "demo", "web"
	t.Cleanup(func() { scaleDeployment(t, cs, ns, app, 3) })

	deployments := newPage(t)
	goTo(t, deployments, "/c/admin/apis/apps/v1/namespaces/"+ns+"/deployments")
	must(t, expect.Locator(deployments.GetByTestId("live-status")).ToHaveText("Live"))

	pods := newPage(t)
	goTo(t, pods, "/c/admin/api/v1/namespaces/"+ns+"/pods?labelSelector=app%3D"+app)
	must(t, expect.Locator(pods.GetByTestId("live-status")).ToHaveText("Live"))
	rows := pods.Locator("[data-testid=list-table] tbody tr:not(.row-deleted)")
	must(t, expect.Locator(rows).ToHaveCount(3))
	// A reload would drop this marker.
	_, err := pods.Evaluate(`() => { window.tabulaNoReload = true }`)
	must(t, err)

	scaleDeployment(t, cs, ns, app, 5)
	must(t, expect.Locator(rows).ToHaveCount(5, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(60000)}))
	webRow := deployments.Locator(`[data-testid=list-table] tr[data-key="demo/web"]`)
	must(t, expect.Locator(webRow).ToContainText("5/5", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(60000)}))
	screenshot(t, pods, "live-pods-scaled.png")
	checkA11y(t, pods, "live-pods-scaled")

	scaleDeployment(t, cs, ns, app, 3)
	all := pods.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(all).ToHaveCount(3, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(60000)}))
	must(t, expect.Locator(webRow).ToContainText("3/3", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(60000)}))
	marker, err := pods.Evaluate(`() => window.tabulaNoReload === true`)
	must(t, err)
	if marker != true {
		t.Fatal("the pods page reloaded; live rows should arrive without one")
	}
	must(t, expect.Page(pods).ToHaveURL(regexp.MustCompile(`/namespaces/demo/pods\?labelSelector=app%3Dweb$`)))
}

// The log page follows new lines as they arrive, and search highlights
// them, including lines that arrive after the search was typed.
func TestJourneyLogFollowAndSearch(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name)
	must(t, page.GetByTestId("logs-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/pods/`+pod.Name+`/log$`)))
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Following"))
	lines := page.Locator("[data-testid=log-output] .log-line")
	must(t, expect.Locator(lines.First()).ToBeVisible())
	before, err := lines.Count()
	must(t, err)
	must(t, expect.Locator(lines).Not().ToHaveCount(before, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(30000)}))

	// Every demo line has "msg=", so lines that arrive now are highlighted too.
	must(t, page.GetByTestId("log-search").Fill("msg="))
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`[?&]q=msg%3D`)))
	marks := page.Locator("[data-testid=log-output] mark")
	must(t, expect.Locator(marks.First()).ToHaveText("msg="))
	n, err := marks.Count()
	must(t, err)
	must(t, expect.Locator(marks).Not().ToHaveCount(n, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(30000)}))

	// Request lines are about half of the demo log; the rest are hidden.
	must(t, page.GetByTestId("log-search").Fill("GET /"))
	must(t, page.GetByTestId("log-filter").Check())
	hidden := page.Locator("[data-testid=log-output] .log-line.log-hidden")
	visible := page.Locator("[data-testid=log-output] .log-line:not(.log-hidden)")
	must(t, expect.Locator(visible.First()).ToContainText("GET /"))
	must(t, expect.Locator(hidden).Not().ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId("log-count")).ToContainText(regexp.MustCompile(`\d+ lines · \d+ matching`)))
	screenshot(t, page, "log-follow-search.png")
	checkA11y(t, page, "log-follow-search")
}

// Rows that belong on another page of a paged list are counted, not
// appended; rows within the page's range are inserted in order.
func TestLivePagedListCountsRowsOutsideThePage(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ns := "live-paged"
	freshNamespace(t, cs, ns)
	for _, name := range []string{"a-1", "a-3", "a-5"} {
		configMap(t, cs, ns, name)
	}
	// The controller-manager publishes kube-root-ca.crt into every new
	// namespace; it must not count as a new row below.
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil, nil
	})
	must(t, err)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/"+ns+"/configmaps?limit=2")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	rows := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(rows.Locator("td.col-name")).ToHaveText([]string{"a-1", "a-3"}))

	configMap(t, cs, ns, "a-2") // sorts inside this page
	configMap(t, cs, ns, "z-9") // sorts after it
	must(t, expect.Locator(rows.Locator("td.col-name")).ToHaveText([]string{"a-1", "a-2", "a-3"}))
	newRows := page.GetByTestId("live-new")
	must(t, expect.Locator(newRows).ToHaveText("1 new – show"))
	must(t, expect.Locator(page.GetByTestId("page-info")).ToContainText("3 rows"))
	screenshot(t, page, "live-paged-list.png")
	checkA11y(t, page, "live-paged-list")
}

// An open object page follows its object: scaling the Deployment updates
// the page's scale section without a reload.
func TestLiveObjectPageFollowsAScale(t *testing.T) {
	cs, _ := clientset(t, "admin")
	t.Cleanup(func() { scaleDeployment(t, cs, "demo", "api", 2) })
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments/api")
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	must(t, expect.Locator(page.GetByTestId("scale-desired")).ToHaveText("2"))
	scaleDeployment(t, cs, "demo", "api", 4)
	must(t, expect.Locator(page.GetByTestId("scale-desired")).ToHaveText("4", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(30000)}))
	must(t, expect.Locator(page.GetByTestId("object-summary")).ToContainText("4/4", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(60000)}))
	// Its Related section follows too: the four pods its selector selects.
	selected := page.Locator(`[data-testid=related-row][data-relation=selects][data-kind=Pod]`)
	must(t, expect.Locator(selected).ToHaveCount(4, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(60000)}))
	screenshot(t, page, "live-deployment-scaled.png")
	checkA11y(t, page, "live-deployment-scaled")
}

// The log page keeps only the last N lines and says so.
func TestLogPageKeepsABoundedNumberOfLines(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1360, Height: 900}, ColorScheme: playwright.ColorSchemeDark,
	})
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log?tailLines=all&max=20&timestamps=1&follow=1")
	lines := page.Locator("[data-testid=log-output] .log-line")
	// The demo log starts with 40 lines and grows by one a second.
	must(t, expect.Locator(lines).ToHaveCount(20))
	must(t, expect.Locator(page.GetByTestId("log-count")).ToContainText("showing the last 20"))
	must(t, expect.Locator(lines.First().Locator(".log-ts")).ToBeVisible())
	screenshot(t, page, "log-bounded-dark.png")
	checkA11y(t, page, "log-bounded")
}

// A Deployment's Logs button merges its pods' logs on the server, each line
// prefixed with its pod and container.
func TestJourneyWorkloadLogsMergeItsPods(t *testing.T) {
	page := newPage(t)
	goTo(t, page, "/c/admin/apis/apps/v1/namespaces/demo/deployments/web")
	must(t, page.GetByTestId("logs-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/deployments/web/log$`)))
	must(t, expect.Locator(page.GetByTestId("log-selector")).ToHaveText("app=web"))
	sources := page.Locator("[data-testid=log-output] .log-src")
	must(t, expect.Locator(sources.First()).ToHaveText(regexp.MustCompile(`^web-[a-z0-9]+-[a-z0-9]+/nginx$`)))
	distinct, err := page.Evaluate(`() => new Set([...document.querySelectorAll("[data-testid=log-output] .log-src")].map((e) => e.textContent)).size >= 2`)
	must(t, err)
	if distinct != true {
		t.Fatal("fewer than 2 distinct pod/container prefixes: the deployment's pods are not merged")
	}
	screenshot(t, page, "log-merged-deployment.png")
	checkA11y(t, page, "log-merged-deployment")
}

// Pause holds arriving lines back, says how many wait, and Resume shows them.
func TestLogPauseHoldsLinesUntilResumed(t *testing.T) {
	cs, _ := clientset(t, "admin")
	pod := runningPod(t, cs)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log?tailLines=5&follow=1")
	lines := page.Locator("[data-testid=log-output] .log-line")
	// The last 5 lines, and maybe a newer one: the demo log grows each second.
	must(t, expect.Locator(lines.Nth(4)).ToBeAttached())
	pause := page.GetByTestId("log-pause")
	must(t, pause.Click())
	must(t, expect.Locator(pause).ToHaveAttribute("aria-pressed", "true"))
	// A line may have arrived between the count above and the click: what
	// is shown once paused is what must stay.
	shown, err := lines.Count()
	must(t, err)
	checkA11y(t, page, "log-paused")
	// The demo log grows by a line a second; it waits instead of showing.
	must(t, expect.Locator(page.GetByTestId("log-count")).ToContainText(regexp.MustCompile(`[1-9]\d* waiting`), playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30000)}))
	must(t, expect.Locator(lines).ToHaveCount(shown))
	must(t, pause.Press("Enter"))
	must(t, expect.Locator(pause).ToHaveText("Pause"))
	must(t, expect.Locator(lines).Not().ToHaveCount(shown))
}
