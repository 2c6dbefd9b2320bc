package edit

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// ScaleForm serves GET …/{name}/scale, for any resource whose server
// advertises the scale subresource (Deployments and a CRD alike).
func (h *Handler) ScaleForm(c echo.Context, t page.Target) error {
	if !slices.Contains(t.Resource.Subresources, "scale") {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no scale subresource for %s.", t.Resource.Name))
	}
	return h.showScale(c, t, "", nil, http.StatusOK)
}

func (h *Handler) showScale(c echo.Context, t page.Target, requested string, failure *views.EditError, code int) error {
	ctx := c.Request().Context()
	s, err := t.Client.GetScale(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return page.WithAction(err, "get", t.Resource, t.Path.Namespace, t.ListURL())
	}
	if requested == "" {
		requested = strconv.Itoa(int(s.Desired))
	}
	p := views.ScalePage{
		Layout:          h.env.ContextLayout(ctx, t.Client, "Scale "+t.Path.Name, &t.Resource, t.Path.Namespace),
		Object:          objectRef(t),
		Action:          t.ActionURL("scale"),
		ResourceVersion: s.ResourceVersion,
		Desired:         s.Desired,
		Current:         s.Current,
		Requested:       requested,
		Error:           failure,
	}
	return h.env.Render(c, code, views.ScaleForm(p))
}

// Scale serves POST …/{name}/scale: spec.replicas of the Scale, guarded by
// the Scale's resourceVersion as loaded.
func (h *Handler) Scale(c echo.Context, t page.Target) error {
	if !slices.Contains(t.Resource.Subresources, "scale") {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no scale subresource for %s.", t.Resource.Name))
	}
	requested := strings.TrimSpace(c.FormValue("replicas"))
	n, err := strconv.ParseInt(requested, 10, 32)
	if err != nil || n < 0 || n > math.MaxInt32 {
		failure := &views.EditError{Title: "Replicas", Code: http.StatusBadRequest, Message: "Replicas is a whole number, 0 or more."}
		return h.showScale(c, t, requested, failure, failure.Code)
	}
	ctx := c.Request().Context()
	loaded := c.FormValue(fieldRV)
	s, err := t.Client.ScaleTo(ctx, t.Resource, t.Path.Namespace, t.Path.Name, int32(n), loaded, apiclient.WriteOptions{})
	h.env.LogWrite(c, "patch", t.Resource, t.Path.Namespace, t.Path.Name+"/scale", false, err)
	current := func() (string, error) {
		now, err := t.Client.GetScale(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
		if err != nil {
			return "", err
		}
		return now.ResourceVersion, nil
	}
	switch {
	case apierrors.IsConflict(err) || staleVersion(err, loaded, current):
		failure := editErrorOf(err)
		// A JSON Patch server says 422; it is a conflict all the same.
		failure.Code, failure.Reason = http.StatusConflict, "Conflict"
		failure.Title = "The scale changed since you loaded it"
		failure.Message = "Nothing was changed. The numbers above are current now: submit again to set " + requested + " replicas."
		return h.showScale(c, t, requested, failure, http.StatusConflict)
	case err != nil:
		failure := editErrorOf(page.WithAction(err, "patch", t.Resource, t.Path.Namespace, t.ListURL()))
		return h.showScale(c, t, requested, failure, failure.Code)
	}
	page.SetFlash(c, page.Flash{Message: fmt.Sprintf("Scaled %s to %d replicas.", describe(t.Resource, t.Path.Name), s.Desired)})
	return c.Redirect(http.StatusSeeOther, string(objectRef(t).ObjectHref))
}
