package search_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// BenchmarkSearchPage is a whole search page, over HTTP, across the demo
// fake's kinds, one of which answers with 5,000 pods of kwok's metadata
// Table (ten of them match): what the console itself spends decoding,
// filtering and writing, the fake's answers precomputed.
func BenchmarkSearchPage(b *testing.B) {
	h, fake := webtest.Demo(b, apitest.Options{})
	table := apitest.KwokPodTableMetadata(5000)
	table.Continue, table.RemainingItemCount = "", nil // one page, the whole list
	pods, err := json.Marshal(table)
	if err != nil {
		b.Fatal(err)
	}
	fake.Override("/api/v1/pods", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(pods)
	})
	url := h.URL + "/c/dev/search?" + q("bulk-0001 ns:*")
	b.SetBytes(int64(len(pods)))
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || strings.Count(string(body), `data-testid="search-row"`) != 10 {
			b.Fatalf("status %d, %d rows: %v", resp.StatusCode, strings.Count(string(body), `data-testid="search-row"`), err)
		}
	}
}
