package list_test

import (
	"net/http"
	"testing"

	"github.com/tabula-console/tabula/web/webtest"
)

func TestCreateFollowsTheUsersAccess(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)
	webtest.Disabled(t, b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken)), "create-link", "You may not create configmaps in namespace demo (verb create)")
	webtest.Enabled(t, b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.EditorToken)), "create-link")
	// Across all namespaces the namespace is chosen on the create page:
	// no one answer, so Create stays offered.
	webtest.Enabled(t, b.GetWith("/c/dev/api/v1/configmaps", http.StatusOK, webtest.As(webtest.ConsoleToken)), "create-link")
}

func TestNamespacePickerFollowsTheUsersAccess(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)
	// The viewer may not list namespaces: they type one.
	viewer := b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken))
	if !viewer.Has("namespace-input") || viewer.Has("namespace-select") {
		t.Error("the viewer, who may not list namespaces, is not offered a free-text namespace")
	}
	if got := viewer.Doc.Find("[data-testid=namespace-input]").AttrOr("value", ""); got != "demo" {
		t.Errorf("the namespace field holds %q, want demo", got)
	}
	// The admin picks from the list.
	admin := b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ConsoleToken))
	if !admin.Has("namespace-select") {
		t.Error("the admin is not offered the namespaces")
	}
	// The viewer's answer was not the admin's, nor the other way round.
	if viewer := b.GetWith(webtest.ConfigMapsPath, http.StatusOK, webtest.As(webtest.ViewerToken)); !viewer.Has("namespace-input") {
		t.Error("the viewer was given the admin's namespaces")
	}
}
