package edit

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Restart serves POST …/{name}/restart: a merge patch of the pod
// template's restartedAt annotation, guarded by the resourceVersion the
// object page showed.
func (h *Handler) Restart(c echo.Context, t page.Target) error {
	if !kube.Restartable(t.Resource) {
		return echo.NewHTTPError(http.StatusMethodNotAllowed, fmt.Sprintf("%s cannot be restarted: only Deployments, StatefulSets and DaemonSets roll their pods.", t.Resource.Name))
	}
	loaded := c.FormValue(fieldRV)
	body, err := kube.RestartPatch(loaded, time.Now())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	_, err = t.Client.Patch(ctx, t.Resource, t.Path.Namespace, t.Path.Name, "", body, apiclient.WriteOptions{})
	h.env.LogWrite(c, "patch", t.Resource, t.Path.Namespace, t.Path.Name, false, err)
	switch {
	case apierrors.IsConflict(err) || staleVersion(err, loaded, objectVersion(ctx, t)):
		h.env.SetFlash(c, page.Flash{Message: "Not restarted: it changed since the page was loaded. The page now shows it as it is; restart again if you still mean to."})
	case err != nil:
		return page.WithAction(err, "patch", t.Resource, t.Path.Namespace, t.ListURL())
	default:
		h.env.SetFlash(c, page.Flash{Message: fmt.Sprintf("Restarted %s: its pods are being replaced.", describe(t.Resource, t.Path.Name))})
	}
	return c.Redirect(http.StatusSeeOther, string(objectRef(t).ObjectHref))
}
