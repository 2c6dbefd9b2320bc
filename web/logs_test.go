package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

func logHarness(t *testing.T) *harness {
	t.Helper()
	h := liveHarness(t)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	h.fake.AppendLogAt("demo", "web-1", "app", at, "GET /api/orders 200")
	h.fake.AppendLogAt("demo", "web-1", "app", at.Add(time.Second), "level=warn msg=\"slow query\"")
	h.fake.AppendLogAt("demo", "web-2", "app", at.Add(500*time.Millisecond), "GET /healthz 200")
	return h
}

// text reads channel-1 text until it holds want or the stream closes.
func (c *wsClient) textUntil(t *testing.T, want string, timeout time.Duration) string {
	t.Helper()
	var got strings.Builder
	deadline := time.Now().Add(timeout)
	for !strings.Contains(got.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", want, got.String())
		}
		ch, payload := c.frame(time.Until(deadline))
		switch ch {
		case 1:
			got.Write(payload)
		case 2:
			t.Logf("diagnostics: %s", payload)
		case 3:
			t.Fatalf("status: %s", payload)
		}
	}
	return got.String()
}

func TestLogPageOffersTheControlsInItsURL(t *testing.T) {
	h := logHarness(t)
	_, body := h.get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?tailLines=50&since=10m&timestamps=1&wrap=1&q=orders", http.StatusOK)
	doc := parse(t, body)
	checks := map[string]string{
		"[data-testid=log-tail]":   "50",
		"[data-testid=log-since]":  "10m0s",
		"[data-testid=log-search]": "orders",
		"[data-testid=log-max]":    "5000",
	}
	for sel, want := range checks {
		if got := doc.Find(sel).AttrOr("value", ""); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if _, on := doc.Find("[data-testid=log-follow]").Attr("checked"); on {
		t.Error("follow is checked although the submitted form left it off")
	}
	if _, on := doc.Find("[data-testid=log-timestamps]").Attr("checked"); !on {
		t.Error("timestamps is not checked")
	}
	if got := doc.Find("[data-testid=log-container] option[selected]").Text(); got != "app" {
		t.Errorf("container = %q", got)
	}
	if href := doc.Find("[data-testid=log-download]").AttrOr("href", ""); !strings.Contains(href, "download=1") || !strings.Contains(href, "tailLines=50") {
		t.Errorf("download href %q", href)
	}
	out := doc.Find("[data-testid=log-output]")
	if out.AttrOr("data-live", "") != "log" || !out.HasClass("log-wrap") {
		t.Errorf("log output %v", out.Nodes)
	}

	_, body = h.get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log", http.StatusOK)
	if _, on := parse(t, body).Find("[data-testid=log-follow]").Attr("checked"); !on {
		t.Error("a first visit does not follow")
	}
	h.get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?since=soon", http.StatusBadRequest)
	h.get(t, "/c/dev/api/v1/namespaces/demo/pods/nope/log", http.StatusNotFound)
}

// A followed pod log streams the tail, then lines as they are written.
func TestLogStreamFollowsOnePod(t *testing.T) {
	h := logHarness(t)
	c := h.dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=1&tailLines=1")
	got := c.textUntil(t, "slow query", 5*time.Second)
	if strings.Contains(got, "orders") {
		t.Fatalf("tailLines=1 sent %q", got)
	}
	if !strings.HasPrefix(got, "2026-11-21T10:00:01") {
		t.Fatalf("lines carry no timestamp: %q", got)
	}
	h.fake.AppendLog("demo", "web-1", "app", "a fresh line")
	c.textUntil(t, "a fresh line\n", 5*time.Second)
}

// Without follow, the stream ends with a normal close once the log is sent.
func TestLogStreamWithoutFollowClosesNormally(t *testing.T) {
	h := logHarness(t)
	c := h.dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?tailLines=all", "channel.k8s.io")
	c.textUntil(t, "slow query", 5*time.Second)
	_ = c.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.ws.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("end of stream: %v", err)
	}
}

// A Deployment's log merges its pods' lines by time, each with its source.
func TestLogStreamMergesAWorkloadsPodsByTime(t *testing.T) {
	h := logHarness(t)
	c := h.dial(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log?tailLines=all")
	got := c.textUntil(t, "slow query", 5*time.Second)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	want := []string{"web-1/app\t", "web-2/app\t", "web-1/app\t"}
	if len(lines) != 3 {
		t.Fatalf("merged %q", got)
	}
	for i, prefix := range want {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], prefix)
		}
	}
}

// Pods that start while a merged log is followed join it.
func TestFollowedMergedLogTakesNewPods(t *testing.T) {
	h := logHarness(t)
	c := h.dial(t, "/c/dev/logs/demo?labelSelector=app%3Dweb&follow=1&tailLines=all")
	c.textUntil(t, "slow query", 5*time.Second)
	h.fake.Add(apitest.Pod("demo", "web-9", map[string]string{"app": "web"}))
	h.fake.AppendLog("demo", "web-9", "app", "hello from the new pod")
	c.textUntil(t, "web-9/app\t", 10*time.Second)
}

func TestLogDownloadStreamsAFile(t *testing.T) {
	h := logHarness(t)
	resp, body := h.get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1&tailLines=all", http.StatusOK)
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=web-1-app.log` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if body != "GET /api/orders 200\nlevel=warn msg=\"slow query\"\n" {
		t.Errorf("body %q", body)
	}
	resp, body = h.get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log?download=1&tailLines=all&timestamps=1", http.StatusOK)
	if !strings.Contains(resp.Header.Get("Content-Disposition"), "deployment-web.log") {
		t.Errorf("Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	if want := "web-2/app 2026-11-21T10:00:00.5"; !strings.Contains(body, want) || strings.Count(body, "\n") != 3 {
		t.Errorf("merged download %q lacks %q", body, want)
	}
	// An unknown container fails before any byte is sent: a real error page.
	h.get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1&container=nope", http.StatusBadRequest)
}

func TestSelectorLogsNeedASelector(t *testing.T) {
	h := logHarness(t)
	_, body := h.get(t, "/c/dev/logs/demo", http.StatusBadRequest)
	if !strings.Contains(body, "label selector") {
		t.Errorf("body lacks the reason: %s", body)
	}
	_, body = h.get(t, "/c/dev/logs/demo?labelSelector=app%3Dweb", http.StatusOK)
	if !strings.Contains(body, `data-multi="true"`) {
		t.Error("not a merged log page")
	}
}

// A merged log lists a bounded number of pods, and says so when more match.
func TestMergedLogsListABoundedNumberOfPods(t *testing.T) {
	h := newHarness(t)
	for i := range 101 {
		h.fake.Add(apitest.Pod("crowd", fmt.Sprintf("member-%03d", i), map[string]string{"app": "crowd"}))
	}
	h.fake.ResetRequests()
	_, body := h.get(t, "/c/dev/logs/crowd?labelSelector=app%3Dcrowd", http.StatusOK)
	if !strings.Contains(body, "More than 100 pods match") {
		t.Error("the page does not say that more pods match than it reads")
	}
	for _, r := range h.fake.Requests() {
		if strings.HasSuffix(r.URL.Path, "/pods") && r.URL.Query().Get("limit") != "100" {
			t.Errorf("pods listed with limit %q, want 100", r.URL.Query().Get("limit"))
		}
	}
}

// follow=true, the API's own spelling, follows as follow=1 does.
func TestLogStreamFollowsWithTheAPIsSpelling(t *testing.T) {
	h := logHarness(t)
	c := h.dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=true&tailLines=10")
	c.textUntil(t, "slow query", 5*time.Second)
	h.fake.AppendLog("demo", "web-1", "app", "appended while following")
	c.textUntil(t, "appended while following", 5*time.Second)
}
