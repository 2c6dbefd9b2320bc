package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/static"
)

// The YAML tab masks a Secret's values as the overview does: data,
// stringData and the copy kubectl apply keeps in an annotation.
func TestSecretValuesAreHiddenInTheYAML(t *testing.T) {
	h, fake := newVariant(t, apitest.Options{})
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
		_, body := h.get(t, "/c/dev/api/v1/namespaces/demo/secrets/creds"+path, http.StatusOK)
		for _, leak := range []string{"aHVudGVyMg==", "plain-s3cret", "hunter2"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s shows a secret value (%s)", path, leak)
			}
		}
	}
	_, body := h.get(t, "/c/dev/api/v1/namespaces/demo/secrets/creds?view=yaml", http.StatusOK)
	yaml := parse(t, body).Find("[data-testid=yaml]").Text()
	for _, want := range []string{"password: hidden (7 bytes)", "token: hidden (12 bytes)", "team: payments"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("YAML lacks %q:\n%s", want, yaml)
		}
	}
}

func TestPagesAreNeverCached(t *testing.T) {
	h := newHarness(t)
	for path, want := range map[string]int{"/c/dev/": http.StatusOK, "/c/dev/api/v1/nosuch": http.StatusNotFound} {
		resp, _ := h.get(t, path, want)
		if got := resp.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", path, got)
		}
	}
	_, home := h.get(t, "/c/dev/", http.StatusOK)
	css := parse(t, home).Find(`link[rel=stylesheet]`).AttrOr("href", "")
	resp, _ := h.get(t, css, http.StatusOK)
	if got := resp.Header.Get("Cache-Control"); !strings.Contains(got, "immutable") {
		t.Errorf("asset Cache-Control %q, want immutable", got)
	}
}

// Any token is a valid HTTP method; each must not become a series.
func TestMetricsBoundTheMethodLabel(t *testing.T) {
	h := newHarness(t)
	for _, method := range []string{"FOOBAR", "X-LONG-UNUSUAL-METHOD", "PROPFIND"} {
		req, err := http.NewRequest(method, h.console.URL+"/c/dev/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, body := h.get(t, "/metrics", http.StatusOK)
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
	h, _ := newVariant(t, apitest.Options{})
	_, first := h.get(t, "/c/dev/api/v1/pods?limit=1", http.StatusOK)
	next, err := url.Parse(parse(t, first).Find("[data-testid=page-next]").AttrOr("href", ""))
	if err != nil || next.Query().Get("continue") == "" {
		t.Fatalf("no next page: %v", err)
	}
	q := next.Query()
	q.Set("page", "900")
	for range 1000 {
		q.Add("back", strings.Repeat("b", 700))
	}
	_, body := h.get(t, next.Path+"?"+q.Encode(), http.StatusOK)
	if len(body) > 300<<10 {
		t.Errorf("page of %d bytes for a one-row list", len(body))
	}
	links := 0
	parse(t, body).Find("a[href]").Each(func(_ int, s *goquery.Selection) {
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
	h := newConsoleWithTimeout(t, fake, 300*time.Millisecond, "dev")
	h.get(t, "/c/dev/", http.StatusOK) // discovery is cached from here on
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
		{"home with upgrade headers", "/c/dev/", map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"}, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodGet, h.console.URL+tc.path, nil)
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
	srv, err := New(Deps{Clusters: clusters, Metrics: NewMetrics(), Static: static.FS, ExternalOrigins: []string{"https://tabula.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	h := &harness{server: srv, fake: fake, console: console}
	for origin, want := range map[string]int{
		console.URL:                      http.StatusForbidden,
		"http://tabula.example.com":      http.StatusForbidden,
		"https://tabula.example.com:444": http.StatusForbidden,
		"https://tabula.example.com":     http.StatusSwitchingProtocols,
	} {
		ws, resp, err := h.tryDial("/c/dev/api/v1/namespaces/demo/pods", origin)
		if err == nil {
			ws.Close()
		}
		if resp == nil || resp.StatusCode != want {
			t.Errorf("origin %s: %s, want %d", origin, statusText(resp), want)
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
	srv, err := New(Deps{Clusters: clusters, Metrics: NewMetrics(), Static: static.FS, MaxStreams: 1})
	if err != nil {
		t.Fatal(err)
	}
	console := httptest.NewServer(srv.Handler())
	t.Cleanup(console.Close)
	h := &harness{server: srv, fake: fake, console: console}
	follow := h.dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=1&tailLines=10")
	follow.textUntil(t, "first line", 5*time.Second)
	resp, err := http.Get(console.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "upstream streams") {
		t.Errorf("second stream: %d %s, want a 503 naming the limit", resp.StatusCode, body)
	}
	// Ending the follow gives its slot back.
	_ = follow.ws.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(console.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the follow ended, a download still gets %d: the slot was not given back", resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A log download whose upstream never answers holds its stream slot no
// longer than a page would wait.
func TestAHungLogDownloadEndsAtThePageDeadline(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	fake.Override("/api/v1/namespaces/demo/pods/web-1/log", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	h := newConsoleWithTimeout(t, fake, 300*time.Millisecond, "dev")
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(h.console.URL + "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1")
	if err != nil {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("status %d, want 504", resp.StatusCode)
	}
}
