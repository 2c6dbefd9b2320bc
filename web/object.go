package web

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// longAnnotation is the length past which an annotation starts collapsed.
const longAnnotation = 100

// lastApplied is where kubectl apply keeps the applied object.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// secretSize is the decoded size of a Secret's base64 value.
func secretSize(b64 string) int {
	if n, err := base64.StdEncoding.DecodeString(b64); err == nil {
		return len(n)
	}
	return len(b64)
}

// object serves an object's page: the overview (server describe or the
// generic describe) or, with ?view=yaml, its YAML.
func (s *Server) object(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	page, err := s.objectPage(c, client, r, p, c.QueryParam("view"))
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.Object(page))
}

// objectPage builds an object page's model; live pages rebuild it on change.
func (s *Server) objectPage(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath, view string) (views.ObjectPage, error) {
	ctx := c.Request().Context()
	cname := client.ContextName()
	base := consolePath(cname, r, p.Namespace, p.Name)
	listHref := consolePath(cname, r, "", "")
	page := views.ObjectPage{
		Layout:       s.contextLayout(c, client, p.Name+" · "+r.Kind, &r, p.Namespace),
		Kind:         r.Kind,
		Name:         p.Name,
		Namespace:    p.Namespace,
		GroupVersion: r.GroupVersion().String(),
		ListHref:     listHref,
		Tabs: []views.Tab{
			{Label: "Overview", Href: base, Current: view != "yaml"},
			{Label: "YAML", Href: base + "?view=yaml", Current: view == "yaml"},
		},
	}
	if p.Namespace != "" {
		page.NamespaceHref = consolePath(cname, r, p.Namespace, "")
	}
	var obj *unstructured.Unstructured
	if view == "yaml" {
		o, err := client.GetObject(ctx, r, p.Namespace, p.Name)
		if err != nil {
			return page, withAction(err, "get", r, p.Namespace, firstNonEmpty(page.NamespaceHref, listHref))
		}
		obj = o
		showManaged := c.QueryParam("managedFields") == "1"
		text, err := objectYAML(obj, showManaged)
		if err != nil {
			return page, err
		}
		toggle := base + "?view=yaml"
		if !showManaged {
			toggle += "&managedFields=1"
		}
		page.YAML = &views.YAMLView{Text: text, ManagedFields: showManaged, ToggleHref: toggle}
		page.Source = "YAML"
	} else {
		res, err := client.Describe(ctx, r, p.Namespace, p.Name)
		if err != nil {
			return page, withAction(err, "get", r, p.Namespace, firstNonEmpty(page.NamespaceHref, listHref))
		}
		if res.Description != nil {
			page.Source = "Server describe"
			page.ServerDescribe = serverSections(res.Description)
		} else {
			obj = res.Object
			page.Source = "Generic describe"
			page.Generic = s.genericDescribe(c, client, r, obj)
		}
	}
	if obj != nil {
		if created := obj.GetCreationTimestamp().Time; !created.IsZero() {
			page.Age = duration.HumanDuration(time.Since(created))
			page.Created = created.UTC().Format(time.RFC3339)
		}
	}
	page.Summary = summaryFields(c, client, r, p)
	page.Live = view != "yaml" && r.Can("watch")
	if hasLogs(r, obj) {
		page.LogsHref = base + "/log"
	}
	return page, nil
}

// hasLogs says whether an object has logs to show: a pod, or anything that
// selects pods (workloads, Services, CRDs that follow the spec.selector
// convention).
func hasLogs(r apiclient.Resource, obj *unstructured.Unstructured) bool {
	if r.Group == "" && r.Name == "pods" {
		return true
	}
	if obj == nil || !r.Namespaced {
		return false
	}
	_, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "selector")
	return found
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// summaryFields are the server's printer columns for this one object, as
// kubectl get would print them (wide), minus the name.
func summaryFields(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) []views.Field {
	t, err := client.GetTable(c.Request().Context(), r, p.Namespace, p.Name)
	if err != nil || len(t.Rows) != 1 || t.Served == apiclient.JSONFallback || t.Served == apiclient.MetadataList {
		// The header is a convenience; the page says the rest.
		return nil
	}
	now := time.Now()
	var out []views.Field
	for i, col := range t.Columns {
		if col.Format == "name" || i >= len(t.Rows[0].Cells) {
			continue
		}
		cell := formatCell(t.Rows[0].Cells[i], col.Type, now)
		out = append(out, views.Field{Name: col.Name, Value: cell.Text})
	}
	return out
}

func serverSections(d *apiclient.Description) []views.Section {
	out := make([]views.Section, 0, len(d.Sections))
	for _, s := range d.Sections {
		vs := views.Section{Title: s.Title}
		for _, f := range s.Fields {
			vs.Fields = append(vs.Fields, views.Field{Name: f.Name, Value: f.Value})
		}
		for _, t := range s.Tables {
			vs.Tables = append(vs.Tables, views.SmallTable{Title: t.Title, Columns: t.Columns, Rows: t.Rows})
		}
		out = append(out, vs)
	}
	return out
}

// genericDescribe explains any object from its own fields, its events and
// the objects related to it. Failures of the extras become notes: the
// object itself was read, so the page is shown.
func (s *Server) genericDescribe(c echo.Context, client *apiclient.Client, r apiclient.Resource, obj *unstructured.Unstructured) *views.GenericDescribe {
	ctx := c.Request().Context()
	cname := client.ContextName()
	ns := obj.GetNamespace()
	g := &views.GenericDescribe{Finalizers: obj.GetFinalizers()}
	listInNS := consolePath(cname, r, ns, "")
	for _, k := range slices.Sorted(maps.Keys(obj.GetLabels())) {
		v := obj.GetLabels()[k]
		g.Labels = append(g.Labels, views.Chip{
			Text: k + "=" + v,
			Href: listInNS + "?labelSelector=" + url.QueryEscape(k+"="+v),
		})
	}
	// Whether values are hidden follows what the object is, not the URL.
	secret := obj.GetAPIVersion() == "v1" && obj.GetKind() == "Secret"
	for _, k := range slices.Sorted(maps.Keys(obj.GetAnnotations())) {
		v := obj.GetAnnotations()[k]
		if secret && k == lastApplied {
			// kubectl apply keeps the whole Secret, data included, here.
			v = fmt.Sprintf("hidden (%d bytes)", len(v))
		}
		g.Annotations = append(g.Annotations, views.Annotation{Key: k, Value: v, Long: len(v) > longAnnotation || strings.Contains(v, "\n")})
	}
	d, err := client.Discovery(ctx)
	if err == nil {
		for _, o := range apiclient.OwnerResources(d, obj) {
			g.Owners = append(g.Owners, relatedLink(cname, o))
		}
		children, err := client.Children(ctx, d, obj)
		if err != nil {
			g.RelatedNote = "Related objects could not be listed: " + err.Error()
		}
		for _, ch := range children {
			g.Related = append(g.Related, relatedLink(cname, ch))
		}
	}
	g.Conditions = conditions(obj)
	if contains(r.Subresources, "scale") {
		if sc, err := client.GetScale(ctx, r, ns, obj.GetName()); err == nil && sc != nil {
			g.Scale = &views.ScaleView{Desired: sc.Desired, Current: sc.Current, Selector: sc.Selector}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj.Object)) {
		switch k {
		case "apiVersion", "kind", "metadata":
			continue
		case "status":
			g.Status = treeOf(withoutConditions(obj.Object[k]), false)
		case "spec":
			// The usual case needs no extra "spec:" level.
			g.Spec = append(g.Spec, treeOf(obj.Object[k], false)...)
		default:
			g.Spec = append(g.Spec, views.TreeNode{Key: k, Children: treeOf(obj.Object[k], secret && (k == "data" || k == "stringData")), Value: summaryOf(obj.Object[k])})
		}
	}
	events, err := client.EventsFor(ctx, ns, obj.GetUID())
	switch {
	case apiclient.IsEventsForbidden(err):
		g.EventsNote = "Events are hidden: you may not list events here."
	case err != nil:
		g.EventsNote = "Events could not be listed: " + err.Error()
	}
	now := time.Now()
	for _, e := range events {
		ev := views.EventView{Type: e.Type, Reason: e.Reason, Message: e.Message, Source: e.Source, Count: e.Count}
		if !e.LastSeen.IsZero() {
			ev.Age = duration.HumanDuration(now.Sub(e.LastSeen))
			ev.Time = e.LastSeen.UTC().Format(time.RFC3339)
		}
		g.Events = append(g.Events, ev)
	}
	return g
}

func relatedLink(contextName string, rel apiclient.Related) views.RelatedLink {
	l := views.RelatedLink{Kind: rel.Resource.Kind, Name: rel.Name, Relation: rel.Relation, Ready: rel.Ready}
	if rel.Resource.Name != "" {
		l.Href = consolePath(contextName, rel.Resource, rel.Namespace, rel.Name)
	}
	return l
}

func conditions(obj *unstructured.Unstructured) []views.Condition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	now := time.Now()
	var out []views.Condition
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		c := views.Condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")}
		if t, err := time.Parse(time.RFC3339, str("lastTransitionTime")); err == nil {
			c.Age = duration.HumanDuration(now.Sub(t))
			c.Time = t.UTC().Format(time.RFC3339)
		}
		out = append(out, c)
	}
	return out
}

func withoutConditions(status any) any {
	m, ok := status.(map[string]any)
	if !ok {
		return status
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "conditions" {
			out[k] = v
		}
	}
	return out
}

// treeOf turns JSON into a readable tree: maps by sorted key, lists by
// index. masked hides values (Secret data) but keeps their keys and sizes.
func treeOf(v any, masked bool) []views.TreeNode {
	switch val := v.(type) {
	case map[string]any:
		out := make([]views.TreeNode, 0, len(val))
		for _, k := range slices.Sorted(maps.Keys(val)) {
			out = append(out, node(k, val[k], masked))
		}
		return out
	case []any:
		out := make([]views.TreeNode, 0, len(val))
		for i, item := range val {
			out = append(out, node("["+strconv.Itoa(i)+"]", item, masked))
		}
		return out
	}
	return nil
}

func node(key string, v any, masked bool) views.TreeNode {
	n := views.TreeNode{Key: key}
	switch val := v.(type) {
	case map[string]any, []any:
		n.Children = treeOf(val, masked)
		n.Value = summaryOf(val)
		if len(n.Children) == 0 {
			n.Value = emptyOf(val)
		}
		_, n.List = val.([]any)
	default:
		n.Value = scalar(val)
		if masked {
			n.Value = fmt.Sprintf("hidden (%d bytes)", secretSize(n.Value))
		}
	}
	return n
}

func summaryOf(v any) string {
	switch val := v.(type) {
	case []any:
		if len(val) == 1 {
			return "1 item"
		}
		return strconv.Itoa(len(val)) + " items"
	}
	return ""
}

func emptyOf(v any) string {
	if _, ok := v.([]any); ok {
		return "[]"
	}
	return "{}"
}

func scalar(v any) string {
	switch val := v.(type) {
	case nil:
		return "null"
	case string:
		return val
	case bool:
		return strconv.FormatBool(val)
	case int64:
		return strconv.FormatInt(val, 10)
	case float64:
		return strconv.FormatFloat(val, 'f', -1, 64)
	default:
		return fmt.Sprint(val)
	}
}

func objectYAML(obj *unstructured.Unstructured, managedFields bool) (string, error) {
	o := obj.DeepCopy()
	if !managedFields {
		unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	}
	b, err := yaml.Marshal(o.Object)
	if err != nil {
		return "", fmt.Errorf("rendering YAML: %w", err)
	}
	return string(b), nil
}
