package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrClosed is returned by operations on a closed Conn, Coalescer, Hub or
// Subscription.
var ErrClosed = errors.New("streaming: closed")

// Close codes for Conn.Close; any other RFC 6455 code (websocket.Close*)
// works too.
const (
	CloseNormal    = websocket.CloseNormalClosure // the stream ended
	CloseGoingAway = websocket.CloseGoingAway     // the server is shutting down
	// CloseTryAgainLater: the stream failed in a way a reconnect may mend
	// (a 5xx or 429 upstream).
	CloseTryAgainLater = websocket.CloseTryAgainLater
)

// Options tune a Conn. Zero fields take the defaults.
type Options struct {
	QueueSize    int           // frames queued for the writer (64)
	WriteTimeout time.Duration // deadline of each write (10s)
	PingInterval time.Duration // the peer must answer within twice this (30s)
	ReadLimit    int64         // largest message accepted from the peer (64 KiB)
	// NoInput is for endpoints that never read channel 0: the peer may
	// send only tiny messages (noInputLimit) and none is queued.
	NoInput bool
	// Resize accepts terminal sizes on ChannelResize (see Conn.Resize);
	// otherwise a frame there is a protocol error.
	Resize bool
	// Origins are the browser origins (scheme://host[:port]) allowed to
	// upgrade. Empty means exactly the origin the request was made to.
	Origins []string
	// Header is sent with the 101 response (Set-Cookie, say).
	Header http.Header
}

// noInputLimit is the read limit of a Conn that takes no input: enough for
// a stray keystroke, nothing to buffer.
const noInputLimit = 512

func (o Options) withDefaults() Options {
	if o.QueueSize <= 0 {
		o.QueueSize = 64
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.ReadLimit <= 0 {
		o.ReadLimit = 64 << 10
	}
	if o.NoInput {
		o.ReadLimit = noInputLimit
	}
	return o
}

// UpgradeError is a refused upgrade. Upgrade has already written the HTTP
// response (Status, with Message as a plain-text body).
type UpgradeError struct {
	Status  int
	Message string
}

func (e *UpgradeError) Error() string { return e.Message }

func refuse(w http.ResponseWriter, status int, msg string) *UpgradeError {
	http.Error(w, msg, status)
	return &UpgradeError{Status: status, Message: msg}
}

// Subprotocols are the subprotocols a WebSocket handshake offers, in order.
func Subprotocols(r *http.Request) []string { return websocket.Subprotocols(r) }

// IsUpgrade reports whether r asks for a WebSocket upgrade.
func IsUpgrade(r *http.Request) bool {
	return websocket.IsWebSocketUpgrade(r)
}

// Upgrade checks the origin and subprotocol of a WebSocket handshake and
// upgrades the connection, which the caller must Close. A refusal is
// answered with 400 or 403 and a plain-text reason, and returned as an
// *UpgradeError.
func Upgrade(w http.ResponseWriter, r *http.Request, opts Options) (*Conn, error) {
	if !IsUpgrade(r) {
		return nil, refuse(w, http.StatusBadRequest, `not a WebSocket upgrade: expected "Connection: Upgrade" and "Upgrade: websocket"`)
	}
	if bad := CheckOrigin(r, opts.Origins); bad != nil {
		return nil, refuse(w, bad.Status, bad.Message)
	}
	offered := websocket.Subprotocols(r)
	i := slices.IndexFunc(Protocols(), func(p string) bool { return slices.Contains(offered, p) })
	if i < 0 {
		msg := fmt.Sprintf("unsupported WebSocket subprotocol(s) %q; this endpoint speaks %s", strings.Join(offered, ", "), strings.Join(Protocols(), ", "))
		if len(offered) == 0 {
			msg = "no WebSocket subprotocol offered; this endpoint speaks " + strings.Join(Protocols(), ", ")
		}
		return nil, refuse(w, http.StatusBadRequest, msg)
	}
	protocol := Protocols()[i]

	opts = opts.withDefaults()
	var refused *UpgradeError
	u := websocket.Upgrader{
		HandshakeTimeout: opts.WriteTimeout,
		Subprotocols:     []string{protocol},
		CheckOrigin:      func(*http.Request) bool { return true }, // checked above
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			refused = refuse(w, status, reason.Error())
		},
	}
	ws, err := u.Upgrade(w, r, opts.Header)
	if err != nil {
		if refused != nil {
			return nil, refused
		}
		return nil, err
	}
	return newConn(ws, protocol, opts), nil
}

// CheckOrigin checks a WebSocket handshake's Origin against origins (empty:
// exactly the origin the request was made to), as Upgrade does, without
// answering: nil when allowed, else the 403 Upgrade would send. Browsers
// send cookies with cross-site WebSocket handshakes, so the origin is the
// only thing standing between another site and the user's cluster access.
func CheckOrigin(r *http.Request, origins []string) *UpgradeError {
	allowed := allowedOrigins(r, origins)
	switch origin := r.Header.Get("Origin"); {
	case origin == "":
		return &UpgradeError{Status: http.StatusForbidden, Message: "WebSocket upgrade refused: no Origin header; expected this console's origin " + allowed[0]}
	case !OriginAllowed(r, origins, origin):
		return &UpgradeError{Status: http.StatusForbidden, Message: "WebSocket upgrade refused: origin " + origin + " is not this console's origin " + strings.Join(allowed, " or ")}
	}
	return nil
}

// OriginAllowed says whether origin (an Origin header) is one of origins
// (empty: exactly the origin r was made to), by scheme, host and port.
// Writes check it as handshakes do, so a plaintext page of the console's
// host can neither open a stream nor send a form.
func OriginAllowed(r *http.Request, origins []string, origin string) bool {
	return slices.ContainsFunc(allowedOrigins(r, origins), func(o string) bool { return sameOrigin(origin, o) })
}

func allowedOrigins(r *http.Request, origins []string) []string {
	if len(origins) == 0 {
		return []string{requestOrigin(r)}
	}
	return origins
}

// requestOrigin is the origin the browser shows for r, as far as the
// console can tell. Forwarded headers are not trusted: anyone can send them.
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + normalizeHost(scheme, r.Host)
}

// sameOrigin compares the Origin header with an allowed origin by scheme,
// host and port. The scheme matters: a plaintext page of the same host must
// not read streams of an https console. A console behind a TLS-terminating
// proxy sees http while the browser shows https: it names its external
// origin in Options.Origins.
func sameOrigin(origin, self string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return false // browsers send scheme://host[:port] and nothing else
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return false
	}
	own, err := url.Parse(self)
	if err != nil {
		return false
	}
	return scheme == strings.ToLower(own.Scheme) && normalizeHost(scheme, u.Host) == normalizeHost(own.Scheme, own.Host)
}

// normalizeHost lower-cases host and drops the scheme's default port.
func normalizeHost(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err == nil && (scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// Conn is a server-side WebSocket speaking one of Protocols. Sends go through
// a bounded queue drained by one writer goroutine; a reader goroutine handles
// keepalive, close frames and input.
type Conn struct {
	ws       *websocket.Conn
	protocol string
	msgType  int
	opts     Options

	queue  chan []byte // encoded frames
	spare  chan []byte // written frames, for reuse by Send
	input  chan []byte
	resize chan []byte // the latest size not yet taken; only readLoop sends

	// Send holds sendMu shared while it may enqueue; the writer takes it
	// exclusively once closing is closed, after which nothing is enqueued,
	// so its flush cannot miss a frame.
	sendMu      sync.RWMutex
	closing     chan struct{}
	closeOnce   sync.Once
	closeCode   int
	closeReason string
	closeErr    error // failed flush or close frame; written by the writer before it exits

	done     chan struct{}
	stopOnce sync.Once
	errMu    sync.Mutex
	err      error

	wg sync.WaitGroup
}

// spareFrames bounds the frame buffers a Conn keeps for reuse: a steady
// stream cycles through a few, and a burst should not pin a queue's worth.
const spareFrames = 4

func newConn(ws *websocket.Conn, protocol string, opts Options) *Conn {
	c := &Conn{
		ws:       ws,
		protocol: protocol,
		msgType:  websocket.BinaryMessage,
		opts:     opts,
		queue:    make(chan []byte, opts.QueueSize),
		spare:    make(chan []byte, spareFrames),
		input:    make(chan []byte, inputQueue(opts)),
		resize:   make(chan []byte, 1),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	if IsBase64(protocol) {
		c.msgType = websocket.TextMessage
	}
	keepalive := 2 * opts.PingInterval
	ws.SetReadLimit(opts.ReadLimit)
	_ = ws.SetReadDeadline(time.Now().Add(keepalive)) // a failure resurfaces on the first read
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(keepalive)) })
	c.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c
}

func inputQueue(opts Options) int {
	if opts.NoInput {
		return 0
	}
	return opts.QueueSize
}

// Protocol returns the negotiated subprotocol.
func (c *Conn) Protocol() string { return c.protocol }

// Send queues payload for channel. It blocks while the queue is full, so a
// slow browser slows the caller down (backpressure), until ctx is done or
// the conn is closing (ErrClosed). payload may be reused once Send returns.
func (c *Conn) Send(ctx context.Context, channel byte, payload []byte) error {
	c.sendMu.RLock()
	defer c.sendMu.RUnlock()
	select {
	case <-c.closing:
		return ErrClosed
	case <-c.done:
		return ErrClosed
	default:
	}
	var buf []byte
	select {
	case buf = <-c.spare:
	default:
	}
	if n := frameSize(c.protocol, len(payload)); cap(buf) < n {
		buf = make([]byte, 0, n)
	}
	_, frame, err := AppendFrame(buf[:0], c.protocol, channel, payload)
	if err != nil {
		return err
	}
	select {
	case c.queue <- frame:
		return nil
	case <-ctx.Done():
		c.recycle(frame)
		return ctx.Err()
	case <-c.closing:
		return ErrClosed
	case <-c.done:
		return ErrClosed
	}
}

// SendJSON sends v as JSON on channel.
func (c *Conn) SendJSON(ctx context.Context, channel byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Send(ctx, channel, b)
}

// SendStatus sends st on ChannelError, as v4 exec does. The caller closes the
// conn afterwards.
func (c *Conn) SendStatus(ctx context.Context, st *metav1.Status) error {
	s := *st
	if s.Kind == "" {
		s.Kind = "Status"
	}
	if s.APIVersion == "" {
		s.APIVersion = "v1"
	}
	return c.SendJSON(ctx, ChannelError, &s)
}

// Input returns the payloads the peer sent on ChannelInput, in order and
// none dropped: keystrokes must not vanish. It is buffered (QueueSize);
// while it is full the reader stops reading, so a peer that types faster
// than the handler consumes is slowed by TCP (backpressure). A handler
// that accepts input must keep reading it. With NoInput the peer's stray
// messages are dropped instead. It is closed when the reader stops.
func (c *Conn) Input() <-chan []byte { return c.input }

// Resize returns the terminal sizes the peer sent on ChannelResize
// (Options.Resize), raw JSON. Only the latest matters: one not yet taken
// is replaced by the next. It is never closed; select on Done.
func (c *Conn) Resize() <-chan []byte { return c.resize }

// Done is closed when the conn is finished: the peer went away or broke the
// protocol, a write failed, keepalive expired, or Close completed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the conn finished (ErrClosed after Close), or nil before
// Done is closed.
func (c *Conn) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// Close stops accepting sends, flushes what is queued, sends a close frame
// with code and reason, waits briefly for the peer's reply and closes the
// socket. Flushing is bounded by WriteTimeout (plus a write already in
// progress). Close is idempotent and may run concurrently with Send; once it
// returns, the conn's goroutines have exited. It reports an error only if
// the flush or the close frame failed.
func (c *Conn) Close(code int, reason string) error {
	c.shutdown(code, reason, ErrClosed)
	c.wg.Wait()
	return c.closeErr
}

// shutdown starts a graceful close without waiting for it.
func (c *Conn) shutdown(code int, reason string, cause error) {
	c.closeOnce.Do(func() {
		c.setErr(cause)
		c.closeCode, c.closeReason = code, truncateReason(reason)
		close(c.closing)
	})
}

// stop finishes the conn at once: closing the socket unblocks the reader and
// any write in progress.
func (c *Conn) stop(cause error) {
	c.setErr(cause)
	c.stopOnce.Do(func() {
		close(c.done)
		_ = c.ws.Close() // the conn is finished either way
	})
}

// setErr records the first cause.
func (c *Conn) setErr(err error) {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

func (c *Conn) recycle(frame []byte) {
	if cap(frame) > 64<<10 {
		return // do not pin a rare huge buffer
	}
	select {
	case c.spare <- frame:
	default:
	}
}

func (c *Conn) readLoop() {
	defer c.wg.Done()
	defer close(c.input)
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				err = fmt.Errorf("streaming: peer did not answer pings within %v: %w", 2*c.opts.PingInterval, err)
			}
			c.stop(err)
			return
		}
		select {
		case <-c.closing:
			continue // only the peer's close frame matters now
		default:
		}
		channel, payload, err := Decode(c.protocol, typ, data)
		switch {
		case err != nil:
		case channel == ChannelInput && c.opts.NoInput:
			continue // see Input
		case channel == ChannelInput:
			if !c.deliver(payload) {
				return
			}
			continue
		case channel == ChannelResize && c.opts.Resize:
			c.latestResize(payload)
			continue
		default:
			err = fmt.Errorf("streaming: peer wrote to channel %d, which this endpoint does not read", channel)
		}
		c.shutdown(websocket.CloseProtocolError, err.Error(), err)
	}
}

// deliver queues input, waiting for room (see Input). It reports false
// when the conn finished while it waited.
func (c *Conn) deliver(payload []byte) bool {
	select {
	case c.input <- payload:
		return true
	default:
	}
	select {
	case c.input <- payload:
	case <-c.closing:
		return true // the reader goes on, for the peer's close frame
	case <-c.done:
		return false
	}
	// Pongs were not read while waiting; the peer was not silent.
	_ = c.ws.SetReadDeadline(time.Now().Add(2 * c.opts.PingInterval))
	return true
}

// latestResize replaces a size the handler has not taken yet.
func (c *Conn) latestResize(payload []byte) {
	for {
		select {
		case c.resize <- payload:
			return
		default:
		}
		select {
		case <-c.resize:
		default:
		}
	}
}

func (c *Conn) writeLoop() {
	defer c.wg.Done()
	ping := time.NewTicker(c.opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case frame := <-c.queue:
			if err := c.write(frame, time.Now().Add(c.opts.WriteTimeout)); err != nil {
				c.stop(err)
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.opts.WriteTimeout)); err != nil {
				c.stop(err)
				return
			}
		case <-c.closing:
			c.closeErr = c.flush()
			return
		case <-c.done:
			return
		}
	}
}

func (c *Conn) write(frame []byte, deadline time.Time) error {
	_ = c.ws.SetWriteDeadline(deadline) // only records the deadline
	err := c.ws.WriteMessage(c.msgType, frame)
	c.recycle(frame)
	return err
}

// flush writes what is queued and the close frame, then waits for the
// peer's close frame (the reader stops on it) before closing the socket, so
// that unread input does not turn the close into a reset.
func (c *Conn) flush() error {
	// Wait out Sends in flight; later ones see closing.
	c.sendMu.Lock()
	//lint:ignore SA2001 the empty critical section is the barrier
	c.sendMu.Unlock()
	deadline := time.Now().Add(c.opts.WriteTimeout)
	for len(c.queue) > 0 {
		if err := c.write(<-c.queue, deadline); err != nil {
			c.stop(err)
			return err
		}
	}
	msg := websocket.FormatCloseMessage(c.closeCode, c.closeReason)
	if err := c.ws.WriteControl(websocket.CloseMessage, msg, deadline); err != nil {
		c.stop(err)
		return err
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
	}
	c.stop(nil)
	return nil
}

// truncateReason fits reason into a close frame (123 bytes) without
// splitting a UTF-8 sequence, which would make browsers fail the close.
func truncateReason(reason string) string {
	const limit = 123
	if len(reason) <= limit {
		return reason
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut]
}
