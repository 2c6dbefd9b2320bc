package object_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/object"
	"github.com/tabula-console/tabula/web/webtest"
)

// The RBAC-aware pages are tested against webtest.WithAccess: a fake that
// authorizes as kube-apiserver does, and requests that act as the token
// they carry.

func TestObjectActionsFollowTheUsersAccess(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	b := webtest.NewBrowser(t, h)

	viewer := b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.ViewerToken))
	webtest.Disabled(t, viewer, "edit-link", "You may not patch deployments.apps in namespace demo (verb patch)")
	webtest.Disabled(t, viewer, "scale-link", "You may not patch deployments.apps/scale in namespace demo (verb patch)")
	webtest.Disabled(t, viewer, "restart", "You may not patch deployments.apps in namespace demo (verb patch)")
	webtest.Disabled(t, viewer, "delete-link", "You may not delete deployments.apps in namespace demo (verb delete)")
	webtest.Enabled(t, viewer, "logs-link") // a viewer reads pods/log

	editor := b.GetWith(webtest.WebPath, http.StatusOK, webtest.As(webtest.EditorToken))
	for _, id := range webtest.ObjectActions {
		webtest.Enabled(t, editor, id)
	}
	if n := editor.Doc.Find("[aria-disabled]").Length(); n != 0 {
		t.Errorf("the editor's page has %d disabled controls", n)
	}

	// A user who may not read logs sees Logs disabled, with pods/log named.
	ac := webtest.AccessRules()
	ac.Rules = append(ac.Rules, apitest.Rule{Users: []string{"carol"}, Namespaces: []string{"demo"}, Verbs: []string{"get", "list"}, APIGroups: []string{"", "apps"}, Resources: []string{"pods", "deployments"}})
	ac.Users["carol-token"] = apitest.User{Name: "carol"}
	h2 := webtest.WithAccess(t, ac)
	carol := webtest.NewBrowser(t, h2).GetWith("/c/dev/api/v1/namespaces/demo/pods/web-1", http.StatusOK, webtest.As("carol-token"))
	webtest.Disabled(t, carol, "logs-link", "You may not get pods/log in namespace demo (verb get)")
	webtest.Disabled(t, carol, "delete-link", "You may not delete pods in namespace demo (verb delete)")
}

// A live object page re-renders its header with the same access answers:
// a change pushed to a viewer keeps their actions disabled.
func TestLiveObjectSectionsKeepTheUsersAccess(t *testing.T) {
	h := webtest.WithAccess(t, webtest.AccessRules())
	const path = "/c/dev/api/v1/namespaces/demo/pods/web-1"
	header := http.Header{}
	header.Set("Origin", h.URL)
	header.Set(webtest.TokenHeader, webtest.ViewerToken)
	d := websocket.Dialer{Subprotocols: []string{"base64.channel.k8s.io"}, HandshakeTimeout: 5 * time.Second}
	ws, resp, err := d.Dial("ws"+strings.TrimPrefix(h.URL, "http")+path, header)
	if err != nil {
		t.Fatalf("dial: %v (response %v)", err, webtest.StatusText(resp))
	}
	t.Cleanup(func() { _ = ws.Close() })
	c := &webtest.WS{T: t, Conn: ws}
	if !h.Fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2", h.Fake.OpenWatches())
	}
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	m := webtest.NextData(c, 10*time.Second, func(m object.SectionsMessage) bool {
		return m.Type == "SECTIONS" && strings.Contains(m.Sections["header"], "Failed")
	})
	doc := webtest.Parse(t, m.Sections["header"])
	del := doc.Find("[data-testid=delete-link]")
	if del.AttrOr("aria-disabled", "") != "true" || !strings.Contains(doc.Find("#delete-link-reason").Text(), "You may not delete pods in namespace demo") {
		t.Errorf("the live header offers the viewer Delete: %s", webtest.Outer(del))
	}
	if logs := doc.Find("[data-testid=logs-link]"); logs.AttrOr("href", "") == "" {
		t.Errorf("the live header lost the viewer's Logs: %s", webtest.Outer(logs))
	}
}
