package edit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Save serves POST …/{name}/edit: every step after the editor. The form
// always carries the text as loaded (base), its resourceVersion and the
// user's text, so each step recomputes the patch from them alone.
func (h *Handler) Save(c echo.Context, t page.Target) error {
	f, err := parseEditForm(c)
	if err != nil {
		return err
	}
	switch {
	case f.action == actionApply:
		return h.apply(c, t, f.state)
	case f.action == actionReapply:
		return h.reapply(c, t, f.state)
	case f.action == actionOverwrite:
		return h.overwrite(c, t, f.state)
	case f.action == actionEdit:
		return h.showEditor(c, t, f.state, nil, http.StatusOK)
	case strings.HasPrefix(f.action, revealPrefix):
		return h.reveal(c, t, f.state, strings.TrimPrefix(f.action, revealPrefix))
	}
	return h.review(c, t, f.state, reviewNotes{})
}

// plan is a save computed from an EditState.
type plan struct {
	base, edited map[string]any
	// plain is the merge patch base → edited (with a Secret's new data);
	// patch is plain with the resourceVersion precondition.
	plain, patch []byte
	secret       bool
}

// planSave computes the merge patch of st, or says why it cannot: too large,
// YAML that does not parse, or a change of what the object is.
func planSave(st views.EditState) (*plan, *views.EditError) {
	if len(st.Text) > MaxText {
		return nil, &views.EditError{Title: "Too large", Code: http.StatusRequestEntityTooLarge, Message: ErrTooLarge.Error()}
	}
	base, err := ParseYAML(st.Base)
	if err != nil {
		return nil, &views.EditError{Title: "The object as loaded is missing", Code: http.StatusBadRequest,
			Message: "The form lost the object as it was loaded (" + err.Error() + "). Copy your text, then reload the editor."}
	}
	edited, err := ParseYAML(st.Text)
	if err != nil {
		return nil, yamlError(err)
	}
	for _, field := range []string{"apiVersion", "kind"} {
		if fmt.Sprint(edited[field]) != fmt.Sprint(base[field]) {
			return nil, &views.EditError{Title: "Not the same object", Code: http.StatusBadRequest,
				Message: fmt.Sprintf("%s cannot change in an edit (it was %v). To make a different kind of object, create it.", field, base[field])}
		}
	}
	p := &plan{base: base, edited: edited, secret: base["apiVersion"] == "v1" && base["kind"] == "Secret"}
	if p.plain, err = MergePatch(base, edited); err != nil {
		return nil, &views.EditError{Title: "The change could not be computed", Code: http.StatusBadRequest, Message: err.Error()}
	}
	if p.secret {
		if p.plain, err = withSecretData(p.plain, st); err != nil {
			return nil, &views.EditError{Title: "The change could not be computed", Code: http.StatusBadRequest, Message: err.Error()}
		}
	}
	p.patch = p.plain
	if st.ResourceVersion != "" {
		if p.patch, err = WithResourceVersion(p.plain, st.ResourceVersion); err != nil {
			return nil, &views.EditError{Title: "The change could not be computed", Code: http.StatusBadRequest, Message: err.Error()}
		}
	}
	if len(p.patch) > MaxText {
		return nil, &views.EditError{Title: "Too large", Code: http.StatusRequestEntityTooLarge, Message: ErrTooLarge.Error()}
	}
	return p, nil
}

// withSecretData adds a Secret's new values (base64, as data holds them)
// and removed keys to a merge patch. Only what the user typed is sent:
// never a placeholder, never a value they did not set.
func withSecretData(patch []byte, st views.EditState) ([]byte, error) {
	if len(st.SecretSet) == 0 && len(st.SecretRemove) == 0 {
		return patch, nil
	}
	var m map[string]any
	if err := json.Unmarshal(patch, &m); err != nil {
		return nil, err
	}
	data, _ := m["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for _, k := range st.SecretRemove {
		data[k] = nil
	}
	for _, v := range st.SecretSet {
		data[v.Key] = base64.StdEncoding.EncodeToString([]byte(v.Value))
	}
	m["data"] = data
	return json.Marshal(m)
}

// reviewNotes are what a review says beyond the patch.
type reviewNotes struct {
	reapplied  string
	overwrites []views.ChangeRow
}

// review dry-runs the patch and shows it with the server's result against
// the live object.
func (h *Handler) review(c echo.Context, t page.Target, st views.EditState, notes reviewNotes) error {
	ctx := c.Request().Context()
	pl, failure := planSave(st)
	if failure != nil {
		return h.showEditor(c, t, st, failure, failure.Code)
	}
	if IsEmptyPatch(pl.plain) {
		return h.showEditor(c, t, st, nil, http.StatusOK, "No changes: the text is the object as loaded.")
	}
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	res, err := t.Client.Patch(ctx, t.Resource, t.Path.Namespace, t.Path.Name, "", pl.patch, apiclient.WriteOptions{DryRun: true})
	h.env.LogWrite(c, "patch", t.Resource, t.Path.Namespace, t.Path.Name, true, err)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	before, err := EditableYAML(live.Object, ViewOptions{})
	if err != nil {
		return err
	}
	after, err := EditableYAML(res.Object.Object, ViewOptions{})
	if err != nil {
		return err
	}
	changes, err := changeRows(pl.plain, pl.secret)
	if err != nil {
		return err
	}
	p := views.ReviewPage{
		Layout:         h.env.ContextLayout(ctx, t.Client, "Review "+t.Path.Name, &t.Resource, t.Path.Namespace),
		Object:         objectRef(t),
		Action:         t.ActionURL("edit"),
		State:          st,
		PatchType:      patchTypeLabel(res.Type),
		Patch:          displayPatch(res.Body, pl.secret),
		Changes:        changes.fields,
		SecretChanges:  changes.secret,
		ReplacesArrays: changes.arrays,
		DryRun:         diffOf("Dry run: the live object → as the server would store it", before, after, "The server would store the object unchanged."),
		Reapplied:      notes.reapplied,
		Overwrites:     notes.overwrites,
	}
	return h.env.Render(c, http.StatusOK, views.Review(p))
}

// apply sends the patch for real, then shows the object.
func (h *Handler) apply(c echo.Context, t page.Target, st views.EditState) error {
	ctx := c.Request().Context()
	pl, failure := planSave(st)
	if failure != nil {
		return h.showEditor(c, t, st, failure, failure.Code)
	}
	if IsEmptyPatch(pl.plain) {
		return h.showEditor(c, t, st, nil, http.StatusOK, "No changes: the text is the object as loaded.")
	}
	res, err := t.Client.Patch(ctx, t.Resource, t.Path.Namespace, t.Path.Name, "", pl.patch, apiclient.WriteOptions{})
	h.env.LogWrite(c, "patch", t.Resource, t.Path.Namespace, t.Path.Name, false, err)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	page.SetFlash(c, page.Flash{
		Message:    fmt.Sprintf("Saved %s: now at version %s.", describe(t.Resource, t.Path.Name), res.Object.GetResourceVersion()),
		ClearDraft: draftKey(t),
	})
	return c.Redirect(http.StatusSeeOther, string(objectRef(t).ObjectHref))
}

// reapply puts the user's patch on the live object and reviews the result,
// to be saved with the live resourceVersion.
func (h *Handler) reapply(c echo.Context, t page.Target, st views.EditState) error {
	pl, failure := planSave(st)
	if failure != nil {
		return h.showEditor(c, t, st, failure, failure.Code)
	}
	live, liveEd, err := h.liveEditable(c.Request().Context(), t)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	// The Secret's new data travels in the form, not in the text.
	plain := pl.plain
	if pl.secret {
		if plain, err = MergePatch(pl.base, pl.edited); err != nil {
			return err
		}
	}
	merged, err := Apply(liveEd, plain)
	if err != nil {
		return err
	}
	next := st
	next.ResourceVersion = live.GetResourceVersion()
	if next.Base, err = EditableYAML(liveEd, ViewOptions{}); err != nil {
		return err
	}
	if next.Text, err = EditableYAML(merged, ViewOptions{}); err != nil {
		return err
	}
	return h.review(c, t, next, reviewNotes{reapplied: next.ResourceVersion})
}

// overwrite reviews the user's text against the live object: saving it
// undoes their change, and the review lists what of it would be lost.
func (h *Handler) overwrite(c echo.Context, t page.Target, st views.EditState) error {
	pl, failure := planSave(st)
	if failure != nil {
		return h.showEditor(c, t, st, failure, failure.Code)
	}
	live, liveEd, err := h.liveEditable(c.Request().Context(), t)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	a, err := Analyze(pl.base, liveEd, pl.edited)
	if err != nil {
		return err
	}
	next := st
	next.ResourceVersion = live.GetResourceVersion()
	if next.Base, err = EditableYAML(liveEd, ViewOptions{}); err != nil {
		return err
	}
	lost := rowsOf(a.Lost(), pl.secret)
	if len(lost) == 0 {
		lost = []views.ChangeRow{{Path: "(nothing of theirs: your text does not undo their change)"}}
	}
	return h.review(c, t, next, reviewNotes{overwrites: lost})
}

// liveEditable reads the live object and its editable form.
func (h *Handler) liveEditable(ctx context.Context, t page.Target) (*unstructured.Unstructured, map[string]any, error) {
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return nil, nil, err
	}
	return live, EditableObject(live.Object, ViewOptions{}), nil
}

// writeFailed shows why a write failed, keeping the text: a 409 becomes the
// conflict page, a deleted object too; anything else the editor with the
// server's reason, message and causes beside the text.
func (h *Handler) writeFailed(c echo.Context, t page.Target, st views.EditState, err error) error {
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || staleVersion(err, st.ResourceVersion, objectVersion(c.Request().Context(), t)) {
		return h.conflict(c, t, st)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		// The page's own deadline: the error page says so; the draft in
		// the browser still holds the text.
		return err
	}
	failure := editErrorOf(page.WithAction(err, "patch", t.Resource, t.Path.Namespace, t.ListURL()))
	return h.showEditor(c, t, st, failure, failure.Code)
}

// showEditor re-renders the editor with the user's state.
func (h *Handler) showEditor(c echo.Context, t page.Target, st views.EditState, failure *views.EditError, code int, notice ...string) error {
	ctx := c.Request().Context()
	// The chrome (status, a Secret's keys) comes from the live object; if
	// it cannot be read the editor still shows the text.
	live, _ := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	p := h.editorPage(ctx, t, live, st, failure)
	if len(notice) > 0 {
		p.Notice = notice[0]
	}
	if code == 0 {
		code = http.StatusOK
	}
	return h.env.Render(c, code, views.Editor(p))
}

// reveal shows one Secret value the user asked to see, and logs that they did.
func (h *Handler) reveal(c echo.Context, t page.Target, st views.EditState, key string) error {
	ctx := c.Request().Context()
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return h.writeFailed(c, t, st, err)
	}
	h.env.Log.Info("secret value revealed", "who", page.Who(c), "namespace", t.Path.Namespace, "name", t.Path.Name, "key", key)
	p := h.editorPage(ctx, t, live, st, nil)
	if isSecret(live) {
		p.Secret = secretForm(live, st, map[string]bool{key: true})
	}
	return h.env.Render(c, http.StatusOK, views.Editor(p))
}

func patchTypeLabel(t string) string {
	switch t {
	case apiclient.JSONPatchType:
		return "JSON Patch (application/json-patch+json): the server does not accept merge patches"
	default:
		return "JSON merge patch (application/merge-patch+json)"
	}
}
