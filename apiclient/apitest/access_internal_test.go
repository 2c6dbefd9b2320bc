package apitest

import (
	"net/http/httptest"
	"testing"
)

func TestRequestAttributesFollowKubeAPIServer(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		want           attributes
	}{
		{"GET", "/api/v1/namespaces/demo/pods", attributes{true, "list", "", "pods", "", "demo", ""}},
		{"GET", "/api/v1/namespaces/demo/pods?watch=1", attributes{true, "watch", "", "pods", "", "demo", ""}},
		{"GET", "/api/v1/namespaces/demo/pods?watch=true&fieldSelector=metadata.name%3Dweb", attributes{true, "watch", "", "pods", "", "demo", "web"}},
		{"GET", "/api/v1/namespaces/demo/pods/web/log", attributes{true, "get", "", "pods", "log", "demo", "web"}},
		{"GET", "/api/v1/namespaces/demo", attributes{true, "get", "", "namespaces", "", "demo", "demo"}},
		{"PUT", "/api/v1/namespaces/demo/status", attributes{true, "update", "", "namespaces", "status", "demo", "demo"}},
		{"GET", "/api/v1/nodes", attributes{true, "list", "", "nodes", "", "", ""}},
		{"PATCH", "/apis/apps/v1/namespaces/demo/deployments/web/scale", attributes{true, "patch", "apps", "deployments", "scale", "demo", "web"}},
		{"POST", "/apis/apps/v1/namespaces/demo/deployments", attributes{true, "create", "apps", "deployments", "", "demo", ""}},
		{"DELETE", "/apis/apps/v1/namespaces/demo/deployments/web", attributes{true, "delete", "apps", "deployments", "", "demo", "web"}},
		{"DELETE", "/apis/apps/v1/namespaces/demo/deployments", attributes{true, "deletecollection", "apps", "deployments", "", "demo", ""}},
		{"GET", "/apis", attributes{verb: "get"}},
		{"GET", "/version", attributes{verb: "get"}},
	} {
		got := requestAttributes(httptest.NewRequest(tc.method, tc.target, nil))
		if got != tc.want {
			t.Errorf("%s %s: %+v, want %+v", tc.method, tc.target, got, tc.want)
		}
	}
}
