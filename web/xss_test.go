package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/webtest"
)

// xssPayloads are what a hostile object may carry in any string the
// console shows: each would run script if it reached the page as markup
// or as a URL.
var xssPayloads = []string{
	`<script>window.__xss=1</script>`,
	`"><img src=x onerror=window.__xss=1>`,
	`javascript:window.__xss=1`,
	`</textarea><svg onload=window.__xss=1>`,
	`'><svg/onload=window.__xss=1>`,
	`</script><script>window.__xss=1</script>`,
}

// xssName is a payload the fake takes as an object name (no "/" or "%").
const xssName = `"><img src=x onerror=window.__xss=1>`

// xssFixture seeds objects carrying the payloads in their names, label
// values, annotations, data, status messages, event messages and logs.
func xssFixture(t *testing.T) *webtest.Console {
	t.Helper()
	// data.k1 of ConfigMaps is immutable, so changing it makes the server
	// echo the new value in a 422, as kube-apiserver echoes invalid values.
	f := webtest.Editable(t, apitest.Options{Immutable: map[string][]string{"configmaps": {"data.k1"}}})
	annotations := map[string]string{}
	data := map[string]any{}
	for i, p := range xssPayloads {
		annotations["xss.example/p"+string(rune('0'+i))] = p
		data["k"+string(rune('0'+i))] = p
	}
	data[xssPayloads[0]] = "a key that is a payload"
	pod := apitest.Pod("demo", "xss", map[string]string{"app": "xss", "note": xssPayloads[1]})
	pod.SetAnnotations(annotations)
	containers, _, _ := unstructured.NestedSlice(pod.Object, "spec", "containers")
	containers[0].(map[string]any)["image"] = xssPayloads[1]
	_ = unstructured.SetNestedSlice(pod.Object, containers, "spec", "containers")
	_ = unstructured.SetNestedField(pod.Object, xssPayloads[0], "status", "message")
	_ = unstructured.SetNestedField(pod.Object, xssPayloads[3], "status", "reason")
	_ = unstructured.SetNestedSlice(pod.Object, []any{map[string]any{"type": "Ready", "status": "False", "reason": xssPayloads[4], "message": xssPayloads[5]}}, "status", "conditions")
	cm := apitest.Object("v1", "ConfigMap", "demo", "xss-data", map[string]any{"data": data})
	cm.SetAnnotations(annotations)
	named := apitest.Object("v1", "ConfigMap", "demo", xssName, map[string]any{"data": map[string]any{"k": "v"}})
	named.SetLabels(map[string]string{"note": xssPayloads[4]})
	now := time.Now()
	f.Fake.Add(pod, cm, named,
		apitest.Event("xss.1", pod, apitest.EventSpec{Type: "Warning", Reason: xssPayloads[3], Message: xssPayloads[0] + " " + xssPayloads[1], Source: xssPayloads[2], First: now.Add(-time.Minute)}),
		apitest.Event("xss.2", named, apitest.EventSpec{Type: "Normal", Reason: "Seen", Message: xssPayloads[5], Source: "test", First: now.Add(-time.Minute)}),
	)
	for _, p := range xssPayloads {
		f.Fake.AppendLog("demo", "xss", "app", p)
	}
	return f
}

// noScriptFrom fails when markup the payloads could have made is in the
// page (or fragment): an element or attribute that runs script.
func noScriptFrom(t *testing.T, where string, doc *goquery.Document, nonce string) {
	t.Helper()
	for _, bad := range inlineCode(doc, nonce) {
		t.Errorf("%s: %s", where, bad)
	}
	if n := doc.Find("img[src=x], svg[onload], img[onerror]").Length(); n != 0 {
		t.Errorf("%s: %d elements made by a payload", where, n)
	}
}

func fragment(t *testing.T, html string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<html><body>" + html + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Every page showing a hostile object renders its strings as text: no
// element or attribute of a payload reaches the page, and the payloads are
// there to read.
func TestHostileStringsAreRenderedAsText(t *testing.T) {
	f := xssFixture(t)
	b := webtest.NewBrowser(t, f)
	podPath := "/c/dev/api/v1/namespaces/demo/pods/xss"
	cmPath := webtest.ConfigMapsPath + "/xss-data"
	namedPath := webtest.ConfigMapsPath + "/" + url.PathEscape(xssName)
	pages := map[string]struct {
		status int
		// shows: the payloads the page must show as text, in the element
		// with this data-testid ("" is the whole page).
		testid string
		shows  []string
	}{
		"/c/dev/api/v1/namespaces/demo/pods":       {http.StatusOK, "", nil},
		"/c/dev/api/v1/pods":                       {http.StatusOK, "", nil},
		webtest.ConfigMapsPath:                     {http.StatusOK, "", []string{xssName}},
		podPath:                                    {http.StatusOK, "", []string{xssPayloads[0], xssPayloads[1], xssPayloads[5]}},
		podPath + "?view=yaml":                     {http.StatusOK, "yaml", xssPayloads},
		podPath + "/status":                        {http.StatusOK, "", nil},
		podPath + "/log":                           {http.StatusOK, "", nil},
		podPath + "/edit":                          {http.StatusOK, "yaml-editor", xssPayloads},
		podPath + "/delete":                        {http.StatusOK, "", nil},
		cmPath:                                     {http.StatusOK, "", nil},
		cmPath + "?view=yaml":                      {http.StatusOK, "yaml", xssPayloads},
		cmPath + "/edit":                           {http.StatusOK, "yaml-editor", xssPayloads},
		namedPath:                                  {http.StatusOK, "", []string{xssName}},
		namedPath + "/edit":                        {http.StatusOK, "", nil},
		"/c/dev/api/v1/namespaces/demo/events":     {http.StatusOK, "", []string{xssPayloads[5]}},
		"/c/dev/logs/demo?labelSelector=app%3Dxss": {http.StatusOK, "", nil},
		"/c/dev/jump?q=" + url.QueryEscape(xssPayloads[1]):                                    {http.StatusSeeOther, "", nil},
		"/c/dev/search?q=" + url.QueryEscape(xssPayloads[0]):                                  {http.StatusBadRequest, "", nil},
		"/c/dev/search?q=img+kind:cm+ns:demo":                                                 {http.StatusOK, "search-results", []string{xssName}},
		"/c/dev/api/v1/namespaces/demo/pods?labelSelector=" + url.QueryEscape(xssPayloads[1]): {http.StatusBadRequest, "", nil},
		"/c/" + url.PathEscape(xssName) + "/":                                                 {http.StatusNotFound, "", []string{xssName}},
		webtest.ConfigMapsPath + "/" + url.PathEscape(xssPayloads[4]):                         {http.StatusNotFound, "", nil},
	}
	for path, want := range pages {
		p := b.Get(path, want.status)
		noScriptFrom(t, path, p.Doc, cspNonce(t, path, p.Resp.Header))
		text := p.Doc.Text()
		if want.testid != "" {
			text = p.Doc.Find("[data-testid=" + want.testid + "]").Text()
		}
		for _, s := range want.shows {
			if !strings.Contains(text, s) {
				t.Errorf("%s does not show %q as text", path, s)
			}
		}
	}

	// A download is plain text the browser may not sniff.
	dl := b.Get(podPath+"/log?download=1", http.StatusOK)
	if ct := dl.Resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || dl.Resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("log download: Content-Type %q, nosniff %q", ct, dl.Resp.Header.Get("X-Content-Type-Options"))
	}

	// A review of a payload, and the 422 that echoes it.
	editor := b.Get(cmPath+"/edit", http.StatusOK)
	text := webtest.EditorText(t, editor)
	reviewed := strings.Replace(text, "k2: ", "k2: "+`'`+strings.ReplaceAll(xssPayloads[3], `'`, `''`)+`' #`, 1)
	review := b.Form(editor, "[data-testid=edit-form]").Set("yaml", reviewed).Submit("review", http.StatusOK)
	noScriptFrom(t, "review", review.Doc, cspNonce(t, "review", review.Resp.Header))
	webtest.KeepsText(t, review, reviewed)
	invalid := strings.Replace(text, "k1: ", "k1: "+`'`+xssPayloads[0]+`' #`, 1)
	rejected := b.Form(editor, "[data-testid=edit-form]").Set("yaml", invalid).Submit("review", http.StatusUnprocessableEntity)
	noScriptFrom(t, "422", rejected.Doc, cspNonce(t, "422", rejected.Resp.Header))
	if msg := rejected.Doc.Find("[data-testid=edit-error-causes]").Text(); !strings.Contains(msg, xssPayloads[0]) {
		t.Errorf("the 422 does not show the echoed payload as text: %q", msg)
	}
	webtest.KeepsText(t, rejected, invalid)
	// A payload as the name of an object to create: the server's 422 is
	// shown as text, with the text kept.
	creator := b.Get(webtest.ConfigMapsPath+"/new", http.StatusOK)
	created := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '" + strings.ReplaceAll(xssPayloads[3], `'`, `''`) + "'\n  namespace: demo\n"
	made := b.Form(creator, "[data-testid=edit-form]").Set("yaml", created).Submit("review", http.StatusUnprocessableEntity)
	noScriptFrom(t, "create", made.Doc, cspNonce(t, "create", made.Resp.Header))
}

// Live updates render hostile strings as the pages do: a row added to a
// list, and an object page's sections after an annotation changes.
func TestHostileStringsInLiveUpdatesAreRenderedAsText(t *testing.T) {
	f := xssFixture(t)
	const listPath = webtest.ConfigMapsPath
	_, body := f.Get(t, listPath, http.StatusOK)
	rv, _ := webtest.Parse(t, body).Find("[data-testid=live-list]").Attr("data-rv")
	rows := f.Dial(t, listPath+"?resourceVersion="+rv)
	if !f.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	added := apitest.Object("v1", "ConfigMap", "demo", `'><svg onload=window.__xss=1>`, map[string]any{"data": map[string]any{"k": xssPayloads[0]}})
	added.SetLabels(map[string]string{"note": xssPayloads[1]})
	f.Fake.Add(added)
	m := webtest.NextData(rows, 5*time.Second, func(m list.Message) bool { return m.Type == "ADDED" })
	doc := fragment(t, "<table><tbody>"+m.HTML+"</tbody></table>")
	noScriptFrom(t, "live row", doc, "")
	if !strings.Contains(doc.Text(), `'><svg onload=window.__xss=1>`) {
		t.Errorf("the live row does not show the name as text: %s", m.HTML)
	}

	const podPath = "/c/dev/api/v1/namespaces/demo/pods/xss"
	f.Get(t, podPath, http.StatusOK)
	page := f.Dial(t, podPath)
	if !f.Fake.AwaitOpenWatches(3, 5*time.Second) {
		t.Fatalf("%d upstream watches, want the list's and the object page's 2", f.Fake.OpenWatches())
	}
	f.Fake.Modify(webtest.PodGVK, "demo", "xss", func(o *unstructured.Unstructured) {
		a := o.GetAnnotations()
		a["xss.example/live"] = `</script><img src=x onerror=window.__xss=2>`
		o.SetAnnotations(a)
		_ = unstructured.SetNestedField(o.Object, `"><svg onload=window.__xss=2>`, "status", "message")
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ch, payload := page.Frame(time.Until(deadline))
		var sm object.SectionsMessage
		if ch != 1 || json.Unmarshal(payload, &sm) != nil || sm.Type != "SECTIONS" {
			continue
		}
		all := ""
		for name, html := range sm.Sections {
			noScriptFrom(t, "live section "+name, fragment(t, html), "")
			all += html
		}
		if strings.Contains(fragment(t, all).Text(), `"><svg onload=window.__xss=2>`) {
			return
		}
	}
	t.Fatal("no SECTIONS message showing the new status message as text")
}
