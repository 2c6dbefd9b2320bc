package streaming

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

func TestFrameRoundTrip(t *testing.T) {
	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	payloads := map[string][]byte{
		"empty":  {},
		"text":   []byte("hello\n"),
		"binary": binary,
		"large":  bytes.Repeat(binary, 1024), // beyond ReadLimit and gorilla's buffers
	}
	for _, protocol := range Protocols() {
		wantType := websocket.BinaryMessage
		if IsBase64(protocol) {
			wantType = websocket.TextMessage
		}
		for name, payload := range payloads {
			for ch := range byte(10) {
				typ, data, err := Encode(protocol, ch, payload)
				if err != nil {
					t.Fatalf("%s %s ch%d: Encode: %v", protocol, name, ch, err)
				}
				if typ != wantType {
					t.Fatalf("%s: message type %d, want %d", protocol, typ, wantType)
				}
				gotCh, got, err := Decode(protocol, typ, data)
				if err != nil || gotCh != ch || !bytes.Equal(got, payload) {
					t.Fatalf("%s %s ch%d: Decode = %d, %d bytes, %v", protocol, name, ch, gotCh, len(got), err)
				}
			}
		}
	}
}

func TestFrameLayout(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		ch       byte
		want     string
	}{
		{ProtocolBase64Channel, ChannelData, "1aGk="},
		{ProtocolV4Base64Channel, ChannelError, "3aGk="},
		{ProtocolChannel, ChannelDiagnostics, "\x02hi"},
		{ProtocolV4Channel, 200, "\xc8hi"},
	} {
		_, data, err := Encode(tc.protocol, tc.ch, []byte("hi"))
		if err != nil || string(data) != tc.want {
			t.Errorf("Encode(%s, %d) = %q, %v; want %q", tc.protocol, tc.ch, data, err, tc.want)
		}
	}
}

func TestAppendFrameReusesBuffer(t *testing.T) {
	buf := make([]byte, 0, 64)
	payload := []byte("a log line\n")
	allocs := testing.AllocsPerRun(100, func() {
		_, buf, _ = AppendFrame(buf[:0], ProtocolV4Base64Channel, ChannelData, payload)
	})
	if allocs != 0 {
		t.Errorf("AppendFrame into a large enough buffer allocated %v times", allocs)
	}
	if _, _, err := AppendFrame(nil, ProtocolBase64Channel, 10, payload); err == nil {
		t.Error("channel 10 was framed as base64")
	}
	if _, _, err := AppendFrame(nil, "bogus", 1, payload); err == nil {
		t.Error("an unknown protocol was framed")
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, protocol string
		typ            int
		data, want     string
	}{
		{"unknown protocol", "binary.k8s.io", websocket.BinaryMessage, "\x01x", "unknown subprotocol"},
		{"empty text", ProtocolBase64Channel, websocket.TextMessage, "", "empty message"},
		{"empty binary", ProtocolChannel, websocket.BinaryMessage, "", "empty message"},
		{"binary on base64", ProtocolV4Base64Channel, websocket.BinaryMessage, "1aGk=", "expects text messages, got binary"},
		{"text on binary", ProtocolV4Channel, websocket.TextMessage, "\x01hi", "expects binary messages, got text"},
		{"non-digit channel", ProtocolBase64Channel, websocket.TextMessage, "xaGk=", "not a digit"},
		{"channel above 9", ProtocolBase64Channel, websocket.TextMessage, ":aGk=", "not a digit"},
		{"invalid base64", ProtocolBase64Channel, websocket.TextMessage, "1a*k=", "invalid base64"},
		{"truncated base64", ProtocolBase64Channel, websocket.TextMessage, "1aGk", "invalid base64"},
		{"line break", ProtocolBase64Channel, websocket.TextMessage, "1aG\nk=", "line break"},
	} {
		_, _, err := Decode(tc.protocol, tc.typ, []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), websocket.TextMessage, []byte("1aGVsbG8="))
	f.Add(uint8(1), websocket.TextMessage, []byte("0"))
	f.Add(uint8(2), websocket.BinaryMessage, []byte("\x03{}"))
	f.Add(uint8(3), websocket.BinaryMessage, []byte{})
	f.Add(uint8(0), websocket.TextMessage, []byte("9a\r\nGk="))
	f.Add(uint8(1), websocket.PingMessage, []byte("1"))
	f.Fuzz(func(t *testing.T, p uint8, typ int, data []byte) {
		protocol := Protocols()[int(p)%len(Protocols())]
		ch, payload, err := Decode(protocol, typ, data)
		if err != nil {
			return
		}
		typ2, data2, err := Encode(protocol, ch, payload)
		if err != nil {
			t.Fatalf("decoded channel %d of %q does not encode: %v", ch, data, err)
		}
		ch2, payload2, err := Decode(protocol, typ2, data2)
		if err != nil || ch2 != ch || !bytes.Equal(payload2, payload) {
			t.Fatalf("re-decoding %q = %d, %q, %v; want %d, %q", data2, ch2, payload2, err, ch, payload)
		}
	})
}
