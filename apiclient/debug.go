package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
)

// SupportsExec reports whether discovery lists pods/exec for r, the core
// pods resource.
func SupportsExec(r Resource) bool { return isPods(r) && slices.Contains(r.Subresources, "exec") }

// SupportsAttach reports whether discovery lists pods/attach for r.
func SupportsAttach(r Resource) bool { return isPods(r) && slices.Contains(r.Subresources, "attach") }

// SupportsEphemeralContainers reports whether discovery lists
// pods/ephemeralcontainers for r: a server without it cannot add debug
// containers.
func SupportsEphemeralContainers(r Resource) bool {
	return isPods(r) && slices.Contains(r.Subresources, "ephemeralcontainers")
}

func isPods(r Resource) bool { return r.Group == "" && r.Name == "pods" }

// DebugContainerName returns a name for a new debug container as kubectl
// debug makes them, "debugger-" and five random characters, that is none
// of existing.
func DebugContainerName(existing []string) string {
	for {
		if name := "debugger-" + utilrand.String(5); !slices.Contains(existing, name) {
			return name
		}
	}
}

// AddEphemeralContainer adds c to the pod's ephemeral containers (a debug
// container, as kubectl debug adds one) and returns the pod as the server
// stored it; a kubelet starts the container afterwards, which the pod's
// status.ephemeralContainerStatuses shows. An empty c.Name gets
// DebugContainerName's.
//
// It reads the ephemeralcontainers subresource, then sends a JSON merge
// patch of it carrying the whole list (a merge patch replaces lists) plus
// c, guarded by metadata.resourceVersion: the caller's resourceVersion (the
// pod it showed), else the one just read. A pod changed since is the
// server's 409 Conflict. Other errors are the server's Status too: 404 for
// a missing pod or a server without the subresource (see
// SupportsEphemeralContainers), 422 for an invalid or duplicate name or
// image, 403.
func (c *Client) AddEphemeralContainer(ctx context.Context, namespace, pod, resourceVersion string, ec corev1.EphemeralContainer) (*corev1.Pod, error) {
	if err := requireNames(namespace, pod); err != nil {
		return nil, err
	}
	body, err := doRaw(ctx, c.get(podsResource, namespace, pod, MediaTypeJSON, "ephemeralcontainers").MaxRetries(0))
	if err != nil {
		return nil, fmt.Errorf("reading the ephemeral containers of pod %q: %w", pod, err)
	}
	current, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	list, _, err := unstructured.NestedSlice(current.Object, "spec", "ephemeralContainers")
	if err != nil {
		return nil, fmt.Errorf("pod %q: %w", pod, err)
	}
	if ec.Name == "" {
		var names []string
		for _, field := range []string{"containers", "initContainers", "ephemeralContainers"} {
			items, _, _ := unstructured.NestedSlice(current.Object, "spec", field)
			for _, item := range items {
				if m, ok := item.(map[string]any); ok {
					if n, ok := m["name"].(string); ok {
						names = append(names, n)
					}
				}
			}
		}
		ec.Name = DebugContainerName(names)
	}
	if resourceVersion == "" {
		resourceVersion = current.GetResourceVersion()
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"spec":     map[string]any{"ephemeralContainers": append(list, ec)},
	})
	if err != nil {
		return nil, err
	}
	req := c.write(http.MethodPatch, podsResource, namespace, pod, "ephemeralcontainers", MergePatchType, patch)
	out, err := doRaw(ctx, c.params(WriteOptions{}, req))
	if err != nil {
		return nil, fmt.Errorf("adding ephemeral container %q to pod %q: %w", ec.Name, pod, err)
	}
	var stored corev1.Pod
	if err := json.Unmarshal(out, &stored); err != nil {
		return nil, fmt.Errorf("decoding the server's answer: %w", err)
	}
	return &stored, nil
}
