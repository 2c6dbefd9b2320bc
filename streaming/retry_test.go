package streaming

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

type versioned struct {
	v        string
	bookmark bool
}

var (
	errDropped = errors.New("connection reset")
	errExpired = errors.New("410 too old")
	errRefused = errors.New("403 forbidden")
)

func testPolicy() Policy[versioned] {
	return Policy[versioned]{
		Version:  func(e versioned) string { return e.v },
		Expired:  func(err error) bool { return errors.Is(err, errExpired) },
		Fatal:    func(err error) bool { return errors.Is(err, errRefused) },
		Bookmark: func(e versioned) bool { return e.bookmark },
		Backoff:  time.Millisecond,
	}
}

// KeepWatching resumes each run where the last one got to (bookmarks
// included), from now after an expiry, passes no bookmark on, and ends
// with the refusal that retrying cannot fix.
func TestKeepWatchingResumesAndStopsAtARefusal(t *testing.T) {
	type run struct {
		emit []versioned
		err  error
	}
	runs := []run{
		{emit: []versioned{{v: "1"}, {v: "2"}}, err: errDropped},
		{emit: []versioned{{v: "5", bookmark: true}}, err: nil}, // a watch that timed out
		{emit: []versioned{{v: "6"}}, err: errExpired},
		{emit: []versioned{{v: "9"}}, err: errRefused},
	}
	var froms []string
	var got []string
	err := KeepWatching(context.Background(), testPolicy(), func(ctx context.Context, from string, emit func(versioned)) error {
		froms = append(froms, from)
		r := runs[len(froms)-1]
		for _, e := range r.emit {
			emit(e)
		}
		return r.err
	}, func(e versioned) { got = append(got, e.v) })
	if !errors.Is(err, errRefused) {
		t.Fatalf("KeepWatching = %v, want the refusal", err)
	}
	if want := []string{"", "2", "5", ""}; !slices.Equal(froms, want) {
		t.Errorf("runs started from %q, want %q", froms, want)
	}
	if want := []string{"1", "2", "6", "9"}; !slices.Equal(got, want) {
		t.Errorf("emitted %q, want %q (no bookmark)", got, want)
	}
}

func TestKeepWatchingEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	err := KeepWatching(ctx, testPolicy(), func(ctx context.Context, from string, emit func(versioned)) error {
		if runs++; runs == 3 {
			cancel()
		}
		return errDropped
	}, func(versioned) {})
	if err != nil || runs != 3 {
		t.Errorf("KeepWatching = %v after %d runs, want nil after 3", err, runs)
	}
}

// The pause between runs doubles from the first delay, and is back to it
// once a run lasted healthyRun.
func TestRetryBacksOff(t *testing.T) {
	var delays []time.Duration
	runs := 0
	retry(context.Background(), Policy[versioned]{Backoff: time.Microsecond}, func(context.Context) error {
		runs++
		return errDropped
	}, func(_ error, after time.Duration) bool {
		delays = append(delays, after)
		return runs < 4
	})
	if want := []time.Duration{time.Microsecond, 2 * time.Microsecond, 4 * time.Microsecond, 8 * time.Microsecond}; !slices.Equal(delays, want) {
		t.Errorf("delays %v, want %v", delays, want)
	}
}
