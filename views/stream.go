package views

import (
	"context"
	"io"
	"time"
)

// A page streamed to the browser as it renders (page.Env.RenderStreamed)
// sends its first screen as soon as it is written, and the rest as it
// comes: a long list read from a slow server shows its first rows at once.

// FirstScreenRows is how many rows a streamed list writes before it sends
// the page so far: more than a tall screen shows.
const FirstScreenRows = 50

// streamSendEvery is how often a streamed list sends its rows after the
// first screen, while they keep coming.
const streamSendEvery = 100 * time.Millisecond

type streamKey struct{}

// Stream is a page being sent as it renders (page.Env.RenderStreamed).
type Stream interface {
	// Send sends the page written so far, at the first call with its
	// head, and from then on what is written as it comes.
	Send()
	// Sent says whether any of the page has been sent, after which a
	// failure can no longer be an error page.
	Sent() bool
}

// WithStream marks a render as streamed through s.
func WithStream(ctx context.Context, s Stream) context.Context {
	return context.WithValue(ctx, streamKey{}, s)
}

// streamOf is the render's stream, or nil when the page is rendered whole
// before it is sent.
func streamOf(ctx context.Context) Stream {
	s, _ := ctx.Value(streamKey{}).(Stream)
	return s
}

// flush empties templ's buffer (w) into the page's writer.
func flush(w io.Writer) error {
	switch f := w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
