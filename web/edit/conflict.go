package edit

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// conflict serves the 409 page: the user's change, theirs (the object as
// loaded against the live one), whether the two touch the same fields, and
// the choices. The text travels in the page's form whatever is chosen.
func (h *Handler) conflict(c echo.Context, t page.Target, st views.EditState) error {
	ctx := c.Request().Context()
	pl, failure := planSave(st)
	if failure != nil {
		return h.showEditor(c, t, st, failure, failure.Code)
	}
	p := views.ConflictPage{
		Layout:            h.env.ContextLayout(ctx, t.Client, "Conflict · "+t.Path.Name, &t.Resource, t.Path.Namespace),
		Object:            objectRef(t),
		Action:            t.ActionURL("edit"),
		EditHref:          t.ActionURL("edit") + "?discard=1",
		State:             st,
		LoadedRV:          st.ResourceVersion,
		SecretDataUnknown: pl.secret && len(st.SecretSet)+len(st.SecretRemove) > 0,
	}
	var err error
	if p.Mine, err = rowsOfPatch(pl.plain, pl.secret); err != nil {
		return err
	}
	p.MinePatch = displayPatch(pl.plain, pl.secret)
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	switch {
	case apierrors.IsNotFound(err):
		p.Deleted = true
		p.Object.ObjectHref = ""
		return h.env.Render(c, http.StatusConflict, views.Conflict(p))
	case err != nil:
		return h.showEditor(c, t, st, editErrorOf(err), page.StatusOf(err))
	}
	liveEd := EditableObject(live.Object, ViewOptions{})
	a, err := Analyze(pl.base, liveEd, pl.edited)
	if err != nil {
		return err
	}
	p.LiveRV = live.GetResourceVersion()
	p.ChangedBy = lastWriter(live, time.Now())
	p.Theirs = rowsOf(a.Theirs, pl.secret)
	p.Lost = rowsOf(a.Lost(), pl.secret)
	for _, cf := range a.Conflicts {
		p.Conflicts = append(p.Conflicts, views.ConflictRow{Path: cf.Path, Loaded: cf.Loaded, Theirs: cf.Theirs, Mine: cf.Mine})
	}
	liveText, err := EditableYAML(live.Object, ViewOptions{})
	if err != nil {
		return err
	}
	p.TheirDiff = diffOf("Their change: the object as you loaded it → as it is now", st.Base, liveText, "Only bookkeeping changed (version, generation); the fields you see are as you loaded them.")
	return h.env.Render(c, http.StatusConflict, views.Conflict(p))
}

// lastWriter names the most recent writer in managedFields:
// "kubectl-edit (Update, 20s ago)".
func lastWriter(obj *unstructured.Unstructured, now time.Time) string {
	var name, op string
	var at time.Time
	for _, m := range obj.GetManagedFields() {
		if m.Time == nil || !m.Time.After(at) {
			continue
		}
		name, op, at = m.Manager, string(m.Operation), m.Time.Time
		if m.Subresource != "" {
			op += " of " + m.Subresource
		}
	}
	if name == "" {
		return ""
	}
	return name + " (" + op + ", " + duration.HumanDuration(now.Sub(at)) + " ago)"
}
