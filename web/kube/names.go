package kube

import (
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/apiclient"
)

// GroupLabel names an API group as pages show it: "core" for the legacy group.
func GroupLabel(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

// NamespaceProblem says why ns cannot name a namespace ("" when it can):
// the API conventions make a namespace a DNS label (RFC 1123: at most 63
// lowercase letters, digits and '-', starting and ending alphanumeric),
// so a page asked for any other refuses it rather than ask a server that
// would only answer with an empty list.
func NamespaceProblem(ns string) string {
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return fmt.Sprintf("%q is not a namespace name: a namespace is named by a DNS label, at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit", ns)
	}
	return ""
}

// NameProblem says why name cannot name an object of any kind ("" when
// it can): every server's name rules refuse control characters.
func NameProblem(name string) string {
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		return fmt.Sprintf("%q is not a name: it holds the control character %U", name, []rune(name[i:])[0])
	}
	return ""
}

// ResourceName is a resource as kubectl names it: "deployments.apps", or
// "pods" in the core group (what kind: and kubectl get take back).
func ResourceName(r apiclient.Resource) string {
	if r.Group == "" || r.Name == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}
