package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/page"
)

func TestParseAPIPath(t *testing.T) {
	tests := []struct {
		in   string
		want page.APIPath
	}{
		{"/api/v1/pods", page.APIPath{Version: "v1", Resource: "pods"}},
		{"/api/v1/namespaces", page.APIPath{Version: "v1", Resource: "namespaces"}},
		{"/api/v1/namespaces/demo", page.APIPath{Version: "v1", Resource: "namespaces", Name: "demo"}},
		{"/api/v1/namespaces/demo/status", page.APIPath{Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "status"}},
		{"/api/v1/namespaces/demo/pods", page.APIPath{Version: "v1", Namespace: "demo", Resource: "pods"}},
		{"/api/v1/namespaces/demo/pods/web-1", page.APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{"/api/v1/namespaces/demo/pods/web-1/log", page.APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1", Subresource: "log"}},
		{"/apis/apps/v1/deployments", page.APIPath{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job-controller", page.APIPath{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Name: "system:controller:job-controller"}},
	}
	for _, tt := range tests {
		got, err := parseAPIPath(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseAPIPath(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{
		"/api/v1/namespaces/demo/pods/x%2F..%2F..%2Fsecrets%2Fs1", "/api/v1/namespaces/demo/pods/..", "/api/v1/namespaces/%2E%2E/pods",
		"/api/v1/namespaces/demo/pods/a%25b", "/apis/policy.example.com/v1/sessions/a%2Fb",
		"/api", "/api/v1", "/apis/apps", "/apis/apps/v1", "/api/v1/namespaces/demo/pods/a/b/c", "/api/v1/pods//x", "/api/v1/%zz"} {
		if _, err := parseAPIPath(bad); err == nil {
			t.Errorf("parseAPIPath(%q) accepted", bad)
		}
	}
}

// A namespace or name no server can hold is a 400 that says why, before
// anything is asked upstream (a%00b came back as an empty list).
func TestParseAPIPathRefusesImpossibleNames(t *testing.T) {
	for path, why := range map[string]string{
		"/api/v1/namespaces/a%00b/pods":                                        "is not a namespace name",
		"/api/v1/namespaces/%5C..%5C../pods":                                   "is not a namespace name",
		"/api/v1/namespaces/Demo/pods":                                         "is not a namespace name",
		"/apis/apps/v1/namespaces/" + strings.Repeat("a", 64) + "/deployments": "is not a namespace name",
		"/api/v1/namespaces/demo/pods/web%0A1":                                 "control character",
		"/apis/example.com/v1/widgets/a%7Fb":                                   "control character",
	} {
		_, err := parseAPIPath(path)
		var he *echo.HTTPError
		if !errors.As(err, &he) || he.Code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(he.Message), why) {
			t.Errorf("parseAPIPath(%q) = %v, want a 400 saying %q", path, err, why)
		}
	}
	// What the conventions allow passes: DNS labels, and names of any
	// server's rules (CSM's "boot:x3000", RBAC's "system:…").
	for _, path := range []string{"/api/v1/namespaces/kube-system/pods", "/apis/example.com/v1/namespaces/a-1/widgets/Boot:X3000 ü"} {
		if _, err := parseAPIPath(path); err != nil {
			t.Errorf("parseAPIPath(%q) = %v", path, err)
		}
	}
}

func TestConsolePathRoundTrips(t *testing.T) {
	pods := apiclient.Resource{Version: "v1", Name: "pods", Namespaced: true}
	sessions := apiclient.Resource{Group: "policy.example.com", Version: "v1", Name: "sessions"}
	for _, tc := range []struct {
		r         apiclient.Resource
		ns, name  string
		want      string
		wantParse page.APIPath
	}{
		{pods, "demo", "web-1", "/c/dev/api/v1/namespaces/demo/pods/web-1", page.APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{pods, "", "", "/c/dev/api/v1/pods", page.APIPath{Version: "v1", Resource: "pods"}},
		// A cluster-scoped resource never gets a namespace segment.
		{sessions, "demo", "boot:x3000", "/c/dev/apis/policy.example.com/v1/sessions/boot:x3000", page.APIPath{Group: "policy.example.com", Version: "v1", Resource: "sessions", Name: "boot:x3000"}},
	} {
		got := string(page.URLsOf(t.Context()).In("dev").Resource(tc.r, tc.ns, tc.name))
		if got != tc.want {
			t.Errorf("ResourceURL = %q, want %q", got, tc.want)
		}
		parsed, err := parseAPIPath(got[len("/c/dev"):])
		if err != nil || parsed != tc.wantParse {
			t.Errorf("parse(%q) = %+v, %v", got, parsed, err)
		}
	}
}

// A Namespace's console pages are its own, not resources inside it; in
// other groups, and deeper, the same names are resources.
func TestParseAPIPathNamespacePages(t *testing.T) {
	for path, want := range map[string]page.APIPath{
		"/api/v1/namespaces/demo/edit":              {Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "edit"},
		"/api/v1/namespaces/demo/delete":            {Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "delete"},
		"/api/v1/namespaces/demo/pods/web-1/edit":   {Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1", Subresource: "edit"},
		"/apis/example.com/v1/namespaces/demo/edit": {Group: "example.com", Version: "v1", Namespace: "demo", Resource: "edit"},
		"/api/v1/namespaces/demo/configmaps/new":    {Version: "v1", Namespace: "demo", Resource: "configmaps", Name: "new"},
		"/api/v1/namespaces/new":                    {Version: "v1", Resource: "namespaces", Name: "new"},
	} {
		got, err := parseAPIPath(path)
		if err != nil || got != want {
			t.Errorf("parseAPIPath(%q) = %+v, %v; want %+v", path, got, err, want)
		}
	}
}
