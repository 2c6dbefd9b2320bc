package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/webtest"
)

const base = "/tabula"

// basePathFixture is the edit fixture's console served under /tabula.
func basePathFixture(t *testing.T) *webtest.Console {
	t.Helper()
	return webtest.Start(t, webtest.EditableFake(t, apitest.Options{}), webtest.Options{CaptureLog: true, Deps: web.Deps{BasePath: base}})
}

// urlAttrs are the attributes that carry a URL the browser follows or a
// script fetches.
var urlAttrs = []string{"href", "src", "action", "formaction", "data-schema-url", "data-live-url"}

// consoleURLs are every URL a page links, loads, posts to or hands its
// scripts, with where it was found, skipping in-page fragments.
func consoleURLs(doc *goquery.Document) map[string]string {
	out := map[string]string{}
	for _, attr := range urlAttrs {
		doc.Find("[" + attr + "]").Each(func(_ int, s *goquery.Selection) {
			v := s.AttrOr(attr, "")
			if strings.HasPrefix(v, "#") {
				return
			}
			out[v] = goquery.NodeName(s) + "[" + attr + "]"
		})
	}
	return out
}

// Every page under the base path writes every URL under it: links, assets,
// the import map, forms, and the URLs handed to scripts.
func TestBasePathEveryPageURLCarriesThePrefix(t *testing.T) {
	f := basePathFixture(t)
	b := webtest.NewBrowser(t, f)
	const c = base + "/c/dev"
	for _, tc := range []struct {
		path string
		want int
	}{
		{c + "/", http.StatusOK},
		{c + "/api/v1/namespaces/demo/pods", http.StatusOK},
		{c + "/apis/apps/v1/deployments", http.StatusOK}, // all namespaces: namespace cells link
		{c + "/apis/apps/v1/namespaces/demo/deployments?wide=1&sort=-Name&labelSelector=app%3Dweb", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web?view=yaml", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web/edit", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web/scale", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web/delete", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/new", http.StatusOK},
		{c + "/api/v1/namespaces/demo/secrets/creds/edit", http.StatusOK},
		{c + "/api/v1/namespaces/demo/services/api", http.StatusOK},
		{c + "/api/v1/namespaces/demo/pods/web-1/log", http.StatusOK},
		{c + "/apis/apps/v1/namespaces/demo/deployments/web/log", http.StatusOK},
		{c + "/logs/demo?labelSelector=app%3Dweb", http.StatusOK},
		{c + "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/beacon", http.StatusOK},
		{c + "/search?q=web+ns:demo", http.StatusOK},
		{c + "/search?q=%28", http.StatusBadRequest},
		{c + "/api/v1/namespaces/demo/nothings", http.StatusNotFound},
		{base + "/c/no-such-context/", http.StatusNotFound},
	} {
		t.Run(tc.path, func(t *testing.T) {
			b := b.For(t)
			p := b.Get(tc.path, tc.want)
			if got := p.Doc.Find("html").AttrOr("data-base-path", "?"); got != base {
				t.Errorf("html[data-base-path] = %q, want %q", got, base)
			}
			urls := consoleURLs(p.Doc)
			if len(urls) < 3 {
				t.Fatalf("only %d URLs on the page: %v", len(urls), urls)
			}
			for u, where := range urls {
				if !strings.HasPrefix(u, base+"/") {
					t.Errorf("%s = %q, outside %s/", where, u, base)
				}
			}
			raw := p.Doc.Find(`script[type=importmap]`).Text()
			var m struct{ Imports map[string]string }
			if err := json.Unmarshal([]byte(raw), &m); err != nil || len(m.Imports) == 0 {
				t.Fatalf("import map %q: %v", raw, err)
			}
			for from, to := range m.Imports {
				if !strings.HasPrefix(from, base+"/static/") || !strings.HasPrefix(to, base+"/static/") {
					t.Errorf("import map entry %q → %q is outside %s/static/", from, to, base)
				}
			}
		})
	}

	// The assets the pages name are served there.
	home := b.Get(c+"/", http.StatusOK)
	home.Doc.Find(`link[rel=stylesheet], script[src]`).Each(func(_ int, s *goquery.Selection) {
		u := s.AttrOr("href", s.AttrOr("src", ""))
		b.Get(u, http.StatusOK)
	})
}

// Redirects, to pages and after forms, stay under the base path.
func TestBasePathRedirectsStayUnderIt(t *testing.T) {
	f := basePathFixture(t)
	b := webtest.NewBrowser(t, f)
	const c = base + "/c/dev"
	for path, want := range map[string]string{
		base:                 c + "/",
		base + "/":           c + "/",
		c:                    c + "/",
		c + "/jump?q=deploy": c + "/apis/apps/v1/deployments",
		c + "/jump?q=web":    c + "/search?q=web",
		c + "/namespace?group=apps&version=v1&resource=deployments&namespace=demo": c + "/apis/apps/v1/namespaces/demo/deployments",
	} {
		resp, err := b.Client.Get(f.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 300 || resp.StatusCode > 399 || resp.Header.Get("Location") != want {
			t.Errorf("GET %s: %d → %q, want a redirect to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}

	// Forms: restart and scale answer with the object page, under the base.
	object := c + "/apis/apps/v1/namespaces/demo/deployments/web"
	p := b.Get(object, http.StatusOK)
	restarted := b.Form(p, `form[action$="/restart"]`).Submit("", http.StatusSeeOther)
	if got := restarted.Location(); got != object {
		t.Errorf("restart → %q, want %q", got, object)
	}
	scale := b.Form(b.Get(object+"/scale", http.StatusOK), "[data-testid=scale-form]")
	if got := scale.Set("replicas", "3").Submit("", http.StatusSeeOther).Location(); got != object {
		t.Errorf("scale → %q, want %q", got, object)
	}
	// The notice the redirect leaves is shown on the page it leads to.
	if after := b.Get(object, http.StatusOK); !strings.Contains(after.Body, "Scaled") {
		t.Errorf("the scale notice did not follow the redirect under %s", base)
	}
}

// Outside the base path there is nothing; the probes live under it.
func TestBasePathAnswersOnlyUnderIt(t *testing.T) {
	f := basePathFixture(t)
	for path, want := range map[string]int{
		"/":                      http.StatusNotFound,
		"/c/dev/":                http.StatusNotFound,
		"/healthz":               http.StatusNotFound,
		"/readyz":                http.StatusNotFound,
		"/metrics":               http.StatusNotFound,
		"/tabulax/c/dev/":        http.StatusNotFound,
		"/tab%75la/c/dev/":       http.StatusNotFound, // the prefix spelled with an escape is not the prefix
		base + "/healthz":        http.StatusOK,
		base + "/readyz":         http.StatusOK,
		base + "/metrics":        http.StatusOK,
		base + "/c/dev/":         http.StatusOK,
		base + "/c/dev%2Fx/":     http.StatusNotFound, // escaped names still route (to a 404 page for an unknown context)
		base + "/static/nothing": http.StatusNotFound,
		base + "/tabula/c/dev/":  http.StatusNotFound,
	} {
		f.Get(t, path, want)
	}
	// The 404 outside says nothing about the clusters behind the console.
	_, body := f.Get(t, "/c/dev/", http.StatusNotFound)
	if strings.Contains(body, "dev") || strings.Contains(body, "<html") {
		t.Errorf("the 404 outside the base path is not bare: %q", body)
	}
}

// Live lists under the base path push rows whose links carry it.
func TestBasePathLiveRowsCarryThePrefix(t *testing.T) {
	f := basePathFixture(t)
	const path = base + "/c/dev/api/v1/namespaces/demo/pods"
	rv := f.ListRV(t, path)
	c := f.Dial(t, path+"?resourceVersion="+rv)
	f.Fake.Add(apitest.Pod("demo", "web-9", map[string]string{"app": "web"}))
	added := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "ADDED" })
	if !strings.Contains(added.HTML, `href="`+path+`/web-9"`) {
		t.Fatalf("ADDED row links outside %s: %s", base, added.HTML)
	}
}

// The logs page's own links and form (built from the request's path) keep
// the prefix, query values included.
func TestBasePathLogPageLinksBackUnderIt(t *testing.T) {
	f := basePathFixture(t)
	b := webtest.NewBrowser(t, f)
	p := b.Get(base+"/c/dev/api/v1/namespaces/demo/pods/web-1/log?tail=10", http.StatusOK)
	dl := p.Doc.Find("[data-testid=log-download]").AttrOr("href", "")
	u, err := url.Parse(dl)
	if err != nil || u.Path != base+"/c/dev/api/v1/namespaces/demo/pods/web-1/log" || u.Query().Get("download") != "1" {
		t.Errorf("download link %q", dl)
	}
}

// The URLs the editor's script fetches and follows work under the base
// path: the schema (whose handler parses the path) and the live banner.
func TestBasePathEditorURLsAreServed(t *testing.T) {
	f := basePathFixture(t)
	f.Fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	b := webtest.NewBrowser(t, f)
	p := b.Get(base+"/c/dev/apis/apps/v1/namespaces/demo/deployments/web/edit", http.StatusOK)
	ta := p.Doc.Find("textarea[data-testid=yaml-editor]")
	schema := ta.AttrOr("data-schema-url", "")
	if schema != base+"/c/dev/schema/apis/apps/v1/deployments" {
		t.Fatalf("data-schema-url = %q", schema)
	}
	if got := b.Get(schema, http.StatusOK); !strings.Contains(got.Body, ".Deployment") {
		t.Errorf("schema under the base path: %s", webtest.Clip(got.Body))
	}
	live := ta.AttrOr("data-live-url", "")
	if !strings.HasPrefix(live, base+"/c/dev/apis/apps/v1/namespaces/demo/deployments/web/edit?rv=") {
		t.Fatalf("data-live-url = %q", live)
	}
	f.Dial(t, live)
}
