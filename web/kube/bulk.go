package kube

import (
	"encoding/json"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

// RestartAnnotation is what kubectl rollout restart sets on the pod
// template; the controller rolls the pods because the template changed.
const RestartAnnotation = "kubectl.kubernetes.io/restartedAt"

// RestartPatch is kubectl rollout restart's change as a JSON merge patch:
// the pod template's restartedAt annotation set to at, guarded by
// resourceVersion when it is not "".
func RestartPatch(resourceVersion string, at time.Time) ([]byte, error) {
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
		"annotations": map[string]any{RestartAnnotation: at.UTC().Format(time.RFC3339)},
	}}}}
	if resourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	}
	return json.Marshal(patch)
}

// The bulk actions a list offers for its selected rows (web/bulk).
const (
	BulkDelete           = "delete"
	BulkRestart          = "restart"
	BulkScale            = "scale"
	BulkAddLabel         = "label"
	BulkRemoveLabel      = "unlabel"
	BulkAddAnnotation    = "annotate"
	BulkRemoveAnnotation = "unannotate"
)

// BulkOption is one bulk action a list offers.
type BulkOption struct {
	Op    string
	Label string
}

// BulkOptions are the bulk actions the server serves for r, in the order
// a list offers them: delete where it may be deleted, restart where it
// rolls a pod template, scale where it has the scale subresource, and
// labels and annotations where it may be patched. None: the list has no
// checkboxes.
func BulkOptions(r apiclient.Resource) []BulkOption {
	var out []BulkOption
	if r.Can("delete") {
		out = append(out, BulkOption{BulkDelete, "Delete"})
	}
	if Restartable(r) {
		out = append(out, BulkOption{BulkRestart, "Restart"})
	}
	if HasScale(r) {
		out = append(out, BulkOption{BulkScale, "Scale"})
	}
	if r.Can("patch") {
		out = append(out,
			BulkOption{BulkAddLabel, "Add or set a label"}, BulkOption{BulkRemoveLabel, "Remove a label"},
			BulkOption{BulkAddAnnotation, "Add or set an annotation"}, BulkOption{BulkRemoveAnnotation, "Remove an annotation"})
	}
	return out
}

// BulkCheck is the access check of a bulk action on one object (name) or
// on every object of the namespace (name ""): the check its single-object
// page asks.
func BulkCheck(op string, r apiclient.Resource, namespace, name string) apiclient.AccessCheck {
	switch op {
	case BulkDelete:
		return DeleteCheck(r, namespace, name)
	case BulkScale:
		return ScaleCheck(r, namespace, name)
	}
	return EditCheck(r, namespace, name)
}

// MaxBulkItems bounds the objects of one bulk review or apply: two pages
// of the default size, and a form well under the console's small-form
// bound.
const MaxBulkItems = 1000
