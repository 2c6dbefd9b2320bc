package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
)

// Scale is what the generic scale subresource says about a workload.
type Scale struct {
	Desired  int32  // spec.replicas
	Current  int32  // status.replicas
	Selector string // status.selector, in label selector string form
	// ResourceVersion is the Scale's, which is the workload's: the
	// precondition ScaleTo takes.
	ResourceVersion string
}

// GetScale reads the generic scale subresource (autoscaling/v1 Scale) when
// r.Subresources contains "scale"; otherwise it returns (nil, nil) without a
// request.
func (c *Client) GetScale(ctx context.Context, r Resource, namespace, name string) (*Scale, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	if !slices.Contains(r.Subresources, "scale") {
		return nil, nil
	}
	body, err := doRaw(ctx, c.get(r, namespace, name, MediaTypeJSON, "scale"))
	if err != nil {
		return nil, fmt.Errorf("getting the scale of %s %q: %w", r.Name, name, err)
	}
	s, err := decodeScale(body)
	if err != nil {
		return nil, fmt.Errorf("decoding the scale of %s %q: %w", r.Name, name, err)
	}
	return s, nil
}

func decodeScale(body []byte) (*Scale, error) {
	var s autoscalingv1.Scale
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, err
	}
	return &Scale{Desired: s.Spec.Replicas, Current: s.Status.Replicas, Selector: s.Status.Selector, ResourceVersion: s.ResourceVersion}, nil
}
