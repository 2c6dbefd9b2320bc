package edit_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/web/webtest"
)

// The write pages' tests drive the console as a browser does
// (webtest.Browser): a cookie jar, forms read from the page (action, hidden
// fields, textareas) and posted back with one button pressed, redirects
// not followed, over webtest.Editable. Every request asserts its status
// code.

var (
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMapGVK  = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// apiSvcPath is the page of Editable's Service api.
const apiSvcPath = "/c/dev/api/v1/namespaces/demo/services/api"

// rawObject is the object's JSON as the fake serves it.
func rawObject(t *testing.T, f *webtest.Console, apiPath string) []byte {
	t.Helper()
	b, err := f.Stored(t, apiPath).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
