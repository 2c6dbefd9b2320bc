package web_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// The YAML tab masks a Secret's values as the overview does: data,
// stringData and the copy kubectl apply keeps in an annotation.
func TestSecretValuesAreHiddenInTheYAML(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	secret := apitest.Object("v1", "Secret", "demo", "creds", map[string]any{
		"data":       map[string]any{"password": "aHVudGVyMg=="},
		"stringData": map[string]any{"token": "plain-s3cret"},
	})
	secret.SetAnnotations(map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret"}`,
		"team": "payments",
	})
	fake.Add(secret)
	for _, path := range []string{"", "?view=yaml", "?view=yaml&managedFields=1"} {
		_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/secrets/creds"+path, http.StatusOK)
		for _, leak := range []string{"aHVudGVyMg==", "plain-s3cret", "hunter2"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s shows a secret value (%s)", path, leak)
			}
		}
	}
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/secrets/creds?view=yaml", http.StatusOK)
	yaml := webtest.Parse(t, body).Find("[data-testid=yaml]").Text()
	for _, want := range []string{"password: hidden (7 bytes)", "token: hidden (12 bytes)", "team: payments"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("YAML lacks %q:\n%s", want, yaml)
		}
	}
}

func TestPagesAreNeverCached(t *testing.T) {
	h := webtest.New(t)
	for path, want := range map[string]int{"/c/dev/": http.StatusOK, "/c/dev/api/v1/nosuch": http.StatusNotFound} {
		resp, _ := h.Get(t, path, want)
		if got := resp.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", path, got)
		}
	}
	_, home := h.Get(t, "/c/dev/", http.StatusOK)
	js := webtest.Parse(t, home).Find(`script[type=module][src]`).AttrOr("src", "")
	resp, _ := h.Get(t, js, http.StatusOK)
	if got := resp.Header.Get("Cache-Control"); !strings.Contains(got, "immutable") {
		t.Errorf("asset Cache-Control %q, want immutable", got)
	}
}

// Any token is a valid HTTP method; each must not become a series.
func TestMetricsBoundTheMethodLabel(t *testing.T) {
	h := webtest.New(t)
	for _, method := range []string{"FOOBAR", "X-LONG-UNUSUAL-METHOD", "PROPFIND"} {
		req, err := http.NewRequest(method, h.URL+"/c/dev/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, body := h.Get(t, "/metrics", http.StatusOK)
	for _, method := range []string{"FOOBAR", "X-LONG-UNUSUAL-METHOD", "PROPFIND"} {
		if strings.Contains(body, `method="`+method+`"`) {
			t.Errorf("metrics carry method %q as a label value", method)
		}
	}
	if !strings.Contains(body, `method="other"`) {
		t.Error(`unknown methods are not counted as method="other"`)
	}
}

// A hostile paging history is cut where it is parsed: no link of the page
// carries more than maxBack tokens, and the page stays small.
func TestPagingHistoryIsBounded(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, first := h.Get(t, "/c/dev/api/v1/pods?limit=1", http.StatusOK)
	next, err := url.Parse(webtest.Parse(t, first).Find("[data-testid=page-next]").AttrOr("href", ""))
	if err != nil || next.Query().Get("continue") == "" {
		t.Fatalf("no next page: %v", err)
	}
	q := next.Query()
	q.Set("page", "900")
	for range 1000 {
		q.Add("back", strings.Repeat("b", 700))
	}
	_, body := h.Get(t, next.Path+"?"+q.Encode(), http.StatusOK)
	if len(body) > 300<<10 {
		t.Errorf("page of %d bytes for a one-row list", len(body))
	}
	links := 0
	webtest.Parse(t, body).Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		href := s.AttrOr("href", "")
		if n := strings.Count(href, "back="); n > 20 {
			t.Errorf("link %.60q… carries %d back tokens", href, n)
		}
		links++
	})
	if links == 0 {
		t.Fatal("no links checked")
	}
}

// Nothing a request sends lifts the page deadline: not ?download=1, not
// Upgrade headers, on any route that is not a stream.
func TestThePageDeadlineCannotBeLifted(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: 300 * time.Millisecond}})
	h.Get(t, "/c/dev/", http.StatusOK) // discovery is cached from here on
	hang := func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; returns when the console gives up
	}
	fake.Override("/version", hang)
	fake.Override("/api/v1/namespaces/demo/pods", hang)
	for _, tc := range []struct {
		name    string
		path    string
		headers map[string]string
		want    int
	}{
		{"list download", "/c/dev/api/v1/namespaces/demo/pods?download=1", nil, http.StatusGatewayTimeout},
		{"list download=true", "/c/dev/api/v1/namespaces/demo/pods?download=true", nil, http.StatusGatewayTimeout},
		// The home page goes without the server version when it is late.
		{"home download", "/c/dev/?download=1", nil, http.StatusOK},
		{"home with upgrade headers", "/c/dev/", map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Origin": h.URL}, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, h.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		start := time.Now()
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("%s: %v after %v: the deadline was lifted", tc.name, err, time.Since(start))
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: answered after %v, past its 300ms deadline", tc.name, took)
		}
	}
}

// With --external-url, live streams accept only that origin: scheme, host
// and port, so a plaintext page of the same host cannot read them.
func TestExternalOriginIsTheOnlyOriginForStreams(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Clusters: clusters, ExternalOrigins: []string{"https://tabula.example.com"}}})
	for origin, want := range map[string]int{
		h.URL:                            http.StatusForbidden,
		"http://tabula.example.com":      http.StatusForbidden,
		"https://tabula.example.com:444": http.StatusForbidden,
		"https://tabula.example.com":     http.StatusSwitchingProtocols,
	} {
		ws, resp, err := h.TryDial("/c/dev/api/v1/namespaces/demo/pods", origin)
		if err == nil {
			ws.Close()
		}
		if resp == nil || resp.StatusCode != want {
			t.Errorf("origin %s: %s, want %d", origin, webtest.StatusText(resp), want)
		}
	}
}

// The console caps the upstream streams it holds open; past the cap a
// stream is refused at once with a clear 503.
func TestUpstreamStreamsAreCapped(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	fake.AppendLog("demo", "web-1", "app", "first line")
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Clusters: clusters, MaxStreams: 1}})
	follow := h.Dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=1&tailLines=10")
	follow.TextUntil(t, "first line", 5*time.Second)
	resp, err := http.Get(h.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "upstream streams") {
		t.Errorf("second stream: %d %s, want a 503 naming the limit", resp.StatusCode, body)
	}
	// Ending the follow gives its slot back.
	_ = follow.Conn.Close()
	apitest.WaitFor(t, 5*time.Second, func() error {
		resp, err := http.Get(h.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("after the follow ended, a download still gets %d: the slot was not given back", resp.StatusCode)
		}
		return nil
	})
}

// A log download whose upstream never answers holds its stream slot no
// longer than a page would wait.
func TestAHungLogDownloadEndsAtThePageDeadline(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	fake.Override("/api/v1/namespaces/demo/pods/web-1/log", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: 300 * time.Millisecond}})
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(h.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
	if err != nil {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("status %d, want 504", resp.StatusCode)
	}
}

// hardeningPages are pages of every kind of route, with their status:
// pages, lists, objects and their YAML, subresources, logs, every write
// page, redirects, error pages, and the operational endpoints.
var hardeningPages = map[string]int{
	"/":                           http.StatusFound,
	"/c/dev":                      http.StatusMovedPermanently,
	"/c/dev/":                     http.StatusOK,
	"/c/dev/jump?q=po":            http.StatusSeeOther,
	"/c/dev/jump?q=zzz":           http.StatusSeeOther,
	"/c/dev/search?q=web+ns:demo": http.StatusOK,
	"/c/dev/search?q=%28":         http.StatusBadRequest,
	"/c/dev/namespace?group=apps&version=v1&resource=deployments&namespace=demo": http.StatusSeeOther,
	"/c/dev/api/v1/pods":                                      http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods":                      http.StatusOK,
	"/c/dev/apis/apps/v1/namespaces/demo/deployments":         http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods/web-1":                http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods/web-1?view=yaml":      http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods/web-1/log":            http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1": http.StatusOK,
	"/c/dev/logs/demo?labelSelector=app%3Dweb":                http.StatusOK,
	webtest.WebPath:                                   http.StatusOK,
	webtest.WebPath + "?view=yaml":                    http.StatusOK,
	"/c/dev/api/v1/namespaces/demo/pods/web-1/status": http.StatusOK,
	webtest.WebPath + "/log":                          http.StatusOK,
	webtest.WebPath + "/edit":                         http.StatusOK,
	webtest.WebPath + "/delete":                       http.StatusOK,
	webtest.WebPath + "/scale":                        http.StatusOK,
	webtest.WebPath + "/restart":                      http.StatusMethodNotAllowed,
	webtest.CredsPath:                                 http.StatusOK,
	webtest.CredsPath + "?view=yaml":                  http.StatusOK,
	webtest.CredsPath + "/edit":                       http.StatusOK,
	webtest.BeaconPath:                                http.StatusOK,
	webtest.ConfigMapsPath + "/new":                   http.StatusOK,
	"/c/dev/schema/apis/apps/v1/deployments":          http.StatusOK,
	"/c/nosuch/":                                      http.StatusNotFound,
	"/c/dev/api/v1/nosuch":                            http.StatusNotFound,
	"/c/dev/api/v1/namespaces/demo/pods/nosuch":       http.StatusNotFound,
	"/healthz": http.StatusOK,
	"/readyz":  http.StatusOK,
	"/metrics": http.StatusOK,
}

// hardeningFixture is the edit fixture with a pod log, so every route
// above has something to show.
func hardeningFixture(t *testing.T) *webtest.Console {
	t.Helper()
	f := webtest.Editable(t, apitest.Options{})
	f.Fake.AppendLog("demo", "web-1", "app", "a log line")
	f.Fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	return f
}

// cspNonce checks a response's Content-Security-Policy and returns its
// script nonce: scripts only by nonce, no inline styles, no framing.
func cspNonce(t *testing.T, path string, h http.Header) string {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	directives := map[string]string{}
	for _, d := range strings.Split(csp, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	script := directives["script-src"]
	m := regexp.MustCompile(`'nonce-([A-Za-z0-9+/=]{16,})'`).FindStringSubmatch(script)
	switch {
	case m == nil:
		t.Errorf("%s: script-src %q has no nonce (CSP %q)", path, script, csp)
		return ""
	case strings.Contains(script, "unsafe-inline") || strings.Contains(script, "unsafe-eval") || strings.Contains(script, "*") || strings.Contains(script, "data:"):
		t.Errorf("%s: script-src %q lets more than nonced scripts run", path, script)
	case strings.Contains(directives["style-src"], "unsafe-inline"):
		t.Errorf("%s: style-src allows inline styles", path)
	case directives["frame-ancestors"] != "'none'":
		t.Errorf("%s: frame-ancestors %q, want 'none'", path, directives["frame-ancestors"])
	case directives["default-src"] != "'none'" || directives["base-uri"] != "'none'" || directives["form-action"] != "'self'":
		t.Errorf("%s: CSP %q lacks default-src 'none', base-uri 'none' or form-action 'self'", path, csp)
	}
	return m[1]
}

// hardenedHeaders checks the headers every response carries.
func hardenedHeaders(t *testing.T, path string, h http.Header) string {
	t.Helper()
	for name, want := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "same-origin",
		"X-Frame-Options":        "DENY",
		"Cache-Control":          "no-store",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %s %q, want %q", path, name, got, want)
		}
	}
	return cspNonce(t, path, h)
}

// inlineCode reports what in a page could run script without its nonce:
// an on* attribute, a javascript: URL, a script without the response's
// nonce; and inline styles or style elements without it, which the CSP
// would drop.
func inlineCode(doc *goquery.Document, nonce string) []string {
	var out []string
	urlAttrs := map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "xlink:href": true, "data": true, "srcdoc": true}
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		tag := goquery.NodeName(s)
		for _, a := range s.Nodes[0].Attr {
			name := strings.ToLower(a.Key)
			value := strings.ToLower(strings.TrimSpace(a.Val))
			switch {
			case strings.HasPrefix(name, "on"):
				out = append(out, fmt.Sprintf("<%s %s=%q>", tag, a.Key, a.Val))
			case name == "style":
				out = append(out, fmt.Sprintf("<%s style=%q>", tag, a.Val))
			case urlAttrs[name] && (strings.HasPrefix(value, "javascript:") || strings.HasPrefix(value, "vbscript:") || strings.HasPrefix(value, "data:text/html")):
				out = append(out, fmt.Sprintf("<%s %s=%q>", tag, a.Key, a.Val))
			}
		}
		if tag == "script" && s.AttrOr("nonce", "") != nonce {
			out = append(out, fmt.Sprintf("<script src=%q> without the response's nonce", s.AttrOr("src", "")))
		}
		if tag == "style" && s.AttrOr("nonce", "") != nonce {
			// The CSP would drop it: the page unstyled.
			out = append(out, "<style> without the response's nonce")
		}
		if tag == "iframe" || tag == "object" || tag == "embed" || tag == "base" {
			out = append(out, "<"+tag+">")
		}
	})
	return out
}

// Every response carries the hardening headers, and every rendered page
// runs only nonced scripts: no inline handlers, no javascript: URLs, no
// inline styles. The pages are those of every route, those they link to,
// and those a form post renders (a review, a refused write).
func TestEveryPageIsHardened(t *testing.T) {
	f := hardeningFixture(t)
	b := webtest.NewBrowser(t, f)
	pages := map[string]webtest.Page{}
	for path, want := range hardeningPages {
		pages[path] = b.Get(path, want)
	}
	// The links of the pages above, once each (downloads are not pages).
	linked := 0
	for path, p := range maps.Clone(pages) {
		if !strings.HasPrefix(p.Resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		p.Doc.Find("a[href^='/c/']").Each(func(_ int, s *goquery.Selection) {
			href := s.AttrOr("href", "")
			if _, seen := pages[href]; seen || strings.Contains(href, "download=") || linked >= 150 {
				return
			}
			linked++
			req, _ := http.NewRequest(http.MethodGet, f.URL+href, nil)
			resp, err := b.Client.Do(req)
			if err != nil {
				t.Fatalf("%s (linked from %s): %v", href, path, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			pages[href] = webtest.Page{Resp: resp, Body: string(body), Doc: doc}
		})
	}
	if linked < 20 {
		t.Errorf("only %d linked pages visited", linked)
	}
	// Pages a form post renders.
	editor := pages[webtest.WebPath+"/edit"]
	text := webtest.ReplaceLine(t, webtest.EditorText(t, editor), "    app: web", "    app: reviewed")
	pages["POST review"] = b.Form(editor, "[data-testid=edit-form]").Set("yaml", text).Submit("review", http.StatusOK)
	pages["POST without a token"] = b.Post(webtest.WebPath+"/scale", url.Values{"replicas": {"3"}}, http.StatusForbidden, nil)
	misdirected, _ := http.NewRequest(http.MethodGet, f.URL+"/c/dev/", nil)
	misdirected.Host = "evil.example"
	pages["misdirected"] = b.Do(misdirected, http.StatusMisdirectedRequest)

	htmlPages := 0
	for path, p := range pages {
		nonce := hardenedHeaders(t, path, p.Resp.Header)
		if !strings.HasPrefix(p.Resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		htmlPages++
		for _, bad := range inlineCode(p.Doc, nonce) {
			t.Errorf("%s: %s", path, bad)
		}
	}
	if htmlPages < 40 {
		t.Errorf("only %d HTML pages checked", htmlPages)
	}
	// Assets are the one exception to no-store: immutable, and still nosniff.
	js := pages["/c/dev/"].Doc.Find(`script[type=module][src]`).AttrOr("src", "")
	asset := b.Get(js, http.StatusOK)
	if cc := asset.Resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") || asset.Resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("asset %s: Cache-Control %q, nosniff %q", js, cc, asset.Resp.Header.Get("X-Content-Type-Options"))
	}
}

// inlineCode finds what it must: the check above is not vacuous.
func TestInlineCodeCheckFindsInlineCode(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<html><head><script nonce="n">ok()</script><script>bad()</script></head>
<style nonce="n">a{}</style><style>b{}</style>
<body><img src=x onerror=alert(1)><a href=" JavaScript:alert(1)">x</a><svg><a xlink:href="javascript:1"></a></svg><p style="color:red"></p><iframe></iframe></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := inlineCode(doc, "n"); len(got) != 7 {
		t.Errorf("found %d of 7: %q", len(got), got)
	}
}

// Every live endpoint (list, object, logs of a pod, of a workload and of a
// selector, the editor's) refuses a handshake from another origin, or
// with none, before anything is asked of the API server as the user.
func TestEveryLiveEndpointRefusesAForeignOrigin(t *testing.T) {
	f := hardeningFixture(t)
	endpoints := []string{
		"/c/dev/api/v1/namespaces/demo/pods",
		"/c/dev/api/v1/namespaces/demo/pods/web-1",
		"/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=1",
		webtest.WebPath + "/log?follow=1",
		"/c/dev/logs/demo?labelSelector=app%3Dweb&follow=1",
		webtest.WebPath + "/edit?rv=1",
		webtest.WebPath,
	}
	f.Get(t, "/c/dev/", http.StatusOK) // discovery cached
	for _, path := range endpoints {
		for _, origin := range []string{"https://evil.example", "null", "", "http://127.0.0.1:1", strings.Replace(f.URL, "http://", "https://", 1)} {
			f.Fake.ResetRequests()
			ws, resp, err := f.TryDial(path, origin)
			if err == nil {
				ws.Close()
			}
			if resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s from origin %q: %s, want 403", path, origin, webtest.StatusText(resp))
			}
			if reqs := f.Fake.Requests(); len(reqs) != 0 {
				t.Errorf("%s from origin %q: %d upstream requests (first %s) before the refusal", path, origin, len(reqs), reqs[0].URL)
			}
		}
	}
	// The console's own origin is let through (last: a stream's upstream
	// calls outlive its socket for a moment).
	for _, path := range endpoints {
		ws, resp, err := f.TryDial(path, f.URL)
		if err != nil {
			t.Errorf("%s from the console's origin: %v %s", path, err, webtest.StatusText(resp))
			continue
		}
		ws.Close()
	}
}

// Every route that writes refuses a form without the browser's token, or
// from another origin, before anything reaches the API server.
func TestEveryWriteNeedsTheCSRFTokenAndTheConsolesOrigin(t *testing.T) {
	f := hardeningFixture(t)
	b := webtest.NewBrowser(t, f)
	b.Get(webtest.WebPath, http.StatusOK)
	token := b.CSRFToken()
	writes := map[string]url.Values{
		webtest.WebPath + "/edit":       {"yaml": {"kind: Deployment"}, "action": {"apply"}},
		webtest.WebPath + "/delete":     {"propagationPolicy": {"Background"}},
		webtest.WebPath + "/scale":      {"replicas": {"5"}},
		webtest.WebPath + "/restart":    {},
		webtest.ConfigMapsPath + "/new": {"yaml": {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"}, "action": {"create"}},
		webtest.CredsPath + "/edit":     {"yaml": {"kind: Secret"}, "action": {"apply"}},
		"/c/dev/api/v1/namespaces":      {},
	}
	for path, values := range writes {
		p := b.Post(path, values, http.StatusForbidden, nil)
		if p.Text("error-code") != "403" {
			t.Errorf("POST %s without a token: %q", path, p.Text("error-code"))
		}
		withToken := url.Values{"_csrf": {token}}
		for k, v := range values {
			withToken[k] = v
		}
		// The console's host under another scheme is another origin: a
		// plaintext page may not write to an https console, nor the reverse.
		otherScheme := "https://" + strings.TrimPrefix(f.URL, "http://")
		for _, hdr := range []map[string]string{{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}, {"Origin": otherScheme}} {
			b.Post(path, withToken, http.StatusForbidden, hdr)
		}
		req, _ := http.NewRequest(http.MethodPost, f.URL+path, strings.NewReader(withToken.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s from another site with the token: %v %s", path, err, webtest.StatusText(resp))
		}
	}
	f.NoWrites(t, "forged writes")
}

// HEAD is answered as GET without a body (curl -I), with the same headers.
func TestHeadIsAnsweredAsGet(t *testing.T) {
	h := webtest.New(t)
	for _, path := range []string{"/c/dev/", "/healthz", "/c/dev/api/v1/namespaces"} {
		req, _ := http.NewRequest(http.MethodHead, h.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) != 0 || (path != "/healthz" && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")) {
			t.Errorf("HEAD %s: %d, %d bytes, CSP %q", path, resp.StatusCode, len(body), resp.Header.Get("Content-Security-Policy"))
		}
		if hsts := resp.Header.Get("Strict-Transport-Security"); hsts != "" {
			t.Errorf("plain HTTP sent Strict-Transport-Security %q", hsts)
		}
		// A client reads no body after a HEAD, so a body sent anyway is
		// only seen on the wire, where it would corrupt the next response.
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "HEAD %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, strings.TrimPrefix(h.URL, "http://"))
		wire, err := io.ReadAll(conn)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, after, ok := strings.Cut(string(wire), "\r\n\r\n"); !ok || after != "" {
			t.Errorf("HEAD %s: %d bytes after the headers on the wire: %.80q", path, len(after), after)
		}
	}
}

// The one-time notice a write leaves for the next page is sealed: a cookie
// another site set (a sibling domain, a plaintext page of the host) shows
// nothing in the console's banner and forgets no editor draft.
func TestForgedNoticesAreNotShown(t *testing.T) {
	h := webtest.New(t)
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"m":"Your session expired: sign in at https://evil.example","d":"tabula-draft:dev/apps/v1/deployments/demo/web"}`))
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/c/dev/", nil)
	req.AddCookie(&http.Cookie{Name: "tabula_flash", Value: forged})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "evil.example") || strings.Contains(string(body), "tabula-draft:") {
		t.Errorf("a forged notice: %d, shown or its draft forgotten:\n%s", resp.StatusCode, webtest.Clip(string(body)))
	}
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || c.Name == "tabula_flash" && c.MaxAge < 0
	}
	if !cleared {
		t.Error("the forged cookie was not cleared")
	}
}

// A notice sealed by the console for one browser opens in no other: a
// user of a sibling site who got one (by writing themselves) cannot plant
// it in another user's browser.
func TestANoticeOpensOnlyInItsBrowser(t *testing.T) {
	f := webtest.Editable(t, apitest.Options{})
	mine, theirs := webtest.NewBrowser(t, f), webtest.NewBrowser(t, f)
	p := mine.Get(webtest.WebPath+"/scale", http.StatusOK)
	mine.Form(p, "[data-testid=scale-form]").Set("replicas", "4").Submit("", http.StatusSeeOther)
	u, _ := url.Parse(f.URL)
	var flash *http.Cookie
	for _, c := range mine.Client.Jar.Cookies(u) {
		if c.Name == "tabula_flash" {
			flash = c
		}
	}
	if flash == nil {
		t.Fatal("the scale left no notice")
	}
	theirs.Get(webtest.WebPath, http.StatusOK) // a CSRF token of its own
	theirs.Client.Jar.SetCookies(u, []*http.Cookie{{Name: "tabula_flash", Value: flash.Value, Path: "/"}})
	if got := theirs.Get(webtest.WebPath, http.StatusOK).Text("notice"); got != "" {
		t.Errorf("another browser shows the notice %q", got)
	}
	if got := mine.Get(webtest.WebPath, http.StatusOK).Text("notice"); !strings.Contains(got, "Scaled") {
		t.Errorf("the browser it was for shows %q", got)
	}
}
