package apitest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Object returns a bare object of the given kind with the UID UIDFor gives
// it; fields are merged into it at the top level (for example "spec").
func Object(apiVersion, kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range fields {
		o.Object[k] = v
	}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetNamespace(namespace)
	o.SetName(name)
	o.SetUID(UIDFor(kind, namespace, name))
	return o
}

// UID returns obj's UID, or the one Add will give it.
func UID(obj *unstructured.Unstructured) types.UID {
	if uid := obj.GetUID(); uid != "" {
		return uid
	}
	return UIDFor(obj.GetKind(), obj.GetNamespace(), obj.GetName())
}

// ownedBy sets controller owner references to owners on o.
func ownedBy(o *unstructured.Unstructured, owners []*unstructured.Unstructured) {
	var refs []metav1.OwnerReference
	for i, owner := range owners {
		controller := i == 0
		refs = append(refs, metav1.OwnerReference{
			APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: UID(owner),
			Controller: &controller, BlockOwnerDeletion: &controller,
		})
	}
	if len(refs) > 0 {
		o.SetOwnerReferences(refs)
	}
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Pod is a Running pod with one ready container, owned (controller first) by owners.
func Pod(namespace, name string, labels map[string]string, owners ...*unstructured.Unstructured) *unstructured.Unstructured {
	o := Object("v1", "Pod", namespace, name, map[string]any{
		"spec": map[string]any{
			"containers": []any{map[string]any{"name": "app", "image": "registry.example.com/app:1"}},
			"nodeName":   "node-1",
		},
		"status": map[string]any{
			"phase": "Running",
			"podIP": "10.0.0.1",
			"containerStatuses": []any{
				map[string]any{"name": "app", "ready": true, "restartCount": int64(0), "state": map[string]any{"running": map[string]any{"startedAt": "2026-01-01T00:00:00Z"}}},
			},
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
		},
	})
	o.SetLabels(labels)
	ownedBy(o, owners)
	return o
}

// Deployment is a Deployment whose replicas are all ready, selecting selector.
func Deployment(namespace, name string, replicas int32, selector map[string]string) *unstructured.Unstructured {
	return workload("apps/v1", "Deployment", namespace, name, replicas, selector, map[string]any{
		"replicas": int64(replicas), "readyReplicas": int64(replicas), "updatedReplicas": int64(replicas), "availableReplicas": int64(replicas),
		"conditions": []any{map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."}},
	})
}

// ReplicaSet is a ReplicaSet whose replicas are all ready, owned by owners.
func ReplicaSet(namespace, name string, replicas int32, selector map[string]string, owners ...*unstructured.Unstructured) *unstructured.Unstructured {
	o := workload("apps/v1", "ReplicaSet", namespace, name, replicas, selector, map[string]any{
		"replicas": int64(replicas), "readyReplicas": int64(replicas), "availableReplicas": int64(replicas),
	})
	ownedBy(o, owners)
	return o
}

// StatefulSet is a StatefulSet whose replicas are all ready.
func StatefulSet(namespace, name string, replicas int32, selector map[string]string) *unstructured.Unstructured {
	return workload("apps/v1", "StatefulSet", namespace, name, replicas, selector, map[string]any{
		"replicas": int64(replicas), "readyReplicas": int64(replicas),
	})
}

// Job is a completed Job selecting selector, owned by owners (a CronJob).
func Job(namespace, name string, selector map[string]string, owners ...*unstructured.Unstructured) *unstructured.Unstructured {
	o := Object("batch/v1", "Job", namespace, name, map[string]any{
		"spec": map[string]any{
			"completions": int64(1),
			"selector":    map[string]any{"matchLabels": stringMap(selector)},
			"template":    map[string]any{"metadata": map[string]any{"labels": stringMap(selector)}},
		},
		"status": map[string]any{"succeeded": int64(1)},
	})
	o.SetLabels(selector)
	ownedBy(o, owners)
	return o
}

// CronJob is a CronJob running every five minutes.
func CronJob(namespace, name string) *unstructured.Unstructured {
	return Object("batch/v1", "CronJob", namespace, name, map[string]any{
		"spec": map[string]any{"schedule": "*/5 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{}}},
	})
}

func workload(apiVersion, kind, namespace, name string, replicas int32, selector map[string]string, status map[string]any) *unstructured.Unstructured {
	o := Object(apiVersion, kind, namespace, name, map[string]any{
		"spec": map[string]any{
			"replicas": int64(replicas),
			"selector": map[string]any{"matchLabels": stringMap(selector)},
			"template": map[string]any{
				"metadata": map[string]any{"labels": stringMap(selector)},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example.com/app:1"}}},
			},
		},
		"status": status,
	})
	o.SetLabels(selector)
	return o
}

// Service is a ClusterIP Service selecting selector (nil: no selector).
func Service(namespace, name string, selector map[string]string) *unstructured.Unstructured {
	spec := map[string]any{"type": "ClusterIP", "clusterIP": "10.96.0.10", "ports": []any{map[string]any{"port": int64(80)}}}
	if selector != nil {
		spec["selector"] = stringMap(selector)
	}
	return Object("v1", "Service", namespace, name, map[string]any{"spec": spec})
}

// EventSpec is what an event says about an object.
type EventSpec struct {
	Type    string // Normal or Warning
	Reason  string
	Message string
	// Count is the number of occurrences (0 means 1).
	Count int32
	// First and Last bound the occurrences; Last zero means First.
	First, Last time.Time
	// Source is the reporting component ("kubelet", "deployment-controller").
	Source string
	// Series, for EventV1, records repeats the new way (series.count and
	// series.lastObservedTime, eventTime for the first); otherwise the
	// deprecated fields (deprecatedCount, deprecatedFirstTimestamp,
	// deprecatedLastTimestamp) carry them.
	Series bool
}

func (e EventSpec) last() time.Time {
	if e.Last.IsZero() {
		return e.First
	}
	return e.Last
}

func eventNamespace(about *unstructured.Unstructured) string {
	if ns := about.GetNamespace(); ns != "" {
		return ns
	}
	return "default" // where kube puts events about cluster-scoped objects
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func microTS(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00") }

// Event is a core/v1 Event about the object about.
func Event(name string, about *unstructured.Unstructured, e EventSpec) *unstructured.Unstructured {
	count := e.Count
	if count == 0 {
		count = 1
	}
	o := Object("v1", "Event", eventNamespace(about), name, map[string]any{
		"involvedObject": map[string]any{
			"apiVersion": about.GetAPIVersion(), "kind": about.GetKind(), "namespace": about.GetNamespace(),
			"name": about.GetName(), "uid": string(UID(about)),
		},
		"type": e.Type, "reason": e.Reason, "message": e.Message,
		"count":          int64(count),
		"firstTimestamp": ts(e.First), "lastTimestamp": ts(e.last()),
		"source": map[string]any{"component": e.Source},
	})
	o.SetCreationTimestamp(metav1.NewTime(e.First))
	return o
}

// EventV1 is an events.k8s.io/v1 Event about the object about.
func EventV1(name string, about *unstructured.Unstructured, e EventSpec) *unstructured.Unstructured {
	fields := map[string]any{
		"regarding": map[string]any{
			"apiVersion": about.GetAPIVersion(), "kind": about.GetKind(), "namespace": about.GetNamespace(),
			"name": about.GetName(), "uid": string(UID(about)),
		},
		"type": e.Type, "reason": e.Reason, "note": e.Message,
		"reportingController": e.Source, "reportingInstance": e.Source + "-1", "action": e.Reason,
	}
	if e.Series {
		fields["eventTime"] = microTS(e.First)
		if e.Count > 1 {
			fields["series"] = map[string]any{"count": int64(e.Count), "lastObservedTime": microTS(e.last())}
		}
	} else {
		// As the events.k8s.io view of an event written through core/v1.
		fields["eventTime"] = nil
		fields["deprecatedFirstTimestamp"] = ts(e.First)
		fields["deprecatedLastTimestamp"] = ts(e.last())
		fields["deprecatedCount"] = int64(max(e.Count, 1))
		fields["deprecatedSource"] = map[string]any{"component": e.Source}
		delete(fields, "reportingController")
		delete(fields, "reportingInstance")
	}
	o := Object("events.k8s.io/v1", "Event", eventNamespace(about), name, fields)
	o.SetCreationTimestamp(metav1.NewTime(e.First))
	return o
}

// Lighthouse is a maritime.tabula.dev/v1alpha1 Lighthouse (see
// MaritimeV1Alpha1) with replicas lamps, all in service, at generation 1.
func Lighthouse(namespace, name, coast string, replicas int32) *unstructured.Unstructured {
	o := Object("maritime.tabula.dev/v1alpha1", "Lighthouse", namespace, name, map[string]any{
		"spec":   map[string]any{"coast": coast, "replicas": int64(replicas)},
		"status": map[string]any{"replicas": int64(replicas), "selector": "lighthouse=" + name},
	})
	o.SetGeneration(1)
	return o
}

// CSMSession is a policy.example.com/v1 Session (cluster-scoped).
func CSMSession(name, operation, template, status string) *unstructured.Unstructured {
	return Object("policy.example.com/v1", "Session", "", name, map[string]any{
		"spec":   map[string]any{"operation": operation, "templateName": template, "limit": "x3000c0s1b0n0"},
		"status": map[string]any{"status": status},
	})
}

// CSMParameters is a policy.example.com/v1 BOSParameter (cluster-scoped).
func CSMParameters(name, component, kernelParameters string) *unstructured.Unstructured {
	return Object("policy.example.com/v1", "BOSParameter", "", name, map[string]any{
		"spec": map[string]any{"component": component, "kernelParameters": kernelParameters},
	})
}
