package page

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/streaming"
)

// Stream is one browser WebSocket of a live page or log, framed on the
// Kubernetes channels.
type Stream struct {
	*streaming.Conn
	// Context ends when the browser leaves or the stream is finished.
	Context context.Context
	finish  func(error)
}

// Finish ends the stream: with err's Status on channel 3 unless the browser
// left, then a close code that tells the browser whether reconnecting can
// help. It is safe to call more than once.
func (s *Stream) Finish(err error) { s.finish(err) }

// CloseSessionEnded is the close code of a stream whose session ended or
// whose credential was replaced (a refreshed token): no stream outlives the
// credential it was opened with. The page reconnects at once, with the
// session's current credential, or learns that it must sign in again.
const CloseSessionEnded = 4001

// Upgrade turns the request into a channel-framed WebSocket. input says
// whether the endpoint reads channel 0; one that does not accepts only tiny
// messages and queues none. On refusal the response (403 or 400 with its
// reason) is already written and Upgrade returns nil, nil: the handler
// simply returns. The stream ends, closed with CloseSessionEnded, when the
// requester's session does (Requester.Ends).
func (e *Env) Upgrade(c echo.Context, input bool) (*Stream, error) {
	return e.UpgradeWith(c, UpgradeOptions{Input: input})
}

// UpgradeOptions say what a stream reads from the browser.
type UpgradeOptions struct {
	// Input: the endpoint reads channel 0, in order and with none dropped.
	Input bool
	// Resize: the endpoint reads terminal sizes on channel 4.
	Resize bool
	// PingInterval overrides the keepalive period (30 s): a terminal pings
	// more often, to outlast proxies that cut quiet connections.
	PingInterval time.Duration
}

// UpgradeWith is Upgrade with the options of a terminal.
func (e *Env) UpgradeWith(c echo.Context, o UpgradeOptions) (*Stream, error) {
	opts := e.streamOptions(o.Input)
	opts.Resize = o.Resize
	opts.PingInterval = o.PingInterval
	// Cookies set on the way here (a refreshed session) go out with the 101.
	if cookies := c.Response().Header().Values("Set-Cookie"); len(cookies) > 0 {
		opts.Header = http.Header{"Set-Cookie": cookies}
	}
	conn, err := streaming.Upgrade(c.Response(), c.Request(), opts)
	if err != nil {
		e.Log.Debug("WebSocket upgrade refused", "path", c.Request().URL.Path, "error", err)
		return nil, nil
	}
	e.sockets.Inc()
	// gorilla wrote the 101 on the hijacked connection; say so to the
	// request log and metrics, which read the echo response.
	c.Response().Status = http.StatusSwitchingProtocols
	// A hijacked connection's request context outlives the socket; the
	// stream's context ends with whichever ends first.
	ctx, cancel := context.WithCancel(c.Request().Context())
	s := &Stream{Conn: conn, Context: ctx}
	var once sync.Once
	end := func(err error, code int) {
		once.Do(func() {
			if err != nil && ctx.Err() == nil {
				st := StatusFor(err)
				_ = conn.SendStatus(ctx, &st)
				if st.Code >= 500 || st.Code == http.StatusTooManyRequests {
					code = streaming.CloseTryAgainLater
				}
			}
			cancel()
			_ = conn.Close(code, "")
			e.sockets.Dec()
		})
	}
	s.finish = func(err error) { end(err, streaming.CloseNormal) }
	ends := RequesterOf(c).Ends // nil never fires
	go func() {
		select {
		case <-conn.Done():
			cancel()
		case <-ends:
			end(nil, CloseSessionEnded)
		case <-ctx.Done():
		}
	}()
	return s, nil
}

// UpgradeOrigin refuses, before any handler runs, a WebSocket handshake
// from an origin other than the console's: a cross-site page's handshake
// carries the user's cookies, and must not make even one upstream call as
// that user (a log stream reads its pod before upgrading). Upgrade checks
// again, for handlers reached some other way.
func (e *Env) UpgradeOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !streaming.IsUpgrade(req) {
			return next(c)
		}
		if bad := streaming.CheckOrigin(req, e.origins); bad != nil {
			e.Log.Debug("WebSocket upgrade refused", "path", req.URL.Path, "error", bad)
			return c.String(bad.Status, bad.Message)
		}
		return next(c)
	}
}

// Notify tells the page something on the diagnostics channel.
func (s *Stream) Notify(msg string) {
	_ = s.SendJSON(s.Context, streaming.ChannelDiagnostics, map[string]string{"message": msg})
}
