package exec

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

// The terminal's size: the browser's first one, which the process starts
// at, then each resize.

// firstSizeWait is how long the process waits for the browser's first
// size, so that a shell starts at the size it is shown at.
const firstSizeWait = 2 * time.Second

// firstSize waits briefly for the browser's first size.
func (s *session) firstSize() *apiclient.TerminalSize {
	if !s.tty() {
		return nil
	}
	t := time.NewTimer(firstSizeWait)
	defer t.Stop()
	for {
		select {
		case p := <-s.stream.Resize():
			if sz, ok := parseSize(p); ok {
				return sz
			}
		case <-t.C:
			return nil
		case <-s.stream.Context.Done():
			return nil
		}
	}
}

// sizes feeds the browser's terminal sizes to the executor: the first one
// given, then each resize.
type sizes struct {
	first *apiclient.TerminalSize
	next  <-chan []byte
	ctx   context.Context
	// given is closed when the executor asks for a size after the first:
	// it asks only once it has sent the last one.
	given     chan struct{}
	givenOnce sync.Once
}

// afterSize holds stdin back until the first size is on its way: the
// executor sends sizes and stdin from goroutines of their own, and a
// command typed at once must not run at the server's default size.
type afterSize struct {
	r      io.Reader
	given  <-chan struct{}
	ctx    context.Context
	waited bool
}

func (a *afterSize) Read(p []byte) (int, error) {
	if !a.waited {
		a.waited = true
		// An executor of a protocol without sizes (older than
		// v3.channel.k8s.io) never asks: stdin goes anyway.
		t := time.NewTimer(firstSizeWait)
		select {
		case <-a.given:
		case <-a.ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return a.r.Read(p)
}

// maxCells bounds a size: no screen has more, and a process asked for a
// huge terminal may allocate for it.
const maxCells = 1000

// parseSize reads a resize frame, {"Width":w,"Height":h}.
func parseSize(p []byte) (*apiclient.TerminalSize, bool) {
	var sz struct{ Width, Height int }
	if json.Unmarshal(p, &sz) != nil || sz.Width < 1 || sz.Height < 1 || sz.Width > maxCells || sz.Height > maxCells {
		return nil, false
	}
	return &apiclient.TerminalSize{Width: uint16(sz.Width), Height: uint16(sz.Height)}, true
}

// Next returns the next size, or nil when the session ends.
func (q *sizes) Next() *apiclient.TerminalSize {
	if f := q.first; f != nil {
		q.first = nil
		return f
	}
	q.givenOnce.Do(func() { close(q.given) })
	for {
		select {
		case p := <-q.next:
			if sz, ok := parseSize(p); ok {
				return sz
			}
		case <-q.ctx.Done():
			return nil
		}
	}
}
