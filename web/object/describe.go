package object

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// The generic describe explains any object from its own fields, as kubectl
// keeps its describers apart from command plumbing: pure functions of the
// object and what was fetched about it.

// longAnnotation is the length past which an annotation starts collapsed.
const longAnnotation = 100

// isSecret says whether an object's values must be hidden. It follows what
// the object is, not the URL that reached it.
func isSecret(obj *unstructured.Unstructured) bool {
	return obj.GetAPIVersion() == "v1" && obj.GetKind() == "Secret"
}

// mask hides a value, saying only its size; nil shows values.
type mask func(value string) string

// secretMask is how a Secret's top-level field k is shown: data holds
// base64, stringData plain text; nothing else is secret.
func secretMask(secret bool, k string) mask {
	switch {
	case !secret:
		return nil
	case k == "data":
		return func(v string) string { return kube.Hidden(kube.SecretSize(v)) }
	case k == "stringData":
		return func(v string) string { return kube.Hidden(len(v)) }
	}
	return nil
}

// Extras are what the overview reads beside the object, before slowExtras:
// the scale (a generic describe's) and discovery (owners, namespaces).
type Extras struct {
	Discovery *apiclient.Discovery
	Scale     *apiclient.Scale
}

// slowExtras are what the overview reads last: its relations and events.
type slowExtras struct {
	Graph       *apiclient.Graph
	Events      []apiclient.Event
	EventsErr   error
	NoEventsAPI bool
}

func genericDescribe(in Input) *views.GenericDescribe {
	obj, u, r, x, now := in.Object, in.URLs, in.Resource, in.Extras, in.Now
	ns := obj.GetNamespace()
	g := &views.GenericDescribe{Finalizers: obj.GetFinalizers()}
	listInNS := u.Resource(r, ns, "")
	for _, k := range slices.Sorted(maps.Keys(obj.GetLabels())) {
		v := obj.GetLabels()[k]
		g.Labels = append(g.Labels, views.Chip{
			Text:       k + "=" + v,
			Href:       page.WithQuery(listInNS, url.Values{"labelSelector": {k + "=" + v}}),
			ColumnHref: page.WithQuery(listInNS, url.Values{"labelColumns": {k}}),
		})
	}
	secret := isSecret(obj)
	for _, k := range slices.Sorted(maps.Keys(obj.GetAnnotations())) {
		v := obj.GetAnnotations()[k]
		if secret && k == corev1.LastAppliedConfigAnnotation {
			// kubectl apply keeps the whole Secret, data included, here.
			v = kube.Hidden(len(v))
		}
		g.Annotations = append(g.Annotations, views.Annotation{Key: k, Value: v, Long: len(v) > longAnnotation || strings.Contains(v, "\n")})
	}
	if x.Discovery != nil {
		for _, o := range apiclient.OwnerResources(x.Discovery, obj) {
			g.Owners = append(g.Owners, relatedLink(u, o))
		}
	}
	g.Conditions = conditions(obj, now)
	if sc := x.Scale; sc != nil {
		g.Scale = &views.ScaleView{Desired: sc.Desired, Current: sc.Current, Selector: sc.Selector}
	}
	for _, k := range slices.Sorted(maps.Keys(obj.Object)) {
		switch k {
		case "apiVersion", "kind", "metadata":
			continue
		case "status":
			g.Status = treeOf(withoutConditions(obj.Object[k]), nil)
		case "spec":
			// The usual case needs no extra "spec:" level.
			g.Spec = append(g.Spec, treeOf(obj.Object[k], nil)...)
		default:
			g.Spec = append(g.Spec, views.TreeNode{Key: k, Children: treeOf(obj.Object[k], secretMask(secret, k)), Value: summaryOf(obj.Object[k])})
		}
	}
	return g
}

// events are the generic describe's events, or the note that says why
// there are none to show.
func events(x slowExtras, now time.Time) ([]views.EventView, string) {
	switch {
	case x.NoEventsAPI:
		return nil, "This server has no events API."
	case apiclient.IsEventsForbidden(x.EventsErr):
		return nil, "Events are hidden: you may not list events here."
	case x.EventsErr != nil:
		return nil, "Events could not be listed: " + x.EventsErr.Error()
	}
	var out []views.EventView
	for _, e := range x.Events {
		ev := views.EventView{Type: e.Type, Reason: e.Reason, Message: e.Message, Source: e.Source, Count: e.Count}
		if !e.LastSeen.IsZero() {
			ev.Age = duration.HumanDuration(now.Sub(e.LastSeen))
			ev.Time = e.LastSeen.UTC().Format(time.RFC3339)
		}
		out = append(out, ev)
	}
	return out, ""
}

func relatedLink(u page.URLs, rel apiclient.Related) views.RelatedLink {
	l := views.RelatedLink{Kind: rel.Resource.Kind, Name: rel.Name, Relation: rel.Relation, Ready: rel.Ready}
	if rel.Resource.Name != "" {
		l.Href = u.Resource(rel.Resource, rel.Namespace, rel.Name)
	}
	return l
}

func conditions(obj *unstructured.Unstructured, now time.Time) []views.Condition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
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
// index. masked, if set, hides values (Secret data) but keeps their keys.
func treeOf(v any, masked mask) []views.TreeNode {
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

func node(key string, v any, masked mask) views.TreeNode {
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
		if masked != nil {
			n.Value = masked(n.Value)
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
