package apitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

const podPath = "/api/v1/namespaces/demo/pods/web"

// dial opens an exec or attach socket as a raw WebSocket client.
func dial(t *testing.T, s *apitest.Server, sub string, q url.Values, protocols ...string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{
		TLSClientConfig:  s.Client().Transport.(*http.Transport).TLSClientConfig,
		Subprotocols:     protocols,
		HandshakeTimeout: 10 * time.Second,
	}
	conn, resp, err := d.Dial("wss"+strings.TrimPrefix(s.URL, "https")+podPath+"/"+sub+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func sendFrame(t *testing.T, conn *websocket.Conn, channel byte, data string) {
	t.Helper()
	if err := conn.WriteMessage(websocket.BinaryMessage, append([]byte{channel}, data...)); err != nil {
		t.Fatal(err)
	}
}

// readUntil reads frames until stdout ends with want; it returns stdout.
func readUntil(t *testing.T, conn *websocket.Conn, want string) string {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out strings.Builder
	for !strings.HasSuffix(out.String(), want) {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("reading for %q: %v; got %q", want, err, out.String())
		}
		if len(msg) > 0 && msg[0] == 1 {
			out.Write(msg[1:])
		}
	}
	return out.String()
}

// readEnd reads frames up to the end: the channel-3 Status and the close.
func readEnd(t *testing.T, conn *websocket.Conn) (string, metav1.Status) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out strings.Builder
	var st metav1.Status
	for {
		_, msg, err := conn.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure {
			return out.String(), st
		}
		if err != nil {
			t.Fatalf("reading: %v; got %q", err, out.String())
		}
		switch {
		case len(msg) > 0 && (msg[0] == 1 || msg[0] == 2):
			out.Write(msg[1:])
		case len(msg) > 0 && msg[0] == 3:
			if err := json.Unmarshal(msg[1:], &st); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func execQuery(tty bool, command ...string) url.Values {
	q := url.Values{"stdin": {"true"}, "stdout": {"true"}, "command": command}
	if tty {
		q.Set("tty", "true")
	} else {
		q.Set("stderr", "true")
	}
	return q
}

func TestExecV4AndTheTerminal(t *testing.T) {
	s := writable(t, apitest.Options{})
	conn := dial(t, s, "exec", execQuery(true, "/bin/bash"), apitest.ExecProtocolV4)
	if conn.Subprotocol() != apitest.ExecProtocolV4 {
		t.Fatalf("protocol %q", conn.Subprotocol())
	}
	readUntil(t, conn, apitest.ExecPrompt)
	// Backspace erases, Enter is "\r".
	sendFrame(t, conn, 0, "echo hj\x7fi\r")
	if got := readUntil(t, conn, "hi\r\n"+apitest.ExecPrompt); got != "echo hj\b \bi\r\nhi\r\n"+apitest.ExecPrompt {
		t.Errorf("terminal shows %q", got)
	}
	// ^C drops the line; v4 has no CLOSE signal, so [255, 0] is nothing.
	sendFrame(t, conn, 0, "half a line\x03")
	readUntil(t, conn, "^C\r\n"+apitest.ExecPrompt)
	sendFrame(t, conn, 255, "\x00")
	// ^U kills a line. What web/exec types into a shell the browser left
	// (^C, ^U, exit) ends it, with the status ^C left.
	sendFrame(t, conn, 0, "ab\x15")
	readUntil(t, conn, "ab\b \b\b \b")
	sendFrame(t, conn, 0, "sleep 1000\x03\x15exit\n")
	_, st := readEnd(t, conn)
	if st.Status != metav1.StatusFailure || st.Reason != "NonZeroExitCode" || st.Details == nil || st.Details.Causes[0].Message != "130" {
		t.Errorf("status %+v", st)
	}
	e := s.ExecSessions()[0]
	if e.End != apitest.ExecExited || e.ExitCode != 130 || e.StdinClosed || e.Protocol != apitest.ExecProtocolV4 {
		t.Errorf("session %+v", e)
	}
}

func TestExecCatOnATerminal(t *testing.T) {
	s := writable(t, apitest.Options{})
	conn := dial(t, s, "exec", execQuery(true, "cat"), apitest.ExecProtocolV5)
	sendFrame(t, conn, 0, "abc\r")
	if got := readUntil(t, conn, "abc\r\nabc\r\n"); got != "abc\r\nabc\r\n" {
		t.Errorf("terminal shows %q", got) // the echo, then cat's line
	}
	sendFrame(t, conn, 0, "\x04") // ^D on an empty line: end of input
	if _, st := readEnd(t, conn); st.Status != metav1.StatusSuccess {
		t.Errorf("status %+v", st)
	}
}

func TestExecCommands(t *testing.T) {
	s := writable(t, apitest.Options{Exec: apitest.ExecOptions{Kwok: true}})
	for _, tc := range []struct {
		command []string
		out     string
		code    string // "" for Success
	}{
		{[]string{"echo", "one", "two"}, "one two\n", ""},
		{[]string{"false"}, "", "exit status 1"},
		{[]string{"sh", "-c", `echo "a;b" 'c  d'; pwd; exit 300`}, "a;b c  d\n" + apitest.ExecWorkDir + "\n", "exit status 44"},
		{[]string{"sh", "-c", "stty size; nope"}, "0 0\nsh: nope: not found\n", "exit status 127"},
	} {
		conn := dial(t, s, "exec", execQuery(false, tc.command...), apitest.ExecProtocolV5)
		out, st := readEnd(t, conn)
		if out != tc.out {
			t.Errorf("%q: output %q, want %q", tc.command, out, tc.out)
		}
		if tc.code == "" && st.Status != metav1.StatusSuccess ||
			tc.code != "" && (st.Reason != metav1.StatusReasonInternalError || !strings.HasSuffix(st.Message, ": "+tc.code)) {
			t.Errorf("%q: status %+v, want kwok's %q", tc.command, st, tc.code)
		}
	}
}

func TestExecSessionsDroppedOnClose(t *testing.T) {
	s := writable(t, apitest.Options{})
	conn := dial(t, s, "attach", url.Values{"stdin": {"1"}, "stdout": {"1"}, "tty": {"1"}, "container": {"app"}}, apitest.ExecProtocolV5)
	sendFrame(t, conn, 4, `{"Width":80,"Height":24}`)
	sendFrame(t, conn, 0, "stty size\r")
	readUntil(t, conn, "24 80\r\n"+apitest.ExecPrompt)
	s.Close() // waits for the session
	e := s.ExecSessions()[0]
	if e.End != apitest.ExecDropped || !e.Attach || e.Command != nil || !slices.Equal(e.Resizes, []apitest.TerminalSize{{Width: 80, Height: 24}}) {
		t.Errorf("session %+v", e)
	}
}

func TestWaitExecEndsWithItsContext(t *testing.T) {
	s := writable(t, apitest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := s.WaitExec(ctx, func([]apitest.ExecSession) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v", err)
	}
}

func TestExecRefusalsBeforeTheUpgrade(t *testing.T) {
	s := writable(t, apitest.Options{})
	q := execQuery(false, "sh").Encode()
	// Not an upgrade at all, and SPDY, which the fake does not speak.
	wantStatus(t, send(t, s, http.MethodPost, podPath+"/exec?"+q, "", ""), http.StatusBadRequest, metav1.StatusReasonBadRequest, "Upgrade request required")
	req, _ := http.NewRequest(http.MethodPost, s.URL+podPath+"/exec?"+q, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("SPDY: %d", resp.StatusCode)
	}
	wantStatus(t, send(t, s, http.MethodPost, podPath+"/exec?stdout=1", "", ""), http.StatusBadRequest, metav1.StatusReasonBadRequest, "at least one command")
	wantStatus(t, send(t, s, http.MethodPost, podPath+"/attach?container=app", "", ""), http.StatusBadRequest, metav1.StatusReasonBadRequest, "at least 1 of stdin, stdout, stderr")
	wantStatus(t, send(t, s, http.MethodPut, podPath+"/exec?"+q, "", ""), http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "")

	// A WebSocket offering no protocol the fake speaks, and a server that
	// fails every upgrade: a bare 403, as a runtime's handshake answers.
	d := websocket.Dialer{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig, Subprotocols: []string{"channel.k8s.io"}}
	u := "wss" + strings.TrimPrefix(s.URL, "https") + podPath + "/exec?" + q
	if _, resp, err := d.Dial(u, nil); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("unknown protocol: %v %v", err, resp)
	}
	s.SetOptions(apitest.Options{Exec: apitest.ExecOptions{NoWebSocket: true}})
	d.Subprotocols = []string{apitest.ExecProtocolV5}
	if _, resp, err := d.Dial(u, nil); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("NoWebSocket: %v %v", err, resp)
	}
	if n := len(s.ExecSessions()); n != 0 {
		t.Errorf("%d sessions", n)
	}
}

func TestExecDiscovery(t *testing.T) {
	aggregated := apitest.AggregatedDiscoveryMediaType + ",application/json"
	subresources := func(s *apitest.Server) (agg, legacy []string) {
		a := get(t, s, "/api", aggregated)
		for _, r := range nested(a.body["items"].([]any)[0].(map[string]any), "versions").([]any)[0].(map[string]any)["resources"].([]any) {
			if r.(map[string]any)["resource"] == "pods" {
				for _, sub := range r.(map[string]any)["subresources"].([]any) {
					agg = append(agg, sub.(map[string]any)["subresource"].(string))
				}
			}
		}
		for _, r := range get(t, s, "/api/v1", "application/json").body["resources"].([]any) {
			if name := r.(map[string]any)["name"].(string); strings.HasPrefix(name, "pods/") {
				legacy = append(legacy, strings.TrimPrefix(name, "pods/"))
			}
		}
		return agg, legacy
	}
	all := []string{"log", "status", "exec", "attach", "ephemeralcontainers"}
	for _, tc := range []struct {
		opts apitest.ExecOptions
		want []string
	}{
		{apitest.ExecOptions{}, all},
		{apitest.ExecOptions{NoExec: true}, []string{"log", "status", "ephemeralcontainers"}},
		{apitest.ExecOptions{NoEphemeralContainers: true}, []string{"log", "status", "exec", "attach"}},
	} {
		s := writable(t, apitest.Options{Exec: tc.opts})
		agg, legacy := subresources(s)
		if !slices.Equal(agg, tc.want) || !slices.Equal(legacy, tc.want) {
			t.Errorf("%+v: aggregated %q, legacy %q, want %q", tc.opts, agg, legacy, tc.want)
		}
		for _, sub := range slices.DeleteFunc(slices.Clone(all), func(s string) bool { return slices.Contains(tc.want, s) }) {
			if a := get(t, s, podPath+"/"+sub, "application/json"); a.code != http.StatusNotFound {
				t.Errorf("%+v: GET %s: %d", tc.opts, sub, a.code)
			}
		}
	}
}

func TestEphemeralContainersPatches(t *testing.T) {
	s := writable(t, apitest.Options{})
	path := podPath + "/ephemeralcontainers"
	rv := stored(t, s, podPath).GetResourceVersion()
	// kubectl debug's strategic merge patch (merged by name).
	a := send(t, s, http.MethodPatch, path, "application/strategic-merge-patch+json",
		`{"spec":{"ephemeralContainers":[{"name":"debugger-abc12","image":"busybox","targetContainerName":"app","stdin":true,"tty":true}]}}`)
	if a.code != http.StatusOK || nested(a.body, "status", "ephemeralContainerStatuses") != nil {
		t.Fatalf("SMP: %d %v (the answer predates the kubelet's status)", a.code, a.body)
	}
	pod := stored(t, s, path)
	statuses, _, _ := unstructured.NestedSlice(pod.Object, "status", "ephemeralContainerStatuses")
	if len(statuses) != 1 || nested(statuses[0].(map[string]any), "state", "running") == nil {
		t.Errorf("statuses %v", statuses)
	}
	if pod.GetResourceVersion() == rv {
		t.Error("resourceVersion not bumped")
	}
	// A second SMP adds; a merge patch replaces the list, guarded by resourceVersion.
	send(t, s, http.MethodPatch, path, "application/strategic-merge-patch+json", `{"spec":{"ephemeralContainers":[{"name":"debugger-two","image":"busybox"}]}}`)
	ecs, _, _ := unstructured.NestedSlice(stored(t, s, path).Object, "spec", "ephemeralContainers")
	two := slices.IndexFunc(ecs, func(ec any) bool { return ec.(map[string]any)["name"] == "debugger-two" })
	if len(ecs) != 2 || two < 0 {
		t.Fatalf("after two SMPs: %v", ecs)
	}
	wantStatus(t, send(t, s, http.MethodPatch, path, mergePatch, `{"metadata":{"resourceVersion":"`+rv+`"},"spec":{"ephemeralContainers":[]}}`),
		http.StatusConflict, metav1.StatusReasonConflict, "the object has been modified")
	wantStatus(t, send(t, s, http.MethodPatch, path, mergePatch, `{"spec":{"ephemeralContainers":[{"name":"debugger-two","image":"busybox"}]}}`),
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `existing ephemeral containers "debugger-abc12" may not be removed`)
	wantStatus(t, send(t, s, http.MethodPatch, path, jsonPatch, `[{"op":"replace","path":"/spec/ephemeralContainers/`+strconv.Itoa(two)+`/image","value":"alpine"}]`),
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `existing ephemeral containers "debugger-two" may not be changed`)
	// Only spec.ephemeralContainers changes through the subresource.
	send(t, s, http.MethodPatch, path, mergePatch, `{"metadata":{"labels":{"x":"y"}},"spec":{"nodeName":"elsewhere"}}`)
	if p := stored(t, s, podPath); p.GetLabels()["x"] != "" || nested(p.Object, "spec", "nodeName") != "node-1" {
		t.Errorf("the subresource changed more: %v", p.Object)
	}
	// PUT: the pod with one more.
	cur := stored(t, s, path)
	list, _, _ := unstructured.NestedSlice(cur.Object, "spec", "ephemeralContainers")
	_ = unstructured.SetNestedSlice(cur.Object, append(list, map[string]any{"name": "debugger-put", "image": "busybox"}), "spec", "ephemeralContainers")
	body, _ := json.Marshal(cur.Object)
	if a := send(t, s, http.MethodPut, path, "application/json", string(body)); a.code != http.StatusOK {
		t.Errorf("PUT: %d %v", a.code, a.body)
	}
	if ecs, _, _ := unstructured.NestedSlice(stored(t, s, path).Object, "status", "ephemeralContainerStatuses"); len(ecs) != 3 {
		t.Errorf("statuses after the PUT: %v", ecs)
	}
	// Strategic merge patches stay 415 elsewhere.
	wantStatus(t, send(t, s, http.MethodPatch, podPath, "application/strategic-merge-patch+json", `{}`),
		http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "")
}
