package apitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// send makes one request with a body and decodes the JSON object answered.
func send(t *testing.T, s *apitest.Server, method, path, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), header: resp.Header}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %s", method, path, raw)
	}
	return a
}

func TestWritesRecorded(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.FailPath("/api/v1/namespaces/demo/pods/web-b", apitest.Forbidden("alice", "patch", "", "pods", "web-b"))
	get(t, s, "/api/v1/namespaces/demo/pods/web-a", "")
	a := send(t, s, http.MethodPatch, "/api/v1/namespaces/demo/pods/web-b?fieldManager=tabula", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`)
	if a.code != http.StatusForbidden || a.body["reason"] != string(metav1.StatusReasonForbidden) {
		t.Errorf("answer %d %v", a.code, a.body)
	}
	writes := s.Writes()
	if len(writes) != 1 {
		t.Fatalf("%d writes, want the PATCH only", len(writes))
	}
	w := writes[0]
	if w.Method != http.MethodPatch || w.Path != "/api/v1/namespaces/demo/pods/web-b" || w.Query.Get("fieldManager") != "tabula" ||
		w.ContentType != "application/merge-patch+json" || string(w.Body) != `{"metadata":{"labels":{"x":"y"}}}` {
		t.Errorf("write = %+v (body %s)", w, w.Body)
	}
	s.ResetRequests()
	if len(s.Writes()) != 0 || len(s.Requests()) != 0 {
		t.Error("ResetRequests kept writes")
	}
}
