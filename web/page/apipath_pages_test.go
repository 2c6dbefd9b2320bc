package page

import "testing"

// A Namespace's console pages are its own, not resources inside it; in
// other groups, and deeper, the same names are resources.
func TestParseAPIPathNamespacePages(t *testing.T) {
	for path, want := range map[string]APIPath{
		"/api/v1/namespaces/demo/edit":              {Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "edit"},
		"/api/v1/namespaces/demo/delete":            {Version: "v1", Resource: "namespaces", Name: "demo", Subresource: "delete"},
		"/api/v1/namespaces/demo/pods/web-1/edit":   {Version: "v1", Namespace: "demo", Resource: "pods", Name: "web-1", Subresource: "edit"},
		"/apis/example.com/v1/namespaces/demo/edit": {Group: "example.com", Version: "v1", Namespace: "demo", Resource: "edit"},
		"/api/v1/namespaces/demo/configmaps/new":    {Version: "v1", Namespace: "demo", Resource: "configmaps", Name: "new"},
		"/api/v1/namespaces/new":                    {Version: "v1", Resource: "namespaces", Name: "new"},
	} {
		got, err := ParseAPIPath(path)
		if err != nil || got != want {
			t.Errorf("ParseAPIPath(%q) = %+v, %v; want %+v", path, got, err, want)
		}
	}
}
