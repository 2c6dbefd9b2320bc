package streaming

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// FanOut keeps to its concurrency, gives each item its own deadline, and
// hands the items not started when the budget ends to late.
func TestFanOutKeepsItsBounds(t *testing.T) {
	var running, most atomic.Int32
	var mu sync.Mutex
	var done, late []int
	ctx, cancel := context.WithCancel(context.Background())
	release, started := make(chan struct{}), make(chan int, 5)
	go func() {
		// Once two run, end the budget, then let them finish.
		<-started
		<-started
		cancel()
		close(release)
	}()
	FanOut(ctx, []int{1, 2, 3, 4, 5}, 2, time.Hour, func(ctx context.Context, i int) {
		n := running.Add(1)
		started <- i
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		if deadline, ok := ctx.Deadline(); !ok || time.Until(deadline) > time.Hour {
			t.Errorf("item %d has no deadline of its own", i)
		}
		<-release
		running.Add(-1)
		mu.Lock()
		done = append(done, i)
		mu.Unlock()
	}, func(i int) {
		mu.Lock()
		late = append(late, i)
		mu.Unlock()
	})
	slices.Sort(done)
	if most.Load() != 2 || !slices.Equal(done, []int{1, 2}) || !slices.Equal(late, []int{3, 4, 5}) {
		t.Errorf("at most %d at once; done %v, late %v", most.Load(), done, late)
	}
}

// Answers yields every item's answer, late ones included, and a reader may
// stop early without holding up the work.
func TestAnswersYieldsEachAsItComes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	for a := range Answers(ctx, []int{1, 2, 3}, 3, time.Minute, func(_ context.Context, i int) string {
		return "done " + string(rune('0'+i))
	}, func(i int) string { return "late" }) {
		got = append(got, a)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"done 1", "done 2", "done 3"}) {
		t.Errorf("answers %v", got)
	}
	for range Answers(ctx, []int{1, 2, 3}, 1, time.Minute, func(_ context.Context, i int) int { return i }, func(int) int { return 0 }) {
		break // the work goes on into the buffer, and ends
	}
}
