package edit

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// staleVersion tells a conflict in disguise for the writes that carry a
// resourceVersion other than the editor's (scale, restart): a server that
// takes only JSON Patch answers a failed test of metadata.resourceVersion
// with a 422 without causes, so such a 422 is a conflict when the version
// current returns is no longer the one loaded. changedSince is the same
// test for the editor.
func staleVersion(err error, loaded string, current func() (string, error)) bool {
	var status apierrors.APIStatus
	if loaded == "" || !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return false
	}
	if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
		return false
	}
	rv, gerr := current()
	return gerr == nil && rv != loaded
}
