// Package webtest serves the console over the apiclient/apitest fake for
// the tests of package web and of its features (web/list, web/edit, …),
// which drive it over HTTP and WebSocket as a browser does.
//
// The fake API server is the one test seam: a test seeds it, breaks it or
// watches what reached it, and asserts on what the console answers. Every
// request asserts its status code.
//
// A Console is served with Start (over a fake the test built) or with one of
// the fixtures (New, Demo, Pods, PodLogs, Editable, WithAccess, Usage), which
// seed a fake the tests of several features share. A Browser keeps cookies
// and posts forms as they are on the page; Console.Dial opens the console's
// WebSockets.
//
// Only tests import webtest: it imports web, so a test of package web
// itself must be an external test (package web_test) to use it.
package webtest

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/page"
)

// Console is a console served over httptest for contexts of a fake.
type Console struct {
	// URL is the console's root, as http://127.0.0.1:PORT.
	URL string
	// Fake is the API server every context points at.
	Fake *apitest.Server
	// Server is the console; HTTP serves its Handler.
	Server *web.Server
	HTTP   *httptest.Server
	// Log is what the console logged, at debug level, when
	// Options.CaptureLog asked for it; nil otherwise.
	Log *Log
}

// Options are how Start builds a console.
type Options struct {
	// Contexts are the kubeconfig contexts offered, all pointing at the
	// fake, the first one current (default: "dev").
	Contexts []string
	// Deps are the server's dependencies (a page timeout, sign-in, a base
	// path, …). Start fills in Clusters (from the fake's kubeconfig), Metrics
	// and Static where they are unset, and Log with CaptureLog.
	Deps web.Deps
	// ActAs lets a request act with the bearer token in its TokenHeader, in
	// token mode, as web/auth makes a signed-in user's requests act: several
	// users of one console without a sign-in each. A request without the
	// header acts as the kubeconfig's user. It stands in for web/auth, so it
	// cannot be combined with a base path.
	ActAs bool
	// CaptureLog records the console's log in Console.Log.
	CaptureLog bool
}

// TokenHeader carries the token a request acts with under Options.ActAs.
const TokenHeader = "X-Test-Token"

// As is the header that makes a request act with token (Options.ActAs).
func As(token string) map[string]string { return map[string]string{TokenHeader: token} }

// Start serves a console over fake, until the test ends. The kubeconfig is
// taken from the fake now, with its Token at this moment.
func Start(t testing.TB, fake *apitest.Server, opts Options) *Console {
	t.Helper()
	d := opts.Deps
	if d.Metrics == nil {
		d.Metrics = web.NewMetrics()
	}
	if d.Static == nil {
		d.Static = static.FS
	}
	if d.Clusters == nil {
		contexts := opts.Contexts
		if len(contexts) == 0 {
			contexts = []string{"dev"}
		}
		clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig(contexts...), apiclient.LoadOptions{Observer: d.Metrics})
		if err != nil {
			t.Fatal(err)
		}
		d.Clusters = clusters
	}
	var log *Log
	if opts.CaptureLog {
		log = &Log{}
		d.Log = log.logger()
	}
	srv, err := web.New(d)
	if err != nil {
		t.Fatal(err)
	}
	if opts.ActAs {
		actAs(t, srv)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	return &Console{URL: console.URL, Fake: fake, Server: srv, HTTP: console, Log: log}
}

// actAs adds the stand-in for web/auth that Options.ActAs describes. It
// runs last, after sign-in has set the kubeconfig-mode requester, as a
// middleware of the server's router: without a base path, Handler is that
// router.
func actAs(t testing.TB, srv *web.Server) {
	t.Helper()
	e, ok := srv.Handler().(*echo.Echo)
	if !ok {
		t.Fatalf("webtest: ActAs needs web.Server.Handler to be its *echo.Echo (no base path), not %T", srv.Handler())
	}
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if token := c.Request().Header.Get(TokenHeader); token != "" {
				page.SetRequester(c, page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: token}})
			}
			return next(c)
		}
	})
}

// Get fetches path without following redirects and asserts the status code.
func (c *Console) Get(t testing.TB, path string, wantStatus int) (*http.Response, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(c.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s: status %d, want %d; body:\n%s", path, resp.StatusCode, wantStatus, body)
	}
	return resp, string(body)
}

// GetAs is Get acting with token ("": no signed-in identity), under
// Options.ActAs; it returns the body.
func (c *Console) GetAs(t testing.TB, token, path string, wantStatus int) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set(TokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s as %s: %d, want %d:\n%s", path, token, resp.StatusCode, wantStatus, body)
	}
	return string(body)
}

// Parse reads an HTML page or fragment.
func Parse(t testing.TB, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Clip keeps a failure message readable when a page carries megabytes.
func Clip(s string) string {
	if len(s) > 20000 {
		return s[:20000] + "…"
	}
	return s
}

// ReadUntil reads a streamed page into page, tag by tag, until done says a
// tag ends the wait, failing the test if the body ends first (what names
// what was waited for). Each tag is looked at once: a page carries its
// stylesheet, and scanning all of it again at each step is quadratic.
func ReadUntil(t testing.TB, r *bufio.Reader, page *strings.Builder, what string, done func(tag string) bool) {
	t.Helper()
	for {
		tag, err := r.ReadString('>')
		page.WriteString(tag)
		if err != nil {
			t.Fatalf("the page ended before %s: %v\n%s", what, err, Clip(page.String()))
		}
		if done(tag) {
			return
		}
	}
}
