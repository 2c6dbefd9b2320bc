package kube

import (
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
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
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Sprintf("%q is not a namespace name: %s", ns, strings.Join(errs, "; "))
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
