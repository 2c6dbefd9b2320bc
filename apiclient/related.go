package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Relations of a Related object to the object it was found for.
const (
	RelationOwner    = "owner"    // named in the object's ownerReferences
	RelationOwned    = "owned"    // owned by the object, directly or through a chain (Deployment → ReplicaSet → Pod)
	RelationSelected = "selected" // selected by the object's label selector (Service → Pods)
)

// Related is an object linked to another one.
type Related struct {
	// Resource is where the object is served. When discovery does not know
	// the kind, only Group, Version and Kind are set (Name is empty) and the
	// object cannot be linked.
	Resource  Resource
	Namespace string
	Name      string
	UID       types.UID
	Relation  string
	// Ready is an optional short status: "2/3" ready replicas or containers,
	// or a phase such as "Pending" or "Succeeded".
	Ready string
}

// pageSize bounds every list this file makes; it follows continue tokens,
// for at most maxRelatedPages pages.
const (
	pageSize        = 500
	maxRelatedPages = 10
)

var (
	gkDeployment  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	gkReplicaSet  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	gkStatefulSet = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	gkDaemonSet   = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	gkJob         = schema.GroupKind{Group: "batch", Kind: "Job"}
	gkCronJob     = schema.GroupKind{Group: "batch", Kind: "CronJob"}
	gkService     = schema.GroupKind{Kind: "Service"}
	gkPod         = schema.GroupKind{Kind: "Pod"}
)

// Children finds the objects that belong to obj:
//
//   - Deployment: its ReplicaSets, then their Pods;
//   - ReplicaSet, StatefulSet, DaemonSet, Job: their Pods;
//   - CronJob: its Jobs;
//   - Service: the Pods its spec.selector selects (Relation "selected");
//   - anything else: nothing (no resource is scanned blindly).
//
// Owned children are found with label-selector lists in obj's namespace,
// keeping only items whose ownerReferences name the owner's UID. A kind the
// server does not serve (per d) is skipped. On error, Children returns the
// children found so far along with the error (the server's Status, wrapped).
func (c *Client) Children(ctx context.Context, d *Discovery, obj *unstructured.Unstructured) ([]Related, error) {
	gk := obj.GroupVersionKind().GroupKind()
	ns := obj.GetNamespace()
	switch gk {
	case gkDeployment:
		sel, err := workloadSelector(obj)
		if err != nil {
			return nil, err
		}
		sets, err := c.ownedBy(ctx, d, gkReplicaSet, ns, sel, map[types.UID]bool{obj.GetUID(): true}, replicasReady)
		if err != nil {
			return sets, err
		}
		owners := map[types.UID]bool{}
		for _, rs := range sets {
			owners[rs.UID] = true
		}
		if len(owners) == 0 {
			return sets, nil
		}
		// Pods of every ReplicaSet match the Deployment's selector (theirs adds
		// pod-template-hash), so one list finds them all.
		pods, err := c.ownedBy(ctx, d, gkPod, ns, sel, owners, podReady)
		return append(sets, pods...), err
	case gkReplicaSet, gkStatefulSet, gkDaemonSet, gkJob:
		sel, err := workloadSelector(obj)
		if err != nil {
			return nil, err
		}
		return c.ownedBy(ctx, d, gkPod, ns, sel, map[types.UID]bool{obj.GetUID(): true}, podReady)
	case gkCronJob:
		// A CronJob has no selector: list the namespace's Jobs, metadata only
		// (PartialObjectMetadataList), and keep those it owns.
		return c.ownedBy(ctx, d, gkJob, ns, labels.Everything(), map[types.UID]bool{obj.GetUID(): true}, nil)
	case gkService:
		m, found, err := unstructured.NestedStringMap(obj.Object, "spec", "selector")
		if err != nil || !found || len(m) == 0 {
			return nil, nil // no selector: the endpoints are managed by hand
		}
		pods, err := c.ownedBy(ctx, d, gkPod, ns, labels.SelectorFromSet(m), nil, podReady)
		for i := range pods {
			pods[i].Relation = RelationSelected
		}
		return pods, err
	}
	return nil, nil
}

// workloadSelector is spec.selector of a workload as a label selector.
func workloadSelector(obj *unstructured.Unstructured) (labels.Selector, error) {
	m, found, err := unstructured.NestedMap(obj.Object, "spec", "selector")
	if err != nil || !found {
		// Without a selector the owner references alone decide.
		return labels.Everything(), nil
	}
	var ls metav1.LabelSelector
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &ls)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %q: spec.selector: %w", obj.GetKind(), obj.GetName(), err)
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return nil, fmt.Errorf("%s %q: spec.selector: %w", obj.GetKind(), obj.GetName(), err)
	}
	return sel, nil
}

// ownedBy lists gk in namespace with sel and keeps the items owned by one of
// owners (all items when owners is nil), with Ready computed by ready.
//
// With ready == nil the list asks for PartialObjectMetadataList: only the
// metadata is needed, so the server sends no spec or status. Otherwise it asks
// for plain JSON: the readiness comes from status fields whose meaning the API
// defines (a pod's phase and containerStatuses, a workload's readyReplicas),
// whereas a Table's columns are whatever each server chooses to print and are
// not there at all on servers without Tables; the label selector keeps the
// list to the workload's own pods.
func (c *Client) ownedBy(ctx context.Context, d *Discovery, gk schema.GroupKind, namespace string, sel labels.Selector, owners map[types.UID]bool, ready func(*unstructured.Unstructured) string) ([]Related, error) {
	r, ok := findResource(d, gk)
	if !ok || !r.Can("list") {
		return nil, nil
	}
	accept := MediaTypeJSON
	if ready == nil {
		accept = MediaTypePartialObjectMetadataList + ", " + MediaTypeJSON
	}
	var out []Related
	cont := ""
	for page := 0; ; page++ {
		if page == maxRelatedPages {
			// A page shows related objects, it does not inventory them.
			return out, fmt.Errorf("listing %s: stopped after %d objects", r.Name, page*pageSize)
		}
		req := c.get(r, namespace, "", accept).Param("limit", strconv.Itoa(pageSize))
		if !sel.Empty() {
			req = req.Param("labelSelector", sel.String())
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := doRaw(ctx, req)
		if err != nil {
			return out, fmt.Errorf("listing %s: %w", r.Name, err)
		}
		var list struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []map[string]any `json:"items"`
		}
		if err := utiljson.Unmarshal(body, &list); err != nil {
			return out, fmt.Errorf("decoding the %s list: %w", r.Name, err)
		}
		for _, item := range list.Items {
			u := &unstructured.Unstructured{Object: item}
			if owners != nil && !ownedByAny(u, owners) {
				continue
			}
			rel := Related{Resource: r, Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID(), Relation: RelationOwned}
			if ready != nil {
				rel.Ready = ready(u)
			}
			out = append(out, rel)
		}
		cont = list.Metadata.Continue
		if cont == "" {
			return out, nil
		}
	}
}

func ownedByAny(u *unstructured.Unstructured, owners map[types.UID]bool) bool {
	for _, ref := range u.GetOwnerReferences() {
		if owners[ref.UID] {
			return true
		}
	}
	return false
}

// podReady is "ready/total" containers of a running pod, "Terminating" for
// a pod being deleted, and the phase otherwise.
func podReady(u *unstructured.Unstructured) string {
	if u.GetDeletionTimestamp() != nil {
		return "Terminating"
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	if phase != "Running" {
		return phase
	}
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "containers")
	statuses, _, _ := unstructured.NestedSlice(u.Object, "status", "containerStatuses")
	ready := 0
	for _, s := range statuses {
		if m, ok := s.(map[string]any); ok && m["ready"] == true {
			ready++
		}
	}
	return fmt.Sprintf("%d/%d", ready, len(containers))
}

// replicasReady is "readyReplicas/spec.replicas".
func replicasReady(u *unstructured.Unstructured) string {
	want, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
	return fmt.Sprintf("%d/%d", ready, want)
}

// findResource is the served resource of a group and kind, at the group's
// preferred version.
func findResource(d *Discovery, gk schema.GroupKind) (Resource, bool) {
	if d == nil {
		return Resource{}, false
	}
	for _, g := range d.Groups {
		if g.Name != gk.Group {
			continue
		}
		for _, r := range g.Resources {
			if r.Kind == gk.Kind && r.Group == gk.Group {
				return r, true
			}
		}
	}
	return Resource{}, false
}

// OwnerResources maps each of obj's ownerReferences to where the owner is
// served (Relation "owner"). An owner of a kind discovery does not know keeps
// only Group, Version and Kind in its Resource, and obj's namespace.
func OwnerResources(d *Discovery, obj *unstructured.Unstructured) []Related {
	var out []Related
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			gv = schema.GroupVersion{}
		}
		rel := Related{Namespace: obj.GetNamespace(), Name: ref.Name, UID: ref.UID, Relation: RelationOwner}
		if r, ok := findResource(d, schema.GroupKind{Group: gv.Group, Kind: ref.Kind}); ok {
			rel.Resource = r
			if !r.Namespaced {
				rel.Namespace = ""
			}
		} else {
			rel.Resource = Resource{Group: gv.Group, Version: gv.Version, Kind: ref.Kind}
		}
		out = append(out, rel)
	}
	return out
}
