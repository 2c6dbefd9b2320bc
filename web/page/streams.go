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

// userSlotsFull is answered when one identity holds its share of the slots.
func (e *Env) userSlotsFull() error {
	return echo.NewHTTPError(http.StatusTooManyRequests,
		fmt.Sprintf("You are already following %d upstream streams (logs and live pages), the most one user may. Close a log or live page, then try again.", e.perUser))
}

// AcquireStream takes one of the console's upstream stream slots (a log
// stream, or a live object page's watches) for the identity whose key
// (apiclient.Client.IdentityKey) is given, or fails at once: 429 when that
// identity holds its share (Config.MaxStreamsPerUser), so one user cannot
// take every slot (but the console's own identity, which in kubeconfig
// mode every visitor shares); 503 when all are taken. release gives it
// back.
func (e *Env) AcquireStream(identityKey string) (release func(), err error) {
	e.userMu.Lock()
	if e.perUser > 0 && identityKey != e.shared && e.userStreams[identityKey] >= e.perUser {
		e.userMu.Unlock()
		e.refusedUser.Add(1)
		return nil, e.userSlotsFull()
	}
	select {
	case e.streams <- struct{}{}:
	default:
		e.userMu.Unlock()
		e.refusedConsole.Add(1)
		return nil, e.streamSlotsFull()
	}
	e.userStreams[identityKey]++
	e.userMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.userMu.Lock()
			if e.userStreams[identityKey]--; e.userStreams[identityKey] <= 0 {
				delete(e.userStreams, identityKey)
			}
			e.userMu.Unlock()
			<-e.streams
		})
	}, nil
}

// StreamSlots says how many of the console's stream slots are taken, of
// how many, and how often a stream was refused one because its user held
// their share or because all were taken, for metrics.
func (e *Env) StreamSlots() (inUse, limit int, refusedUser, refusedConsole uint64) {
	return len(e.streams), cap(e.streams), e.refusedUser.Load(), e.refusedConsole.Load()
}

// FollowInSlot serves a live page's WebSocket whose upstream watches take
// one of the console's stream slots, on behalf of the identity with
// identityKey, for as long as the page follows: acquire the slot (429 or
// 503 when none is free), upgrade, run follow, finish with what it returns.
func (e *Env) FollowInSlot(c echo.Context, identityKey string, follow func(*Stream) error) error {
	release, err := e.AcquireStream(identityKey)
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
