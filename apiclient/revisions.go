package apiclient

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The annotations the Deployment controller and kubectl keep revisions by.
const (
	annotationRevision    = "deployment.kubernetes.io/revision"
	annotationChangeCause = "kubernetes.io/change-cause"
	labelPodTemplateHash  = "pod-template-hash"
)

// maxRevisionObjects bounds the lists a history reads: a Deployment keeps
// ten old ReplicaSets by default, a StatefulSet as many ControllerRevisions.
const maxRevisionObjects = 2000

var gkControllerRevision = schema.GroupKind{Group: "apps", Kind: "ControllerRevision"}

// Revision is one revision of an object's pod template (or, for a
// ControllerRevision whose data holds no pod template, of its data).
type Revision struct {
	Number int64
	// Object is the ReplicaSet or ControllerRevision holding it.
	Object  string
	Created time.Time
	// ChangeCause is the kubernetes.io/change-cause annotation.
	ChangeCause string
	Images      []string
	// Replicas is "ready/desired" for a ReplicaSet, "" otherwise.
	Replicas string
	// Template is the pod template (spec.template) to roll back to, or,
	// when Rollback is false, the revision's data as it is.
	Template map[string]any
	Rollback bool
	// Current is the revision the object runs now.
	Current bool
}

// HasRevisions says obj keeps revisions this client can read: a
// Deployment (its ReplicaSets), or an object with a pod template
// (spec.template) on a server that serves ControllerRevisions.
func HasRevisions(d *Discovery, r Resource, obj *unstructured.Unstructured) bool {
	if !r.Namespaced || obj == nil {
		return false
	}
	if r.Group == gkDeployment.Group && r.Kind == gkDeployment.Kind {
		return true
	}
	if _, found, _ := unstructured.NestedMap(obj.Object, "spec", "template"); !found {
		return false
	}
	cr, ok := findResource(d, gkControllerRevision)
	return ok && cr.Can("list")
}

// Revisions reads obj's revisions, newest first: a Deployment's
// ReplicaSets by their deployment.kubernetes.io/revision, any other
// object's ControllerRevisions (StatefulSets, DaemonSets, CRDs that keep
// them), each found by its ownerReferences naming obj.
func (c *Client) Revisions(ctx context.Context, d *Discovery, r Resource, obj *unstructured.Unstructured) ([]Revision, error) {
	var out []Revision
	var err error
	if r.Group == gkDeployment.Group && r.Kind == gkDeployment.Kind {
		out, err = c.replicaSetRevisions(ctx, d, obj)
	} else {
		out, err = c.controllerRevisions(ctx, d, obj)
	}
	slices.SortStableFunc(out, func(a, b Revision) int { return cmp.Compare(b.Number, a.Number) })
	return out, err
}

// owned lists gk in obj's namespace with sel, keeping what obj owns.
func (c *Client) owned(ctx context.Context, d *Discovery, gk schema.GroupKind, obj *unstructured.Unstructured, sel labels.Selector, keep func(*unstructured.Unstructured)) error {
	res, ok := findResource(d, gk)
	if !ok || !res.Can("list") {
		return fmt.Errorf("the server serves no %s to list", gk.Kind)
	}
	selector := ""
	if sel != nil && !sel.Empty() {
		selector = sel.String()
	}
	_, err := c.eachItem(ctx, res, obj.GetNamespace(), MediaTypeJSON, ListQuery{LabelSelector: selector, PageSize: 500, MaxObjects: maxRevisionObjects, Omit: []string{"metadata.managedFields"}}, func(item *unstructured.Unstructured) error {
		for _, o := range item.GetOwnerReferences() {
			if o.UID == obj.GetUID() {
				keep(item)
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing %s: %w", res.Name, err)
	}
	return nil
}

func (c *Client) replicaSetRevisions(ctx context.Context, d *Discovery, obj *unstructured.Unstructured) ([]Revision, error) {
	sel, err := workloadSelector(obj)
	if err != nil {
		return nil, err
	}
	current := obj.GetAnnotations()[annotationRevision]
	var out []Revision
	err = c.owned(ctx, d, gkReplicaSet, obj, sel, func(rs *unstructured.Unstructured) {
		number, err := strconv.ParseInt(rs.GetAnnotations()[annotationRevision], 10, 64)
		if err != nil {
			return // not (yet) numbered by the controller
		}
		tmpl, _, _ := unstructured.NestedMap(rs.Object, "spec", "template")
		if tmpl == nil {
			return
		}
		// The controller's hash label names the ReplicaSet, not the template.
		unstructured.RemoveNestedField(tmpl, "metadata", "labels", labelPodTemplateHash)
		want, found, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
		if !found {
			want = 1
		}
		ready, _, _ := unstructured.NestedInt64(rs.Object, "status", "readyReplicas")
		out = append(out, Revision{
			Number: number, Object: rs.GetName(), Created: rs.GetCreationTimestamp().Time,
			ChangeCause: rs.GetAnnotations()[annotationChangeCause], Images: templateImages(tmpl),
			Replicas: fmt.Sprintf("%d/%d", ready, want), Template: tmpl, Rollback: true,
			Current: current != "" && strconv.FormatInt(number, 10) == current,
		})
	})
	return out, err
}

func (c *Client) controllerRevisions(ctx context.Context, d *Discovery, obj *unstructured.Unstructured) ([]Revision, error) {
	var out []Revision
	err := c.owned(ctx, d, gkControllerRevision, obj, nil, func(cr *unstructured.Unstructured) {
		number, _, _ := unstructured.NestedInt64(cr.Object, "revision")
		data, _, _ := unstructured.NestedMap(cr.Object, "data")
		rev := Revision{Number: number, Object: cr.GetName(), Created: cr.GetCreationTimestamp().Time,
			ChangeCause: cr.GetAnnotations()[annotationChangeCause], Template: data}
		// StatefulSets and DaemonSets keep a patch of the object whose
		// spec.template replaces the live one ("$patch": "replace").
		if tmpl, found, _ := unstructured.NestedMap(data, "spec", "template"); found {
			delete(tmpl, "$patch")
			rev.Template, rev.Rollback, rev.Images = tmpl, true, templateImages(tmpl)
		}
		out = append(out, rev)
	})
	if len(out) > 0 {
		// The newest revision is the one the controller last wrote: the
		// object's current template.
		newest := slices.MaxFunc(out, func(a, b Revision) int { return cmp.Compare(a.Number, b.Number) })
		for i := range out {
			out[i].Current = out[i].Number == newest.Number
		}
	}
	return out, err
}

// templateImages are a pod template's container images, in order.
func templateImages(tmpl map[string]any) []string {
	var out []string
	for _, field := range []string{"initContainers", "containers"} {
		list, _, _ := unstructured.NestedSlice(tmpl, "spec", field)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				if image, ok := m["image"].(string); ok {
					out = append(out, image)
				}
			}
		}
	}
	return out
}
