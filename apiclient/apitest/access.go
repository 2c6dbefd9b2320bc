package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// Access makes a Server authenticate bearer tokens and authorize every
// request as kube-apiserver with RBAC does, and serve the self-reviews
// (authorization.k8s.io/v1 SelfSubjectAccessReview and
// SelfSubjectRulesReview) from the same rules. Set it in Options.Access;
// without it every request is allowed and no authorization API is served.
type Access struct {
	// Users maps bearer tokens to who they authenticate as; "" is a request
	// without a token (the kubeconfig's own user when Server.Token is "").
	// Any other token is 401 Unauthorized.
	Users map[string]User
	// Rules grant what users may do. Everything no rule grants is 403
	// Forbidden, except discovery, /version, OpenAPI and the self-reviews,
	// which every user may reach (as system:discovery and
	// system:basic-user allow).
	Rules []Rule
	// NoReviewAPI enforces the rules but serves no authorization API: the
	// review paths answer 404 and discovery lists no authorization.k8s.io.
	NoReviewAPI bool
	// IncompleteRules marks every SelfSubjectRulesReview incomplete, as a
	// server with a webhook authorizer answers.
	IncompleteRules bool
}

// User is an authenticated user.
type User struct {
	Name   string
	Groups []string
}

// Rule is an RBAC policy rule with its binding: who it is bound to and
// where. "*" matches any verb, group or resource, "*/sub" any resource's
// subresource sub; ResourceNames, when set, only those objects.
type Rule struct {
	// Users and Groups are the binding's subjects; with neither, the rule
	// applies to every authenticated user.
	Users  []string
	Groups []string
	// Namespaces binds the rule in those namespaces, as RoleBindings do;
	// none binds it cluster-wide, as a ClusterRoleBinding does.
	Namespaces []string

	Verbs         []string
	APIGroups     []string
	Resources     []string
	ResourceNames []string
}

// Viewer and Editor are rules like the view and edit ClusterRoles bound in
// a namespace (a trimmed copy: the resources the fake's groups serve).
func Viewer(group string, namespaces ...string) []Rule {
	return []Rule{
		{Groups: []string{group}, Namespaces: namespaces, Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""},
			Resources: []string{"pods", "pods/log", "pods/status", "services", "configmaps", "events", "replicationcontrollers", "replicationcontrollers/scale"}},
		{Groups: []string{group}, Namespaces: namespaces, Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"apps"},
			Resources: []string{"deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale", "daemonsets"}},
		{Groups: []string{group}, Namespaces: namespaces, Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"events.k8s.io", "batch"}, Resources: []string{"*"}},
	}
}

// Editor is Viewer plus writes, secrets, exec and attach, as the edit
// ClusterRole grants.
func Editor(group string, namespaces ...string) []Rule {
	writes := []string{"create", "delete", "deletecollection", "patch", "update"}
	return append(Viewer(group, namespaces...),
		Rule{Groups: []string{group}, Namespaces: namespaces, Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""},
			Resources: []string{"secrets", "pods/attach", "pods/exec"}},
		Rule{Groups: []string{group}, Namespaces: namespaces, Verbs: writes, APIGroups: []string{""},
			Resources: []string{"pods", "pods/attach", "pods/exec", "services", "configmaps", "secrets", "replicationcontrollers", "replicationcontrollers/scale"}},
		Rule{Groups: []string{group}, Namespaces: namespaces, Verbs: writes, APIGroups: []string{"apps"},
			Resources: []string{"deployments", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale", "daemonsets"}},
	)
}

// Paths of the self-reviews.
const (
	SelfSubjectAccessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	SelfSubjectRulesReviewPath  = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
)

// authorizationGroupVersion is what discovery lists while the reviews are
// served.
func authorizationGroupVersion() GroupVersion {
	verbs := []string{"create"}
	return GroupVersion{Group: "authorization.k8s.io", Version: "v1", Resources: []metav1.APIResource{
		{Name: "selfsubjectaccessreviews", SingularName: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview", Verbs: verbs},
		{Name: "selfsubjectrulesreviews", SingularName: "selfsubjectrulesreview", Kind: "SelfSubjectRulesReview", Verbs: verbs},
	}}
}

// attributes are what RBAC decides on, as kube-apiserver's RequestInfo
// parses them out of a request.
type attributes struct {
	resourceRequest bool
	verb            string
	group           string
	resource        string
	subresource     string
	namespace       string
	name            string
}

// requestAttributes parses r as kube-apiserver's RequestInfoFactory does,
// for the paths the fake serves.
func requestAttributes(r *http.Request) attributes {
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	var a attributes
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		a.group = parts[1]
		parts = parts[3:]
	default:
		return attributes{verb: strings.ToLower(r.Method)}
	}
	a.resourceRequest = true
	if parts[0] == "namespaces" && len(parts) > 1 {
		a.namespace = parts[1]
		// namespaces/{name}/status and /finalize are the namespace's own
		// subresources; anything else is a namespaced resource.
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	a.resource = parts[0]
	if len(parts) > 1 {
		a.name = parts[1]
	}
	if len(parts) > 2 {
		a.subresource = parts[2]
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodPost:
		a.verb = "create"
	case http.MethodPut:
		a.verb = "update"
	case http.MethodPatch:
		a.verb = "patch"
	case http.MethodDelete:
		a.verb = "delete"
		if a.name == "" {
			a.verb = "deletecollection"
		}
	default:
		a.verb = "get"
		if a.name == "" {
			a.verb = "list"
			if w := q.Get("watch"); w == "true" || w == "1" {
				a.verb = "watch"
			}
			// A list or watch of one object by metadata.name is authorized
			// for that name, so resourceNames rules can grant it.
			if sel, err := fields.ParseSelector(q.Get("fieldSelector")); err == nil {
				if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
					a.name = name
				}
			}
		}
	}
	return a
}

// authenticate is who a request's bearer token says it is.
func (ac *Access) authenticate(r *http.Request) (User, bool) {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	u, ok := ac.Users[token]
	return u, ok
}

// allows decides a with the rules, the implicit grants first.
func (ac *Access) allows(u User, a attributes) bool {
	if !a.resourceRequest {
		return true // discovery, /version, OpenAPI
	}
	if a.group == "authorization.k8s.io" && a.verb == "create" && strings.HasPrefix(a.resource, "selfsubject") {
		return true
	}
	for _, rule := range ac.Rules {
		if rule.boundTo(u) && rule.appliesIn(a.namespace) && rule.grants(a) {
			return true
		}
	}
	return false
}

func (rule Rule) boundTo(u User) bool {
	if len(rule.Users) == 0 && len(rule.Groups) == 0 {
		return true
	}
	if slices.Contains(rule.Users, u.Name) {
		return true
	}
	for _, g := range u.Groups {
		if slices.Contains(rule.Groups, g) {
			return true
		}
	}
	return false
}

// appliesIn says whether the rule's binding reaches namespace ("" is a
// cluster-scoped request, or one across all namespaces).
func (rule Rule) appliesIn(namespace string) bool {
	return len(rule.Namespaces) == 0 || (namespace != "" && slices.Contains(rule.Namespaces, namespace))
}

func (rule Rule) grants(a attributes) bool {
	combined := a.resource
	if a.subresource != "" {
		combined += "/" + a.subresource
	}
	resourceOK := false
	for _, res := range rule.Resources {
		if res == "*" || res == combined || (a.subresource != "" && res == "*/"+a.subresource) {
			resourceOK = true
		}
	}
	return resourceOK && anyOf(rule.Verbs, a.verb) && anyOf(rule.APIGroups, a.group) &&
		(len(rule.ResourceNames) == 0 || (a.name != "" && slices.Contains(rule.ResourceNames, a.name)))
}

func anyOf(values []string, v string) bool {
	return slices.Contains(values, "*") || slices.Contains(values, v)
}

// authorize answers a request the user may not make with kube-apiserver's
// 401 or 403 Status and reports whether it did.
func (ac *Access) authorize(w http.ResponseWriter, r *http.Request) bool {
	u, ok := ac.authenticate(r)
	if !ok {
		WriteStatus(w, metav1.Status{Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
		return true
	}
	a := requestAttributes(r)
	if ac.allows(u, a) {
		return false
	}
	WriteStatus(w, forbiddenStatus(u, a))
	return true
}

// forbiddenStatus is kube-apiserver's refusal (responsewriters.Forbidden):
// `deployments.apps "web" is forbidden: User "u" cannot delete resource
// "deployments" in API group "apps" in the namespace "demo"`.
func forbiddenStatus(u User, a attributes) metav1.Status {
	resource := a.resource
	if a.subresource != "" {
		resource += "/" + a.subresource
	}
	reason := fmt.Sprintf("User %q cannot %s resource %q in API group %q", u.Name, a.verb, resource, a.group)
	if a.namespace != "" {
		reason += fmt.Sprintf(" in the namespace %q", a.namespace)
	} else {
		reason += " at the cluster scope"
	}
	qualified := a.resource
	if a.group != "" {
		qualified += "." + a.group
	}
	msg := fmt.Sprintf("%s is forbidden: %s", qualified, reason)
	if a.name != "" {
		msg = fmt.Sprintf("%s %q is forbidden: %s", qualified, a.name, reason)
	}
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: msg,
		Details: &metav1.StatusDetails{Name: a.name, Group: a.group, Kind: a.resource},
	}
}

// serveReview answers a self-review POST from the rules.
func (ac *Access) serveReview(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method != http.MethodPost {
		WriteStatus(w, methodNotAllowed("the server does not allow this method on the requested resource"))
		return
	}
	u, _ := ac.authenticate(r) // authorize let only known users through
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	if path == SelfSubjectAccessReviewPath {
		var review authorizationv1.SelfSubjectAccessReview
		if err := json.Unmarshal(body, &review); err != nil {
			WriteStatus(w, badRequest(err.Error()))
			return
		}
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
		if ra := review.Spec.ResourceAttributes; ra != nil {
			a := attributes{resourceRequest: true, verb: ra.Verb, group: ra.Group, resource: ra.Resource, subresource: ra.Subresource, namespace: ra.Namespace, name: ra.Name}
			review.Status.Allowed = ac.allows(u, a)
		}
		if review.Status.Allowed {
			review.Status.Reason = "allowed by the fake's rules"
		}
		writeJSON(w, http.StatusCreated, review)
		return
	}
	var review authorizationv1.SelfSubjectRulesReview
	if err := json.Unmarshal(body, &review); err != nil {
		WriteStatus(w, badRequest(err.Error()))
		return
	}
	ns := review.Spec.Namespace
	if ns == "" {
		// As kube-apiserver's selfsubjectrulesreview REST answers.
		WriteStatus(w, badRequest("no namespace on request"))
		return
	}
	review.Status = authorizationv1.SubjectRulesReviewStatus{
		ResourceRules: []authorizationv1.ResourceRule{{
			Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"},
			Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"},
		}},
		NonResourceRules: []authorizationv1.NonResourceRule{{
			Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*", "/version", "/version/"},
		}},
		Incomplete: ac.IncompleteRules,
	}
	for _, rule := range ac.Rules {
		if rule.boundTo(u) && (len(rule.Namespaces) == 0 || slices.Contains(rule.Namespaces, ns)) {
			review.Status.ResourceRules = append(review.Status.ResourceRules, authorizationv1.ResourceRule{
				Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames,
			})
		}
	}
	writeJSON(w, http.StatusCreated, review)
}
