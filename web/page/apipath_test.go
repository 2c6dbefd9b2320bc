package page

import (
	"testing"

	"github.com/tabula-console/tabula/apiclient"
)

func TestParseAPIPath(t *testing.T) {
	tests := []struct {
		in   string
		want APIPath
	}{
		{"/api/v1/pods", APIPath{Version: "v1", Resource: "pods"}},
		{"/api/v1/namespaces", APIPath{Version: "v1", Resource: "namespaces"}},
		{"/api/v1/namespaces/demo", APIPath{Version: "v1", Resource: "namespaces", Name: "demo"}},
		{"/api/v1/namespaces/demo/status", APIPath{Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "status"}},
		{"/api/v1/namespaces/demo/pods", APIPath{Version: "v1", Namespace: "demo", Resource: "pods"}},
		{"/api/v1/namespaces/demo/pods/web-1", APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{"/api/v1/namespaces/demo/pods/web-1/log", APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1", Subresource: "log"}},
		{"/apis/apps/v1/deployments", APIPath{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job-controller", APIPath{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Name: "system:controller:job-controller"}},
	}
	for _, tt := range tests {
		got, err := ParseAPIPath(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseAPIPath(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{
		"/api/v1/namespaces/demo/pods/x%2F..%2F..%2Fsecrets%2Fs1", "/api/v1/namespaces/demo/pods/..", "/api/v1/namespaces/%2E%2E/pods",
		"/api/v1/namespaces/demo/pods/a%25b", "/apis/policy.example.com/v1/sessions/a%2Fb",
		"/api", "/api/v1", "/apis/apps", "/apis/apps/v1", "/api/v1/namespaces/demo/pods/a/b/c", "/api/v1/pods//x", "/api/v1/%zz"} {
		if _, err := ParseAPIPath(bad); err == nil {
			t.Errorf("ParseAPIPath(%q) accepted", bad)
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
		wantParse APIPath
	}{
		{pods, "demo", "web-1", "/c/dev/api/v1/namespaces/demo/pods/web-1", APIPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{pods, "", "", "/c/dev/api/v1/pods", APIPath{Version: "v1", Resource: "pods"}},
		// A cluster-scoped resource never gets a namespace segment.
		{sessions, "demo", "boot:x3000", "/c/dev/apis/policy.example.com/v1/sessions/boot:x3000", APIPath{Group: "policy.example.com", Version: "v1", Resource: "sessions", Name: "boot:x3000"}},
	} {
		got := string(URLsOf(t.Context()).In("dev").Resource(tc.r, tc.ns, tc.name))
		if got != tc.want {
			t.Errorf("ResourceURL = %q, want %q", got, tc.want)
		}
		parsed, err := ParseAPIPath(got[len("/c/dev"):])
		if err != nil || parsed != tc.wantParse {
			t.Errorf("parse(%q) = %+v, %v", got, parsed, err)
		}
	}
}
