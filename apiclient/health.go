package apiclient

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// HealthOf is obj's generic status, as kstatus computes it from the
// conventions (deletionTimestamp, observedGeneration, status.conditions, and
// kstatus's rules for the built-in workloads), with kstatus's message. An
// object kstatus cannot read (a malformed status) is HealthUnknown, with
// the reason.
func HealthOf(obj *unstructured.Unstructured) (Health, string) {
	res, err := status.Compute(obj)
	if err != nil {
		return HealthUnknown, err.Error()
	}
	switch res.Status {
	case status.CurrentStatus:
		return HealthCurrent, res.Message
	case status.InProgressStatus:
		return HealthInProgress, res.Message
	case status.FailedStatus:
		return HealthFailed, res.Message
	case status.TerminatingStatus:
		return HealthTerminating, res.Message
	case status.NotFoundStatus:
		return HealthNotFound, res.Message
	}
	return HealthUnknown, res.Message
}
