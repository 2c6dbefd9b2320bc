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
	v := VerdictOf(obj)
	return v.Health, v.Message
}

// HealthVerdict is kstatus's verdict on an object.
type HealthVerdict struct {
	Health Health
	// Reason is the reason kstatus gives, from the condition it judged by
	// (a Ready=False condition's, "ProgressDeadlineExceeded",
	// "LatestGenerationNotObserved"); "" when it gives none.
	Reason, Message string
}

// VerdictOf is obj's HealthVerdict (HealthOf's, with the reason).
func VerdictOf(obj *unstructured.Unstructured) HealthVerdict {
	res, err := status.Compute(obj)
	if err != nil {
		return HealthVerdict{Health: HealthUnknown, Message: err.Error()}
	}
	v := HealthVerdict{Health: HealthUnknown, Message: res.Message}
	for _, c := range res.Conditions {
		if c.Reason != "" {
			v.Reason = c.Reason
			break
		}
	}
	switch res.Status {
	case status.CurrentStatus:
		v.Health = HealthCurrent
	case status.InProgressStatus:
		v.Health = HealthInProgress
	case status.FailedStatus:
		v.Health = HealthFailed
	case status.TerminatingStatus:
		v.Health = HealthTerminating
	case status.NotFoundStatus:
		v.Health = HealthNotFound
	}
	return v
}
