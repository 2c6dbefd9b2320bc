package streaming

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// testCtx bounds every wait of a test, so that a bug fails it instead of
// hanging it.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func drain[K comparable, V any](t *testing.T, c *Coalescer[K, V]) []string {
	t.Helper()
	var got []string
	for c.Len() > 0 {
		k, v, err := c.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(k, "=", v))
	}
	return got
}

func TestCoalescerLatestWinsInFirstPendingOrder(t *testing.T) {
	c := NewCoalescer[string, int](10)
	defer c.Close()
	for _, p := range []struct {
		k string
		v int
	}{{"b", 1}, {"a", 1}, {"b", 2}, {"c", 1}, {"a", 2}, {"b", 3}} {
		if !c.Put(p.k, p.v) {
			t.Fatalf("Put(%s) refused", p.k)
		}
	}
	if got, want := fmt.Sprint(drain(t, c)), "[b=3 a=2 c=1]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// A delivered key becomes pending again behind the others.
	c.Put("a", 3)
	c.Put("z", 1)
	c.Put("a", 4)
	if got, want := fmt.Sprint(drain(t, c)), "[a=4 z=1]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestCoalescerOverflow(t *testing.T) {
	c := NewCoalescer[string, int](2)
	defer c.Close()
	c.Put("a", 1)
	c.Put("b", 1)
	if c.Put("c", 1) {
		t.Fatal("a third key was accepted by a Coalescer of 2")
	}
	if !c.Put("a", 2) {
		t.Fatal("a pending key was refused when full")
	}
	if got, want := fmt.Sprint(drain(t, c)), "[a=2 b=1]"; got != want {
		t.Fatalf("overflow disturbed the queue: got %s, want %s", got, want)
	}
}

func TestCoalescerNextBlocksUntilPutCtxOrClose(t *testing.T) {
	ctx := testCtx(t)
	c := NewCoalescer[string, int](4)
	got := make(chan error)
	go func() {
		k, v, err := c.Next(ctx)
		if err == nil && (k != "a" || v != 1) {
			err = fmt.Errorf("got %s=%d", k, v)
		}
		got <- err
	}()
	c.Put("a", 1)
	if err := <-got; err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithCancel(ctx)
	go func() { _, _, err := c.Next(cctx); got <- err }()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v", err)
	}

	go func() { _, _, err := c.Next(ctx); got <- err }()
	c.Put("b", 1)
	c.Close()
	c.Close()
	if err := <-got; err != nil && !errors.Is(err, ErrClosed) {
		t.Fatalf("Next across Close: %v", err)
	}
	if _, _, err := c.Next(t.Context()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	if !c.Put("c", 1) || c.Len() != 0 {
		t.Fatal("Put after Close must be a no-op that does not ask for a resync")
	}
}

func TestCoalescerConcurrentConsumers(t *testing.T) {
	ctx := testCtx(t)
	c := NewCoalescer[int, int](1000)
	defer c.Close()
	var wg sync.WaitGroup
	seen := make(chan int, 1000)
	for range 4 {
		wg.Go(func() {
			for {
				k, _, err := c.Next(ctx)
				if err != nil {
					return
				}
				seen <- k
			}
		})
	}
	for k := range 1000 {
		c.Put(k, k)
	}
	for range 1000 {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatal("some keys were never delivered")
		}
	}
	c.Close()
	wg.Wait()
}

func TestCoalescerSlowConsumerMemoryBounded(t *testing.T) {
	const keys = 100
	c := NewCoalescer[int, int](keys)
	defer c.Close()
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, _, err := c.Next(t.Context()); err != nil {
				return
			}
			time.Sleep(time.Microsecond) // a slow consumer
		}
	})
	for i := range 100_000 {
		if !c.Put(i%keys, i) {
			t.Fatalf("Put %d overflowed with only %d keys", i, keys)
		}
		if n := c.Len(); n > keys {
			t.Fatalf("%d keys pending", n)
		}
	}
	c.mu.Lock()
	slots := len(c.order.buf)
	c.mu.Unlock()
	if slots > keys {
		t.Fatalf("the FIFO grew to %d slots", slots)
	}
	c.Close()
	wg.Wait()
}
