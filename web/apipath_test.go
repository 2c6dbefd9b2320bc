package web

import (
	"testing"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

func TestParseAPIPath(t *testing.T) {
	tests := []struct {
		in   string
		want apiPath
	}{
		{"/api/v1/pods", apiPath{Version: "v1", Resource: "pods"}},
		{"/api/v1/namespaces", apiPath{Version: "v1", Resource: "namespaces"}},
		{"/api/v1/namespaces/demo", apiPath{Version: "v1", Resource: "namespaces", Name: "demo"}},
		{"/api/v1/namespaces/demo/status", apiPath{Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "status"}},
		{"/api/v1/namespaces/demo/pods", apiPath{Version: "v1", Namespace: "demo", Resource: "pods"}},
		{"/api/v1/namespaces/demo/pods/web-1", apiPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{"/api/v1/namespaces/demo/pods/web-1/log", apiPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1", Subresource: "log"}},
		{"/apis/apps/v1/deployments", apiPath{Group: "apps", Version: "v1", Resource: "deployments"}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:job-controller", apiPath{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Name: "system:controller:job-controller"}},
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

func TestConsolePathRoundTrips(t *testing.T) {
	pods := apiclient.Resource{Version: "v1", Name: "pods", Namespaced: true}
	sessions := apiclient.Resource{Group: "policy.example.com", Version: "v1", Name: "sessions"}
	for _, tc := range []struct {
		r         apiclient.Resource
		ns, name  string
		want      string
		wantParse apiPath
	}{
		{pods, "demo", "web-1", "/c/dev/api/v1/namespaces/demo/pods/web-1", apiPath{Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1"}},
		{pods, "", "", "/c/dev/api/v1/pods", apiPath{Version: "v1", Resource: "pods"}},
		// A cluster-scoped resource never gets a namespace segment.
		{sessions, "demo", "boot:x3000", "/c/dev/apis/policy.example.com/v1/sessions/boot:x3000", apiPath{Group: "policy.example.com", Version: "v1", Resource: "sessions", Name: "boot:x3000"}},
	} {
		got := consolePath("dev", tc.r, tc.ns, tc.name)
		if got != tc.want {
			t.Errorf("consolePath = %q, want %q", got, tc.want)
		}
		parsed, err := parseAPIPath(got[len("/c/dev"):])
		if err != nil || parsed != tc.wantParse {
			t.Errorf("parse(%q) = %+v, %v", got, parsed, err)
		}
	}
}

func TestParseHumanDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"45s": 45 * time.Second, "5m3s": 5*time.Minute + 3*time.Second, "3h": 3 * time.Hour,
		"12d": 12 * 24 * time.Hour, "2y51d": (2*365 + 51) * 24 * time.Hour, "0s": 0,
	} {
		if got, ok := parseHumanDuration(in); !ok || got != want {
			t.Errorf("parseHumanDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "5", "abc", "5x", "m5"} {
		if _, ok := parseHumanDuration(bad); ok {
			t.Errorf("parseHumanDuration(%q) accepted", bad)
		}
	}
}
