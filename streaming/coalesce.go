package streaming

import (
	"context"
	"sync"
)

// Coalescer is a latest-wins queue keyed by K: a slow consumer sees the
// latest value of each pending key once, in the order the keys first became
// pending. Its memory is bounded by max pending keys.
type Coalescer[K comparable, V any] struct {
	mu      sync.Mutex
	order   ring[K]
	pending map[K]V
	closed  bool

	ready chan struct{} // capacity 1: "something may be pending"
	done  chan struct{} // closed by Close
	once  sync.Once
}

// NewCoalescer returns a Coalescer holding at most size pending keys (at
// least 1).
func NewCoalescer[K comparable, V any](size int) *Coalescer[K, V] {
	return &Coalescer[K, V]{
		order:   ring[K]{max: max(size, 1)},
		pending: make(map[K]V),
		ready:   make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
}

// Put makes v the pending value of k, keeping k's place if it is already
// pending. It never blocks. It returns false, leaving the queue as it was,
// when k is new and the queue is full: the consumer has fallen too far
// behind and must resync. After Close, Put discards v and returns true,
// since nobody is left to resync.
func (c *Coalescer[K, V]) Put(k K, v V) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return true
	}
	if _, ok := c.pending[k]; !ok {
		if c.order.full() {
			return false
		}
		c.order.push(k)
	}
	c.pending[k] = v
	c.signal()
	return true
}

// Next removes and returns the oldest pending key with its latest value. It
// blocks until one is pending, ctx is done, or the Coalescer is closed
// (ErrClosed, even if keys are still pending).
func (c *Coalescer[K, V]) Next(ctx context.Context) (K, V, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			var k K
			var v V
			return k, v, ErrClosed
		}
		if c.order.len() > 0 {
			k, _ := c.order.pop()
			v := c.pending[k]
			delete(c.pending, k)
			if c.order.len() > 0 {
				c.signal() // another Next may be waiting for what remains
			}
			c.mu.Unlock()
			return k, v, nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.done:
		case <-ctx.Done():
			var k K
			var v V
			return k, v, ctx.Err()
		}
	}
}

// Len returns the number of pending keys.
func (c *Coalescer[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.len()
}

// Close wakes every Next with ErrClosed and drops what is pending.
func (c *Coalescer[K, V]) Close() {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.order = ring[K]{}
		c.pending = nil
		c.mu.Unlock()
		close(c.done)
	})
}

func (c *Coalescer[K, V]) signal() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// ring is a FIFO of at most max items whose storage grows on demand, so that
// a generous bound costs nothing until it is used.
type ring[T any] struct {
	buf     []T
	head, n int
	max     int
}

func (r *ring[T]) len() int   { return r.n }
func (r *ring[T]) full() bool { return r.n >= r.max }

// at returns the i-th oldest item.
func (r *ring[T]) at(i int) T { return r.buf[(r.head+i)%len(r.buf)] }

// push appends x. When the ring is full it evicts and returns the oldest.
func (r *ring[T]) push(x T) (evicted T, ok bool) {
	if r.full() {
		evicted, ok = r.pop()
	}
	if r.n == len(r.buf) {
		grown := make([]T, min(max(2*len(r.buf), 16), r.max))
		for i := range r.n {
			grown[i] = r.at(i)
		}
		r.buf, r.head = grown, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = x
	r.n++
	return evicted, ok
}

func (r *ring[T]) pop() (T, bool) {
	var zero T
	if r.n == 0 {
		return zero, false
	}
	x := r.buf[r.head]
	r.buf[r.head] = zero // let the GC have it
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return x, true
}
