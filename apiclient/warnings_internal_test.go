package apiclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestWarningsAreBoundedDeduplicatedAndOrdered(t *testing.T) {
	ctx, w := WithWarnings(context.Background())
	h := warningHandler{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			h.HandleWarningHeaderWithContext(ctx, 299, "-", fmt.Sprintf("w%d", i))
		})
	}
	wg.Wait()
	w.List() // concurrent adds are race-free (go test -race)

	ctx, w = WithWarnings(context.Background())
	long := strings.Repeat("é", maxWarningBytes) // 2 bytes a rune
	h.HandleWarningHeaderWithContext(ctx, 299, "-", "first")
	h.HandleWarningHeaderWithContext(ctx, 199, "-", "not an API warning")
	h.HandleWarningHeaderWithContext(ctx, 299, "-", long)
	h.HandleWarningHeaderWithContext(ctx, 299, "-", "first")
	for i := range 20 {
		h.HandleWarningHeaderWithContext(ctx, 299, "-", fmt.Sprintf("w%d", i))
	}
	got := w.List()
	if len(got) != maxWarnings || got[0] != "first" || got[2] != "w0" || got[maxWarnings-1] != fmt.Sprintf("w%d", maxWarnings-3) {
		t.Errorf("warnings = %q", got)
	}
	if cut := got[1]; len(cut) > maxWarningBytes || !utf8.ValidString(cut) || !strings.HasSuffix(cut, "…") {
		t.Errorf("long warning kept as %d bytes (valid UTF-8: %v)", len(cut), utf8.ValidString(cut))
	}
}
