package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AccessCheck is one question for SelfSubjectAccessReview: may the user
// verb the resource (its subresource, in the namespace, the named object)?
// Group "" is the core group; Namespace "" asks across the cluster.
type AccessCheck struct {
	Verb        string
	Group       string
	Resource    string
	Subresource string
	Namespace   string
	Name        string
}

// Decision is the server's answer to one AccessCheck. It is a hint for the
// UI: the server still decides every request.
type Decision struct {
	// Allowed is the answer, when Known.
	Allowed bool
	// Known is false when the server could not say: it serves no
	// authorization API, the review failed, or the authorizer had no
	// opinion it would commit to. Callers treat the action as allowed and
	// let the request itself find out.
	Known bool
	// Reason is the authorizer's reason, or why the answer is unknown.
	Reason string
}

// ErrNoAuthorizationAPI is returned when the server does not serve the
// authorization.k8s.io self-reviews: it is not in discovery, or the
// review's path answers 404 or 405.
var ErrNoAuthorizationAPI = errors.New("the server does not serve authorization.k8s.io/v1 self-reviews")

// maxConcurrentReviews bounds the reviews one AccessReview has in flight:
// a page asks a handful, and a burst must not crowd the user's own calls
// out of the server's priority and fairness share.
const maxConcurrentReviews = 8

const authorizationGroup = "authorization.k8s.io"

// AccessReview answers checks with one SelfSubjectAccessReview each, at
// most maxConcurrentReviews at once, with ctx. It returns one Decision per
// check, in order; identical checks are asked once. It makes no request and
// answers every check unknown when discovery says the server has no
// SelfSubjectAccessReview; a review that fails (404/405, a refusal, ctx
// ending) is unknown too.
func (c *Client) AccessReview(ctx context.Context, checks []AccessCheck) []Decision {
	out := make([]Decision, len(checks))
	if len(checks) == 0 {
		return out
	}
	if !c.serves(ctx, "selfsubjectaccessreviews") {
		for i := range out {
			out[i] = Decision{Reason: ErrNoAuthorizationAPI.Error()}
		}
		return out
	}
	first := map[AccessCheck]int{} // a check's first index; the others copy it
	var unique []int
	for i, ch := range checks {
		if _, seen := first[ch]; !seen {
			first[ch] = i
			unique = append(unique, i)
		}
	}
	sem := make(chan struct{}, maxConcurrentReviews)
	var wg sync.WaitGroup
	for _, i := range unique {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = Decision{Reason: ctx.Err().Error()}
				return
			}
			defer func() { <-sem }()
			out[i] = c.review(ctx, checks[i])
		}()
	}
	wg.Wait()
	for i, ch := range checks {
		out[i] = out[first[ch]]
	}
	return out
}

// serves says whether discovery lists the authorization resource. A failed
// discovery is no answer: the review is tried and its own failure decides.
func (c *Client) serves(ctx context.Context, resource string) bool {
	d, err := c.Discovery(ctx)
	if err != nil {
		return true
	}
	_, ok := d.Lookup(authorizationGroup, "v1", resource)
	return ok
}

func (c *Client) review(ctx context.Context, ch AccessCheck) Decision {
	ssar := authorizationv1.SelfSubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"},
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ch.Namespace, Verb: ch.Verb, Group: ch.Group, Resource: ch.Resource, Subresource: ch.Subresource, Name: ch.Name,
		}},
	}
	if err := c.create(ctx, "selfsubjectaccessreviews", &ssar); err != nil {
		return Decision{Reason: err.Error()}
	}
	st := ssar.Status
	switch {
	case st.Allowed:
		return Decision{Allowed: true, Known: true, Reason: st.Reason}
	case st.Denied:
		return Decision{Known: true, Reason: st.Reason}
	case st.EvaluationError != "":
		// Neither allowed nor denied, with an error: a webhook that failed
		// may well allow the request itself.
		return Decision{Reason: st.EvaluationError}
	}
	// Not allowed and no error: every authorizer had no opinion, which
	// kube-apiserver turns into a refusal.
	return Decision{Known: true, Reason: st.Reason}
}

// create posts a self-review and decodes the server's answer into v.
// Reviews are not retried: they are hints, and a page should not wait
// through Retry-After delays for them.
func (c *Client) create(ctx context.Context, resource string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req := c.rest.Post().AbsPath("/apis", authorizationGroup, "v1", resource).
		SetHeader("Accept", MediaTypeJSON).SetHeader("Content-Type", MediaTypeJSON).
		Body(body).MaxRetries(0)
	raw, err := doRaw(ctx, req)
	if err != nil {
		if code := statusCode(err); code == http.StatusNotFound || code == http.StatusMethodNotAllowed {
			return ErrNoAuthorizationAPI
		}
		return fmt.Errorf("creating a %s: %w", resource, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decoding a %s: %w", resource, err)
	}
	return nil
}

// Rules is what SelfSubjectRulesReview says the user may do in one
// namespace. Rules are additive: a rule listed is granted even when the
// list is incomplete, but what is not listed is refused only when it is
// complete.
type Rules struct {
	Namespace string
	Resources []ResourceRule
	// Incomplete says the server could not list every rule (a webhook
	// authorizer, for example): what no rule allows may still be allowed.
	Incomplete bool
	// EvaluationError is why the list is incomplete, when the server says.
	EvaluationError string
}

// ResourceRule is one rule of a Rules, as RBAC writes it: "*" matches any
// verb, group or resource, "*/sub" any resource's subresource sub, and
// ResourceNames, when set, only those objects.
type ResourceRule struct {
	Verbs         []string
	APIGroups     []string
	Resources     []string
	ResourceNames []string
}

// Allows says whether a rule grants verb on the resource (group "" is
// core; subresource and name may be empty), as RBAC's rule matching does.
// A rule naming objects never grants a request that names none, such as a
// list.
func (rs *Rules) Allows(verb, group, resource, subresource, name string) bool {
	combined := resource
	if subresource != "" {
		combined += "/" + subresource
	}
	for _, r := range rs.Resources {
		if matchesAll(r.Verbs, verb) && matchesAll(r.APIGroups, group) && matchesResource(r.Resources, combined, subresource) &&
			(len(r.ResourceNames) == 0 || (name != "" && slices.Contains(r.ResourceNames, name))) {
			return true
		}
	}
	return false
}

// Denies says whether the rules are complete and none grants the request:
// the only case in which a rules review may be read as a refusal. An
// evaluation error (RBAC missing a role, say) makes the list incomplete
// even when the server does not say so.
func (rs *Rules) Denies(verb, group, resource, subresource, name string) bool {
	return !rs.Incomplete && rs.EvaluationError == "" && !rs.Allows(verb, group, resource, subresource, name)
}

func matchesAll(values []string, v string) bool {
	return slices.Contains(values, "*") || slices.Contains(values, v)
}

func matchesResource(resources []string, combined, subresource string) bool {
	for _, r := range resources {
		if r == "*" || r == combined || (subresource != "" && r == "*/"+subresource) {
			return true
		}
	}
	return false
}

// RulesReview asks SelfSubjectRulesReview what the user may do in namespace
// (which the server requires). It returns ErrNoAuthorizationAPI, without a
// request when discovery already says so, from a server that does not serve
// it.
func (c *Client) RulesReview(ctx context.Context, namespace string) (*Rules, error) {
	if namespace == "" {
		return nil, errors.New("a rules review needs a namespace")
	}
	if !c.serves(ctx, "selfsubjectrulesreviews") {
		return nil, ErrNoAuthorizationAPI
	}
	ssrr := authorizationv1.SelfSubjectRulesReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectRulesReview"},
		Spec:     authorizationv1.SelfSubjectRulesReviewSpec{Namespace: namespace},
	}
	if err := c.create(ctx, "selfsubjectrulesreviews", &ssrr); err != nil {
		return nil, err
	}
	st := ssrr.Status
	out := &Rules{Namespace: namespace, Incomplete: st.Incomplete, EvaluationError: st.EvaluationError}
	for _, r := range st.ResourceRules {
		out.Resources = append(out.Resources, ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
	}
	return out, nil
}
