package web_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// Every row of the route table names the verb the server must allow on
// the resource; resource checks it once, before any handler asks the
// server anything, and answers 405 with what is not allowed.
func TestRoutesRefuseVerbsTheServerDoesNotAllow(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.GroupVersion{
		Group: "audit.example.com", Version: "v1",
		// Readable one by one, but never listed, watched or changed.
		Resources: []metav1.APIResource{{Name: "records", SingularName: "record", Kind: "Record", Namespaced: true, Verbs: []string{"get"}}},
	}, apitest.GroupVersion{
		Group: "feed.example.com", Version: "v1",
		// Listed, never read one by one.
		Resources: []metav1.APIResource{{Name: "items", SingularName: "item", Kind: "Item", Namespaced: true, Verbs: []string{"list"}}},
	})
	h := webtest.Start(t, fake, webtest.Options{})
	for _, tc := range []struct {
		path, want string
	}{
		{"/c/dev/apis/audit.example.com/v1/namespaces/demo/records", "does not allow listing records"},
		{"/c/dev/apis/audit.example.com/v1/namespaces/demo/records/new", "does not allow creating records"},
		{"/c/dev/apis/audit.example.com/v1/namespaces/demo/records/r1/edit", "does not allow patching records"},
		{"/c/dev/apis/audit.example.com/v1/namespaces/demo/records/r1/delete", "does not allow deleting records"},
		{"/c/dev/apis/feed.example.com/v1/namespaces/demo/items/i1", "does not allow reading items"},
	} {
		fake.ResetRequests()
		_, body := h.Get(t, tc.path, http.StatusMethodNotAllowed)
		if !strings.Contains(body, tc.want) {
			t.Errorf("%s: the 405 does not say %q", tc.path, tc.want)
		}
		for _, r := range fake.Requests() {
			if strings.Contains(r.URL.Path, "/records") || strings.Contains(r.URL.Path, "/items") {
				t.Errorf("%s: the server was asked %s %s", tc.path, r.Method, r.URL.Path)
			}
		}
	}
}

// A namespace no server can hold is refused with 400 and the reason, and
// nothing is asked upstream (it used to come back as an empty list).
func TestImpossibleNamespacesAreRefused(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	h := webtest.Start(t, fake, webtest.Options{})
	for _, path := range []string{
		"/c/dev/api/v1/namespaces/a%00b/pods",
		"/c/dev/api/v1/namespaces/%5C..%5C../pods",
		"/c/dev/logs/a%00b?labelSelector=app%3Dweb",
	} {
		fake.ResetRequests()
		_, body := h.Get(t, path, http.StatusBadRequest)
		if !strings.Contains(body, "is not a namespace name") {
			t.Errorf("%s: the 400 does not say why", path)
		}
		for _, r := range fake.Requests() {
			if strings.Contains(r.URL.Path, "/pods") {
				t.Errorf("%s: the server was asked %s %s", path, r.Method, r.URL.Path)
			}
		}
	}
}
