package apitest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Ephemeral containers (pods/{name}/ephemeralcontainers) follow
// kube-apiserver's podEphemeralContainersStrategy (pkg/registry/core/pod)
// and ValidatePodEphemeralContainersUpdate: a write changes only
// spec.ephemeralContainers, which may only grow. A kubelet then starts the
// new ones: the fake stores their status (running, or waiting with
// ExecOptions.EphemeralWaiting) as a second change right after the write.

// ephemeral reports a request for pods/{name}/ephemeralcontainers.
func (req resourceRequest) ephemeral() bool {
	return req.gv.Group == "" && req.res.Name == "pods" && req.sub == "ephemeralcontainers"
}

// strategicPatchPod applies a strategic merge patch to a Pod.
func strategicPatchPod(doc, patch []byte) ([]byte, *metav1.Status) {
	out, err := strategicpatch.StrategicMergePatch(doc, patch, corev1.Pod{})
	if err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	return out, nil
}

// ephemeralUpdate is the pod a write of in to pods/{name}/ephemeralcontainers
// leaves stored: old with in's spec.ephemeralContainers, validated.
func ephemeralUpdate(req resourceRequest, in, old *unstructured.Unstructured) (*unstructured.Unstructured, *metav1.Status) {
	obj := old.DeepCopy()
	list, found, err := unstructured.NestedSlice(in.Object, "spec", "ephemeralContainers")
	if err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	if found && len(list) > 0 {
		if err := unstructured.SetNestedSlice(obj.Object, list, "spec", "ephemeralContainers"); err != nil {
			st := internalError(err)
			return nil, &st
		}
	} else {
		unstructured.RemoveNestedField(obj.Object, "spec", "ephemeralContainers")
	}
	newList, err := ephemeralContainers(obj)
	if err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	oldList, err := ephemeralContainers(old)
	if err != nil {
		st := internalError(err)
		return nil, &st
	}
	if errs := validateEphemeral(obj, newList, oldList); len(errs) > 0 {
		st := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, req.name, errs).ErrStatus
		return nil, &st
	}
	return obj, nil
}

func ephemeralContainers(pod *unstructured.Unstructured) ([]corev1.EphemeralContainer, error) {
	list, _, _ := unstructured.NestedSlice(pod.Object, "spec", "ephemeralContainers")
	out := make([]corev1.EphemeralContainer, 0, len(list))
	for i, raw := range list {
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spec.ephemeralContainers[%d]: not an object", i)
		}
		var ec corev1.EphemeralContainer
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ec); err != nil {
			return nil, fmt.Errorf("spec.ephemeralContainers[%d]: %w", i, err)
		}
		out = append(out, ec)
	}
	return out, nil
}

// validateEphemeral is the part of kube-apiserver's validation a client
// adding a debug container can run into.
func validateEphemeral(pod *unstructured.Unstructured, now, was []corev1.EphemeralContainer) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "ephemeralContainers")
	others := slices.Concat(containerNames(pod, "containers"), containerNames(pod, "initContainers"))
	var seen []string
	for i, ec := range now {
		idx := path.Index(i)
		switch {
		case ec.Name == "":
			errs = append(errs, field.Required(idx.Child("name"), ""))
		case len(validation.IsDNS1123Label(ec.Name)) > 0:
			errs = append(errs, field.Invalid(idx.Child("name"), ec.Name, strings.Join(validation.IsDNS1123Label(ec.Name), "; ")))
		case slices.Contains(others, ec.Name) || slices.Contains(seen, ec.Name):
			errs = append(errs, field.Duplicate(idx.Child("name"), ec.Name))
		}
		seen = append(seen, ec.Name)
		if ec.Image == "" {
			errs = append(errs, field.Required(idx.Child("image"), ""))
		}
		if ec.TargetContainerName != "" && !slices.Contains(others, ec.TargetContainerName) {
			errs = append(errs, field.NotFound(idx.Child("targetContainerName"), ec.TargetContainerName))
		}
	}
	for _, old := range was {
		i := slices.IndexFunc(now, func(ec corev1.EphemeralContainer) bool { return ec.Name == old.Name })
		switch {
		case i < 0:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be removed", old.Name)))
		case !apiequality.Semantic.DeepEqual(old, now[i]):
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be changed", old.Name)))
		}
	}
	return errs
}

// startEphemeralLocked plays the kubelet: the ephemeral containers of the
// stored pod obj without a status get one, running or (waiting) waiting
// for their image. s.mu must be held.
func (s *Server) startEphemeralLocked(key string, obj *unstructured.Unstructured, waiting bool) {
	pod := obj.DeepCopy()
	statuses, _, _ := unstructured.NestedSlice(pod.Object, "status", "ephemeralContainerStatuses")
	var have []string
	for _, raw := range statuses {
		if m, ok := raw.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				have = append(have, n)
			}
		}
	}
	list, _, _ := unstructured.NestedSlice(pod.Object, "spec", "ephemeralContainers")
	changed := false
	for _, raw := range list {
		m, ok := raw.(map[string]any)
		name, _ := m["name"].(string)
		if !ok || slices.Contains(have, name) {
			continue
		}
		image, _ := m["image"].(string)
		state := map[string]any{"running": map[string]any{"startedAt": time.Now().UTC().Format(time.RFC3339)}}
		if waiting {
			state = map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}
		}
		statuses = append(statuses, map[string]any{
			"name": name, "image": image, "imageID": "", "ready": false, "restartCount": int64(0), "state": state,
		})
		changed = true
	}
	if !changed {
		return
	}
	if err := unstructured.SetNestedSlice(pod.Object, statuses, "status", "ephemeralContainerStatuses"); err != nil {
		return
	}
	s.putLocked(key, pod)
}
