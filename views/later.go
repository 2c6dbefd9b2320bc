package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// Later is a part of a page that is still being read when the part above
// it is ready. A streamed page (page.Env.RenderStreamed) that reaches a
// Later not yet ready sends what it has written first, so the top of the
// page is on the screen while, say, an object's events are being listed.
type Later[T any] struct {
	ready <-chan struct{}
	value *T
}

// Ready is a Later that is here already.
func Ready[T any](v T) Later[T] {
	ready := make(chan struct{})
	close(ready)
	return Later[T]{ready: ready, value: &v}
}

// Eventually is a Later and the function that delivers it, which must be
// called exactly once: the page waits for it without a deadline of its own,
// so what reads the value must be bounded by the request's.
func Eventually[T any]() (Later[T], func(T)) {
	ready := make(chan struct{})
	l := Later[T]{ready: ready, value: new(T)}
	return l, func(v T) {
		*l.value = v
		close(ready)
	}
}

// Wait returns the value once it is delivered; the zero value for a zero
// Later.
func (l Later[T]) Wait() T {
	if l.ready == nil {
		var zero T
		return zero
	}
	<-l.ready
	return *l.value
}

// isReady says the value can be read without waiting.
func (l Later[T]) isReady() bool {
	if l.ready == nil {
		return true
	}
	select {
	case <-l.ready:
		return true
	default:
		return false
	}
}

// sendUnlessReady sends a streamed page written so far when l still has
// to be waited for, ending it with a note that says what is still coming
// (none when coming is empty).
// The note hides itself once anything follows it, with no script
// (app.css: .pending-note:has(~ *), as Blink leaves :last-child unmatched
// until the parent is parsed), so what follows the wait must start with
// an element.
func sendUnlessReady[T any](l Later[T], coming string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		stream := streamOf(ctx)
		if stream == nil || l.isReady() {
			return nil
		}
		if coming != "" {
			if err := pendingNote(coming).Render(ctx, w); err != nil {
				return err
			}
		}
		if err := flush(w); err != nil {
			return err
		}
		stream.Send()
		return nil
	})
}
