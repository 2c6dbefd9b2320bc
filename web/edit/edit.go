// Package edit serves the pages that change objects: the YAML editor with
// its dry-run review and conflict workflow, create, delete, scale and
// restart. Every write is a JSON merge patch (or a create or delete) that
// carries the object's resourceVersion as its precondition, and every page
// carries the user's text onward, so no error or conflict loses it.
//
// One file per action: edit.go (the editor), save.go (review, apply,
// re-apply, overwrite), conflict.go, create.go, delete.go, scale.go,
// restart.go, live.go (the editor's "changed on the server" stream) and
// schema.go (field help). patch.go, overlap.go and diff.go are the pure
// computations behind them.
package edit

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves the write pages.
type Handler struct {
	env *page.Env
}

// New builds the edit feature.
func New(env *page.Env) *Handler { return &Handler{env: env} }

// Edit serves GET …/{name}/edit: the object as YAML in the editor.
func (h *Handler) Edit(c echo.Context, t page.Target) error {
	ctx := c.Request().Context()
	live, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return page.WithAction(err, "get", t.Resource, t.Path.Namespace, t.ListURL())
	}
	text, err := EditableYAML(live.Object, ViewOptions{})
	if err != nil {
		return err
	}
	st := views.EditState{ResourceVersion: live.GetResourceVersion(), Base: text, Text: text}
	p := h.editorPage(ctx, t, live, st, nil)
	if page.Bool(c.QueryParams(), "discard") {
		// "Discard mine and reload": the browser forgets the draft too.
		p.Layout.ClearDraft = p.DraftKey
	}
	return h.env.Render(c, http.StatusOK, views.Editor(p))
}

// editorPage is the editor showing st for the live object.
func (h *Handler) editorPage(ctx context.Context, t page.Target, live *unstructured.Unstructured, st views.EditState, failure *views.EditError) views.EditorPage {
	p := views.EditorPage{
		Layout:   h.env.WithEditor(h.env.ContextLayout(ctx, t.Client, "Edit "+t.Path.Name, &t.Resource, t.Path.Namespace)),
		Object:   objectRef(t),
		Action:   t.ActionURL("edit"),
		State:    st,
		DraftKey: draftKey(t),
		Error:    failure,
	}
	if t.Resource.Can("watch") {
		p.LiveURL = string(page.WithQuery(t.ActionURL("edit"), url.Values{"rv": {st.ResourceVersion}}))
	}
	p.SchemaURL = schemaURL(t)
	if failure != nil && failure.Line == 0 && len(failure.Causes) > 0 {
		for i := range failure.Causes {
			failure.Causes[i].Line = LineOf(st.Text, failure.Causes[i].Field)
		}
	}
	if live != nil {
		if status, ok := live.Object["status"]; ok {
			if y, err := EditableYAML(map[string]any{"status": status}, ViewOptions{Status: true}); err == nil {
				p.StatusYAML = y
			}
		}
		if isSecret(live) {
			p.Secret = secretForm(live, st, nil)
		}
	}
	return p
}

// objectRef names the target object with ways back.
func objectRef(t page.Target) views.ObjectRef {
	return views.ObjectRef{
		Kind:         t.Resource.Kind,
		Name:         t.Path.Name,
		Namespace:    t.Path.Namespace,
		GroupVersion: t.Resource.GroupVersion().String(),
		ObjectHref:   t.ObjectURL(),
		ListHref:     t.ListURL(),
	}
}

// schemaURL serves the kind's schema for the editor's field help.
func schemaURL(t page.Target) string {
	return string(t.URLs.Path("/schema" + t.Resource.Path("", "")))
}

// draftKey is where the browser keeps unsaved text of this object: one key
// per context, resource and object, so drafts never mix.
func draftKey(t page.Target) string {
	return "tabula-draft:" + strings.Join([]string{t.Client.ContextName(), t.Resource.GroupVersion().String(), t.Resource.Name, t.Path.Namespace, t.Path.Name}, "/")
}

func isSecret(obj *unstructured.Unstructured) bool {
	return obj.GetAPIVersion() == "v1" && obj.GetKind() == "Secret"
}

// describe names an object for messages: `deployment "web"`.
func describe(r apiclient.Resource, name string) string {
	return fmt.Sprintf("%s %q", strings.ToLower(r.Kind), name)
}
