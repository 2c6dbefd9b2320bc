package apiclient

import (
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ValidPathSegment reports whether s may stand as one segment of an API
// path, as kube-apiserver requires of names: not empty, not "." or "..",
// and without "/" or "%". client-go joins segments with path.Join, so a
// name breaking these rules would address some other path.
func ValidPathSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/%")
}

// checkNames refuses names that would change the request path, before any
// request is made with them.
func checkNames(names ...string) error {
	for _, n := range names {
		if n != "" && !ValidPathSegment(n) {
			return &apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
				Message: fmt.Sprintf("%q may not be used as a name: names may not be \".\" or \"..\" nor contain \"/\" or \"%%\"", n),
			}}
		}
	}
	return nil
}
