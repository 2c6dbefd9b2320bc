package object

import (
	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// objectActions are the write actions an object page offers, by what the
// server advertises for the resource; those permits says the user may not
// take are shown disabled with the reason. The server still checks each one.
func objectActions(u page.URLs, r apiclient.Resource, namespace, name, resourceVersion string, permits kube.Permits) views.ObjectActions {
	var a views.ObjectActions
	if r.Can("patch") {
		a.EditHref = u.Action(r, namespace, name, "edit")
		a.EditDenied = permits.Denied(kube.EditCheck(r, namespace, name))
	}
	if kube.HasScale(r) {
		a.ScaleHref = u.Action(r, namespace, name, "scale")
		a.ScaleDenied = permits.Denied(kube.ScaleCheck(r, namespace, name))
	}
	if kube.Restartable(r) {
		a.RestartAction = u.Action(r, namespace, name, "restart")
		a.ResourceVersion = resourceVersion
		a.RestartDenied = permits.Denied(kube.EditCheck(r, namespace, name))
	}
	if r.Can("delete") {
		a.DeleteHref = u.Action(r, namespace, name, "delete")
		a.DeleteDenied = permits.Denied(kube.DeleteCheck(r, namespace, name))
	}
	return a
}
