package edit

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// propagations are the deletion propagation policies; kubectl's default
// (--cascade=background) comes first.
var propagations = []string{"Background", "Foreground", "Orphan"}

// ConfirmDelete serves GET …/{name}/delete: a confirmation naming the
// object, with kubectl's choices.
func (h *Handler) ConfirmDelete(c echo.Context, t page.Target) error {
	return h.showDelete(c, t, propagations[0], "", nil, http.StatusOK)
}

func (h *Handler) showDelete(c echo.Context, t page.Target, propagation, grace string, failure *views.EditError, code int) error {
	ctx := c.Request().Context()
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return page.WithAction(err, "get", t.Resource, t.Path.Namespace, t.ListURL())
	}
	p := views.DeletePage{
		Layout:          h.env.ContextLayout(ctx, t.Client, "Delete "+t.Path.Name, &t.Resource, t.Path.Namespace),
		Object:          objectRef(t),
		Action:          t.ActionURL("delete"),
		ResourceVersion: live.GetResourceVersion(),
		Propagation:     propagation,
		GracePeriod:     grace,
		Finalizers:      live.GetFinalizers(),
		Error:           failure,
	}
	return h.env.Render(c, code, views.ConfirmDelete(p))
}

// Delete serves POST …/{name}/delete and shows what the server answered.
func (h *Handler) Delete(c echo.Context, t page.Target) error {
	propagation := c.FormValue("propagationPolicy")
	if propagation != "" && !slices.Contains(propagations, propagation) {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Unknown propagation policy %q.", propagation))
	}
	grace := strings.TrimSpace(c.FormValue("gracePeriodSeconds"))
	opts := apiclient.DeleteOptions{Propagation: propagation, ResourceVersion: c.FormValue(fieldRV)}
	if grace != "" {
		n, err := strconv.ParseInt(grace, 10, 64)
		if err != nil || n < 0 {
			failure := &views.EditError{Title: "Grace period", Code: http.StatusBadRequest, Message: "The grace period is a whole number of seconds, 0 or more."}
			return h.showDelete(c, t, propagation, grace, failure, failure.Code)
		}
		opts.GracePeriodSeconds = &n
	}
	ctx := c.Request().Context()
	answer, err := t.Client.Delete(ctx, t.Resource, t.Path.Namespace, t.Path.Name, opts)
	h.env.LogWrite(c, "delete", t.Resource, t.Path.Namespace, t.Path.Name, false, err)
	switch {
	case apierrors.IsConflict(err):
		failure := editErrorOf(err)
		failure.Title = "It changed since you opened this page"
		failure.Message = "Nothing was deleted. Check it is still the object you mean, then confirm again. (" + failure.Message + ")"
		return h.showDelete(c, t, propagation, grace, failure, http.StatusConflict)
	case apierrors.IsNotFound(err):
		return page.WithAction(err, "delete", t.Resource, t.Path.Namespace, t.ListURL())
	case err != nil:
		failure := editErrorOf(page.WithAction(err, "delete", t.Resource, t.Path.Namespace, t.ListURL()))
		return h.showDelete(c, t, propagation, grace, failure, failure.Code)
	}
	p := DeleteModel(answer)
	p.Layout = h.env.ContextLayout(ctx, t.Client, "Deleted "+t.Path.Name, &t.Resource, t.Path.Namespace)
	p.Object = objectRef(t)
	if p.Pending == nil {
		p.Object.ObjectHref = ""
	}
	return h.env.Render(c, http.StatusOK, views.Deleted(p))
}

// DeleteModel describes a DELETE answer: a Status, or the object itself
// when finalizers (foregroundDeletion, orphan, a controller's) keep it.
func DeleteModel(answer *unstructured.Unstructured) views.DeleteResult {
	var p views.DeleteResult
	body := answer.Object
	if isSecret(answer) {
		// A Secret kept by finalizers comes back whole: no value is shown.
		body = EditableObject(body, ViewOptions{Status: true})
	}
	if b, err := yaml.Marshal(body); err == nil {
		p.Body = string(b)
	}
	if answer.GetKind() == "Status" {
		st := &views.StatusView{}
		st.Status, _, _ = unstructured.NestedString(answer.Object, "status")
		st.Reason, _, _ = unstructured.NestedString(answer.Object, "reason")
		st.Message, _, _ = unstructured.NestedString(answer.Object, "message")
		if details, ok, _ := unstructured.NestedMap(answer.Object, "details"); ok {
			for _, k := range []string{"name", "group", "kind", "uid"} {
				if v, ok := details[k].(string); ok && v != "" {
					st.Details = append(st.Details, views.Field{Name: k, Value: v})
				}
			}
		}
		if st.Status == "" {
			st.Status = "Success"
		}
		p.Status = st
		return p
	}
	if ts := answer.GetDeletionTimestamp(); ts != nil {
		p.Pending = &views.PendingDeletion{DeletionTimestamp: ts.UTC().Format("2006-01-02T15:04:05Z"), Finalizers: answer.GetFinalizers()}
	}
	return p
}
