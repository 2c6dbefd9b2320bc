package apiclient

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GetSubresource reads one served subresource of an object as JSON, such
// as "status" (the object, as the status endpoint serves it) or "scale".
func (c *Client) GetSubresource(ctx context.Context, r Resource, namespace, name, subresource string) (*unstructured.Unstructured, error) {
	if err := checkNames(namespace, name, subresource); err != nil {
		return nil, err
	}
	if !slices.Contains(r.Subresources, subresource) {
		return nil, fmt.Errorf("%s does not serve the %q subresource", r.Name, subresource)
	}
	body, err := doRaw(ctx, c.get(r, namespace, name, MediaTypeJSON, subresource))
	if err != nil {
		return nil, err
	}
	return decodeObject(body)
}
