//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// xssPayloads are what a hostile object may carry in any string the
// console shows: each would set window.__xss if it reached the page as
// markup, as a URL, or broke out of a textarea or a script.
var xssPayloads = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=window.__xss=1>`,
	`javascript:window.__xss=1`,
	`</textarea><svg onload=window.__xss=1>`,
	`'><svg/onload=window.__xss=1>`,
	`</script><script>window.__xss=1</script>`,
}

const xssNS = "xss-e2e"

// xssGuard watches a page for what a payload that ran would leave: a
// dialog, a page error, a CSP violation (markup that got into the page,
// even though the policy stopped it), window.__xss.
type xssGuard struct {
	t    *testing.T
	page playwright.Page
	mu   sync.Mutex
	seen []string
}

func guard(t *testing.T, page playwright.Page) *xssGuard {
	g := &xssGuard{t: t, page: page}
	page.OnDialog(func(d playwright.Dialog) {
		g.add("a dialog: " + d.Message())
		_ = d.Dismiss()
	})
	page.OnPageError(func(err error) { g.add("a page error: " + err.Error()) })
	page.OnConsole(func(m playwright.ConsoleMessage) {
		// Playwright's Fill of CodeMirror's contenteditable (a multi-line
		// insertText) makes the browser apply an inline style, which the CSP
		// blocks, with no payload in the text; typing does not. Payloads
		// carry scripts and handlers, never styles.
		if strings.Contains(m.Text(), "Content Security Policy") && !strings.Contains(m.Text(), "Applying inline style") {
			g.add("a CSP violation: " + m.Text())
		}
	})
	return g
}

func (g *xssGuard) add(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = append(g.seen, s)
}

// check fails if anything ran or was injected on the page so far.
func (g *xssGuard) check(where string) {
	g.t.Helper()
	got, err := g.page.Evaluate(`() => JSON.stringify({
		xss: typeof window.__xss,
		injected: document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload], a[href^="javascript:" i], iframe, object, embed').length,
		scripts: [...document.scripts].filter(s => s.type !== "importmap" && !(s.src && new URL(s.src).pathname.startsWith("/static/"))).length,
	})`)
	must(g.t, err)
	if got != `{"xss":"undefined","injected":0,"scripts":0}` {
		g.t.Errorf("%s: a payload reached the page: %v", where, got)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.seen {
		g.t.Errorf("%s: %s", where, s)
	}
	g.seen = nil
}

// appendDemoLog writes lines to the log every kwok pod serves, in its CRI
// format. Each carries "msg=", as every demo line does (other tests count
// on it).
func appendDemoLog(t *testing.T, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(env.cluster.DataDir, "demo.log"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	defer f.Close()
	for _, l := range lines {
		ts := time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z")
		_, err := f.WriteString(ts + " stdout F level=info msg=xss-probe " + l + "\n")
		must(t, err)
	}
}

func xssEvent(t *testing.T, cs *kubernetes.Clientset, name string, about corev1.ObjectReference, reason, message string) {
	t.Helper()
	now := metav1.Now()
	_, err := cs.CoreV1().Events(xssNS).Create(t.Context(), &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: xssNS},
		InvolvedObject: about,
		Type:           corev1.EventTypeWarning, Reason: reason, Message: message,
		Source:         corev1.EventSource{Component: xssPayloads[2]},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
	must(t, err)
}

// seedXSS creates, in a fresh namespace, a ConfigMap and a Lighthouse whose
// annotations, data, printer-column fields and status conditions carry the
// payloads, and events about them with payload messages.
func seedXSS(t *testing.T) (*kubernetes.Clientset, dynamic.ResourceInterface, types.UID) {
	t.Helper()
	cs, cfg := clientset(t, "admin")
	freshNamespace(t, cs, xssNS)
	ctx := t.Context()
	annotations, data := map[string]string{}, map[string]string{}
	for i, p := range xssPayloads {
		annotations[fmt.Sprintf("xss.tabula.dev/p%d", i)] = p
		data[fmt.Sprintf("k%d", i)] = p
	}
	cm, err := cs.CoreV1().ConfigMaps(xssNS).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "xss-data", Labels: map[string]string{"app": "xss"}, Annotations: annotations},
		Data:       data,
	}, metav1.CreateOptions{})
	must(t, err)

	dyn, err := dynamic.NewForConfig(cfg)
	must(t, err)
	lighthouses := dyn.Resource(lighthouseGVR).Namespace(xssNS)
	lh, err := lighthouses.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": lighthouseGVR.GroupVersion().String(), "kind": "Lighthouse",
		"metadata": map[string]any{"name": "xss-light", "annotations": stringsToAny(annotations)},
		"spec": map[string]any{
			"coast": xssPayloads[1], "keeper": xssPayloads[0], "lit": true, "replicas": int64(1), "rangeNauticalMiles": int64(3),
		},
	}}, metav1.CreateOptions{})
	must(t, err)
	setLighthouseCondition(t, lighthouses, xssPayloads[4], xssPayloads[5])

	xssEvent(t, cs, "xss-light.1", corev1.ObjectReference{APIVersion: lighthouseGVR.GroupVersion().String(), Kind: "Lighthouse", Namespace: xssNS, Name: "xss-light", UID: lh.GetUID()},
		"Probe", xssPayloads[0]+" "+xssPayloads[1])
	xssEvent(t, cs, "xss-data.1", corev1.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: xssNS, Name: "xss-data", UID: cm.UID},
		"Probe", xssPayloads[3])
	return cs, lighthouses, lh.GetUID()
}

func stringsToAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// setLighthouseCondition writes the Lighthouse's Ready condition through
// its status subresource.
func setLighthouseCondition(t *testing.T, lighthouses dynamic.ResourceInterface, reason, message string) {
	t.Helper()
	lh, err := lighthouses.Get(t.Context(), "xss-light", metav1.GetOptions{})
	must(t, err)
	lh.Object["status"] = map[string]any{
		"replicas": int64(1), "selector": "maritime.tabula.dev/lighthouse=xss-light",
		"conditions": []any{map[string]any{
			"type": "Ready", "status": "False", "reason": reason, "message": message,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	_, err = lighthouses.UpdateStatus(t.Context(), lh, metav1.UpdateOptions{})
	must(t, err)
}

// visit opens path (any status) and waits for it to load.
func visit(t *testing.T, page playwright.Page, path string, want int) {
	t.Helper()
	resp, err := page.Goto(env.console.URL + path)
	must(t, err)
	if resp.Status() != want {
		t.Fatalf("GET %s: status %d, want %d", path, resp.Status(), want)
	}
}

func containsAll(t *testing.T, l playwright.Locator, texts ...string) {
	t.Helper()
	for _, s := range texts {
		must(t, expect.Locator(l).ToContainText(s))
	}
}

// The XSS matrix: objects whose annotations, data, printer-column fields,
// status conditions, events and log lines carry script payloads, and a
// write whose 422 echoes one, are shown on every page that shows them,
// live updates included, as text; no payload runs, and none reaches the
// page as markup.
func TestXSSMatrixRunsNoScript(t *testing.T) {
	cs, lighthouses, lhUID := seedXSS(t)
	page := newPage(t)
	g := guard(t, page)
	base := "/c/admin/api/v1/namespaces/" + xssNS
	lhBase := "/c/admin/apis/maritime.tabula.dev/v1alpha1/namespaces/" + xssNS + "/lighthouses"

	// Lists, objects, their YAML, events.
	visit(t, page, base+"/configmaps", http.StatusOK)
	must(t, expect.Locator(page.GetByText("xss-data")).ToBeVisible())
	g.check("configmap list")
	visit(t, page, base+"/configmaps/xss-data", http.StatusOK)
	containsAll(t, page.GetByTestId("metadata"), xssPayloads...)
	containsAll(t, page.GetByTestId("events"), xssPayloads[3])
	g.check("configmap overview")
	visit(t, page, base+"/configmaps/xss-data?view=yaml", http.StatusOK)
	containsAll(t, page.GetByTestId("yaml"), xssPayloads...)
	g.check("configmap YAML")
	visit(t, page, base+"/events", http.StatusOK)
	containsAll(t, page.Locator("main"), xssPayloads[0], xssPayloads[3])
	g.check("events list")

	// The editor: a textarea, then CodeMirror, with </textarea> in it.
	visit(t, page, base+"/configmaps/xss-data/edit", http.StatusOK)
	editorReady(t, page)
	text := editorText(t, page)
	for _, p := range xssPayloads {
		if !strings.Contains(text, p) {
			t.Errorf("the editor lacks %q:\n%s", p, text)
		}
	}
	containsAll(t, page.Locator(".cm-content"), xssPayloads[3])
	g.check("editor")
	// A review of a changed payload: the diff and the kept text.
	setEditorText(t, page, replaceOnce(t, text, "\ndata:\n", "\ndata:\n  k9: '"+strings.ReplaceAll(xssPayloads[4], "'", "''")+"'\n"))
	wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
	containsAll(t, page.GetByTestId("dry-run-diff"), xssPayloads[4])
	g.check("review")

	// A 422 that echoes the payload the name carried.
	visit(t, page, base+"/configmaps/new", http.StatusOK)
	editorReady(t, page)
	setEditorText(t, page, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '"+strings.ReplaceAll(xssPayloads[1], "'", "''")+"'\n  namespace: "+xssNS+"\n")
	wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusUnprocessableEntity)
	containsAll(t, page.GetByTestId("edit-error"), xssPayloads[1])
	g.check("422")

	// A custom resource: a payload in a printer column, the conditions and
	// events sections.
	visit(t, page, lhBase, http.StatusOK)
	containsAll(t, page.Locator("[data-testid=live-list]"), xssPayloads[1])
	g.check("lighthouse list")
	// Live: the row re-rendered with another payload.
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"coast": xssPayloads[3]}})
	must(t, err)
	_, err = lighthouses.Patch(t.Context(), "xss-light", types.MergePatchType, patch, metav1.PatchOptions{})
	must(t, err)
	containsAll(t, page.Locator("[data-testid=live-list]"), xssPayloads[3])
	g.check("lighthouse list, live")

	visit(t, page, lhBase+"/xss-light", http.StatusOK)
	containsAll(t, page.GetByTestId("conditions"), xssPayloads[4], xssPayloads[5])
	containsAll(t, page.GetByTestId("events"), xssPayloads[0], xssPayloads[1])
	containsAll(t, page.GetByTestId("metadata"), xssPayloads...)
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Live"))
	g.check("lighthouse overview")
	// Live: a new condition message and a new event, pushed to the open page.
	const live1, live2 = `"><svg onload=window.__xss=2>`, `</script><img src=x onerror=window.__xss=2>`
	setLighthouseCondition(t, lighthouses, "Live", live1)
	xssEvent(t, cs, "xss-light.2", corev1.ObjectReference{APIVersion: lighthouseGVR.GroupVersion().String(), Kind: "Lighthouse", Namespace: xssNS, Name: "xss-light", UID: lhUID}, "Live", live2)
	containsAll(t, page.GetByTestId("conditions"), live1)
	containsAll(t, page.GetByTestId("events"), live2)
	g.check("lighthouse overview, live")
	visit(t, page, lhBase+"/xss-light?view=yaml", http.StatusOK)
	containsAll(t, page.GetByTestId("yaml"), xssPayloads[3], xssPayloads[4], xssPayloads[5], live1)
	g.check("lighthouse YAML")

	// Logs: payload lines arriving while the page follows, then searched.
	pod := runningPod(t, cs)
	visit(t, page, "/c/admin/api/v1/namespaces/demo/pods/"+pod.Name+"/log", http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("live-status")).ToHaveText("Following"))
	appendDemoLog(t, xssPayloads...)
	output := page.GetByTestId("log-output")
	containsAll(t, output, xssPayloads...)
	g.check("log follow")
	must(t, page.GetByTestId("log-search").Fill("xss"))
	must(t, expect.Locator(output.Locator("mark").First()).ToHaveText("xss"))
	containsAll(t, output, xssPayloads...)
	g.check("log search")

	// Error pages that echo what the URL carried.
	// Not a kind: the jump box searches it, and the search refuses it
	// (a label term it cannot parse), keeping the text in the box.
	visit(t, page, "/c/admin/jump?q="+url.QueryEscape(xssPayloads[1]), http.StatusBadRequest)
	must(t, expect.Locator(page.GetByTestId("search-input")).ToHaveValue(xssPayloads[1]))
	g.check("jump → search")
	visit(t, page, "/c/"+url.PathEscape(xssPayloads[1])+"/", http.StatusNotFound)
	containsAll(t, page.GetByTestId("error-message"), xssPayloads[1])
	g.check("unknown context")
	visit(t, page, base+"/configmaps?labelSelector="+url.QueryEscape(xssPayloads[4]), http.StatusBadRequest)
	g.check("bad selector")
	screenshot(t, page, "xss-bad-selector.png")
}
