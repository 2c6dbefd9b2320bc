package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// Every list and object page shows its kubectl command, with a button
// copying it: resource named as kubectl resolves it, namespace or -A,
// selectors, wide, and the context when the console serves several.
func TestPagesShowTheirKubectlCommand(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	multi := webtest.Start(t, fake, webtest.Options{Contexts: []string{"dev", "prod"}})
	fake.Add(apitest.Pod("demo", "it's <b>", nil))
	for _, tc := range []struct {
		h          *webtest.Console
		path, want string
	}{
		{h, "/c/dev/apis/apps/v1/namespaces/demo/deployments?labelSelector=app%3Dweb&wide=1", "kubectl get deployments -n demo -l app=web -o wide"},
		{h, "/c/dev/api/v1/pods?fieldSelector=status.phase%3DRunning&labelSelector=app+in+%28web%29", "kubectl get pods -A -l 'app in (web)' --field-selector status.phase=Running"},
		{h, "/c/dev/api/v1/namespaces/demo/events", "kubectl get events -n demo"},
		{h, "/c/dev/apis/events.k8s.io/v1/namespaces/demo/events", "kubectl get events.events.k8s.io -n demo"},
		{h, "/c/dev/apis/policy.example.com/v1/sessions", "kubectl get sessions"},
		{h, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web", "kubectl get deployments web -n demo -o yaml"},
		{h, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/status", "kubectl get pods web-5d9-a -n demo --subresource status -o yaml"},
		{multi, "/c/prod/api/v1/namespaces/demo/pods/web-5d9-a?view=yaml", "kubectl --context prod get pods web-5d9-a -n demo -o yaml"},
		{multi, "/c/prod/api/v1/namespaces", "kubectl --context prod get namespaces"},
		{h, "/c/dev/api/v1/namespaces/demo/pods/" + url.PathEscape("it's <b>"), `kubectl get pods 'it'\''s <b>' -n demo -o yaml`},
	} {
		_, body := tc.h.Get(t, tc.path, http.StatusOK)
		doc := webtest.Parse(t, body)
		if got := doc.Find("[data-testid=kubectl-command]").Text(); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.path, got, tc.want)
		}
		if strings.Contains(body, "<b>") {
			t.Errorf("%s: a name is rendered as markup", tc.path)
		}
		if got := doc.Find("[data-testid=kubectl-copy]").AttrOr("data-copy", ""); got != "#kubectl-command" {
			t.Errorf("%s: the copy button copies %q", tc.path, got)
		}
	}
}
