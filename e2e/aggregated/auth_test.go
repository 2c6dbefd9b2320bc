package aggregated

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAuthentication(t *testing.T) {
	s := startTestServer(t)
	path := basePath + "/namespaces/demo/probes"

	t.Run("no client certificate", func(t *testing.T) {
		resp, body := s.do(t, s.anonymous, path, "", "admin")
		wantStatus(t, resp, body, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	})
	t.Run("certificate CN not an allowed proxy", func(t *testing.T) {
		c := s.client(s.ca.clientCert(t, "someone-else"))
		resp, body := s.do(t, c, path, "", "admin")
		wantStatus(t, resp, body, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	})
	t.Run("no X-Remote-User", func(t *testing.T) {
		resp, body := s.do(t, s.proxy, path, "", "")
		wantStatus(t, resp, body, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	})
	t.Run("certificate of another CA", func(t *testing.T) {
		c := s.client(newTestCA(t).clientCert(t, frontProxyName))
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Remote-User", "admin")
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("HTTP %d, want the TLS handshake to fail", resp.StatusCode)
		}
	})
	t.Run("front proxy", func(t *testing.T) {
		if resp, body := s.do(t, s.proxy, path, "", "viewer"); resp.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
		}
	})
}
