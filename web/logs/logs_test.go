package logs_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

func TestLogPageOffersTheControlsInItsURL(t *testing.T) {
	h := webtest.PodLogs(t)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?tailLines=50&since=10m&timestamps=1&wrap=1&q=orders", http.StatusOK)
	doc := webtest.Parse(t, body)
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

	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log", http.StatusOK)
	if _, on := webtest.Parse(t, body).Find("[data-testid=log-follow]").Attr("checked"); !on {
		t.Error("a first visit does not follow")
	}
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?since=soon", http.StatusBadRequest)
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/nope/log", http.StatusNotFound)
}

// A followed pod log streams the tail, then lines as they are written.
func TestLogStreamFollowsOnePod(t *testing.T) {
	h := webtest.PodLogs(t)
	c := h.Dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=1&tailLines=1")
	got := c.TextUntil(t, "slow query", 5*time.Second)
	if strings.Contains(got, "orders") {
		t.Fatalf("tailLines=1 sent %q", got)
	}
	if !strings.HasPrefix(got, "2026-11-21T10:00:01") {
		t.Fatalf("lines carry no timestamp: %q", got)
	}
	h.Fake.AppendLog("demo", "web-1", "app", "a fresh line")
	c.TextUntil(t, "a fresh line\n", 5*time.Second)
}

// Without follow, the stream ends with a normal close once the log is sent.
func TestLogStreamWithoutFollowClosesNormally(t *testing.T) {
	h := webtest.PodLogs(t)
	c := h.Dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?tailLines=all", "channel.k8s.io")
	c.TextUntil(t, "slow query", 5*time.Second)
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := c.Conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("end of stream: %v", err)
	}
}

// A Deployment's log merges its pods' lines by time, each with its source.
func TestLogStreamMergesAWorkloadsPodsByTime(t *testing.T) {
	h := webtest.PodLogs(t)
	c := h.Dial(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log?tailLines=all")
	got := c.TextUntil(t, "slow query", 5*time.Second)
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
	h := webtest.PodLogs(t)
	c := h.Dial(t, "/c/dev/logs/demo?labelSelector=app%3Dweb&follow=1&tailLines=all")
	c.TextUntil(t, "slow query", 5*time.Second)
	h.Fake.Add(apitest.Pod("demo", "web-9", map[string]string{"app": "web"}))
	h.Fake.AppendLog("demo", "web-9", "app", "hello from the new pod")
	c.TextUntil(t, "web-9/app\t", 10*time.Second)
}

func TestLogDownloadStreamsAFile(t *testing.T) {
	h := webtest.PodLogs(t)
	resp, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1&tailLines=all", http.StatusOK)
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=web-1-app.log` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if body != "GET /api/orders 200\nlevel=warn msg=\"slow query\"\n" {
		t.Errorf("body %q", body)
	}
	resp, body = h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log?download=1&tailLines=all&timestamps=1", http.StatusOK)
	if !strings.Contains(resp.Header.Get("Content-Disposition"), "deployment-web.log") {
		t.Errorf("Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	if want := "web-2/app 2026-11-21T10:00:00.5"; !strings.Contains(body, want) || strings.Count(body, "\n") != 3 {
		t.Errorf("merged download %q lacks %q", body, want)
	}
	// An unknown container fails before any byte is sent: a real error page.
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?download=1&container=nope", http.StatusBadRequest)
}

func TestSelectorLogsNeedASelector(t *testing.T) {
	h := webtest.PodLogs(t)
	_, body := h.Get(t, "/c/dev/logs/demo", http.StatusBadRequest)
	if !strings.Contains(body, "label selector") {
		t.Errorf("body lacks the reason: %s", body)
	}
	_, body = h.Get(t, "/c/dev/logs/demo?labelSelector=app%3Dweb", http.StatusOK)
	if !strings.Contains(body, `data-multi="true"`) {
		t.Error("not a merged log page")
	}
}

// A merged log lists a bounded number of pods, and says so when more match.
func TestMergedLogsListABoundedNumberOfPods(t *testing.T) {
	h := webtest.New(t)
	for i := range 101 {
		h.Fake.Add(apitest.Pod("crowd", fmt.Sprintf("member-%03d", i), map[string]string{"app": "crowd"}))
	}
	h.Fake.ResetRequests()
	_, body := h.Get(t, "/c/dev/logs/crowd?labelSelector=app%3Dcrowd", http.StatusOK)
	if !strings.Contains(body, "More than 100 pods match") {
		t.Error("the page does not say that more pods match than it reads")
	}
	for _, r := range h.Fake.Requests() {
		if strings.HasSuffix(r.URL.Path, "/pods") && r.URL.Query().Get("limit") != "100" {
			t.Errorf("pods listed with limit %q, want 100", r.URL.Query().Get("limit"))
		}
	}
}

// follow=true, the API's own spelling, follows as follow=1 does.
func TestLogStreamFollowsWithTheAPIsSpelling(t *testing.T) {
	h := webtest.PodLogs(t)
	c := h.Dial(t, "/c/dev/api/v1/namespaces/demo/pods/web-1/log?follow=true&tailLines=10")
	c.TextUntil(t, "slow query", 5*time.Second)
	h.Fake.AppendLog("demo", "web-1", "app", "appended while following")
	c.TextUntil(t, "appended while following", 5*time.Second)
}
