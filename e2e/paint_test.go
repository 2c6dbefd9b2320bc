//go:build e2e

package e2e

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/e2e/harness"
	"github.com/tabula-console/tabula/views"
)

// holdingProxy stands between a console and the dev control plane, as
// admin: it passes every request through, except the Table list of path,
// whose answer it sends up to its held-th row and holds there until
// release is called, as a slow server would; with held holdWhole, any
// list of path waits for release before it is passed on.
type holdingProxy struct {
	*httptest.Server
	release func()
}

// holdWhole holds a whole answer (startHoldingProxy).
const holdWhole = -1

func startHoldingProxy(t *testing.T, cfg *rest.Config, path string, held int) *holdingProxy {
	t.Helper()
	transport, err := rest.TransportFor(cfg)
	must(t, err)
	upstream, err := url.Parse(cfg.Host)
	must(t, err)
	released := make(chan struct{})
	var once sync.Once
	pass := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Header.Del("Authorization") // the proxy's own credentials go instead
		},
		Transport:     transport,
		FlushInterval: -1, // watches pass at once
	}
	hold := func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host, out.Host = upstream.Scheme, upstream.Host, upstream.Host
		out.Header.Del("Authorization")
		out.Header.Del("Accept-Encoding") // rows to count, not gzip
		resp, err := transport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		// Up to the held-th row: the head, then whole rows.
		at := bytes.Index(body, []byte(`"rows":[`))
		for i := 0; at >= 0 && i <= held; i++ {
			next := bytes.Index(body[at+1:], []byte(`{"cells":`))
			if next < 0 {
				at = -1
				break
			}
			at += 1 + next
		}
		if at < 0 {
			t.Errorf("the held list has fewer than %d rows", held)
			at = len(body)
		}
		resp.Header.Del("Content-Length")
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(body[:at])
		w.(http.Flusher).Flush()
		select {
		case <-released:
			_, _ = w.Write(body[at:])
		case <-r.Context().Done():
		}
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method != http.MethodGet || r.URL.Path != path || r.URL.Query().Get("watch") != "":
		case held == holdWhole:
			select {
			case <-released:
			case <-r.Context().Done():
				return
			}
		case strings.Contains(r.Header.Get("Accept"), "as=Table"):
			hold(w, r)
			return
		}
		pass.ServeHTTP(w, r)
	}))
	p := &holdingProxy{Server: srv, release: func() { once.Do(func() { close(released) }) }}
	t.Cleanup(srv.Close)
	t.Cleanup(p.release) // before Close, which waits for a held answer
	return p
}

// consoleVia starts a console of its own whose context admin reaches the
// dev control plane through p.
func consoleVia(t *testing.T, p *holdingProxy) *harness.Console {
	t.Helper()
	dir := t.TempDir()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxied"] = &clientcmdapi.Cluster{
		Server:                   p.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Certificate().Raw}),
	}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "the proxy acts as admin"}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "proxied", AuthInfo: "admin"}
	cfg.CurrentContext = "admin"
	kubeconfig := filepath.Join(dir, "kubeconfig")
	must(t, clientcmd.WriteToFile(*cfg, kubeconfig))
	console, err := harness.StartConsole(t.Context(), dir, kubeconfig)
	must(t, err)
	t.Cleanup(func() { _ = console.Stop(10 * time.Second) })
	return console
}

// manyConfigMaps creates n ConfigMaps in ns, named cm-00000 on, 16 at a time.
func manyConfigMaps(t *testing.T, cfg *rest.Config, ns string, n int) {
	t.Helper()
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 2000, 2000
	cs, err := kubernetes.NewForConfig(fast)
	must(t, err)
	names := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				_, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Data:       map[string]string{"k": "v"},
				}, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range n {
		select {
		case names <- fmt.Sprintf("cm-%05d", i):
		case err := <-errs:
			close(names)
			wg.Wait()
			t.Fatal(err)
		}
	}
	close(names)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// cellBoxes is where the list's header cells and its first row's cells
// are, [left, width] in CSS pixels, and the first row's top.
const cellBoxes = `() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.width]; };
  const table = document.querySelector('[data-testid=list-table]');
  const first = table.querySelector('tbody tr');
  return {
    head: [...table.querySelectorAll('thead th')].map(box),
    first: [...first.children].map(box),
    top: first.getBoundingClientRect().top,
    viewport: innerHeight,
    loading: document.readyState === 'loading',
    above: [...document.querySelectorAll('main > *, .live-list > *')].map(e => e.className + ' ' + Math.round(e.getBoundingClientRect().height)).join(', '),
  };
}`

type layout struct {
	Head     [][2]float64 `json:"head"`
	First    [][2]float64 `json:"first"`
	Top      float64      `json:"top"`
	Viewport float64      `json:"viewport"`
	Loading  bool         `json:"loading"`
	// Above is what is above the rows, with heights, to say what moved.
	Above string `json:"above"`
}

func readLayout(t *testing.T, page playwright.Page) layout {
	t.Helper()
	v, err := page.Evaluate(cellBoxes)
	must(t, err)
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("layout: %v", v)
	}
	var l layout
	for _, h := range m["head"].([]any) {
		b := h.([]any)
		l.Head = append(l.Head, [2]float64{num(b[0]), num(b[1])})
	}
	for _, c := range m["first"].([]any) {
		b := c.([]any)
		l.First = append(l.First, [2]float64{num(b[0]), num(b[1])})
	}
	l.Top, l.Viewport, l.Loading = num(m["top"]), num(m["viewport"]), m["loading"] == true
	l.Above, _ = m["above"].(string)
	return l
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return math.NaN()
}

// sameBoxes says whether two lists of boxes are the same to half a pixel.
func sameBoxes(a, b [][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i][0]-b[i][0]) > 0.5 || math.Abs(a[i][1]-b[i][1]) > 0.5 {
			return false
		}
	}
	return true
}

// A 5,000-row list from a server that holds the rest of its answer after
// 200 rows: the first screen of rows is in the page, on the screen and
// laid out under its header while the page is still loading, and nothing
// moves when the other 4,800 rows arrive (issue 28).
func TestLongListShowsItsFirstScreenBeforeTheRestArrives(t *testing.T) {
	const rows, held = 5000, 200
	cs, cfg := clientset(t, "admin")
	ns := fmt.Sprintf("paint-%d", time.Now().UnixNano()%1_000_000)
	freshNamespace(t, cs, ns)
	manyConfigMaps(t, cfg, ns, rows)
	proxy := startHoldingProxy(t, cfg, "/api/v1/namespaces/"+ns+"/configmaps", held)
	console := consoleVia(t, proxy)

	page := newPage(t)
	goToLoading(t, page, console.URL+"/c/admin/api/v1/namespaces/"+ns+"/configmaps?limit=5000")
	body := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(body.Nth(views.FirstScreenRows-1)).ToBeAttached())
	must(t, expect.Locator(body.First()).ToBeInViewport())
	before := readLayout(t, page)
	if !before.Loading {
		t.Fatal("the page finished loading while the server held the rest of the list")
	}
	if n, err := body.Count(); err != nil || n > held {
		t.Fatalf("%d rows in the page while the server held all but %d (%v)", n, held, err)
	}
	if len(before.Head) == 0 || !sameBoxes(before.Head, before.First) {
		t.Errorf("the first row's cells %v are not under the header's %v", before.First, before.Head)
	}
	if before.Top <= 0 || before.Top >= before.Viewport {
		t.Errorf("the first row is at %.0f px, outside the %.0f px screen", before.Top, before.Viewport)
	}
	screenshot(t, page, "long-list-first-screen.png")

	proxy.release()
	must(t, expect.Locator(body).ToHaveCount(rows, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(60_000)}))
	must(t, expect.Locator(page.GetByTestId("pager")).ToBeAttached())
	after := readLayout(t, page)
	if !sameBoxes(before.Head, after.Head) || !sameBoxes(before.First, after.First) {
		t.Errorf("the columns moved when the rest arrived:\nheader %v → %v\nfirst row %v → %v", before.Head, after.Head, before.First, after.First)
	}
	if before.Top != after.Top {
		t.Errorf("the first row moved from %.1f to %.1f px; above it, before: %s; after: %s", before.Top, after.Top, before.Above, after.Above)
	}
}

// An object's events are listed from every event in its namespace, the
// slowest of its page's reads: with the events held by a slow server, the
// page's header, summary and conditions are on the screen while it is
// still loading, and the events follow into the same page (issue 28).
func TestObjectPageShowsItsTopBeforeItsEvents(t *testing.T) {
	cs, cfg := clientset(t, "admin")
	ns := fmt.Sprintf("paint-obj-%d", time.Now().UnixNano()%1_000_000)
	freshNamespace(t, cs, ns)
	configMap(t, cs, ns, "settings")
	proxy := startHoldingProxy(t, cfg, "/apis/events.k8s.io/v1/namespaces/"+ns+"/events", holdWhole)
	console := consoleVia(t, proxy)

	page := newPage(t)
	goToLoading(t, page, console.URL+"/c/admin/api/v1/namespaces/"+ns+"/configmaps/settings")
	must(t, expect.Locator(page.GetByTestId("object-name")).ToHaveText("settings"))
	must(t, expect.Locator(page.GetByTestId("object-header")).ToBeInViewport())
	must(t, expect.Locator(page.GetByTestId("metadata")).ToBeVisible())
	loading, err := page.Evaluate(`document.readyState === 'loading'`)
	must(t, err)
	if loading != true {
		t.Fatal("the page finished loading while the server held the events")
	}
	if n, err := page.GetByTestId("events").Count(); err != nil || n != 0 {
		t.Fatalf("%d events sections while the server held the events (%v)", n, err)
	}
	must(t, expect.Locator(page.GetByTestId("pending-note")).ToHaveText("Reading related objects and events…"))
	must(t, expect.Locator(page.GetByTestId("pending-note")).ToBeVisible())
	screenshotThemes(t, page, "object-top-first")

	proxy.release()
	must(t, expect.Locator(page.GetByTestId("events")).ToContainText("Events"))
	must(t, expect.Locator(page.GetByTestId("spec")).ToBeAttached())
	must(t, expect.Locator(page.GetByTestId("pending-note")).ToBeHidden())
	if v := axeViolations(t, page, "object-top-first"); len(v) > 0 {
		t.Errorf("axe: %v", v)
	}
}

// The home page's health is counted last (every kind's problems, seconds
// on a big cluster): with the nodes held by a slow server, the resources
// are on the screen, and the health's place says it is being counted,
// while the page is still loading; then the health takes its place above
// them (issue 28).
func TestHomeShowsItsResourcesBeforeItsHealth(t *testing.T) {
	_, cfg := clientset(t, "admin")
	proxy := startHoldingProxy(t, cfg, "/api/v1/nodes", holdWhole)
	console := consoleVia(t, proxy)

	page := newPage(t)
	goToLoading(t, page, console.URL+"/c/admin/")
	must(t, expect.Locator(page.GetByTestId("api-group").First()).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("health-pending")).ToHaveText("Counting problems…"))
	must(t, expect.Locator(page.GetByTestId("health-pending")).ToBeVisible())
	loading, err := page.Evaluate(`document.readyState === 'loading'`)
	must(t, err)
	if loading != true {
		t.Fatal("the page finished loading while the server held the nodes")
	}
	if n, err := page.GetByTestId("home-health").Count(); err != nil || n != 0 {
		t.Fatalf("%d health sections while the server held the nodes (%v)", n, err)
	}
	screenshotThemes(t, page, "home-health-pending")

	proxy.release()
	must(t, expect.Locator(page.GetByTestId("home-health").GetByTestId("nodes-ready")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("health-pending")).ToBeHidden())
	if v := axeViolations(t, page, "home-health-arrived"); len(v) > 0 {
		t.Errorf("axe: %v", v)
	}
}

// goToLoading opens url in page, which must answer 200, and returns once
// the browser has its first bytes, not waiting for it to load: for pages
// checked while the server still holds part of them.
func goToLoading(t *testing.T, page playwright.Page, url string) {
	t.Helper()
	resp, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateCommit})
	must(t, err)
	if resp.Status() != http.StatusOK {
		t.Fatalf("%s: status %d", url, resp.Status())
	}
}
