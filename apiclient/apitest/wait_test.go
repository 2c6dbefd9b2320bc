package apitest_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// fatalRecorder is a testing.TB whose Fatalf records instead of stopping.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestWaitFor(t *testing.T) {
	r := &fatalRecorder{TB: t}
	calls := 0
	apitest.WaitFor(r, 5*time.Second, func() error {
		if calls++; calls < 5 {
			return fmt.Errorf("%d calls", calls)
		}
		return nil
	})
	if r.fatal != "" || calls != 5 {
		t.Errorf("a condition that holds on the fifth check: %d checks, failure %q", calls, r.fatal)
	}

	start := time.Now()
	apitest.WaitFor(r, 20*time.Millisecond, func() error { return errors.New("1 callers waiting, want 2") })
	if took := time.Since(start); took < 20*time.Millisecond || r.fatal != "not within 20ms: 1 callers waiting, want 2" {
		t.Errorf("a condition that never holds: failed with %q after %v", r.fatal, took)
	}

	// The condition is checked once more after the time is up, so a late
	// wake-up cannot fail a condition that holds by then.
	r.fatal = ""
	start = time.Now()
	apitest.WaitFor(r, 10*time.Millisecond, func() error {
		if time.Since(start) <= 10*time.Millisecond {
			return errors.New("too early")
		}
		return nil
	})
	if r.fatal != "" {
		t.Errorf("a condition that holds only after the time: %q", r.fatal)
	}
}

func TestAwaitOpenWatchesSaysWhetherItGotThere(t *testing.T) {
	s := seeded(t, apitest.Options{})
	if !s.AwaitOpenWatches(0, time.Second) {
		t.Error("no watch is open, yet AwaitOpenWatches(0) said no")
	}
	if s.AwaitOpenWatches(1, 10*time.Millisecond) {
		t.Error("AwaitOpenWatches(1) said yes with no watch open")
	}
}
