package exec

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"strings"
	"time"

	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/csrf"
)

// A terminal's socket must come from the terminal page itself. The Origin
// check stops other sites' pages; the page token also stops a page that
// was not handed one, even a same-site one, and a token lifted from one
// terminal opens no other. It is a MAC under the request's CSRF token,
// which is the session's secret (signed in: derived from the session,
// so every replica can check it; kubeconfig mode: the browser's
// HttpOnly token cookie), over the user, the pod, what the terminal opens
// and an expiry.

// tokenProtocolPrefix carries the token in the WebSocket handshake as an
// extra subprotocol the server never selects, as kube-apiserver takes
// bearer tokens: browsers cannot set headers on a WebSocket, and a query
// parameter would end up in access logs.
const tokenProtocolPrefix = "tabula.terminal-token."

// tokenLifetime is how long a page's token opens sessions: past it, the
// page is reloaded for a new one.
const tokenLifetime = 12 * time.Hour

// tokenScope is what one token opens: a user's terminal (exec or attach)
// to one container of one pod.
type tokenScope struct {
	User, Context, Namespace, Pod, Container, Subresource string
}

func (s tokenScope) mac(secret string, expires int64) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("tabula terminal v1"))
	for _, f := range []string{s.User, s.Context, s.Namespace, s.Pod, s.Container, s.Subresource} {
		m.Write([]byte{0})
		m.Write([]byte(f))
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(expires))
	m.Write(b[:])
	return m.Sum(nil)
}

// issueToken makes the page's token: the expiry and the MAC, masked
// (csrf.Mask) so that the page, compressed, does not give it away.
func issueToken(secret string, s tokenScope, now time.Time) string {
	expires := now.Add(tokenLifetime).Unix()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(expires))
	return csrf.Mask(append(b[:], s.mac(secret, expires)...))
}

// checkToken verifies the token a handshake offers.
func checkToken(secret string, s tokenScope, token string, now time.Time) bool {
	raw, ok := csrf.Unmask(token)
	if secret == "" || !ok || len(raw) != 8+sha256.Size {
		return false
	}
	expires := int64(binary.BigEndian.Uint64(raw[:8]))
	if now.Unix() > expires {
		return false
	}
	return hmac.Equal(raw[8:], s.mac(secret, expires))
}

// offeredToken is the token among a handshake's subprotocols.
func offeredToken(r *http.Request) string {
	for _, p := range streaming.Subprotocols(r) {
		if t, ok := strings.CutPrefix(p, tokenProtocolPrefix); ok {
			return t
		}
	}
	return ""
}
