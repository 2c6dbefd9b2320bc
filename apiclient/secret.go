package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
)

// maxSecretBytes bounds what is read of one Secret: the API server stores
// at most 1 MiB of data, which base64 and JSON make about 1.4 MiB.
const maxSecretBytes = 2 << 20

// secrets is the core/v1 Secrets resource, for the calls below.
var secrets = Resource{Version: "v1", Name: "secrets", Kind: "Secret", Namespaced: true}

// GetSecret reads one Secret. A console uses it, with its own identity, for
// the one Secret its replicas share; it is not a way to show Secrets.
func (c *Client) GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	body, err := readBounded(ctx, c.get(secrets, namespace, name, MediaTypeJSON), maxSecretBytes)
	if err != nil {
		return nil, err
	}
	return decodeSecret(body)
}

// UpdateSecret replaces a Secret (PUT) on the condition that it is still at
// s.ResourceVersion: otherwise the server answers 409 Conflict
// (apierrors.IsConflict) and nothing is written. It returns the Secret as
// stored, with its new resourceVersion. A write is never retried.
func (c *Client) UpdateSecret(ctx context.Context, s *corev1.Secret) (*corev1.Secret, error) {
	if err := checkNames(s.Namespace, s.Name); err != nil {
		return nil, err
	}
	if s.ResourceVersion == "" {
		return nil, fmt.Errorf("secret %s/%s: an update without a resourceVersion would overwrite whatever is there", s.Namespace, s.Name)
	}
	s = s.DeepCopy()
	s.APIVersion, s.Kind = "v1", "Secret"
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	req := c.params(WriteOptions{}, c.write(http.MethodPut, secrets, s.Namespace, s.Name, "", MediaTypeJSON, raw))
	body, err := readBounded(ctx, req, maxSecretBytes)
	if err != nil {
		return nil, err
	}
	return decodeSecret(body)
}

// WatchSecret watches one Secret, by a field selector on its name (which
// RBAC's resourceNames allows for list and watch), from resourceVersion,
// calling emit for each ADDED, MODIFIED or DELETED event. It returns as
// WatchTable does: nil when the stream ends (resume from the last version
// seen), ctx.Err() when ctx ends, the server's Status otherwise
// (apierrors.IsResourceExpired for a version too old: get it again).
func (c *Client) WatchSecret(ctx context.Context, namespace, name, resourceVersion string, emit func(eventType string, s *corev1.Secret)) error {
	if err := checkNames(namespace, name); err != nil {
		return err
	}
	build := func(accept string) *rest.Request {
		req := c.get(secrets, namespace, "", accept).MaxRetries(0).
			Param("watch", "true").Param("fieldSelector", fields.OneTermEqualSelector("metadata.name", name).String())
		setParam(req, "resourceVersion", resourceVersion)
		return req
	}
	return c.stream(ctx, build, []string{MediaTypeJSON}, func(typ string, raw []byte) error {
		if typ == WatchBookmark {
			return nil
		}
		s, err := decodeSecret(raw)
		if err != nil {
			return err
		}
		emit(typ, s)
		return nil
	})
}

func decodeSecret(body []byte) (*corev1.Secret, error) {
	var s corev1.Secret
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("decoding the server's Secret: %w", err)
	}
	if s.Kind != "" && s.Kind != "Secret" {
		return nil, fmt.Errorf("the server answered a %s, not a Secret", s.Kind)
	}
	return &s, nil
}
