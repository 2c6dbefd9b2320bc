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

// ObjectActions are the write actions an object page offers, by what the
// server advertises for the resource. The server still checks each one.
func ObjectActions(contextName string, r apiclient.Resource, namespace, name, resourceVersion string) views.ObjectActions {
	var a views.ObjectActions
	if r.Can("patch") {
		a.EditHref = ObjectActionURL(contextName, r, namespace, name, "edit")
	}
	if slices.Contains(r.Subresources, "scale") {
		a.ScaleHref = ObjectActionURL(contextName, r, namespace, name, "scale")
	}
	if Restartable(r) {
		a.RestartAction = ObjectActionURL(contextName, r, namespace, name, "restart")
		a.ResourceVersion = resourceVersion
	}
	if r.Can("delete") {
		a.DeleteHref = ObjectActionURL(contextName, r, namespace, name, "delete")
	}
	return a
}
