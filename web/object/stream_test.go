package object_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// An object's events are selected from every event in its namespace,
// which takes the longest of its reads in a busy one: the overview is sent
// down to its Related section while they are read, then the rest, and the
// page is whole. A failure there is a note, the page stays a 200.
func TestObjectPageSendsItsTopBeforeItsEvents(t *testing.T) {
	for _, tc := range []struct{ answer, query, note string }{
		{"events", "", "Reading related objects and events…"},
		{"failure", "", "Reading related objects and events…"},
		{"events", "?related=0", "Reading events…"},
	} {
		answer := tc.answer
		t.Run(answer+tc.query, func(t *testing.T) {
			h, fake := webtest.Demo(t, apitest.Options{})
			release := make(chan struct{})
			fake.Override("/apis/events.k8s.io/v1/namespaces/demo/events", func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
				if answer == "failure" {
					apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: "etcd is on fire"})
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{},"items":[]}`))
			})
			// A console that sends nothing before the end never sends the
			// top: the deadline ends the wait with a failure.
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/c/dev/api/v1/namespaces/demo/pods/web-5d9-a"+tc.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			var page strings.Builder
			r := bufio.NewReader(resp.Body)
			// The top, down to the conditions, then a note on what is
			// still being read.
			webtest.ReadUntil(t, r, &page, "the pending note", func(tag string) bool {
				return strings.Contains(tag, `data-testid="pending-note"`)
			})
			if !strings.Contains(page.String(), `data-testid="conditions"`) || strings.Contains(page.String(), "</html>") {
				t.Fatalf("sent before the events: %s", webtest.Clip(page.String()))
			}
			close(release)
			var rest strings.Builder
			if _, err := r.WriteTo(&rest); err != nil {
				t.Fatal(err)
			}
			page.WriteString(rest.String())
			doc := webtest.Parse(t, page.String())
			// The note hides itself (CSS) once something follows it.
			if note := doc.Find("[data-testid=pending-note]"); note.Length() != 1 || note.Next().Length() == 0 || note.Text() != tc.note {
				t.Errorf("%d pending notes, %q, followed by %d elements", note.Length(), note.Text(), note.Next().Length())
			}
			if rows := doc.Find("[data-testid=related] [data-testid=related-row]").Length(); (rows > 0) != (tc.query == "") {
				t.Errorf("%d related rows with %q", rows, tc.query)
			}
			events := strings.TrimSpace(doc.Find("[data-testid=events]").Text())
			want := "No events."
			if answer == "failure" {
				want = "etcd is on fire"
			}
			if !strings.Contains(events, want) {
				t.Errorf("events section %q, want %q in it", events, want)
			}
			if !strings.HasSuffix(strings.TrimSpace(page.String()), "</html>") {
				t.Errorf("the page does not end: %s", webtest.Clip(page.String()[max(0, page.Len()-300):]))
			}
		})
	}
}
