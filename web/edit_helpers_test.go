package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
)

// The write pages' tests drive the console as a browser does: a cookie jar,
// forms read from the page (action, hidden fields, textareas) and posted
// back with one button pressed, redirects not followed. Every request
// asserts its status code.

var (
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMapGVK  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// Paths of the seeded objects.
const (
	webPath        = "/c/dev/apis/apps/v1/namespaces/demo/deployments/web"
	credsPath      = "/c/dev/api/v1/namespaces/demo/secrets/creds"
	apiSvcPath     = "/c/dev/api/v1/namespaces/demo/services/api"
	beaconPath     = "/c/dev/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/beacon"
	configMapsPath = "/c/dev/api/v1/namespaces/demo/configmaps"
)

// Values of the seeded Secret, which no page may show unless revealed.
const (
	secretPassword = "hunter2-plain-password"
	secretToken    = "tok-7f3a9c-never-shown"
	// lastAppliedValue is only in the Secret's last-applied annotation.
	lastAppliedValue = "applied-copy-of-the-password"
)

// syncBuffer is a log sink that tests read while the server writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// records are the JSON log records with msg.
func (b *syncBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(b.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// editFixture is a console, with its log captured, over a fake that serves
// core (with configmaps), apps, a CRD with scale and a get/list-only group,
// seeded with one object of each kind the tests edit.
type editFixture struct {
	*harness
	logs *syncBuffer
}

func coreWithConfigMaps() apitest.GroupVersion {
	core := apitest.CoreV1()
	core.Resources = append(core.Resources, metav1.APIResource{
		Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true,
		Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}, ShortNames: []string{"cm"},
	})
	return core
}

func newEditFixture(t *testing.T, opts apitest.Options) *editFixture {
	t.Helper()
	return newEditFixtureWith(t, opts, nil)
}

// newEditFixtureWith is newEditFixture with the server's Deps changed by
// deps (nil: none).
func newEditFixtureWith(t *testing.T, opts apitest.Options, deps func(*Deps)) *editFixture {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, coreWithConfigMaps(), apitest.AppsV1(), apitest.MaritimeV1Alpha1(), apitest.CSMGroup())
	fake.Token = "secret-token"

	web := apitest.Deployment("demo", "web", 2, map[string]string{"app": "web"})
	then := metav1.NewTime(time.Now().Add(-time.Hour).UTC().Truncate(time.Second))
	web.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1",
		Time: &then, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}, Subresource: "status",
	}})

	creds := apitest.Object("v1", "Secret", "demo", "creds", map[string]any{
		"type": "Opaque",
		"data": map[string]any{
			"password": base64.StdEncoding.EncodeToString([]byte(secretPassword)),
			"token":    base64.StdEncoding.EncodeToString([]byte(secretToken)),
		},
	})
	creds.SetLabels(map[string]string{"team": "a"})
	creds.SetAnnotations(map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Secret","stringData":{"password":"` + lastAppliedValue + `"}}`,
	})

	settings := apitest.Object("v1", "ConfigMap", "demo", "settings", map[string]any{"data": map[string]any{"mode": "fast"}})

	fake.Add(
		web,
		apitest.Service("demo", "api", map[string]string{"app": "web"}),
		creds,
		settings,
		apitest.Lighthouse("demo", "beacon", "north", 3),
		apitest.Pod("demo", "web-1", map[string]string{"app": "web"}),
		apitest.CSMSession("boot-x3000", "boot", "compute-23.7", "running"),
	)

	logs := &syncBuffer{}
	metrics := NewMetrics()
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{
		Clusters: clusters, Metrics: metrics, Static: static.FS,
		Log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if deps != nil {
		deps(&d)
	}
	srv, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	return &editFixture{harness: &harness{server: srv, fake: fake, console: console, metrics: metrics}, logs: logs}
}

// stored is the object as the fake stores it now, read over its API (which
// records no write); nil when it is not there.
func (f *editFixture) stored(t *testing.T, apiPath string) *unstructured.Unstructured {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.fake.URL+apiPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.fake.Token)
	resp, err := f.fake.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fake GET %s: %d %s", apiPath, resp.StatusCode, body)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(body); err != nil {
		t.Fatal(err)
	}
	return obj
}

// rawObject is the object's JSON as the fake serves it.
func (f *editFixture) rawObject(t *testing.T, apiPath string) []byte {
	t.Helper()
	b, err := f.stored(t, apiPath).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writes are the fake's write requests so far, by method.
func (f *editFixture) writes(methods ...string) []apitest.Write {
	var out []apitest.Write
	for _, w := range f.fake.Writes() {
		if len(methods) == 0 || slices.Contains(methods, w.Method) {
			out = append(out, w)
		}
	}
	return out
}

// noWrites fails unless the fake saw no write request at all.
func (f *editFixture) noWrites(t *testing.T, why string) {
	t.Helper()
	if ws := f.fake.Writes(); len(ws) != 0 {
		t.Errorf("%s: the fake saw %d writes, want none; first: %s %s %s", why, len(ws), ws[0].Method, ws[0].Path, ws[0].Body)
	}
}

// noRealWrites fails if a write without dryRun=All reached the fake.
func (f *editFixture) noRealWrites(t *testing.T, why string) {
	t.Helper()
	for _, w := range f.fake.Writes() {
		if w.Query.Get("dryRun") != "All" {
			t.Errorf("%s: a real %s %s reached the fake: %s", why, w.Method, w.Path, w.Body)
		}
	}
}

// browser is a console user: a cookie jar, forms as a browser sends them
// (same-origin Origin and Sec-Fetch-Site, textareas with CRLF line ends),
// redirects not followed.
type browser struct {
	t      *testing.T
	h      *harness
	client *http.Client
}

func newBrowser(t *testing.T, h *harness) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, h: h, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// webPage is one response.
type webPage struct {
	resp *http.Response
	body string
	doc  *goquery.Document
}

func (p webPage) location() string { return p.resp.Header.Get("Location") }

// text of the first element with data-testid id.
func (p webPage) text(id string) string {
	return strings.TrimSpace(p.doc.Find("[data-testid=" + id + "]").First().Text())
}

func (p webPage) has(id string) bool { return p.doc.Find("[data-testid="+id+"]").Length() > 0 }

// textarea is the content of the form's textarea named name (the hidden
// yaml field on review and conflict pages, the editor's own otherwise).
func (p webPage) textarea(name string) string {
	return p.doc.Find("textarea[name=" + name + "]").Last().Text()
}

func (b *browser) get(path string, want int) webPage {
	b.t.Helper()
	return b.getWith(path, want, nil)
}

// getWith is get with request headers, such as the Sec-Fetch-Dest a
// browser sends for a script or a fetch.
func (b *browser) getWith(path string, want int, hdr map[string]string) webPage {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.h.console.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return b.do(req, want)
}

// post sends form values to path, with headers as a same-origin browser
// sends them unless hdr overrides them ("" removes one).
func (b *browser) post(path string, values url.Values, want int, hdr map[string]string) webPage {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.h.console.URL+path, strings.NewReader(values.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.h.console.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return b.do(req, want)
}

func (b *browser) do(req *http.Request, want int) webPage {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	if resp.StatusCode != want {
		b.t.Fatalf("%s %s: status %d, want %d; body:\n%s", req.Method, req.URL.Path, resp.StatusCode, want, clip(string(body)))
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		b.t.Fatal(err)
	}
	return webPage{resp: resp, body: string(body), doc: doc}
}

// clip keeps a failure message readable when a page carries megabytes.
func clip(s string) string {
	if len(s) > 20000 {
		return s[:20000] + "…"
	}
	return s
}

// csrfToken is the browser's CSRF cookie for the console.
func (b *browser) csrfToken() string {
	u, _ := url.Parse(b.h.console.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == "tabula_csrf" {
			return c.Value
		}
	}
	return ""
}

// form is an HTML form as read from a page.
type form struct {
	b       *browser
	action  string
	values  url.Values
	buttons []string // values of the submit buttons named "action"
	areas   map[string]bool
}

// form reads the form matching sel (a CSS selector) of p.
func (b *browser) form(p webPage, sel string) *form {
	b.t.Helper()
	s := p.doc.Find(sel)
	if s.Length() != 1 {
		b.t.Fatalf("%d forms match %q; page:\n%s", s.Length(), sel, clip(p.body))
	}
	f := &form{b: b, action: s.AttrOr("action", ""), values: url.Values{}, areas: map[string]bool{}}
	s.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		switch in.AttrOr("type", "text") {
		case "checkbox", "radio":
			if _, checked := in.Attr("checked"); !checked {
				return
			}
			f.values.Add(in.AttrOr("name", ""), in.AttrOr("value", "on"))
		case "submit", "button":
		default:
			f.values.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
		}
	})
	s.Find("textarea[name]").Each(func(_ int, ta *goquery.Selection) {
		name := ta.AttrOr("name", "")
		f.values.Add(name, ta.Text())
		f.areas[name] = true
	})
	s.Find("button[name=action]").Each(func(_ int, btn *goquery.Selection) {
		f.buttons = append(f.buttons, btn.AttrOr("value", ""))
	})
	return f
}

// set replaces a field's values.
func (f *form) set(name string, values ...string) *form {
	f.values[name] = values
	return f
}

func (f *form) get(name string) string { return f.values.Get(name) }

// submit posts the form as if the button with value action was pressed
// ("" for a form without named buttons). The button must be on the page.
func (f *form) submit(action string, want int) webPage {
	f.b.t.Helper()
	return f.submitWith(action, want, nil)
}

func (f *form) submitWith(action string, want int, hdr map[string]string) webPage {
	f.b.t.Helper()
	if action != "" && !slices.Contains(f.buttons, action) {
		f.b.t.Fatalf("the form has no %q button; it has %q", action, f.buttons)
	}
	return f.send(action, want, hdr)
}

// send posts the form with any action value, as a forged or scripted
// request may.
func (f *form) send(action string, want int, hdr map[string]string) webPage {
	f.b.t.Helper()
	v := url.Values{}
	for k, vs := range f.values {
		for _, s := range vs {
			if f.areas[k] {
				// Browsers send textarea line ends as CRLF.
				s = strings.ReplaceAll(s, "\n", "\r\n")
			}
			v.Add(k, s)
		}
	}
	if action != "" {
		v.Set("action", action)
	}
	return f.b.post(f.action, v, want, hdr)
}

// editorText is the editor's text of the current page.
func editorText(t *testing.T, p webPage) string {
	t.Helper()
	ta := p.doc.Find("textarea[data-testid=yaml-editor]")
	if ta.Length() != 1 {
		t.Fatalf("no editor textarea; page:\n%s", clip(p.body))
	}
	return ta.Text()
}

// replaceLine swaps one exact line of text, failing when it is not there.
func replaceLine(t *testing.T, text, old, new string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	i := slices.Index(lines, old)
	if i < 0 {
		t.Fatalf("no line %q in:\n%s", old, text)
	}
	lines[i] = new
	return strings.Join(lines, "\n")
}

// keepsText fails unless the page still carries text in its yaml field
// (the editor's textarea, or the hidden one of a review or conflict form).
func keepsText(t *testing.T, p webPage, text string) {
	t.Helper()
	if got := p.textarea("yaml"); got != text {
		t.Errorf("the page lost the user's text:\n got: %q\nwant: %q", clip(got), clip(text))
	}
}
