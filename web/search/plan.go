package search

import (
	"fmt"
	"strings"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Reason is why a kind was not searched, or not searched through. The
// values are stable: the page marks each skipped kind with one.
type Reason string

const (
	Forbidden    Reason = "forbidden"
	TooMany      Reason = "too-many"
	TimedOut     Reason = "timeout"
	NoList       Reason = "no-list"
	FieldRefused Reason = "field-refused"
	Expired      Reason = "expired"
	Failed       Reason = "failed"
	// SameObjects: another API serves the same objects (core and
	// events.k8s.io Events), and they were searched there.
	SameObjects Reason = "same-objects"
)

// reasons is the order the page lists them in, and their headings.
var reasons = []struct {
	reason Reason
	label  string
}{
	{Forbidden, "Forbidden: you may not list them"},
	{FieldRefused, "The server refused the field selector"},
	{TimedOut, "Timed out"},
	{TooMany, "Too many objects for the budget"},
	{Expired, "The list expired while paging"},
	{Failed, "The server failed the list"},
	{NoList, "Not listable: the server serves no list verb"},
	{SameObjects, "Served by another API too: searched there"},
}

// Skip is a kind not searched, or cut short, and why.
type Skip struct {
	Kind   Kind
	Reason Reason
	Detail string
}

// Kind is one kind a search lists: when the rules could not decide
// whether the user may list it, Check is what to ask first.
type Kind struct {
	Resource apiclient.Resource
	// Namespace is where it is listed ("" for all namespaces, and for a
	// cluster-scoped kind).
	Namespace string
	Check     *apiclient.AccessCheck
	// Twin is a kind searched before this one with the same kind and
	// resource names in another group: maybe the same objects served twice.
	Twin *apiclient.Resource
}

// Plan is what a search will ask, decided before any list request.
type Plan struct {
	Kinds   []Kind
	Skipped []Skip
	// OutOfScope counts the cluster-scoped kinds a namespace left out that
	// the user may list.
	OutOfScope int
	// Undiscovered are the group versions discovery could not describe,
	// whose kinds no one can search: "metrics.k8s.io/v1beta1" → why.
	Undiscovered map[string]string
}

// MakePlan picks the kinds a query searches in namespace ("" for all) and
// decides, from rules (nil when the server could not say), which the user
// may list without asking. A kind the rules deny is skipped as forbidden;
// one they allow is listed; any other is asked about first, with a
// SelfSubjectAccessReview, before its list.
//
// Rules of a namespace are exact for the namespaced kinds in it. Across
// namespaces they are the probe namespace's, a superset of what the user
// may list everywhere, so they can only deny.
func MakePlan(d *apiclient.Discovery, q Query, namespace string, rules *apiclient.Rules) (Plan, error) {
	resources, explicit, err := kinds(d, q)
	if err != nil {
		return Plan{}, err
	}
	var p Plan
	if !explicit {
		for gv, err := range d.Failed {
			if p.Undiscovered == nil {
				p.Undiscovered = map[string]string{}
			}
			p.Undiscovered[gv] = err.Error()
		}
	}
	for _, r := range resources {
		ns := namespace
		if !r.Namespaced {
			if namespace != "" && !explicit {
				// Offered across namespaces only if the user may list it:
				// a namespace's rules hold every cluster-wide grant.
				if r.Can("list") && (rules == nil || !rules.Denies("list", r.Group, r.Name, "", "")) {
					p.OutOfScope++
				}
				continue
			}
			ns = "" // named in kind:, it is listed whatever the namespace
		}
		k := Kind{Resource: r, Namespace: ns}
		if !r.Can("list") {
			p.Skipped = append(p.Skipped, Skip{Kind: k, Reason: NoList, Detail: "its verbs are " + verbs(r)})
			continue
		}
		if rules != nil && rules.Denies("list", r.Group, r.Name, "", "") {
			p.Skipped = append(p.Skipped, Skip{Kind: k, Reason: Forbidden, Detail: kube.ListDenied(r, ns)})
			continue
		}
		exact := rules != nil && ns != "" && ns == rules.Namespace && !rules.Incomplete && rules.EvaluationError == ""
		if !exact || !rules.Allows("list", r.Group, r.Name, "", "") {
			k.Check = &apiclient.AccessCheck{Verb: "list", Group: r.Group, Resource: r.Name, Namespace: ns}
		}
		for _, earlier := range p.Kinds {
			if r := earlier.Resource; r.Kind == k.Resource.Kind && r.Name == k.Resource.Name && r.Namespaced == k.Resource.Namespaced {
				k.Twin = &r
				break
			}
		}
		p.Kinds = append(p.Kinds, k)
	}
	return p, nil
}

// kinds are the resources a query names (explicit), or every one
// discovery serves, each once.
func kinds(d *apiclient.Discovery, q Query) (out []apiclient.Resource, explicit bool, err error) {
	seen := map[string]bool{}
	add := func(r apiclient.Resource) {
		key := r.Group + "/" + r.Name
		if !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	if len(q.Kinds) == 0 {
		for _, g := range d.Groups {
			for _, r := range g.Resources {
				add(r)
			}
		}
		return out, false, nil
	}
	var unknown []string
	for _, name := range q.Kinds {
		matches := d.Resolve(name)
		if len(matches) == 0 {
			unknown = append(unknown, name)
		}
		for _, r := range matches {
			add(r)
		}
	}
	if len(unknown) > 0 {
		return nil, true, queryError("The server serves no kind called %s. kind: takes a plural, a singular, a kind, a short name, resource.group or a category such as all.", quoteList(unknown))
	}
	return out, true, nil
}

func verbs(r apiclient.Resource) string {
	if len(r.Verbs) == 0 {
		return "none"
	}
	return strings.Join(r.Verbs, ", ")
}

func quoteList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("“%s”", n)
	}
	return strings.Join(quoted, ", ")
}
