package kube

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// StaleVersion tells a conflict in disguise for the writes that carry a
// resourceVersion (edit, scale, restart, bulk actions): a server that
// takes only JSON Patch answers a failed test of metadata.resourceVersion
// with a 422 without causes, so such a 422 is a conflict when the version
// current returns is no longer the one loaded.
func StaleVersion(err error, loaded string, current func() (string, error)) bool {
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
