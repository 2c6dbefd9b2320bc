package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// BenchmarkListPage500 serves a whole list page, handler to HTML, against
// an upstream that answers a fixed 500-row pod Table: the console's own cost
// per page, without the API server's.
func BenchmarkListPage500(b *testing.B) {
	fake := apitest.NewServer(b, apitest.CoreV1())
	body, err := json.Marshal(apitest.KwokPodTable(500))
	if err != nil {
		b.Fatal(err)
	}
	fake.Override("/api/v1/namespaces/bulk/pods", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		_, _ = w.Write(body)
	})
	h := webtest.Start(b, fake, webtest.Options{Contexts: []string{"admin"}}).Server.Handler()
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		// An address the host check allows, as a browser on the machine sends.
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/c/admin/api/v1/namespaces/bulk/pods", nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
		return rec
	}
	get() // discovery and the namespace picker are cached after this
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		get()
	}
}

// BenchmarkListPageLabelColumns500 serves the page of issue 27's budget (two
// label columns over a 500-row Metadata Table) against a fixed upstream, and
// the same page without them, over the same body: the label columns' own
// cost per page.
func BenchmarkListPageLabelColumns500(b *testing.B) {
	fake := apitest.NewServer(b, apitest.CoreV1())
	body, err := json.Marshal(apitest.KwokPodTableMetadata(500))
	if err != nil {
		b.Fatal(err)
	}
	fake.Override("/api/v1/namespaces/bulk/pods", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		_, _ = w.Write(body)
	})
	h := webtest.Start(b, fake, webtest.Options{Contexts: []string{"admin"}}).Server.Handler()
	for _, bc := range []struct{ name, query string }{
		{"plain", ""},
		{"labelColumns", "?labelColumns=app.kubernetes.io/name,topology.kubernetes.io/zone"},
	} {
		get := func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080/c/admin/api/v1/namespaces/bulk/pods"+bc.query, nil))
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
			}
		}
		b.Run(bc.name, func(b *testing.B) {
			get()
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				get()
			}
		})
	}
}
