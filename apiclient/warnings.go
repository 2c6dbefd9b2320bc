package apiclient

import (
	"context"
	"log/slog"
	"sync"
	"unicode/utf8"

	"k8s.io/client-go/rest"
)

// Bounds of a Warnings collector: a server (or a page making many calls)
// cannot grow a page without limit through Warning headers.
const (
	maxWarnings     = 10
	maxWarningBytes = 512
)

// Warnings collects the warnings API servers send (Warning headers with
// code 299, such as "apps/v1beta1 Deployment is deprecated") during one
// request of the console, for the page to show. It keeps each distinct
// message once, in arrival order, at most maxWarnings of them, each cut to
// maxWarningBytes. It is safe for concurrent use.
type Warnings struct {
	mu   sync.Mutex
	list []string
}

type warningsKey struct{}

// WithWarnings returns a context whose upstream calls, through any Client,
// collect their warnings into the returned Warnings rather than the log.
func WithWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// List returns the warnings collected so far, deduplicated, oldest first.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

func (w *Warnings) add(message string) {
	if len(message) > maxWarningBytes {
		cut := maxWarningBytes - len("…")
		for cut > 0 && !utf8.RuneStart(message[cut]) {
			cut--
		}
		message = message[:cut] + "…"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.list) >= maxWarnings {
		return
	}
	for _, m := range w.list {
		if m == message {
			return
		}
	}
	w.list = append(w.list, message)
}

// warningHandler receives the Warning headers of a Client's responses: into
// the request context's Warnings when it has one, else to the log.
type warningHandler struct {
	log     *slog.Logger
	context string
}

var _ rest.WarningHandlerWithContext = warningHandler{}

func (h warningHandler) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	// 299 is the "miscellaneous persistent warning" Kubernetes uses; other
	// codes are not API warnings (client-go ignores them too).
	if code != 299 || text == "" {
		return
	}
	if w, ok := ctx.Value(warningsKey{}).(*Warnings); ok {
		w.add(text)
		return
	}
	h.log.LogAttrs(ctx, slog.LevelWarn, "API server warning",
		slog.String("context", h.context), slog.String("agent", agent), slog.String("warning", text))
}
