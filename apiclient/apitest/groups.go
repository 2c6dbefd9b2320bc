package apitest

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var allVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// CoreV1 is a small core group version: pods (with log, status, exec,
// attach and ephemeralcontainers), services, events, secrets, namespaces,
// nodes and bindings.
func CoreV1() GroupVersion {
	return GroupVersion{Version: "v1",
		Resources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"po"}, Categories: []string{"all"}},
			{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}},
			{Name: "pods/status", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
			{Name: "pods/exec", Kind: "PodExecOptions", Namespaced: true, Verbs: []string{"create", "get"}},
			{Name: "pods/attach", Kind: "PodAttachOptions", Namespaced: true, Verbs: []string{"create", "get"}},
			{Name: "pods/ephemeralcontainers", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
			{Name: "services", SingularName: "service", Kind: "Service", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"svc"}, Categories: []string{"all"}},
			{Name: "events", SingularName: "event", Kind: "Event", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ev"}},
			{Name: "secrets", SingularName: "secret", Kind: "Secret", Namespaced: true, Verbs: allVerbs},
			{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: allVerbs, ShortNames: []string{"ns"}},
			{Name: "nodes", SingularName: "node", Kind: "Node", Verbs: allVerbs, ShortNames: []string{"no"}},
			{Name: "bindings", SingularName: "binding", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}},
		},
		Columns: map[string][]Column{
			"pods": {
				NameColumn(),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."}, Value: podReady},
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."}, Value: podStatus},
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted."}, Value: podRestarts},
				AgeColumn(),
				PathColumn("IP", "string", ".status.podIP", 1),
				PathColumn("Node", "string", ".spec.nodeName", 1),
			},
			"nodes": {
				NameColumn(),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Status", Type: "string", Description: "The status of the node"}, Value: func(o *unstructured.Unstructured) any {
					conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
					for _, c := range conds {
						if m, ok := c.(map[string]any); ok && m["type"] == "Ready" && m["status"] == "True" {
							return "Ready"
						}
					}
					return "NotReady"
				}},
				AgeColumn(),
				PathColumn("Version", "string", ".status.nodeInfo.kubeletVersion", 0),
			},
			"services": {
				NameColumn(),
				PathColumn("Type", "string", ".spec.type", 0),
				PathColumn("Cluster-IP", "string", ".spec.clusterIP", 0),
				AgeColumn(),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Selector", Type: "string", Priority: 1}, Value: func(o *unstructured.Unstructured) any {
					sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector")
					return joinMap(sel)
				}},
			},
			"events": {
				PathColumn("Last Seen", "date", ".lastTimestamp", 0),
				PathColumn("Type", "string", ".type", 0),
				PathColumn("Reason", "string", ".reason", 0),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Object", Type: "string"}, Value: func(o *unstructured.Unstructured) any {
					kind, _, _ := unstructured.NestedString(o.Object, "involvedObject", "kind")
					name, _, _ := unstructured.NestedString(o.Object, "involvedObject", "name")
					return kind + "/" + name
				}},
				PathColumn("Message", "string", ".message", 0),
			},
		},
		FieldLabels: map[string][]string{
			"pods": {"spec.nodeName", "status.phase"},
			"events": {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
				"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
		},
	}
}

// AppsV1 is a small apps group version: deployments, replicasets,
// statefulsets (each with scale) and daemonsets.
func AppsV1() GroupVersion {
	scale := func(parent string) metav1.APIResource {
		return metav1.APIResource{Name: parent + "/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true, Verbs: []string{"get", "patch", "update"}}
	}
	return GroupVersion{Group: "apps", Version: "v1",
		Resources: []metav1.APIResource{
			{Name: "deployments", SingularName: "deployment", Kind: "Deployment", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"deploy"}, Categories: []string{"all"}},
			scale("deployments"),
			{Name: "statefulsets", SingularName: "statefulset", Kind: "StatefulSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"sts"}, Categories: []string{"all"}},
			scale("statefulsets"),
			{Name: "replicasets", SingularName: "replicaset", Kind: "ReplicaSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"rs"}, Categories: []string{"all"}},
			scale("replicasets"),
			{Name: "daemonsets", SingularName: "daemonset", Kind: "DaemonSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ds"}, Categories: []string{"all"}},
		},
		Columns: map[string][]Column{
			"deployments": {
				NameColumn(),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"}, Value: func(o *unstructured.Unstructured) any {
					ready, _, _ := unstructured.NestedInt64(o.Object, "status", "readyReplicas")
					want, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
					return fmt.Sprintf("%d/%d", ready, want)
				}},
				PathColumn("Up-to-date", "integer", ".status.updatedReplicas", 0),
				PathColumn("Available", "integer", ".status.availableReplicas", 0),
				AgeColumn(),
				{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Selector", Type: "string", Priority: 1}, Value: func(o *unstructured.Unstructured) any {
					return scaleOf(o).Status.Selector
				}},
			},
			"replicasets": {
				NameColumn(),
				PathColumn("Desired", "integer", ".spec.replicas", 0),
				PathColumn("Current", "integer", ".status.replicas", 0),
				PathColumn("Ready", "integer", ".status.readyReplicas", 0),
				AgeColumn(),
			},
		},
	}
}

// BatchV1 is the batch group version: jobs and cronjobs.
func BatchV1() GroupVersion {
	return GroupVersion{Group: "batch", Version: "v1", Resources: []metav1.APIResource{
		{Name: "jobs", SingularName: "job", Kind: "Job", Namespaced: true, Verbs: allVerbs, Categories: []string{"all"}},
		{Name: "jobs/status", Kind: "Job", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		{Name: "cronjobs", SingularName: "cronjob", Kind: "CronJob", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"cj"}, Categories: []string{"all"}},
	}}
}

// EventsV1 is events.k8s.io/v1. Leave it out to model a server that only
// has core/v1 events.
func EventsV1() GroupVersion {
	return GroupVersion{Group: "events.k8s.io", Version: "v1",
		Resources: []metav1.APIResource{
			{Name: "events", SingularName: "event", Kind: "Event", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ev"}},
		},
		FieldLabels: map[string][]string{
			"events": {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion",
				"regarding.resourceVersion", "regarding.fieldPath", "reason", "reportingController", "deprecatedSource", "type"},
		},
	}
}

// MaritimeV1Alpha1 is a custom resource as kube-apiserver serves a CRD
// (the one the e2e dev cluster installs): maritime.tabula.dev/v1alpha1
// lighthouses, namespaced, every verb, with the status subresource and the
// scale subresource (spec.replicas, status.replicas, status.selector). Seed
// it with Lighthouse.
func MaritimeV1Alpha1() GroupVersion {
	return GroupVersion{Group: "maritime.tabula.dev", Version: "v1alpha1",
		Resources: []metav1.APIResource{
			{Name: "lighthouses", SingularName: "lighthouse", Kind: "Lighthouse", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"lh"}, Categories: []string{"all", "maritime"}},
			{Name: "lighthouses/status", Kind: "Lighthouse", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
			{Name: "lighthouses/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		},
		Columns: map[string][]Column{
			"lighthouses": {
				NameColumn(),
				PathColumn("Coast", "string", ".spec.coast", 0),
				PathColumn("Lamps", "integer", ".spec.replicas", 0),
				AgeColumn(),
			},
		},
	}
}

// CSMGroup is a non-Kubernetes, HPE/Cray CSM-style API group copying the
// conventions: policy.example.com/v1 with cluster-scoped sessions and
// bosparameters, get and list only (no watch), each with its own columns.
// Seed it with CSMSession and CSMParameters.
func CSMGroup() GroupVersion {
	return GroupVersion{Group: "policy.example.com", Version: "v1",
		Resources: []metav1.APIResource{
			{Name: "sessions", SingularName: "session", Kind: "Session", Verbs: []string{"get", "list"}, ShortNames: []string{"bos"}},
			{Name: "bosparameters", SingularName: "bosparameter", Kind: "BOSParameter", Verbs: []string{"get", "list"}},
		},
		Columns: map[string][]Column{
			"sessions": {
				NameColumn(),
				PathColumn("Operation", "string", ".spec.operation", 0),
				PathColumn("Template", "string", ".spec.templateName", 0),
				PathColumn("Status", "string", ".status.status", 0),
				PathColumn("Limit", "string", ".spec.limit", 1),
				AgeColumn(),
			},
			"bosparameters": {
				NameColumn(),
				PathColumn("Component", "string", ".spec.component", 0),
				PathColumn("Kernel Parameters", "string", ".spec.kernelParameters", 1),
			},
		},
		FieldLabels: map[string][]string{"sessions": {"status.status"}},
	}
}

func podReady(o *unstructured.Unstructured) any {
	statuses, _, _ := unstructured.NestedSlice(o.Object, "status", "containerStatuses")
	containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "containers")
	ready := 0
	for _, s := range statuses {
		if m, ok := s.(map[string]any); ok && m["ready"] == true {
			ready++
		}
	}
	return fmt.Sprintf("%d/%d", ready, len(containers))
}

func podStatus(o *unstructured.Unstructured) any {
	if o.GetDeletionTimestamp() != nil {
		return "Terminating"
	}
	phase, _, _ := unstructured.NestedString(o.Object, "status", "phase")
	return phase
}

func podRestarts(o *unstructured.Unstructured) any {
	statuses, _, _ := unstructured.NestedSlice(o.Object, "status", "containerStatuses")
	var n int64
	for _, s := range statuses {
		if m, ok := s.(map[string]any); ok {
			if c, ok := m["restartCount"].(int64); ok {
				n += c
			}
		}
	}
	return fmt.Sprint(n)
}
