package apitest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// KwokPodTable is a page of rows kwok pods as kube-apiserver 1.36 serves
// it with includeObject=None: its pod printer's columns (Age is a
// server-formatted string there) and no row objects. Benchmarks of the
// list path serve or render it; a page of fewer than 5,000 rows continues.
func KwokPodTable(rows int) metav1.Table {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"},
			{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
			{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
			{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
			{Name: "Age", Type: "string", Description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
			{Name: "IP", Type: "string", Priority: 1, Description: "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."},
			{Name: "Node", Type: "string", Priority: 1, Description: "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName."},
			{Name: "Nominated Node", Type: "string", Priority: 1, Description: "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods."},
			{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "If specified, all readiness gates will be evaluated for pod readiness."},
		},
		Rows: make([]metav1.TableRow, rows),
	}
	t.ResourceVersion = "123456"
	if rows < 5000 {
		t.Continue = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDU2LCJzdGFydCI6ImJ1bGstMDA0OTlcdTAwMDAifQ"
		remaining := int64(5000 - rows)
		t.RemainingItemCount = &remaining
	}
	for i := range t.Rows {
		t.Rows[i] = metav1.TableRow{Cells: []any{
			fmt.Sprintf("bulk-%05d", i), "1/1", "Running", "0", "12m",
			fmt.Sprintf("10.0.%d.%d", i/250, i%250+2), fmt.Sprintf("kwok-node-%d", i%3), "<none>", "<none>",
		}}
	}
	return t
}

// KwokPodTableMetadata is KwokPodTable with includeObject=Metadata: each
// row carries its pod's PartialObjectMetadata as kube-apiserver 1.36
// serves it for a devcluster pod, managedFields included (two entries of
// ~650 bytes, 73 % of the row), since they are most of what a client
// decodes on an all-namespaces page.
func KwokPodTableMetadata(rows int) metav1.Table {
	t := KwokPodTable(rows)
	created := metav1.NewTime(time.Date(2026, 11, 23, 7, 39, 12, 0, time.UTC))
	for i := range t.Rows {
		name, ip := fmt.Sprintf("bulk-%05d", i), fmt.Sprintf("10.0.%d.%d", i/250, i%250+2)
		obj := metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "bulk", UID: types.UID(fmt.Sprintf("cbb484f3-5818-4e18-9359-%012d", i)),
				ResourceVersion: strconv.Itoa(468 + i), Generation: 1, CreationTimestamp: created,
				Labels: map[string]string{"app.kubernetes.io/managed-by": "devcluster", "app.kubernetes.io/name": "bulk", "topology.kubernetes.io/zone": "zone-a"},
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "devcluster", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created, FieldsType: "FieldsV1",
						FieldsV1: &metav1.FieldsV1{Raw: []byte(kwokSpecFields)}},
					{Manager: "kwok", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created, FieldsType: "FieldsV1",
						FieldsV1: &metav1.FieldsV1{Raw: []byte(strings.Replace(kwokStatusFields, "IP", ip, 1))}, Subresource: "status"},
				},
			},
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			panic(err) // a fixed value: cannot fail
		}
		t.Rows[i].Object = runtime.RawExtension{Raw: raw}
	}
	return t
}

// The managedFields of a devcluster pod, as the API server serves them.
const (
	kwokSpecFields   = `{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"sleeper\"}":{".":{},"f:args":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`
	kwokStatusFields = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"IP\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
)
