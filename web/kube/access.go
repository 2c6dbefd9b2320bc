package kube

import (
	"fmt"
	"slices"

	"github.com/tabula-console/tabula/apiclient"
)

// Permits are the answers to one page's access checks.
type Permits struct {
	checks    []apiclient.AccessCheck
	decisions []apiclient.Decision
}

// NewPermits pairs a page's checks with the decisions asked for them, in
// the same order.
func NewPermits(checks []apiclient.AccessCheck, decisions []apiclient.Decision) Permits {
	return Permits{checks: checks, decisions: decisions}
}

// Denied says why the user may not make check: "" when they may, when the
// server could not say, or when the page did not ask.
func (p Permits) Denied(check apiclient.AccessCheck) string {
	for i, ch := range p.checks {
		if ch != check || i >= len(p.decisions) {
			continue
		}
		if d := p.decisions[i]; d.Known && !d.Allowed {
			return deniedReason(check, d.Reason)
		}
		return ""
	}
	return ""
}

// Allowed says whether the server said the user may make check: false when
// it refused, could not say, or the page did not ask.
func (p Permits) Allowed(check apiclient.AccessCheck) bool {
	for i, ch := range p.checks {
		if ch == check && i < len(p.decisions) {
			return p.decisions[i].Known && p.decisions[i].Allowed
		}
	}
	return false
}

// deniedReason is the tooltip of an action the server would refuse: "You
// may not delete deployments.apps in namespace demo (verb delete)", with the
// authorizer's reason when it gave one.
func deniedReason(check apiclient.AccessCheck, reason string) string {
	where := "at the cluster scope"
	if check.Namespace != "" {
		where = "in namespace " + check.Namespace
	}
	return deniedPhrase(check, where, reason)
}

func deniedPhrase(check apiclient.AccessCheck, where, reason string) string {
	what := check.Resource
	if check.Group != "" {
		what += "." + check.Group
	}
	if check.Subresource != "" {
		what += "/" + check.Subresource
	}
	s := fmt.Sprintf("You may not %s %s %s (verb %s)", check.Verb, what, where, check.Verb)
	if reason != "" {
		s += ": " + reason
	}
	return s
}

// The checks behind each action a page offers; the builders ask Permits
// about exactly these.

// EditCheck is the edit page's save, a patch of the object (as Restart).
func EditCheck(r apiclient.Resource, namespace, name string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "patch", Group: r.Group, Resource: r.Name, Namespace: namespace, Name: name}
}

// DeleteCheck is the delete page's DELETE.
func DeleteCheck(r apiclient.Resource, namespace, name string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "delete", Group: r.Group, Resource: r.Name, Namespace: namespace, Name: name}
}

// ScaleCheck is the scale page's patch of the scale subresource.
func ScaleCheck(r apiclient.Resource, namespace, name string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "patch", Group: r.Group, Resource: r.Name, Subresource: "scale", Namespace: namespace, Name: name}
}

// LogsCheck is reading the logs of a pod (name) or of a workload's pods
// (name "") in namespace.
func LogsCheck(namespace, pod string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "get", Resource: "pods", Subresource: "log", Namespace: namespace, Name: pod}
}

// TerminalCheck is opening a terminal: create on pods/exec or pods/attach
// (sub) of a pod, or of any pod in namespace (pod "") for a workload's
// pick-a-pod page.
func TerminalCheck(sub, namespace, pod string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "create", Resource: "pods", Subresource: sub, Namespace: namespace, Name: pod}
}

// DebugCheck is adding a debug container: a patch of the pod's
// ephemeralcontainers subresource.
func DebugCheck(namespace, pod string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: "patch", Resource: "pods", Subresource: "ephemeralcontainers", Namespace: namespace, Name: pod}
}

// CanDebug says whether the server serves debug containers: pods with the
// ephemeralcontainers subresource. A server without it hides the action.
func CanDebug(pods apiclient.Resource) bool { return apiclient.SupportsEphemeralContainers(pods) }

// CanExec says whether the server serves exec for r's objects: pods with
// the exec subresource, or a workload whose pods may have it.
func CanExec(pods apiclient.Resource) bool { return !IsPods(pods) || apiclient.SupportsExec(pods) }

// CreateCheck is the create page's POST to the collection. A namespaced
// collection across all namespaces has no one answer (the namespace is
// picked on the create page): ok is false, and Create stays offered.
func CreateCheck(r apiclient.Resource, namespace string) (check apiclient.AccessCheck, ok bool) {
	if r.Namespaced && namespace == "" {
		return apiclient.AccessCheck{}, false
	}
	return apiclient.AccessCheck{Verb: "create", Group: r.Group, Resource: r.Name, Namespace: namespace}, true
}

// ObjectChecks are every check an object page's actions and logs link need,
// asked at once. The logs check is for the pods of the namespace when the
// object is not a pod: a workload's logs are its pods'.
func ObjectChecks(r apiclient.Resource, namespace, name string) []apiclient.AccessCheck {
	checks := []apiclient.AccessCheck{EditCheck(r, namespace, name), DeleteCheck(r, namespace, name)}
	if HasScale(r) {
		checks = append(checks, ScaleCheck(r, namespace, name))
	}
	if IsPods(r) {
		checks = append(checks, LogsCheck(namespace, name), TerminalCheck("exec", namespace, name), DebugCheck(namespace, name))
	} else if r.Namespaced {
		checks = append(checks, LogsCheck(namespace, ""), TerminalCheck("exec", namespace, ""))
	}
	return checks
}

// IsPods says whether r is the core pods resource.
func IsPods(r apiclient.Resource) bool { return r.Group == "" && r.Name == "pods" }

// Restartable reports whether r rolls its pods on a template change as
// kubectl rollout restart expects: Deployments, StatefulSets, DaemonSets.
func Restartable(r apiclient.Resource) bool {
	if r.Group != "apps" || !r.Can("patch") {
		return false
	}
	switch r.Name {
	case "deployments", "statefulsets", "daemonsets":
		return true
	}
	return false
}

// HasScale says whether the server serves the generic scale subresource
// for r (Deployments and CRDs with one alike).
func HasScale(r apiclient.Resource) bool { return slices.Contains(r.Subresources, "scale") }

// UsageCheck is the access check behind reading usage: verb (get or list)
// on m, the metrics resource, in namespace (and name, for get).
func UsageCheck(m apiclient.Resource, verb, namespace, name string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: verb, Group: m.Group, Resource: m.Name, Namespace: namespace, Name: name}
}

// ListDenied is why a user may not list r in namespace (all: ""), as a
// sidebar link dimmed by the rules says it.
func ListDenied(r apiclient.Resource, namespace string) string {
	check := apiclient.AccessCheck{Verb: "list", Group: r.Group, Resource: r.Name}
	switch {
	case !r.Namespaced:
		return deniedReason(check, "")
	case namespace == "":
		return deniedPhrase(check, "across all namespaces", "")
	}
	check.Namespace = namespace
	return deniedReason(check, "")
}
