package apiclient

import (
	"net/http/httptest"
	"testing"
)

func TestClassifyRequest(t *testing.T) {
	tests := []struct {
		method, url       string
		wantVerb, wantRes string
	}{
		{"GET", "/api/v1/pods", "list", "pods"},
		{"GET", "/api/v1/namespaces/demo/pods", "list", "pods"},
		{"GET", "/api/v1/namespaces/demo/pods/web-1", "get", "pods"},
		{"GET", "/api/v1/namespaces/demo/pods/web-1/log", "get", "pods/log"},
		{"GET", "/api/v1/namespaces/demo/pods?watch=true", "watch", "pods"},
		{"GET", "/api/v1/namespaces", "list", "namespaces"},
		{"GET", "/api/v1/namespaces/demo", "get", "namespaces"},
		{"GET", "/apis/apps/v1/namespaces/demo/deployments/web/scale", "get", "apps/deployments/scale"},
		{"PATCH", "/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/fastnet", "patch", "maritime.tabula.dev/lighthouses"},
		{"DELETE", "/api/v1/namespaces/demo/configmaps", "deletecollection", "configmaps"},
		{"DELETE", "/api/v1/namespaces/demo/configmaps/x", "delete", "configmaps"},
		{"POST", "/api/v1/namespaces/demo/configmaps", "create", "configmaps"},
		{"GET", "/api", "get", "discovery"},
		{"GET", "/apis/apps/v1", "get", "discovery"},
		{"GET", "/version", "get", "nonresource"},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, tt.url, nil)
		verb, res := classifyRequest(req)
		if verb != tt.wantVerb || res != tt.wantRes {
			t.Errorf("%s %s = (%s, %s), want (%s, %s)", tt.method, tt.url, verb, res, tt.wantVerb, tt.wantRes)
		}
	}
}
