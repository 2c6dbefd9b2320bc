package streaming

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wsServer is an httptest server whose handler upgrades with Upgrade and
// hands the result to the test.
type wsServer struct {
	*httptest.Server
	conns chan *Conn
	errs  chan error
}

func newWSServer(t *testing.T, opts Options) *wsServer {
	t.Helper()
	s := &wsServer{conns: make(chan *Conn, 1), errs: make(chan error, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := Upgrade(w, r, opts)
		if err != nil {
			s.errs <- err
			return
		}
		s.conns <- c
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wsServer) dial(origin string, protocols ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	d := websocket.Dialer{Subprotocols: protocols, HandshakeTimeout: 10 * time.Second}
	return d.Dial("ws"+strings.TrimPrefix(s.URL, "http"), h)
}

// connect dials with the server's own origin and returns both ends, closed
// at cleanup.
func (s *wsServer) connect(t *testing.T, protocols ...string) (*websocket.Conn, *Conn) {
	t.Helper()
	client, _, err := s.dial(s.URL, protocols...)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-s.conns:
		// Cleanups run last-in first-out: the client goes first, so that
		// Close need not wait for a close reply that never comes.
		t.Cleanup(func() { c.Close(CloseNormal, "") })
		t.Cleanup(func() { client.Close() })
		return client, c
	case err = <-s.errs:
	case <-time.After(10 * time.Second):
		err = errors.New("no server conn")
	}
	client.Close()
	t.Fatal(err)
	return nil, nil
}

func (s *wsServer) refusal(t *testing.T) *UpgradeError {
	t.Helper()
	select {
	case err := <-s.errs:
		ue, ok := errors.AsType[*UpgradeError](err)
		if !ok {
			t.Fatalf("Upgrade error %T %v, want *UpgradeError", err, err)
		}
		return ue
	case <-time.After(10 * time.Second):
		t.Fatal("Upgrade did not fail")
	}
	return nil
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	if resp == nil {
		t.Fatal("no HTTP response")
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// readFrame reads one message from the client side and decodes it.
func readFrame(t *testing.T, client *websocket.Conn) (byte, []byte) {
	t.Helper()
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	typ, data, err := client.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	ch, payload, err := Decode(client.Subprotocol(), typ, data)
	if err != nil {
		t.Fatal(err)
	}
	return ch, payload
}

func waitDone(t *testing.T, c *Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("conn not done")
	}
}

func TestUpgradeNegotiatesServerPreference(t *testing.T) {
	s := newWSServer(t, Options{})
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{[]string{ProtocolChannel, ProtocolBase64Channel}, ProtocolBase64Channel},
		{[]string{"x", ProtocolV4Channel, ProtocolChannel}, ProtocolV4Channel},
		{[]string{ProtocolChannel, ProtocolV4Base64Channel}, ProtocolV4Base64Channel},
		{[]string{ProtocolChannel}, ProtocolChannel},
	} {
		client, c := s.connect(t, tc.offered...)
		if client.Subprotocol() != tc.want || c.Protocol() != tc.want {
			t.Errorf("offered %v: client got %q, server chose %q; want %q", tc.offered, client.Subprotocol(), c.Protocol(), tc.want)
		}
	}
}

func TestUpgradeRefusesUnsupportedProtocols(t *testing.T) {
	s := newWSServer(t, Options{})
	const speaks = "this endpoint speaks v4.base64.channel.k8s.io, base64.channel.k8s.io, v4.channel.k8s.io, channel.k8s.io"
	for _, tc := range []struct {
		offered []string
		want    string
	}{
		{[]string{"x", "y"}, `unsupported WebSocket subprotocol(s) "x, y"; ` + speaks},
		{nil, "no WebSocket subprotocol offered; " + speaks},
	} {
		_, resp, err := s.dial(s.URL, tc.offered...)
		if !errors.Is(err, websocket.ErrBadHandshake) {
			t.Fatalf("offered %v: dial err %v", tc.offered, err)
		}
		if resp.StatusCode != http.StatusBadRequest || body(t, resp) != tc.want {
			t.Errorf("offered %v: got %d", tc.offered, resp.StatusCode)
		}
		if ue := s.refusal(t); ue.Status != http.StatusBadRequest || ue.Message != tc.want {
			t.Errorf("offered %v: UpgradeError %+v", tc.offered, ue)
		}
	}
}

func TestUpgradeRefusesPlainRequests(t *testing.T) {
	s := newWSServer(t, Options{})
	resp, err := s.Client().Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, "not a WebSocket upgrade") {
		t.Errorf("got %d %q", resp.StatusCode, b)
	}
	s.refusal(t)
}

func TestUpgradeChecksOrigin(t *testing.T) {
	s := newWSServer(t, Options{})
	self := s.URL // http://127.0.0.1:PORT
	for _, tc := range []struct {
		origin string
		want   string
	}{
		{"http://evil.example", "WebSocket upgrade refused: origin http://evil.example is not this console's origin " + self},
		{"", "WebSocket upgrade refused: no Origin header; expected this console's origin " + self},
		{"ftp" + strings.TrimPrefix(self, "http"), "is not this console's origin"},
		{"http://127.0.0.2:" + strings.Split(self, ":")[2], "is not this console's origin"},
		{"null", "is not this console's origin"},
	} {
		_, resp, err := s.dial(tc.origin, ProtocolV4Base64Channel)
		if !errors.Is(err, websocket.ErrBadHandshake) {
			t.Fatalf("origin %q: dial err %v", tc.origin, err)
		}
		if b := body(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(b, tc.want) {
			t.Errorf("origin %q: got %d %q, want 403 %q", tc.origin, resp.StatusCode, b, tc.want)
		}
		if ue := s.refusal(t); ue.Status != http.StatusForbidden {
			t.Errorf("origin %q: UpgradeError %+v", tc.origin, ue)
		}
	}
	client, _, err := s.dial(strings.ToUpper(self), ProtocolV4Base64Channel)
	if err != nil {
		t.Fatalf("same origin in upper case refused: %v", err)
	}
	client.Close()
	(<-s.conns).Close(CloseNormal, "")
}

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		tls          bool
		host, origin string
		ok           bool
	}{
		{false, "console.example:80", "http://console.example", true},
		{false, "console.example", "http://Console.Example:80", true},
		{true, "console.example", "https://console.example:443", true},
		{true, "[::1]:443", "https://[::1]", true},
		{false, "console.example:8080", "http://console.example:8080", true},
		// The scheme is part of the origin: a plaintext page of the same
		// host must not read an https console's streams, nor the reverse.
		// (Behind a TLS-terminating proxy, Options.Origins names the origin.)
		{false, "console.example", "https://console.example", false},
		{false, "console.example:443", "https://console.example", false},
		{false, "localhost:80", "https://localhost", false},
		{true, "console.example", "http://console.example", false},
		{false, "console.example", "https://evil.example", false},
		{false, "console.example", "ws://console.example", false},
		{false, "console.example", "http://console.example:8080", false},
		{false, "console.example", "http://user@console.example", false},
		{false, "console.example", "console.example", false},
		{false, "console.example", "http://console.example/", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		r.Header.Set("X-Forwarded-Proto", "https") // never trusted
		if got := sameOrigin(tc.origin, requestOrigin(r)); got != tc.ok {
			t.Errorf("tls=%v host %q origin %q: got %v", tc.tls, tc.host, tc.origin, got)
		}
	}
}

func TestUpgradePinnedOriginsDecideAlone(t *testing.T) {
	// A console behind a TLS-terminating proxy, reached here over plain
	// HTTP, is told its external origin.
	s := newWSServer(t, Options{Origins: []string{"https://console.example"}})
	client, _, err := s.dial("https://console.example", ProtocolV4Base64Channel)
	if err != nil {
		t.Fatalf("pinned origin refused: %v", err)
	}
	client.Close()
	(<-s.conns).Close(CloseNormal, "")
	for _, origin := range []string{"http://console.example", s.URL, "https://console.example:8443"} {
		_, resp, err := s.dial(origin, ProtocolV4Base64Channel)
		if !errors.Is(err, websocket.ErrBadHandshake) || resp.StatusCode != http.StatusForbidden {
			t.Errorf("origin %q: err %v, want a 403 refusal", origin, err)
			continue
		}
		s.refusal(t)
	}
}

func TestNoInputConnBuffersNothingAndRefusesLargeMessages(t *testing.T) {
	s := newWSServer(t, Options{NoInput: true})
	client, c := s.connect(t, ProtocolV4Base64Channel)
	if cap(c.input) != 0 {
		t.Errorf("input queue of a no-input conn holds %d messages, want 0", cap(c.input))
	}
	typ, small, err := Encode(ProtocolV4Base64Channel, ChannelInput, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.WriteMessage(typ, small); err != nil {
		t.Fatal(err)
	}
	typ, big, err := Encode(ProtocolV4Base64Channel, ChannelInput, make([]byte, 4<<10))
	if err != nil {
		t.Fatal(err)
	}
	// The server refuses the message on reading its header and may close
	// the connection before the client has written all of it: the write
	// may then fail (reset), and the close frame may be lost with it.
	writeErr := client.WriteMessage(typ, big)
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a 4 KiB message to a no-input conn did not end it")
	}
	var ce *websocket.CloseError
	if _, _, err := client.ReadMessage(); writeErr == nil && (!errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig) {
		t.Errorf("client read %v, want close 1009 (message too big)", err)
	}
}

func TestSendStatusThenClose(t *testing.T) {
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			s := newWSServer(t, Options{})
			client, c := s.connect(t, protocol)
			ctx := testCtx(t)
			if err := c.Send(ctx, ChannelData, []byte("line\n")); err != nil {
				t.Fatal(err)
			}
			if err := c.SendJSON(ctx, ChannelDiagnostics, map[string]string{"message": "hi"}); err != nil {
				t.Fatal(err)
			}
			in := &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404, Message: "pods \"x\" not found"}
			if err := c.SendStatus(ctx, in); err != nil {
				t.Fatal(err)
			}
			if in.Kind != "" {
				t.Error("SendStatus modified its argument")
			}
			// Close waits for the client's close reply: the client reads
			// meanwhile.
			closed := make(chan error, 1)
			go func() { closed <- c.Close(CloseNormal, "done") }()

			for _, want := range []string{"1 line\n", `2 {"message":"hi"}`} {
				ch, p := readFrame(t, client)
				if got := fmt.Sprintf("%d %s", ch, p); got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			}
			ch, p := readFrame(t, client)
			var out metav1.Status
			if err := json.Unmarshal(p, &out); err != nil || ch != ChannelError {
				t.Fatalf("channel %d %q: %v", ch, p, err)
			}
			if out.Kind != "Status" || out.APIVersion != "v1" || out.Code != 404 || out.Reason != metav1.StatusReasonNotFound || out.Message != in.Message {
				t.Fatalf("got %+v", out)
			}
			_, _, err := client.ReadMessage()
			if !websocket.IsCloseError(err, CloseNormal) || err.(*websocket.CloseError).Text != "done" {
				t.Fatalf("want a normal close with reason, got %v", err)
			}
			if err := <-closed; err != nil {
				t.Fatal(err)
			}
			if !errors.Is(c.Err(), ErrClosed) {
				t.Fatalf("Err = %v", c.Err())
			}
			if err := c.Send(ctx, ChannelData, nil); !errors.Is(err, ErrClosed) {
				t.Fatalf("Send after Close: %v", err)
			}
		})
	}
}

func TestInput(t *testing.T) {
	for _, protocol := range []string{ProtocolBase64Channel, ProtocolChannel} {
		t.Run(protocol, func(t *testing.T) {
			s := newWSServer(t, Options{})
			client, c := s.connect(t, protocol)
			typ, data, _ := Encode(protocol, ChannelInput, []byte("ls\n"))
			if err := client.WriteMessage(typ, data); err != nil {
				t.Fatal(err)
			}
			select {
			case p := <-c.Input():
				if string(p) != "ls\n" {
					t.Fatalf("input %q", p)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no input")
			}

			// Writing to an output channel breaks the protocol.
			typ, data, _ = Encode(protocol, ChannelData, []byte("nope"))
			if err := client.WriteMessage(typ, data); err != nil {
				t.Fatal(err)
			}
			_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, _, err := client.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseProtocolError) {
				t.Fatalf("want a protocol-error close, got %v", err)
			}
			waitDone(t, c)
			if err := c.Err(); err == nil || !strings.Contains(err.Error(), "channel 1") {
				t.Fatalf("Err = %v", err)
			}
			if _, ok := <-c.Input(); ok {
				t.Fatal("Input not closed after the reader stopped")
			}
		})
	}
}

func TestPeerCloses(t *testing.T) {
	s := newWSServer(t, Options{})
	client, c := s.connect(t, ProtocolV4Channel)
	msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "tab closed")
	if err := client.WriteControl(websocket.CloseMessage, msg, time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	waitDone(t, c)
	if !websocket.IsCloseError(c.Err(), websocket.CloseGoingAway) {
		t.Fatalf("Err = %v", c.Err())
	}
	if err := c.Send(testCtx(t), ChannelData, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after the peer left: %v", err)
	}
}

func TestSendBlocksWhenPeerDoesNotRead(t *testing.T) {
	s := newWSServer(t, Options{QueueSize: 2, WriteTimeout: time.Minute})
	client, c := s.connect(t, ProtocolV4Channel)
	payload := bytes.Repeat([]byte("x"), 1<<20)

	// The client reads nothing: the socket buffers, then the queue fill up,
	// and Send must block until its deadline.
	const wait = 100 * time.Millisecond
	sent := 0
	for {
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		err := c.Send(ctx, ChannelData, payload)
		cancel()
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Send %d: %v", sent, err)
			}
			if d := time.Since(start); d < wait {
				t.Fatalf("Send returned after %v, before its deadline", d)
			}
			break
		}
		if sent++; sent > 1000 {
			t.Fatal("1 GiB was queued for a peer that reads nothing")
		}
	}
	select {
	case <-c.Done():
		t.Fatalf("conn finished: %v", c.Err())
	default:
	}

	// Once the peer reads, everything Send accepted arrives, then the close.
	closed := make(chan error, 1)
	go func() { closed <- c.Close(CloseNormal, "") }()
	for i := range sent {
		if ch, p := readFrame(t, client); ch != ChannelData || len(p) != len(payload) {
			t.Fatalf("frame %d: channel %d, %d bytes", i, ch, len(p))
		}
	}
	if _, _, err := client.ReadMessage(); !websocket.IsCloseError(err, CloseNormal) {
		t.Fatalf("want a normal close, got %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

func TestKeepaliveClosesDeadPeer(t *testing.T) {
	s := newWSServer(t, Options{PingInterval: 20 * time.Millisecond})
	_, c := s.connect(t, ProtocolV4Base64Channel) // the client never reads, so never answers pings
	waitDone(t, c)
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "did not answer pings") {
		t.Fatalf("Err = %v", err)
	}
}

func TestKeepaliveKeepsAnsweringPeer(t *testing.T) {
	const interval = 100 * time.Millisecond
	s := newWSServer(t, Options{PingInterval: interval})
	client, c := s.connect(t, ProtocolV4Base64Channel)
	pings := make(chan struct{}, 100)
	client.SetPingHandler(func(data string) error {
		pings <- struct{}{}
		return client.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, _, err := client.ReadMessage(); err != nil {
				return
			}
		}
	})
	// Five pings span 2.5 keepalive windows.
	for range 5 {
		select {
		case <-pings:
		case <-c.Done():
			t.Fatalf("an answering peer was dropped: %v", c.Err())
		case <-time.After(10 * time.Second):
			t.Fatal("no ping")
		}
	}
	if err := c.Close(CloseNormal, ""); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

func TestCloseIsIdempotentAndFlushesAcceptedSends(t *testing.T) {
	s := newWSServer(t, Options{QueueSize: 4})
	client, c := s.connect(t, ProtocolV4Base64Channel)

	received := make(chan int, 1)
	go func() {
		n := 0
		for {
			if _, _, err := client.ReadMessage(); err != nil {
				if !websocket.IsCloseError(err, CloseNormal) {
					n = -1
				}
				received <- n
				return
			}
			n++
		}
	}()

	var accepted atomic.Int64
	going := make(chan struct{}) // closed by the 100th accepted Send
	var senders sync.WaitGroup
	for range 4 {
		senders.Go(func() {
			for c.Send(t.Context(), ChannelData, []byte("line\n")) == nil {
				if accepted.Add(1) == 100 {
					close(going)
				}
			}
		})
	}
	select {
	case <-going: // the senders are going: close under them
	case <-time.After(10 * time.Second):
		t.Fatalf("Send accepted %d messages in 10s, want 100 before the close", accepted.Load())
	}
	var closers sync.WaitGroup
	for range 3 {
		closers.Go(func() {
			if err := c.Close(CloseNormal, "bye"); err != nil {
				t.Error(err)
			}
		})
	}
	closers.Wait()
	senders.Wait()
	select {
	case <-c.Done():
	default:
		t.Fatal("Done still open after Close returned")
	}
	if n := <-received; n != int(accepted.Load()) {
		t.Fatalf("client got %d messages, Send accepted %d", n, accepted.Load())
	}
	if err := c.Close(CloseNormal, ""); err != nil {
		t.Fatal(err)
	}
}

func TestTruncateReason(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	got := truncateReason(long)
	if len(got) > 123 || !strings.HasPrefix(long, got) || len(got)%2 != 0 {
		t.Fatalf("truncated to %d bytes", len(got))
	}
}

// A terminal's keystrokes arrive in order and none is dropped, however far
// the handler falls behind: the reader waits for room instead.
func TestInputIsNeverDroppedWhenTheHandlerFallsBehind(t *testing.T) {
	s := newWSServer(t, Options{QueueSize: 2})
	client, c := s.connect(t, ProtocolV4Base64Channel)
	const n = 50
	for i := range n {
		typ, data, _ := Encode(ProtocolV4Base64Channel, ChannelInput, []byte{byte(i)})
		if err := client.WriteMessage(typ, data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		select {
		case p := <-c.Input():
			if len(p) != 1 || p[0] != byte(i) {
				t.Fatalf("input %d = %v", i, p)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("input %d never arrived", i)
		}
	}
}

func TestResizeKeepsOnlyTheLatestSize(t *testing.T) {
	s := newWSServer(t, Options{Resize: true})
	client, c := s.connect(t, ProtocolV4Channel)
	for _, size := range []string{`{"Width":80,"Height":24}`, `{"Width":100,"Height":30}`, `{"Width":120,"Height":40}`} {
		typ, data, _ := Encode(ProtocolV4Channel, ChannelResize, []byte(size))
		if err := client.WriteMessage(typ, data); err != nil {
			t.Fatal(err)
		}
	}
	// A keystroke after the sizes: once it arrives, every size was read.
	typ, data, _ := Encode(ProtocolV4Channel, ChannelInput, []byte("x"))
	if err := client.WriteMessage(typ, data); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Input():
	case <-time.After(10 * time.Second):
		t.Fatal("no input")
	}
	select {
	case p := <-c.Resize():
		if string(p) != `{"Width":120,"Height":40}` {
			t.Fatalf("resize %s, want the latest", p)
		}
	default:
		t.Fatal("no resize")
	}
	select {
	case p := <-c.Resize():
		t.Fatalf("a replaced size was kept: %s", p)
	default:
	}
}

func TestResizeIsAProtocolErrorUnlessAsked(t *testing.T) {
	s := newWSServer(t, Options{})
	client, c := s.connect(t, ProtocolV4Channel)
	typ, data, _ := Encode(ProtocolV4Channel, ChannelResize, []byte(`{"Width":80,"Height":24}`))
	if err := client.WriteMessage(typ, data); err != nil {
		t.Fatal(err)
	}
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := client.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseProtocolError) {
		t.Fatalf("want a protocol-error close, got %v", err)
	}
	waitDone(t, c)
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "channel 4") {
		t.Fatalf("Err = %v", err)
	}
}
