package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/rest"
)

// Path returns the request path of the resource: the collection when name is
// empty, one object otherwise; namespace "" means all namespaces (or a
// cluster-scoped resource). Every segment is path-escaped, so the result is
// ready to go into a URL string, for example
// "/api/v1/namespaces/demo/pods/web-1" or "/apis/apps/v1/deployments".
//
// rest.Request.AbsPath joins its segments with path.Join and escapes the
// result: pass it PathSegments, never Path, and only names that pass
// ValidPathSegment (the exported Client methods check).
func (r Resource) Path(namespace, name string) string {
	segs := r.PathSegments(namespace, name)
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/" + strings.Join(segs, "/")
}

// PathSegments returns the unescaped segments of Path.
func (r Resource) PathSegments(namespace, name string) []string {
	var segs []string
	if r.Group == "" {
		segs = []string{"api", r.Version}
	} else {
		segs = []string{"apis", r.Group, r.Version}
	}
	if r.Namespaced && namespace != "" {
		segs = append(segs, "namespaces", namespace)
	}
	segs = append(segs, r.Name)
	if name != "" {
		segs = append(segs, name)
	}
	return segs
}

// Media types of the representations this package asks for.
const (
	// MediaTypeJSON is the plain object or list.
	MediaTypeJSON = "application/json"
	// MediaTypePartialObjectMetadataList asks for the items' metadata only,
	// falling back to the plain list on servers that ignore it.
	MediaTypePartialObjectMetadataList = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
)

// get builds a GET of the resource path with an Accept header.
func (c *Client) get(r Resource, namespace, name, accept string, subresource ...string) *rest.Request {
	segs := append(r.PathSegments(namespace, name), subresource...)
	return c.rest.Get().AbsPath(segs...).SetHeader("Accept", accept)
}

// maxAnswerBytes bounds an answer read whole: an object (etcd keeps at
// most about 1.5 MiB of one), a describe, a page of a list. A server that
// sends more is broken or hostile, and must not take the console's memory
// with it.
const maxAnswerBytes = 32 << 20

// doRaw runs req and returns the body of a success, read up to
// maxAnswerBytes. Errors are the server's own *apierrors.StatusError
// whenever it sent a Status, so its reason, code and message survive; an
// answer over the bound is a BadResponseError.
func doRaw(ctx context.Context, req *rest.Request) ([]byte, error) {
	body, err := readBounded(ctx, req, maxAnswerBytes)
	if errors.Is(err, errAnswerTooLarge) {
		return nil, &BadResponseError{Err: err}
	}
	return body, err
}

// errAnswerTooLarge is readBounded's answer to a body over its limit.
var errAnswerTooLarge = errors.New("too large")

// readBounded does req, reading at most limit bytes of the answer: for
// answers whose size the server does not bound (lists that do not page,
// documents that grow with the server).
func readBounded(ctx context.Context, req *rest.Request, limit int64) ([]byte, error) {
	rc, err := req.Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("the answer is %w, over %d MiB", errAnswerTooLarge, limit>>20)
	}
	return body, nil
}

// decodeObject decodes a JSON object keeping integers as int64, as
// unstructured expects.
func decodeObject(body []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decoding the server's answer: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("decoding the server's answer: not a JSON object")
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// GetObject fetches one object as JSON (Accept: application/json).
func (c *Client) GetObject(ctx context.Context, r Resource, namespace, name string) (*unstructured.Unstructured, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	body, err := doRaw(ctx, c.get(r, namespace, name, MediaTypeJSON))
	if err != nil {
		return nil, fmt.Errorf("getting %s %q: %w", r.Name, name, err)
	}
	return decodeObject(body)
}
