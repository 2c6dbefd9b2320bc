package apiclient

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Relations of a Related object to the object it was found for.
const (
	RelationOwner = "owner" // named in the object's ownerReferences
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
