package edit

import (
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

// New serves GET …/{resource}/new: the editor with a skeleton of the kind.
func (h *Handler) New(c echo.Context, t page.Target) error {
	st := views.EditState{Namespace: createNamespace(t, c.QueryParam("namespace")), Text: skeleton(t.Resource, createNamespace(t, c.QueryParam("namespace")))}
	return h.showCreate(c, t, st, nil, http.StatusOK)
}

// Create serves POST …/{resource}/new: review (a dry-run create) or create.
// The text's apiVersion and kind choose the collection, through discovery,
// whatever list the page was opened from.
func (h *Handler) Create(c echo.Context, t page.Target) error {
	f, err := parseEditForm(c)
	if err != nil {
		return err
	}
	st := f.state
	if f.action == actionEdit {
		return h.showCreate(c, t, st, nil, http.StatusOK)
	}
	obj, r, failure := h.planCreate(c, t, st)
	if failure != nil {
		return h.showCreate(c, t, st, failure, failure.Code)
	}
	ctx := c.Request().Context()
	namespace := obj.GetNamespace()
	dryRun := f.action != actionApply
	created, err := t.Client.Create(ctx, r, namespace, obj, apiclient.WriteOptions{DryRun: dryRun})
	h.env.LogWrite(c, "create", r, namespace, obj.GetName(), dryRun, err)
	if err != nil {
		failure := editErrorOf(page.WithAction(err, "create", r, namespace, t.URLs.Resource(r, namespace, "")))
		if apierrors.IsAlreadyExists(err) && obj.GetName() != "" {
			failure.Links = append(failure.Links, views.Link{Label: "Open the existing " + obj.GetName(), Href: t.URLs.Resource(r, namespace, obj.GetName())})
		}
		return h.showCreate(c, t, st, failure, failure.Code)
	}
	if dryRun {
		after, err := EditableYAML(created.Object, ViewOptions{})
		if err != nil {
			return err
		}
		name := created.GetName()
		if name == "" {
			name = obj.GetGenerateName() + "…"
		}
		p := views.ReviewPage{
			Layout: h.env.ContextLayout(ctx, t.Client, "Review new "+r.Kind, &r, namespace),
			Object: views.ObjectRef{Kind: r.Kind, Name: name, Namespace: namespace, GroupVersion: r.GroupVersion().String(),
				ListHref: t.URLs.Resource(r, namespace, "")},
			Create: true,
			Action: t.URLs.New(t.Resource, t.Path.Namespace),
			State:  st,
			DryRun: diffOf("Dry run: the object as the server would create it", "", after, ""),
		}
		if obj.GetName() == "" {
			p.DryRun.Title += " (the final name is chosen when it is created)"
		}
		return h.env.Render(c, http.StatusOK, views.Review(p))
	}
	page.SetFlash(c, page.Flash{
		Message:    fmt.Sprintf("Created %s.", describe(r, created.GetName())),
		ClearDraft: createDraftKey(t),
	})
	return c.Redirect(http.StatusSeeOther, string(t.URLs.Resource(r, created.GetNamespace(), created.GetName())))
}

// planCreate parses the text and finds its collection.
func (h *Handler) planCreate(c echo.Context, t page.Target, st views.EditState) (*unstructured.Unstructured, apiclient.Resource, *views.EditError) {
	if len(st.Text) > MaxText {
		return nil, apiclient.Resource{}, &views.EditError{Title: "Too large", Code: http.StatusRequestEntityTooLarge, Message: ErrTooLarge.Error()}
	}
	m, err := ParseYAML(st.Text)
	if err != nil {
		return nil, apiclient.Resource{}, yamlError(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	apiVersion, kind := obj.GetAPIVersion(), obj.GetKind()
	if apiVersion == "" || kind == "" {
		return nil, apiclient.Resource{}, &views.EditError{Title: "Which kind?", Code: http.StatusBadRequest, Message: "The text needs apiVersion and kind, so the console knows which collection to create it in."}
	}
	d, err := t.Client.Discovery(c.Request().Context())
	if err != nil {
		return nil, apiclient.Resource{}, editErrorOf(err)
	}
	r, ok := d.ForKind(apiVersion, kind)
	if !ok {
		return nil, apiclient.Resource{}, &views.EditError{Title: "Unknown kind", Code: http.StatusBadRequest,
			Message: fmt.Sprintf("The server serves no resource of kind %s in %s.", kind, apiVersion)}
	}
	if !r.Can("create") {
		return nil, apiclient.Resource{}, &views.EditError{Title: "Not creatable", Code: http.StatusMethodNotAllowed,
			Message: fmt.Sprintf("The server does not allow creating %s.", r.Name)}
	}
	switch {
	case !r.Namespaced:
		if obj.GetNamespace() != "" {
			return nil, apiclient.Resource{}, &views.EditError{Title: "Cluster-scoped", Code: http.StatusBadRequest,
				Message: fmt.Sprintf("%s are cluster-scoped: remove metadata.namespace.", r.Name)}
		}
	case obj.GetNamespace() == "":
		obj.SetNamespace(createNamespace(t, st.Namespace))
	}
	return obj, r, nil
}

// showCreate renders the create editor.
func (h *Handler) showCreate(c echo.Context, t page.Target, st views.EditState, failure *views.EditError, code int) error {
	ctx := c.Request().Context()
	if failure != nil && failure.Line == 0 {
		for i := range failure.Causes {
			failure.Causes[i].Line = LineOf(st.Text, failure.Causes[i].Field)
		}
	}
	p := views.EditorPage{
		Layout: h.env.WithEditor(h.env.ContextLayout(ctx, t.Client, "Create "+t.Resource.Kind, &t.Resource, t.Path.Namespace)),
		Object: views.ObjectRef{Kind: t.Resource.Kind, Namespace: t.Path.Namespace, GroupVersion: t.Resource.GroupVersion().String(),
			ListHref: t.URLs.Resource(t.Resource, t.Path.Namespace, "")},
		Create:     true,
		Action:     t.URLs.New(t.Resource, t.Path.Namespace),
		State:      st,
		SchemaURL:  schemaURL(t),
		DraftKey:   createDraftKey(t),
		Error:      failure,
		Namespaced: t.Resource.Namespaced,
	}
	return h.env.Render(c, code, views.Editor(p))
}

// createNamespace is where a new object goes when its text names none: the
// page's namespace, else the one asked for, else "default" as kubectl.
func createNamespace(t page.Target, asked string) string {
	switch {
	case !t.Resource.Namespaced:
		return ""
	case t.Path.Namespace != "":
		return t.Path.Namespace
	case asked != "" && apiclient.ValidPathSegment(asked):
		return asked
	}
	return "default"
}

func createDraftKey(t page.Target) string {
	return "tabula-draft:" + strings.Join([]string{t.Client.ContextName(), t.Resource.GroupVersion().String(), t.Resource.Name, t.Path.Namespace, "+new"}, "/")
}

// skeleton is the text a create page starts with.
func skeleton(r apiclient.Resource, namespace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: \n", r.GroupVersion().String(), r.Kind)
	if namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	return b.String()
}
