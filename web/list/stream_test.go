package list_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// tableUpTo serves a pod Table of rows rows in two parts: the head and
// the rows before row cut (cut inside that row), then, once release is
// closed, the rest; with release nil it closes the connection after the
// first part instead.
func tableUpTo(t *testing.T, rows, cut int, release <-chan struct{}) http.HandlerFunc {
	full, err := json.Marshal(apitest.KwokPodTable(rows))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(full, []byte(`"rows":[`)) + len(`"rows":[`)
	for range cut + 1 {
		at += bytes.Index(full[at:], []byte(`{"cells"`)) + 1
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(full)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(full[:at])
		w.(http.Flusher).Flush()
		if release == nil {
			return
		}
		select {
		case <-release:
			_, _ = w.Write(full[at:])
		case <-r.Context().Done():
		}
	}
}

// A long list from a server that is slow to send it: the console sends
// the page with its first screen of rows while the server still holds the
// rest, then the rest, and the page is whole.
func TestAListSendsItsFirstScreenBeforeTheRest(t *testing.T) {
	const rows = 300
	for _, enc := range []string{"identity", "gzip", "br"} {
		t.Run(enc, func(t *testing.T) {
			release := make(chan struct{})
			fake := apitest.NewServer(t, apitest.CoreV1())
			fake.Override("/api/v1/namespaces/demo/pods", tableUpTo(t, rows, views.FirstScreenRows+10, release))
			h := webtest.Start(t, fake, webtest.Options{})
			// A console that sends nothing before the end never sends the
			// first screen: the deadline ends the wait with a failure.
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/c/dev/api/v1/namespaces/demo/pods", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Encoding", enc)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Content-Encoding"); got != strings.TrimPrefix(enc, "identity") {
				t.Fatalf("Content-Encoding %q, want %s", got, enc)
			}
			body := decoded(t, resp)
			// The upstream holds the rest until the first screen has come.
			var page strings.Builder
			r := bufio.NewReader(body)
			sent := 0
			webtest.ReadUntil(t, r, &page, "the first screen of rows", func(tag string) bool {
				sent += strings.Count(tag, "<tr data-key=")
				return sent >= views.FirstScreenRows
			})
			if strings.Contains(page.String(), "</html>") {
				t.Fatal("the whole page came before the server sent the rest")
			}
			close(release)
			rest, err := readAll(r)
			if err != nil {
				t.Fatal(err)
			}
			page.WriteString(rest)
			doc := webtest.Parse(t, page.String())
			if n := doc.Find("[data-testid=list-table] tbody tr").Length(); n != rows {
				t.Errorf("%d rows, want %d", n, rows)
			}
			if doc.Find("[data-testid=list-broken-off]").Length() != 0 {
				t.Error("a whole list says it broke off")
			}
			if !strings.HasSuffix(strings.TrimSpace(page.String()), "</html>") {
				t.Errorf("the page does not end: %s", webtest.Clip(page.String()[max(0, page.Len()-300):]))
			}
		})
	}
}

// decoded is a response's body, decoded as it arrives.
func decoded(t *testing.T, resp *http.Response) io.Reader {
	switch resp.Header.Get("Content-Encoding") {
	case "gzip":
		z, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return z
	case "br":
		return brotli.NewReader(resp.Body)
	}
	return resp.Body
}

func readAll(r *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := r.WriteTo(&b)
	return b.String(), err
}

// A list whose body breaks off after its first screen was sent keeps the
// rows it had, says it broke off (an alert with a link to load it again),
// and the page around it is whole.
func TestAListBrokenOffAfterItsFirstScreenSaysSo(t *testing.T) {
	const had = views.FirstScreenRows + 70
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/namespaces/demo/pods", tableUpTo(t, 300, had, nil))
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: 5 * time.Second}})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)
	doc := webtest.Parse(t, body)
	if n := doc.Find("[data-testid=list-table] tbody tr").Length(); n != had {
		t.Errorf("%d rows, want the %d read", n, had)
	}
	broken := doc.Find("[data-testid=list-broken-off]")
	if broken.AttrOr("role", "") != "alert" || !strings.Contains(broken.Text(), "broke off after "+strconv.Itoa(had)+" rows") {
		t.Errorf("notice: %s", webtest.Outer(broken))
	}
	if href := broken.Find("a").AttrOr("href", ""); href != "/c/dev/api/v1/namespaces/demo/pods" {
		t.Errorf("load-again link %q", href)
	}
	if doc.Find("[data-testid=pager]").Length() == 0 || !strings.HasSuffix(strings.TrimSpace(body), "</html>") {
		t.Error("the page around the list is not whole")
	}
}
