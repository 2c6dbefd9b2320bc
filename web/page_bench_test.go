package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// BenchmarkListPage500 serves a whole list page, handler to HTML, against
// an upstream that answers a fixed 500-row pod Table: the console's own cost
// per page, without the API server's.
func BenchmarkListPage500(b *testing.B) {
	fake := apitest.NewServer(b, apitest.CoreV1())
	body := wireTable(b, benchPodTable(500))
	fake.Override("/api/v1/namespaces/bulk/pods", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		_, _ = w.Write(body)
	})
	h := newConsole(b, fake, "admin").server.Handler()
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/c/admin/api/v1/namespaces/bulk/pods", nil))
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

func wireTable(b *testing.B, t *apiclient.Table) []byte {
	b.Helper()
	out := metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	out.ResourceVersion, out.Continue, out.RemainingItemCount = t.ResourceVersion, t.Continue, t.RemainingItemCount
	for _, c := range t.Columns {
		out.ColumnDefinitions = append(out.ColumnDefinitions, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority})
	}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, metav1.TableRow{Cells: r.Cells})
	}
	body, err := json.Marshal(out)
	if err != nil {
		b.Fatal(err)
	}
	return body
}
