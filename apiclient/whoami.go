package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// UserInfo is who the API server says a client's credential belongs to.
type UserInfo struct {
	Username string
	UID      string
	Groups   []string
}

// WhoAmI asks the server who this client's identity is, with a
// SelfSubjectReview (authentication.k8s.io/v1, kubectl auth whoami). An
// error keeps the server's Status: 401 means the credential was rejected,
// 404 that the server does not serve the API (before Kubernetes 1.28, or a
// server that only copies the conventions).
func (c *Client) WhoAmI(ctx context.Context) (UserInfo, error) {
	review := authenticationv1.SelfSubjectReview{}
	review.APIVersion, review.Kind = "authentication.k8s.io/v1", "SelfSubjectReview"
	body, err := json.Marshal(review)
	if err != nil {
		return UserInfo{}, err
	}
	res := c.rest.Post().AbsPath("/apis/authentication.k8s.io/v1/selfsubjectreviews").
		SetHeader("Content-Type", MediaTypeJSON).SetHeader("Accept", MediaTypeJSON).
		Body(body).MaxRetries(0).Do(ctx)
	if err := res.Error(); err != nil {
		return UserInfo{}, err
	}
	raw, _ := res.Raw()
	if err := json.Unmarshal(raw, &review); err != nil {
		return UserInfo{}, fmt.Errorf("decoding the SelfSubjectReview: %w", err)
	}
	u := review.Status.UserInfo
	if u.Username == "" {
		// A success without a user says nothing about this credential.
		return UserInfo{}, errors.New("the server's SelfSubjectReview names no user")
	}
	return UserInfo{Username: u.Username, UID: u.UID, Groups: u.Groups}, nil
}

// CheckAuthenticated makes one discovery request (GET /api) that a server
// answers only for a credential it accepts: an unknown token gets 401
// whatever the path.
func (c *Client) CheckAuthenticated(ctx context.Context) error {
	_, err := doRaw(ctx, c.rest.Get().AbsPath("/api").SetHeader("Accept", MediaTypeJSON).MaxRetries(0))
	return err
}
