package apiclient_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Names that would change the request path are refused before any request:
// client-go joins segments with path.Join, so "../secrets/x" would read a
// Secret through a Pod URL.
func TestNamesThatEscapeThePathAreRefused(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	c := clientFor(t, fake)
	pods := apiclient.Resource{Version: "v1", Name: "pods", Namespaced: true}
	ctx := context.Background()
	fake.ResetRequests()
	for _, name := range []string{"..", ".", "x/../../secrets/s1", "a%2Fb"} {
		if _, err := c.GetObject(ctx, pods, "demo", name); !apierrors.IsBadRequest(err) {
			t.Errorf("GetObject(%q): %v, want 400 BadRequest", name, err)
		}
		if _, err := c.GetTable(ctx, pods, name, "web"); !apierrors.IsBadRequest(err) {
			t.Errorf("GetTable(namespace %q): %v, want 400 BadRequest", name, err)
		}
	}
	if _, err := c.ListTable(ctx, pods, apiclient.ListOptions{Namespace: "../.."}); !apierrors.IsBadRequest(err) {
		t.Errorf("ListTable: %v", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests were made with bad names", n)
	}
}
