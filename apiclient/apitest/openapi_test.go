package apitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// openAPIGet GETs path without following redirects.
func openAPIGet(t *testing.T, s *apitest.Server, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := *s.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// openAPIIndex returns the index's serverRelativeURL by group version path.
func openAPIIndex(t *testing.T, s *apitest.Server) map[string]string {
	t.Helper()
	resp, body := openAPIGet(t, s, "/openapi/v3", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi/v3 = %d %s", resp.StatusCode, body)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, e := range index.Paths {
		out[name] = e.ServerRelativeURL
	}
	return out
}

func TestOpenAPIDefaultIsAbsent(t *testing.T) {
	s := apitest.NewServer(t, apitest.AppsV1())
	for _, path := range []string{"/openapi/v3", "/openapi/v3/apis/apps/v1"} {
		if resp, body := openAPIGet(t, s, path, nil); resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"kind":"Status"`) {
			t.Errorf("GET %s = %d %s, want a 404 Status", path, resp.StatusCode, body)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	s := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1())
	s.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	s.SetOpenAPI("", "v1", map[string]any{"io.k8s.api.core.v1.Pod": map[string]any{"type": "object"}})

	index := openAPIIndex(t, s)
	appsURL := index["apis/apps/v1"]
	if len(index) != 2 || !strings.HasPrefix(appsURL, "/openapi/v3/apis/apps/v1?hash=") || !strings.HasPrefix(index["api/v1"], "/openapi/v3/api/v1?hash=") {
		t.Fatalf("index = %v", index)
	}
	hash := appsURL[strings.Index(appsURL, "=")+1:]

	resp, body := openAPIGet(t, s, appsURL, map[string]string{"Accept": "application/json"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != `"`+hash+`"` || resp.Header.Get("Cache-Control") != "public, immutable" {
		t.Fatalf("GET %s = %d, headers %v", appsURL, resp.StatusCode, resp.Header)
	}
	var doc struct {
		OpenAPI    string `json:"openapi"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.0.0" || doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"] == nil {
		t.Errorf("document = %.300s", body)
	}

	// The revalidation and negotiation kube-openapi's handler3 does.
	if resp, _ := openAPIGet(t, s, appsURL, map[string]string{"If-None-Match": `"` + hash + `"`}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the ETag = %d, want 304", resp.StatusCode)
	}
	if resp, _ := openAPIGet(t, s, "/openapi/v3/apis/apps/v1?hash=STALE", nil); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != appsURL {
		t.Errorf("a stale hash = %d to %q, want 301 to %s", resp.StatusCode, resp.Header.Get("Location"), appsURL)
	}
	if resp, _ := openAPIGet(t, s, "/openapi/v3/apis/apps/v1", nil); resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "" {
		t.Errorf("no hash = %d, Cache-Control %q; want 200 and no immutable caching", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if resp, _ := openAPIGet(t, s, appsURL, map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"}); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("protobuf only = %d, want 406", resp.StatusCode)
	}

	// New content, new hash; nil stops serving the group version.
	s.SetOpenAPI("apps", "v1", apitest.WidgetOpenAPI())
	if got := openAPIIndex(t, s)["apis/apps/v1"]; got == appsURL || got == "" {
		t.Errorf("after a change the URL is %q, was %q", got, appsURL)
	}
	s.SetOpenAPI("apps", "v1", nil)
	if got := openAPIIndex(t, s); len(got) != 1 || got["api/v1"] == "" {
		t.Errorf("after removing apps/v1 the index is %v", got)
	}
	if resp, _ := openAPIGet(t, s, "/openapi/v3/apis/apps/v1", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a removed document = %d, want 404", resp.StatusCode)
	}
}

// The fixtures refer only to schemas they have.
func TestOpenAPIFixturesAreClosed(t *testing.T) {
	for name, schemas := range map[string]map[string]any{"AppsV1OpenAPI": apitest.AppsV1OpenAPI(), "WidgetOpenAPI": apitest.WidgetOpenAPI()} {
		raw, _ := json.Marshal(schemas)
		for _, part := range strings.Split(string(raw), `"$ref":"#/components/schemas/`)[1:] {
			target := part[:strings.Index(part, `"`)]
			if _, ok := schemas[target]; !ok {
				t.Errorf("%s refers to %s, which it does not have", name, target)
			}
		}
	}
}
