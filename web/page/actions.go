package page

import (
	"slices"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// Restartable reports whether r rolls its pods on a template change as
// kubectl rollout restart expects: Deployments, StatefulSets, DaemonSets.
func Restartable(r apiclient.Resource) bool {
	if r.Group != "apps" || !r.Can("patch") {
		return false
	}
	switch r.Name {
	case "deployments", "statefulsets", "daemonsets":
		return true
	}
	return false
}

func hasScale(r apiclient.Resource) bool { return slices.Contains(r.Subresources, "scale") }

// ObjectActions are the write actions an object page offers, by what the
// server advertises for the resource; those permits says the user may not
// take are shown disabled with the reason. The server still checks each one.
func ObjectActions(contextName string, r apiclient.Resource, namespace, name, resourceVersion string, permits Permits) views.ObjectActions {
	var a views.ObjectActions
	if r.Can("patch") {
		a.EditHref = ObjectActionURL(contextName, r, namespace, name, "edit")
		a.EditDenied = permits.Denied(EditCheck(r, namespace, name))
	}
	if hasScale(r) {
		a.ScaleHref = ObjectActionURL(contextName, r, namespace, name, "scale")
		a.ScaleDenied = permits.Denied(ScaleCheck(r, namespace, name))
	}
	if Restartable(r) {
		a.RestartAction = ObjectActionURL(contextName, r, namespace, name, "restart")
		a.ResourceVersion = resourceVersion
		a.RestartDenied = permits.Denied(EditCheck(r, namespace, name))
	}
	if r.Can("delete") {
		a.DeleteHref = ObjectActionURL(contextName, r, namespace, name, "delete")
		a.DeleteDenied = permits.Denied(DeleteCheck(r, namespace, name))
	}
	return a
}
