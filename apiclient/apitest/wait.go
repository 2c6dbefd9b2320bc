package apitest

import (
	"testing"
	"time"
)

// WaitFor waits until cond returns nil, and fails the test with cond's last
// error if that has not happened within the given time. It is the suite's
// one way to wait for a state that announces itself by no event (a counter,
// a log line, a cache refilled in the background): tests wait for the
// condition rather than sleep and hope it holds. Where the code under test
// gives a signal (a channel, a stream's next event, WaitExec), wait for
// that instead.
//
// cond says what it sees when the state is not there yet, so that a
// failure reads "within 5s: 1 callers waiting, want 2". It runs on the
// calling goroutine, first at once, then after pauses growing from 1 ms to
// a hundredth of within (at most a second), and once more after the time is
// up, so that a scheduler that wakes the test late cannot fail a condition
// that holds.
//
// It lives here because apitest is already the test seam that every
// layer's tests share (apiclient, web, cmd, e2e); streaming's tests, which
// may not import apiclient, wait on channels instead.
func WaitFor(t testing.TB, within time.Duration, cond func() error) {
	t.Helper()
	if err := poll(within, cond); err != nil {
		t.Fatalf("not within %v: %v", within, err)
	}
}

// poll is WaitFor's loop: nil once cond holds, else cond's last error.
func poll(within time.Duration, cond func() error) error {
	deadline := time.Now().Add(within)
	longest := min(max(within/100, time.Millisecond), time.Second)
	for pause := time.Millisecond; ; pause = min(2*pause, longest) {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
	}
}
