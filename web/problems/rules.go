package problems

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
)

// Category is a kind of problem: a section of the page, and a count on the
// context's home page.
type Category int

const (
	// Failed: kstatus says Failed (Stalled=True, a Deployment past its
	// progress deadline, a failed Job).
	Failed Category = iota
	// Stuck: in progress, or terminating, for longer than the threshold.
	Stuck
	// Pods: crash-looping, failing to pull or start, OOM-killed,
	// restarting, failed, or not ready for longer than the threshold.
	Pods
	// Warnings: Warning events, grouped by object and reason.
	Warnings
	categories
)

// Problem is one object in trouble, and why.
type Problem struct {
	Resource        apiclient.Resource
	Namespace, Name string
	Category        Category
	// Reason is the machine-readable why ("CrashLoopBackOff",
	// "ProgressDeadlineExceeded", a Ready=False condition's reason);
	// Message the human one.
	Reason, Message string
	// Container names the pod's container the reason is about.
	Container string
	Restarts  int64
	// Since is when the trouble began, as far as the object tells (zero
	// when it does not).
	Since time.Time
}

// verdict is what an object's state means over time: it is a problem from
// From (zero: already) until Until (zero: until the object changes). A
// verdict with a nil problem is no problem at all.
type verdict struct {
	problem     *Problem
	from, until time.Time
}

// at says whether v shows a problem at now.
func (v verdict) at(now time.Time) bool {
	return v.problem != nil && !now.Before(v.from) && (v.until.IsZero() || now.Before(v.until))
}

// restartWindow is how long after a container's last restart its pod is
// "restarting": long enough to be seen in an incident, short enough that a
// pod that recovered leaves the page.
const restartWindow = 15 * time.Minute

// badWaiting are the waiting reasons the kubelet gives a container that
// cannot start: each is a problem at once.
var badWaiting = []string{
	"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "InvalidImageName",
	"CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PreStartHookError", "PostStartHookError",
}

// judge reads obj, an object of r, at now: a Pod by the kubelet's
// container states, any other kind by kstatus. after is how long an object
// may be in progress (or a pod not ready) before it is a problem.
func judge(r apiclient.Resource, obj *unstructured.Unstructured, now time.Time, after time.Duration) verdict {
	base := Problem{Resource: r, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if r.Group == "" && r.Name == "pods" {
		return judgePod(base, obj, now, after)
	}
	if dt := obj.GetDeletionTimestamp(); dt != nil {
		p := base
		p.Category, p.Reason, p.Since = Stuck, "Terminating", dt.Time
		p.Message = "Deleted, but still there: finalizers " + finalizers(obj)
		return verdict{problem: &p, from: dt.Add(after)}
	}
	v := apiclient.VerdictOf(obj)
	p := base
	p.Reason, p.Message = v.Reason, v.Message
	p.Since = lastTransition(obj)
	switch v.Health {
	case apiclient.HealthFailed:
		p.Category = Failed
		p.Reason = cmp.Or(p.Reason, "Failed")
		return verdict{problem: &p}
	case apiclient.HealthInProgress:
		p.Category = Stuck
		p.Reason = cmp.Or(p.Reason, "InProgress")
		if p.Since.IsZero() {
			p.Since = obj.GetCreationTimestamp().Time
		}
		return verdict{problem: &p, from: p.Since.Add(after)}
	}
	return verdict{}
}

func judgePod(p Problem, obj *unstructured.Unstructured, now time.Time, after time.Duration) verdict {
	p.Category = Pods
	st, _, _ := unstructured.NestedMap(obj.Object, "status")
	phase, _ := st["phase"].(string)
	if dt := obj.GetDeletionTimestamp(); dt != nil {
		p.Reason, p.Since = "Terminating", dt.Time
		// A pod's deletion timestamp is when its grace period ends.
		p.Message = "Deleted, but still there past its grace period; finalizers " + finalizers(obj)
		return verdict{problem: &p, from: dt.Add(after)}
	}
	switch phase {
	case "Succeeded":
		return verdict{}
	case "Failed":
		p.Reason = cmp.Or(str(st, "reason"), "Failed")
		p.Message = str(st, "message")
		p.Since = obj.GetCreationTimestamp().Time
		for _, cs := range containerStatuses(st) {
			if t := timeOf(nested(cs, "state", "terminated"), "finishedAt"); t.After(p.Since) {
				p.Since = t
			}
		}
		return verdict{problem: &p}
	}
	// The kubelet's own words first: a container that cannot start.
	statuses := containerStatuses(st)
	for _, cs := range statuses {
		waiting := nested(cs, "state", "waiting")
		reason := str(waiting, "reason")
		if !slices.Contains(badWaiting, reason) {
			continue
		}
		p.Reason, p.Message, p.Container = reason, str(waiting, "message"), str(cs, "name")
		p.Restarts = restarts(cs)
		p.Since = timeOf(nested(cs, "lastState", "terminated"), "finishedAt")
		if p.Since.IsZero() {
			p.Since = readySince(st, obj)
		}
		return verdict{problem: &p}
	}
	// Then a recent restart, the OOM killer's above all.
	var last map[string]any
	var lastCS map[string]any
	for _, cs := range statuses {
		t := nested(cs, "lastState", "terminated")
		if t != nil && restarts(cs) > 0 && (last == nil || timeOf(t, "finishedAt").After(timeOf(last, "finishedAt"))) {
			last, lastCS = t, cs
		}
	}
	if last != nil {
		finished := timeOf(last, "finishedAt")
		if !finished.IsZero() && now.Sub(finished) < restartWindow {
			p.Container, p.Restarts, p.Since = str(lastCS, "name"), restarts(lastCS), finished
			p.Reason = "Restarting"
			if str(last, "reason") == "OOMKilled" {
				p.Reason = "OOMKilled"
			}
			p.Message = fmt.Sprintf("Restarted %d %s; the last run ended: %s, exit code %d", p.Restarts, plural(p.Restarts, "time", "times"),
				cmp.Or(str(last, "reason"), "unknown"), int64Of(last["exitCode"]))
			return verdict{problem: &p, until: finished.Add(restartWindow)}
		}
	}
	// Then not ready for too long.
	ready, readyCond := condition(st, "Ready")
	if ready == "True" {
		return verdict{}
	}
	p.Since = readySince(st, obj)
	p.Reason, p.Message = "NotReady", str(readyCond, "message")
	if phase == "Pending" || phase == "" {
		p.Reason = "Pending"
		if s, c := condition(st, "PodScheduled"); s == "False" {
			p.Reason, p.Message = cmp.Or(str(c, "reason"), "Unschedulable"), str(c, "message")
		}
	}
	for _, cs := range statuses {
		if w := nested(cs, "state", "waiting"); w != nil && p.Container == "" {
			p.Container = str(cs, "name")
			p.Message = cmp.Or(p.Message, str(w, "reason")+": "+str(w, "message"))
		}
	}
	return verdict{problem: &p, from: p.Since.Add(after)}
}

// readySince is when the pod's Ready condition last changed, else when it
// was created.
func readySince(st map[string]any, obj *unstructured.Unstructured) time.Time {
	if _, c := condition(st, "Ready"); c != nil {
		if t := timeOf(c, "lastTransitionTime"); !t.IsZero() {
			return t
		}
	}
	return obj.GetCreationTimestamp().Time
}

// lastTransition is the newest lastTransitionTime of obj's conditions:
// when its state last changed, as far as its status tells.
func lastTransition(obj *unstructured.Unstructured) time.Time {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var newest time.Time
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			if t := timeOf(m, "lastTransitionTime"); t.After(newest) {
				newest = t
			}
		}
	}
	return newest
}

func condition(st map[string]any, typ string) (string, map[string]any) {
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			s, _ := m["status"].(string)
			return s, m
		}
	}
	return "", nil
}

// containerStatuses are the pod's init, regular and ephemeral containers'
// statuses, in that order.
func containerStatuses(st map[string]any) []map[string]any {
	var out []map[string]any
	for _, field := range []string{"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"} {
		list, _ := st[field].([]any)
		for _, cs := range list {
			if m, ok := cs.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func finalizers(obj *unstructured.Unstructured) string {
	f := obj.GetFinalizers()
	if len(f) == 0 {
		return "none"
	}
	return fmt.Sprint(f)
}

func nested(m map[string]any, path ...string) map[string]any {
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func timeOf(m map[string]any, key string) time.Time {
	t, err := time.Parse(time.RFC3339, str(m, key))
	if err != nil {
		return time.Time{}
	}
	return t
}

func restarts(cs map[string]any) int64 { return int64Of(cs["restartCount"]) }

func int64Of(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
