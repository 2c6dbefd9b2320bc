package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// read reads an item as it is now: the resourceVersion every write of it
// is guarded by, and what the action will change.
func read(ctx context.Context, client *apiclient.Client, rq request, it item) (rv, change string, err error) {
	r, a := rq.resource, rq.action
	if a.Op == kube.BulkScale {
		s, err := client.GetScale(ctx, r, it.namespace, it.name)
		if err != nil {
			return "", "", err
		}
		if s.Desired == rq.replicas {
			return s.ResourceVersion, fmt.Sprintf("Already %d replicas: no change", s.Desired), nil
		}
		return s.ResourceVersion, fmt.Sprintf("Replicas %d → %d", s.Desired, rq.replicas), nil
	}
	obj, err := client.GetObject(ctx, r, it.namespace, it.name)
	if err != nil {
		return "", "", err
	}
	return obj.GetResourceVersion(), describeChange(rq, obj), nil
}

// describeChange says what the action does to obj.
func describeChange(rq request, obj *unstructured.Unstructured) string {
	a := rq.action
	switch a.Op {
	case kube.BulkDelete:
		switch {
		case obj.GetDeletionTimestamp() != nil:
			return "Already being deleted (since " + obj.GetDeletionTimestamp().UTC().Format(time.RFC3339) + ")"
		case len(obj.GetFinalizers()) > 0:
			return "Deleted; it stays until its finalizers (" + strings.Join(obj.GetFinalizers(), ", ") + ") are removed"
		}
		return "Deleted (" + a.Propagation + ")"
	case kube.BulkRestart:
		return "Restarted: its pod template is annotated " + kube.RestartAnnotation + ", so its pods are replaced"
	}
	noun, values := "label", obj.GetLabels()
	if a.Op == kube.BulkAddAnnotation || a.Op == kube.BulkRemoveAnnotation {
		noun, values = "annotation", obj.GetAnnotations()
	}
	old, has := values[a.Key]
	switch {
	case (a.Op == kube.BulkAddLabel || a.Op == kube.BulkAddAnnotation) && has && old == a.Value:
		return fmt.Sprintf("Already has %s %s=%s: no change", noun, a.Key, clip(old))
	case a.Op == kube.BulkAddLabel || a.Op == kube.BulkAddAnnotation:
		if has {
			return fmt.Sprintf("%s %s: %s → %s", upper(noun), a.Key, clip(old), clip(a.Value))
		}
		return fmt.Sprintf("Adds %s %s=%s", noun, a.Key, clip(a.Value))
	case has:
		return fmt.Sprintf("Removes %s %s (was %s)", noun, a.Key, clip(old))
	}
	return fmt.Sprintf("Has no %s %s: no change", noun, a.Key)
}

// write sends the action to one item, guarded by rv: for real, or as a
// dry run (dryRun=All) that stores nothing. It says what was done.
func write(ctx context.Context, client *apiclient.Client, rq request, it item, rv string, at time.Time, dryRun bool) (string, error) {
	r, a := rq.resource, rq.action
	opts := apiclient.WriteOptions{DryRun: dryRun}
	switch a.Op {
	case kube.BulkDelete:
		answer, err := client.Delete(ctx, r, it.namespace, it.name, apiclient.DeleteOptions{Propagation: a.Propagation, ResourceVersion: rv, DryRun: dryRun})
		if err != nil {
			return "", err
		}
		return deleted(answer), nil
	case kube.BulkScale:
		s, err := client.ScaleTo(ctx, r, it.namespace, it.name, rq.replicas, rv, opts)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d replicas", s.Desired), nil
	}
	body, err := patchOf(a, rv, at)
	if err != nil {
		return "", err
	}
	res, err := client.Patch(ctx, r, it.namespace, it.name, "", body, opts)
	if err != nil {
		return "", err
	}
	switch {
	case a.Op == kube.BulkRestart:
		return "restarted", nil
	case res.Object != nil && res.Object.GetResourceVersion() == rv:
		// A write that changes nothing leaves the version as it was: the
		// label or annotation was already as asked, as the review said.
		// (A dry run never moves it: the review shows read's words, not
		// these.)
		return "no change", nil
	}
	switch a.Op {
	case kube.BulkAddLabel, kube.BulkAddAnnotation:
		return "set", nil
	}
	return "removed", nil
}

// patchOf is the merge patch of a restart or a label or annotation
// change, carrying rv as metadata.resourceVersion: the server answers 409
// Conflict when the object changed since.
func patchOf(a views.BulkAction, rv string, at time.Time) ([]byte, error) {
	if a.Op == kube.BulkRestart {
		return kube.RestartPatch(rv, at)
	}
	field := "labels"
	if a.Op == kube.BulkAddAnnotation || a.Op == kube.BulkRemoveAnnotation {
		field = "annotations"
	}
	var value any // nil removes the key (RFC 7386)
	if a.Op == kube.BulkAddLabel || a.Op == kube.BulkAddAnnotation {
		value = a.Value
	}
	meta := map[string]any{field: map[string]any{a.Key: value}}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	return json.Marshal(map[string]any{"metadata": meta})
}

// deleted says what a DELETE's answer means: gone, or marked for deletion
// until finalizers (the object's, or Foreground's) are removed.
func deleted(answer *unstructured.Unstructured) string {
	if answer == nil || answer.GetKind() == "Status" || answer.GetDeletionTimestamp() == nil {
		return "deleted"
	}
	if f := answer.GetFinalizers(); len(f) > 0 {
		return "marked for deletion; finalizers: " + strings.Join(f, ", ")
	}
	return "marked for deletion"
}

// clip shortens a value the review quotes, on a character boundary.
func clip(s string) string {
	const max = 60
	if len(s) > max {
		return strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
