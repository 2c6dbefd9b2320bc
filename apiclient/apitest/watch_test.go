package apitest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

type event struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

func (e event) name() string {
	if rows, ok := e.Object["rows"].([]any); ok && len(rows) == 1 {
		return rows[0].(map[string]any)["cells"].([]any)[0].(string)
	}
	md, _ := e.Object["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

func (e event) rv() string {
	md, _ := e.Object["metadata"].(map[string]any)
	v, _ := md["resourceVersion"].(string)
	return v
}

// watchConn reads a watch stream's events in the background.
type watchConn struct {
	t *testing.T
	// events carries the events in order and is closed when the stream
	// ends, after its last event, so that a reader sees every event before
	// the end (two channels, one for events and one for the end, would let
	// a select take the end first when both are ready).
	events chan event
	err    error // why the stream ended (nil for a clean end), set before events is closed
	cancel context.CancelFunc
	header http.Header
}

func openWatch(t *testing.T, s *apitest.Server, path, accept string) *watchConn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("watch %s: %d %s", path, resp.StatusCode, body)
	}
	wc := &watchConn{t: t, events: make(chan event, 100), cancel: cancel, header: resp.Header}
	go func() {
		defer resp.Body.Close()
		defer close(wc.events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var e event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				wc.err = err
				return
			}
			wc.events <- e
		}
		wc.err = sc.Err()
	}()
	return wc
}

func (wc *watchConn) next() event {
	wc.t.Helper()
	select {
	case e, open := <-wc.events:
		if !open {
			wc.t.Fatalf("stream ended (%v) while waiting for an event", wc.err)
		}
		return e
	case <-time.After(5 * time.Second):
		wc.t.Fatal("no event within 5s")
	}
	return event{}
}

// ended waits for the stream to end and returns the read error (nil for a
// clean end).
func (wc *watchConn) ended() error {
	wc.t.Helper()
	select {
	case e, open := <-wc.events:
		if open {
			wc.t.Fatalf("unexpected event %s %s", e.Type, e.name())
		}
		return wc.err
	case <-time.After(5 * time.Second):
		wc.t.Fatal("stream still open after 5s")
	}
	return nil
}

func setPhase(phase string) func(*unstructured.Unstructured) {
	return func(o *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(o.Object, phase, "status", "phase")
	}
}

func setLabel(value string) func(*unstructured.Unstructured) {
	return func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"app": value}) }
}

func TestWatchJSON(t *testing.T) {
	s := seeded(t, apitest.Options{})
	wc := openWatch(t, s, "/api/v1/namespaces/demo/pods?watch=1&labelSelector=app%3Dweb", "application/json")
	for _, want := range []string{"web-a", "web-b", "web-c", "web-d", "web-e"} {
		if e := wc.next(); e.Type != "ADDED" || e.name() != want || e.Object["kind"] != "Pod" {
			t.Fatalf("initial event %s %s %v, want ADDED %s", e.Type, e.name(), e.Object["kind"], want)
		}
	}
	s.Modify(podGVK, "demo", "web-a", setPhase("Failed"))
	e := wc.next()
	if e.Type != "MODIFIED" || e.name() != "web-a" || e.Object["status"].(map[string]any)["phase"] != "Failed" || e.rv() != s.ResourceVersion() {
		t.Fatalf("got %s %s rv %s (store %s)", e.Type, e.name(), e.rv(), s.ResourceVersion())
	}
	s.Add(apitest.Pod("other", "web-y", map[string]string{"app": "web"})) // other namespace
	s.Add(apitest.Pod("demo", "db-1", map[string]string{"app": "db"}))    // not selected
	// The next event is the deletion: neither addition was sent.
	s.Delete(podGVK, "demo", "web-b")
	if e := wc.next(); e.Type != "DELETED" || e.name() != "web-b" || e.rv() != s.ResourceVersion() {
		t.Fatalf("got %s %s rv %s", e.Type, e.name(), e.rv())
	}
	// Out of the selector: DELETED; into it: ADDED.
	s.Modify(podGVK, "demo", "web-c", setLabel("db"))
	if e := wc.next(); e.Type != "DELETED" || e.name() != "web-c" || e.rv() != s.ResourceVersion() {
		t.Fatalf("moved out: %s %s rv %s", e.Type, e.name(), e.rv())
	}
	s.Modify(podGVK, "demo", "db-0", setLabel("web"))
	if e := wc.next(); e.Type != "ADDED" || e.name() != "db-0" {
		t.Fatalf("moved in: %s %s", e.Type, e.name())
	}
	// Update replaces the object and keeps its UID.
	pod := apitest.Pod("demo", "web-d", map[string]string{"app": "web"})
	pod.SetUID("")
	s.Update(pod)
	if e := wc.next(); e.Type != "MODIFIED" || e.Object["metadata"].(map[string]any)["uid"] != string(apitest.UIDFor("Pod", "demo", "web-d")) {
		t.Fatalf("update: %s %v", e.Type, e.Object["metadata"])
	}
}

func TestWatchRepresentations(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       apitest.Options
		accept     string
		wantKind   string
		wantAPI    string
		wantHeader bool // the first event carries columnDefinitions
	}{
		{"Table v1", apitest.Options{}, kubectlTableAccept, "Table", "meta.k8s.io/v1", true},
		{"Table v1beta1", apitest.Options{Table: apitest.TableV1Beta1Only}, kubectlTableAccept, "Table", "meta.k8s.io/v1beta1", true},
		{"no Tables", apitest.Options{Table: apitest.TableNone}, kubectlTableAccept, "Pod", "v1", false},
		{"PartialObjectMetadata", apitest.Options{}, apitest.PartialMediaType + ",application/json", "PartialObjectMetadata", "meta.k8s.io/v1", false},
		{"PartialObjectMetadata ignored", apitest.Options{NoPartialMetadata: true}, apitest.PartialMediaType + ",application/json", "Pod", "v1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seeded(t, tc.opts)
			wc := openWatch(t, s, "/api/v1/namespaces/demo/pods?watch=true&fieldSelector=metadata.name%3Dweb-a", tc.accept)
			if ct := wc.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			first := wc.next()
			s.Modify(podGVK, "demo", "web-a", setPhase("Succeeded"))
			second := wc.next()
			for i, e := range []event{first, second} {
				if e.Object["kind"] != tc.wantKind || e.Object["apiVersion"] != tc.wantAPI || e.name() != "web-a" {
					t.Fatalf("event %d: %v %v %s", i, e.Object["apiVersion"], e.Object["kind"], e.name())
				}
			}
			if tc.wantKind != "Table" {
				return
			}
			cols, _ := first.Object["columnDefinitions"].([]any)
			if len(cols) != 7 || second.Object["columnDefinitions"] != nil {
				t.Errorf("columns: first %d, second %v", len(cols), second.Object["columnDefinitions"])
			}
			row := second.Object["rows"].([]any)[0].(map[string]any)
			if row["cells"].([]any)[2] != "Succeeded" || row["object"].(map[string]any)["kind"] != "PartialObjectMetadata" {
				t.Errorf("row = %v", row)
			}
			if second.rv() != s.ResourceVersion() {
				t.Errorf("Table resourceVersion %q, want %s", second.rv(), s.ResourceVersion())
			}
		})
	}
	s := seeded(t, apitest.Options{Table: apitest.TableNotAcceptable})
	if a := get(t, s, "/api/v1/pods?watch=1", kubectlTableAccept); a.code != http.StatusNotAcceptable {
		t.Errorf("406 server: %d", a.code)
	}
	if a := get(t, s, "/apis/policy.example.com/v1/sessions?watch=1", ""); a.code != http.StatusMethodNotAllowed {
		t.Errorf("resource without watch: %d", a.code)
	}
}

func TestWatchResumeAndExpiry(t *testing.T) {
	s := seeded(t, apitest.Options{})
	rv := s.ResourceVersion()
	s.Modify(podGVK, "demo", "web-a", setPhase("Failed"))
	s.Modify(podGVK, "other", "web-z", setPhase("Failed"))
	wc := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion="+rv, "")
	if a, b := wc.next(), wc.next(); a.name() != "web-a" || b.name() != "web-z" || a.Type != "MODIFIED" {
		t.Fatalf("replayed %s %s, %s %s", a.Type, a.name(), b.Type, b.name())
	}

	s.ExpireWatchHistory()
	now := s.ResourceVersion()
	expired := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion=1", "")
	e := expired.next()
	want := "too old resource version: 1 (" + now + ")"
	if e.Type != "ERROR" || e.Object["kind"] != "Status" || e.Object["code"] != float64(410) || e.Object["reason"] != "Expired" || e.Object["message"] != want {
		t.Fatalf("expired watch: %s %v", e.Type, e.Object)
	}
	if err := expired.ended(); err != nil {
		t.Errorf("expired watch ended with %v", err)
	}
	// The open watch goes on with nothing after the replay but this change,
	// and the current version is still good.
	s.Modify(podGVK, "demo", "web-e", setPhase("Failed"))
	if e := wc.next(); e.name() != "web-e" {
		t.Fatalf("open watch: %s", e.name())
	}
	fresh := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion="+now, "")
	if e := fresh.next(); e.name() != "web-e" {
		t.Fatalf("watch from the compaction point: %s %s", e.Type, e.name())
	}
}

func TestWatchBookmarks(t *testing.T) {
	s := seeded(t, apitest.Options{})
	rv := s.ResourceVersion()
	with := openWatch(t, s, "/api/v1/namespaces/demo/pods?watch=1&allowWatchBookmarks=true&resourceVersion="+rv, kubectlTableAccept)
	without := openWatch(t, s, "/api/v1/namespaces/demo/pods?watch=1&resourceVersion="+rv, "")
	s.Add(apitest.Pod("other", "x", nil)) // not in demo: moves the version only
	s.SendBookmarks()
	e := with.next()
	if e.Type != "BOOKMARK" || e.rv() != s.ResourceVersion() || e.Object["kind"] != "Table" || e.Object["columnDefinitions"] == nil {
		t.Fatalf("bookmark: %s rv %s %v", e.Type, e.rv(), e.Object)
	}
	// A change after the bookmark is the next event of the watch that did
	// not allow bookmarks: it got none.
	s.Modify(podGVK, "demo", "web-a", setPhase("Failed"))
	if e := without.next(); e.Type != "MODIFIED" || e.name() != "web-a" {
		t.Fatalf("without bookmarks: %s %s", e.Type, e.name())
	}

	periodic := seeded(t, apitest.Options{BookmarkInterval: 20 * time.Millisecond})
	wc := openWatch(t, periodic, "/api/v1/namespaces/demo/pods?watch=1&allowWatchBookmarks=1&resourceVersion="+periodic.ResourceVersion(), "application/json")
	if e := wc.next(); e.Type != "BOOKMARK" || e.Object["kind"] != "Pod" || e.rv() != periodic.ResourceVersion() {
		t.Fatalf("periodic bookmark: %s %v", e.Type, e.Object)
	}
}

func TestWatchFieldSelectors(t *testing.T) {
	s := seeded(t, apitest.Options{})
	pod := apitest.Pod("demo", "web-a", nil)
	uid := string(apitest.UID(pod))
	wc := openWatch(t, s, "/api/v1/events?watch=1&fieldSelector=involvedObject.uid%3D"+uid, "")
	s.Add(apitest.Event("web-a.1", pod, apitest.EventSpec{Type: "Normal", Reason: "Pulled", First: time.Now()}))
	s.Add(apitest.Event("db-0.1", apitest.Pod("demo", "db-0", nil), apitest.EventSpec{Type: "Normal", Reason: "Pulled", First: time.Now()}))
	if e := wc.next(); e.name() != "web-a.1" {
		t.Fatalf("got %s", e.name())
	}
	// The next event is web-a's second: db-0's was not sent.
	s.Add(apitest.Event("web-a.2", pod, apitest.EventSpec{Type: "Normal", Reason: "Started", First: time.Now()}))
	if e := wc.next(); e.name() != "web-a.2" {
		t.Fatalf("got %s, want web-a.2", e.name())
	}
	byNS := openWatch(t, s, "/api/v1/pods?watch=1&fieldSelector=metadata.namespace%3Dother", "")
	if e := byNS.next(); e.name() != "web-z" {
		t.Fatalf("got %s", e.name())
	}
	// After the initial ADDED events comes this change: web-z was the only one.
	s.Modify(podGVK, "other", "web-z", setPhase("Failed"))
	if e := byNS.next(); e.Type != "MODIFIED" || e.name() != "web-z" {
		t.Fatalf("got %s %s, want MODIFIED web-z", e.Type, e.name())
	}
	if a := get(t, s, "/api/v1/pods?watch=1&fieldSelector=spec.bogus%3Dx", ""); a.code != http.StatusBadRequest {
		t.Errorf("unsupported field: %d", a.code)
	}
}

func TestCloseWatchesAndOpenWatches(t *testing.T) {
	s := seeded(t, apitest.Options{})
	a := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion="+s.ResourceVersion(), "")
	b := openWatch(t, s, "/api/v1/namespaces/demo/pods?watch=1&resourceVersion="+s.ResourceVersion(), "")
	if n := s.OpenWatches(); n != 2 {
		t.Fatalf("OpenWatches = %d", n)
	}
	s.CloseWatches()
	for _, wc := range []*watchConn{a, b} {
		if err := wc.ended(); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut stream ended with %v, want unexpected EOF", err)
		}
	}
	if !s.AwaitOpenWatches(0, 5*time.Second) {
		t.Fatalf("OpenWatches = %d after the cut", s.OpenWatches())
	}
	c := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion="+s.ResourceVersion(), "")
	c.cancel()
	if !s.AwaitOpenWatches(0, 5*time.Second) {
		t.Fatalf("OpenWatches = %d after the client left", s.OpenWatches())
	}
}

func TestCloseEndsStreams(t *testing.T) {
	s := seeded(t, apitest.Options{})
	wc := openWatch(t, s, "/api/v1/pods?watch=1&resourceVersion="+s.ResourceVersion(), "")
	resp, err := s.Client().Get(s.URL + "/api/v1/namespaces/demo/pods/web-a/log?follow=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on open streams")
	}
	if err := wc.ended(); err != nil {
		t.Errorf("watch ended with %v, want a clean end", err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("log ended with %v, want a clean end", err)
	}
}

func readAll(t *testing.T, s *apitest.Server, path string) (int, string) {
	t.Helper()
	resp, err := s.Client().Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestLogs(t *testing.T) {
	s := seeded(t, apitest.Options{})
	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s.AppendLogAt("demo", "web-a", "app", t1, "one", "two\nthree")
	s.AppendLog("demo", "web-a", "app", "four")
	const path = "/api/v1/namespaces/demo/pods/web-a/log"
	for _, tc := range []struct{ query, want string }{
		{"", "one\ntwo\nthree\nfour\n"},
		{"?container=app&tailLines=2", "three\nfour\n"},
		{"?tailLines=0", ""},
		{"?sinceSeconds=60", "four\n"},
		{"?limitBytes=6", "one\ntw"},
		{"?timestamps=true&tailLines=3&sinceSeconds=999999999", "2026-03-01T10:00:00.000000000Z two\n2026-03-01T10:00:00.000000000Z three\n"},
	} {
		code, body := readAll(t, s, path+tc.query)
		if tc.query == "?timestamps=true&tailLines=3&sinceSeconds=999999999" {
			// The last line has the time of AppendLog: check its shape only.
			lines := strings.SplitAfter(body, "\n")
			if len(lines) != 4 || !strings.HasSuffix(lines[2], " four\n") {
				t.Errorf("timestamps: %q", body)
			}
			if _, err := time.Parse(time.RFC3339Nano, strings.Fields(lines[2])[0]); err != nil {
				t.Errorf("timestamp: %v", err)
			}
			body = lines[0] + lines[1]
		}
		if code != 200 || body != tc.want {
			t.Errorf("%s: %d %q, want %q", tc.query, code, body, tc.want)
		}
	}
	for _, tc := range []struct {
		path, msg string
		code      int
	}{
		{path + "?container=nope", "container nope is not valid for pod web-a", 400},
		{"/api/v1/namespaces/demo/pods/missing/log", `pods "missing" not found`, 404},
		{path + "?previous=true", `previous terminated container "app" in pod "web-a" not found`, 400},
		{path + "?tailLines=-1", "tailLines: Invalid value", 400},
	} {
		a := get(t, s, tc.path, "")
		if a.code != tc.code || !strings.Contains(a.body["message"].(string), tc.msg) || a.body["kind"] != "Status" {
			t.Errorf("%s: %d %v", tc.path, a.code, a.body)
		}
	}
	two := apitest.Pod("demo", "two", nil)
	_ = unstructured.SetNestedSlice(two.Object, []any{map[string]any{"name": "app"}, map[string]any{"name": "sidecar"}}, "spec", "containers")
	_ = unstructured.SetNestedSlice(two.Object, []any{map[string]any{"name": "init"}}, "spec", "initContainers")
	s.Add(two)
	if a := get(t, s, "/api/v1/namespaces/demo/pods/two/log", ""); a.code != 400 || a.body["message"] != "a container name must be specified for pod two, choose one of: [app sidecar] or one of the init containers: [init]" {
		t.Errorf("no container: %d %v", a.code, a.body["message"])
	}
	if code, _ := readAll(t, s, "/api/v1/namespaces/demo/pods/two/log?container=init"); code != 200 {
		t.Errorf("init container: %d", code)
	}

	s.RestartLog("demo", "web-a", "app")
	if code, body := readAll(t, s, path+"?previous=1&tailLines=1"); code != 200 || body != "four\n" {
		t.Errorf("previous: %d %q", code, body)
	}
	if code, body := readAll(t, s, path); code != 200 || body != "" {
		t.Errorf("after restart: %d %q", code, body)
	}
}

func TestLogFollow(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.AppendLog("demo", "web-a", "app", "old")
	resp, err := s.Client().Get(s.URL + "/api/v1/namespaces/demo/pods/web-a/log?follow=true&tailLines=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("Content-Type %q", ct)
	}
	r := bufio.NewReader(resp.Body)
	readLine := func() string {
		t.Helper()
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return line
	}
	if l := readLine(); l != "old\n" {
		t.Fatalf("got %q", l)
	}
	s.AppendLog("demo", "web-a", "app", "new 1", "new 2")
	if l := readLine() + readLine(); l != "new 1\nnew 2\n" {
		t.Fatalf("got %q", l)
	}
	s.EndLog("demo", "web-a", "app")
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Fatalf("after EndLog: %q %v", rest, err)
	}

	// A restart ends the stream that follows the old container.
	s.AppendLog("demo", "web-a", "app", "again")
	resp2, err := s.Client().Get(s.URL + "/api/v1/namespaces/demo/pods/web-a/log?follow=1&tailLines=0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	s.RestartLog("demo", "web-a", "app")
	if rest, err := io.ReadAll(resp2.Body); err != nil || len(rest) != 0 {
		t.Fatalf("after restart: %q %v", rest, err)
	}
}
