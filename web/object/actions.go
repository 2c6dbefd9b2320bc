package object

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// objectActions are the write actions an object page offers, by what the
// server advertises for the resource; those permits says the user may not
// take are shown disabled with the reason. The server still checks each one.
func objectActions(ctx context.Context, contextName string, r apiclient.Resource, namespace, name, resourceVersion string, permits kube.Permits) views.ObjectActions {
	var a views.ObjectActions
	if r.Can("patch") {
		a.EditHref = page.ObjectActionURL(ctx, contextName, r, namespace, name, "edit")
		a.EditDenied = permits.Denied(kube.EditCheck(r, namespace, name))
	}
	if kube.HasScale(r) {
		a.ScaleHref = page.ObjectActionURL(ctx, contextName, r, namespace, name, "scale")
		a.ScaleDenied = permits.Denied(kube.ScaleCheck(r, namespace, name))
	}
	if kube.Restartable(r) {
		a.RestartAction = page.ObjectActionURL(ctx, contextName, r, namespace, name, "restart")
		a.ResourceVersion = resourceVersion
		a.RestartDenied = permits.Denied(kube.EditCheck(r, namespace, name))
	}
	if r.Can("delete") {
		a.DeleteHref = page.ObjectActionURL(ctx, contextName, r, namespace, name, "delete")
		a.DeleteDenied = permits.Denied(kube.DeleteCheck(r, namespace, name))
	}
	return a
}
