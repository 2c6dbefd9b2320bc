package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// channelProtocol is the subprotocol the bench offers: text messages of one
// ASCII channel digit and the payload in standard base64
// (docs/live-protocol.md, "Framing").
const channelProtocol = "base64.channel.k8s.io"

// Channels of the live protocol.
const (
	chanData        = 1
	chanDiagnostics = 2
	chanStatus      = 3
)

// wsClient opens live WebSockets to the console as a browser page would:
// to the page's own URL, with the console's origin.
type wsClient struct {
	base   *url.URL // ws://host:port
	origin string   // http://host:port
	dialer *websocket.Dialer
}

func newWSClient(consoleURL string) (*wsClient, error) {
	u, err := url.Parse(consoleURL)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return nil, fmt.Errorf("console URL %q is not http(s)", consoleURL)
	}
	u.Path, u.RawQuery = "", ""
	return &wsClient{
		base:   u,
		origin: origin,
		dialer: &websocket.Dialer{
			Proxy:            http.ProxyFromEnvironment,
			HandshakeTimeout: 30 * time.Second,
			Subprotocols:     []string{channelProtocol},
			ReadBufferSize:   64 << 10,
		},
	}, nil
}

// dial opens a WebSocket to pathQuery ("/c/…?…") on the console.
func (c *wsClient) dial(ctx context.Context, pathQuery string) (*websocket.Conn, error) {
	target := c.base.String() + pathQuery
	h := http.Header{}
	h.Set("Origin", c.origin)
	conn, resp, err := c.dialer.DialContext(ctx, target, h)
	if err != nil {
		return nil, handshakeError("WebSocket "+pathQuery, err, resp)
	}
	if p := conn.Subprotocol(); p != channelProtocol {
		conn.Close()
		return nil, fmt.Errorf("WebSocket %s: server chose subprotocol %q, want %q", pathQuery, p, channelProtocol)
	}
	return conn, nil
}

// describeBody shortens a refused handshake's body for a message: an HTML
// page by its title (the console answers a plain page when it does not
// upgrade), anything else by its first 300 bytes.
func describeBody(contentType string, body []byte) string {
	if strings.HasPrefix(contentType, "text/html") {
		if _, rest, ok := strings.Cut(string(body), "<title>"); ok {
			if title, _, ok := strings.Cut(rest, "</title>"); ok {
				return fmt.Sprintf("an HTML page titled %q", html.UnescapeString(title))
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// closeConn says goodbye with a normal close frame, then closes.
func closeConn(conn *websocket.Conn) {
	_ = conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	conn.Close()
}

// isNormalClose reports whether err is the peer's normal close frame.
func isNormalClose(err error) bool {
	var ce *websocket.CloseError
	return errors.As(err, &ce) && ce.Code == websocket.CloseNormalClosure
}

// frameReader reads and decodes channel frames, reusing its buffers.
type frameReader struct {
	conn *websocket.Conn
	raw  bytes.Buffer
	buf  []byte
}

// next returns the next frame. A message without a channel (empty) comes
// back as channel -1. payload is only valid until the next call.
func (r *frameReader) next() (channel int, payload []byte, err error) {
	mt, rd, err := r.conn.NextReader()
	if err != nil {
		return 0, nil, err
	}
	r.raw.Reset()
	if _, err := r.raw.ReadFrom(rd); err != nil {
		return 0, nil, err
	}
	channel, r.buf, err = decodeFrame(r.buf[:0], mt, r.raw.Bytes())
	return channel, r.buf, err
}

// decodeFrame decodes one channel-protocol message, appending its payload
// to dst: a text message is '0'+channel then standard base64
// (base64.channel.k8s.io); a binary one is the channel byte then the payload
// (channel.k8s.io). An empty message has no channel (-1).
func decodeFrame(dst []byte, messageType int, data []byte) (channel int, payload []byte, err error) {
	if len(data) == 0 {
		return -1, dst, nil
	}
	switch messageType {
	case websocket.TextMessage:
		if data[0] < '0' || data[0] > '9' {
			return 0, dst, fmt.Errorf("text frame starts with %q, not a channel digit", data[0])
		}
		enc := data[1:]
		n := len(dst)
		dst = append(dst, make([]byte, base64.StdEncoding.DecodedLen(len(enc)))...)
		m, err := base64.StdEncoding.Decode(dst[n:], enc)
		if err != nil {
			return 0, dst[:n], fmt.Errorf("channel %c: bad base64: %w", data[0], err)
		}
		return int(data[0] - '0'), dst[:n+m], nil
	case websocket.BinaryMessage:
		return int(data[0]), append(dst, data[1:]...), nil
	default:
		return 0, dst, fmt.Errorf("unexpected WebSocket message type %d", messageType)
	}
}

// streamStatus is the metav1.Status of channel 3.
type streamStatus struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

func parseStatus(payload []byte) streamStatus {
	var s streamStatus
	if err := json.Unmarshal(payload, &s); err != nil {
		s = streamStatus{Status: "Failure", Message: fmt.Sprintf("undecodable status %.200q: %v", payload, err)}
	}
	return s
}

func (s streamStatus) failed() bool { return s.Status != "" && s.Status != "Success" }

func (s streamStatus) String() string {
	return fmt.Sprintf("%s %d %s: %s", s.Status, s.Code, s.Reason, s.Message)
}

// diagnostic decodes a channel-2 payload ({"message": "..."}).
func diagnostic(payload []byte) string {
	var d struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(payload, &d) == nil && d.Message != "" {
		return d.Message
	}
	return string(payload)
}

// handshakeError says why a WebSocket handshake failed, with the refusal's
// status and body when the server answered.
func handshakeError(what string, err error, resp *http.Response) error {
	if resp == nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return fmt.Errorf("%s: %w: HTTP %s: %s", what, err, resp.Status, describeBody(resp.Header.Get("Content-Type"), body))
}
