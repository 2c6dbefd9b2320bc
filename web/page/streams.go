package page

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
)

// streamSlotsFull is answered when every upstream stream slot is taken.
func (e *Env) streamSlotsFull() error {
	return echo.NewHTTPError(http.StatusServiceUnavailable,
		fmt.Sprintf("The console is already following %d upstream streams, its limit. Close a log or live page, or try again shortly.", cap(e.streams)))
}

// AcquireStream takes one of the console's upstream stream slots (a log
// stream, or a live object page's watches), or fails at once with 503 when
// all are taken. release gives it back. The cap is global: it bounds what
// the console asks of API servers, not what one user may take.
func (e *Env) AcquireStream() (release func(), err error) {
	select {
	case e.streams <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-e.streams }) }, nil
	default:
		return nil, e.streamSlotsFull()
	}
}

// FollowInSlot serves a live page's WebSocket whose upstream watches take
// one of the console's stream slots for as long as the page follows:
// acquire the slot (503 when none is free), upgrade, run follow, finish
// with what it returns.
func (e *Env) FollowInSlot(c echo.Context, follow func(*Stream) error) error {
	release, err := e.AcquireStream()
	if err != nil {
		return err
	}
	defer release()
	stream, err := e.Upgrade(c, false)
	if stream == nil {
		return err
	}
	stream.Finish(follow(stream))
	return nil
}
