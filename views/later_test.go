package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// fakeStream records Sends.
type fakeStream struct{ sends int }

func (s *fakeStream) Send()      { s.sends++ }
func (s *fakeStream) Sent() bool { return s.sends > 0 }

func TestLaterSendsThePageOnlyWhenItMustWait(t *testing.T) {
	if got := (Later[int]{}).Wait(); got != 0 {
		t.Errorf("a zero Later gives %d", got)
	}
	if got := Ready(7).Wait(); got != 7 {
		t.Errorf("Ready(7) gives %d", got)
	}

	stream := &fakeStream{}
	ctx := WithStream(context.Background(), stream)
	var page bytes.Buffer
	if err := sendUnlessReady(Ready(1), "Reading…").Render(ctx, &page); err != nil {
		t.Fatal(err)
	}
	if stream.sends != 0 || page.Len() != 0 {
		t.Errorf("a ready Later sent the page (%d) or wrote %q", stream.sends, page.String())
	}

	later, deliver := Eventually[string]()
	if err := sendUnlessReady(later, "Reading events…").Render(ctx, &page); err != nil {
		t.Fatal(err)
	}
	if stream.sends != 1 || !strings.Contains(page.String(), `data-testid="pending-note"`) || !strings.Contains(page.String(), "Reading events…") {
		t.Errorf("a pending Later: %d sends, wrote %q", stream.sends, page.String())
	}
	go deliver("events")
	if got := later.Wait(); got != "events" {
		t.Errorf("delivered %q", got)
	}

	// Rendered whole (no stream), nothing is sent or written.
	page.Reset()
	pending, _ := Eventually[string]()
	if err := sendUnlessReady(pending, "Reading…").Render(context.Background(), &page); err != nil || page.Len() != 0 {
		t.Errorf("without a stream: %v, wrote %q", err, page.String())
	}
}
