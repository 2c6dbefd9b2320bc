package apitest

import (
	"fmt"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WriteStatus writes a metav1.Status the way an API server does. It sets no
// Retry-After header (see FailPath for one that does).
func WriteStatus(w http.ResponseWriter, st metav1.Status) {
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	writeJSON(w, int(st.Code), st)
}

// writeFailure writes st and, like kube-apiserver, a Retry-After header when
// the Status carries RetryAfterSeconds.
func writeFailure(w http.ResponseWriter, st metav1.Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	WriteStatus(w, st)
}

// Forbidden is the Status kube-apiserver's RBAC answers when user may not
// verb the resource (group "" is core; name may be empty).
func Forbidden(user, verb, group, resource, name string) metav1.Status {
	qualified := resource
	if group != "" {
		qualified = resource + "." + group
	}
	msg := fmt.Sprintf("%s is forbidden: User %q cannot %s resource %q in API group %q", qualified, user, verb, resource, group)
	if name != "" {
		msg = fmt.Sprintf("%s %q is forbidden: User %q cannot %s resource %q in API group %q", qualified, name, user, verb, resource, group)
	}
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: msg,
		Details: &metav1.StatusDetails{Name: name, Group: group, Kind: resource},
	}
}

// NotFound is the Status for a missing object (group "" is core).
func NotFound(group, resource, name string) metav1.Status {
	qualified := resource
	if group != "" {
		qualified = resource + "." + group
	}
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: fmt.Sprintf("%s %q not found", qualified, name),
		Details: &metav1.StatusDetails{Name: name, Group: group, Kind: resource},
	}
}

// ContinueExpired is the 410 Status for a continue token that is too old.
func ContinueExpired() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
		Message: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
	}
}

// TooManyRequests is the 429 Status of an overloaded server. With
// retryAfterSeconds > 0, FailPath and FailResource also send Retry-After.
func TooManyRequests(retryAfterSeconds int32) metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
		Message: "Too many requests, please try again later.",
		Details: &metav1.StatusDetails{RetryAfterSeconds: retryAfterSeconds},
	}
}

// NotAcceptable is the 406 Status for an Accept header the server cannot satisfy.
func NotAcceptable(accept string) metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: fmt.Sprintf("only the following media types are accepted: application/json (asked: %s)", accept),
	}
}

func badRequest(msg string) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: msg}
}

func methodNotAllowed(msg string) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed, Message: msg}
}
