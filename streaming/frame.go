// Package streaming carries live pages over WebSocket: the Kubernetes channel
// framing (docs/live-protocol.md), a connection with backpressure and
// keepalive, and a hub that shares one upstream watch between browser tabs.
package streaming

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/gorilla/websocket"
)

// Subprotocols of k8s.io/apimachinery's wsstream channel framing. The v4
// variants differ only in what channel 3 carries (a JSON metav1.Status),
// which is what this package always sends there.
const (
	ProtocolChannel         = "channel.k8s.io"
	ProtocolV4Channel       = "v4.channel.k8s.io"
	ProtocolBase64Channel   = "base64.channel.k8s.io"
	ProtocolV4Base64Channel = "v4.base64.channel.k8s.io"
)

// Channels of a stream.
const (
	ChannelInput       byte = 0 // browser → server
	ChannelData        byte = 1 // the page's data stream
	ChannelDiagnostics byte = 2 // JSON {"message": "..."} for the status line
	ChannelError       byte = 3 // one JSON metav1.Status, then the server closes
	// ChannelResize carries a terminal's size from the browser, as JSON
	// {"Width":w,"Height":h}; read only by endpoints that ask (Options.Resize).
	ChannelResize byte = 4
)

// Protocols lists the supported subprotocols in the server's order of
// preference: base64 first because browsers handle text frames most cheaply.
// It is a function so that no caller can reorder a shared slice.
func Protocols() []string {
	return []string{ProtocolV4Base64Channel, ProtocolBase64Channel, ProtocolV4Channel, ProtocolChannel}
}

// IsBase64 reports whether protocol is one of the base64 (text) framings.
func IsBase64(protocol string) bool {
	return protocol == ProtocolBase64Channel || protocol == ProtocolV4Base64Channel
}

func checkProtocol(protocol string) error {
	switch protocol {
	case ProtocolChannel, ProtocolV4Channel, ProtocolBase64Channel, ProtocolV4Base64Channel:
		return nil
	}
	return fmt.Errorf("streaming: unknown subprotocol %q", protocol)
}

// Encode frames payload for channel. It returns the WebSocket message type
// to send data with.
func Encode(protocol string, channel byte, payload []byte) (messageType int, data []byte, err error) {
	return AppendFrame(make([]byte, 0, frameSize(protocol, len(payload))), protocol, channel, payload)
}

// frameSize is the length of the frame of an n-byte payload.
func frameSize(protocol string, n int) int {
	if IsBase64(protocol) {
		return 1 + base64.StdEncoding.EncodedLen(n)
	}
	return 1 + n
}

// AppendFrame is Encode appending to dst, so that a hot path (logs) can
// reuse frame buffers. On error dst is returned unchanged.
func AppendFrame(dst []byte, protocol string, channel byte, payload []byte) (messageType int, data []byte, err error) {
	if err := checkProtocol(protocol); err != nil {
		return 0, dst, err
	}
	if !IsBase64(protocol) {
		dst = append(dst, channel)
		return websocket.BinaryMessage, append(dst, payload...), nil
	}
	if channel > 9 {
		return 0, dst, fmt.Errorf("streaming: channel %d cannot be framed by %s: its channel is one digit", channel, protocol)
	}
	dst = append(dst, '0'+channel)
	return websocket.TextMessage, base64.StdEncoding.AppendEncode(dst, payload), nil
}

// Decode parses a message received on a connection speaking protocol. For
// the binary framings payload aliases data.
func Decode(protocol string, messageType int, data []byte) (channel byte, payload []byte, err error) {
	if err := checkProtocol(protocol); err != nil {
		return 0, nil, err
	}
	want := websocket.BinaryMessage
	if IsBase64(protocol) {
		want = websocket.TextMessage
	}
	if messageType != want {
		return 0, nil, fmt.Errorf("streaming: %s expects %s messages, got %s", protocol, messageTypeName(want), messageTypeName(messageType))
	}
	if len(data) == 0 {
		return 0, nil, errors.New("streaming: empty message: a frame starts with its channel")
	}
	if want == websocket.BinaryMessage {
		return data[0], data[1:], nil
	}
	if data[0] < '0' || data[0] > '9' {
		return 0, nil, fmt.Errorf("streaming: channel %q is not a digit 0-9", data[0])
	}
	enc := data[1:]
	// The decoder silently skips line breaks; a canonical frame has none.
	if i := bytes.IndexAny(enc, "\r\n"); i >= 0 {
		return 0, nil, fmt.Errorf("streaming: line break at offset %d of the base64 payload", i+1)
	}
	payload = make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(payload, enc)
	if err != nil {
		return 0, nil, fmt.Errorf("streaming: invalid base64 payload on channel %d: %w", data[0]-'0', err)
	}
	return data[0] - '0', payload[:n], nil
}

func messageTypeName(t int) string {
	switch t {
	case websocket.TextMessage:
		return "text"
	case websocket.BinaryMessage:
		return "binary"
	}
	return fmt.Sprintf("type-%d", t)
}

// Sections is the channel-1 message of a page whose live parts the server
// re-renders (docs/live-protocol.md, SECTIONS): each id's new markup.
type Sections struct {
	Type     string            `json:"type"`
	Sections map[string]string `json:"sections"`
}

// NewSections is a SECTIONS message with no sections yet.
func NewSections() Sections { return Sections{Type: "SECTIONS", Sections: map[string]string{}} }
