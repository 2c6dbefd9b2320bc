package apiclient_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// relatedWorld seeds a Deployment with two ReplicaSets and their pods, and
// look-alikes that a selector alone would wrongly include.
func relatedWorld(t *testing.T, opts apitest.Options) (*apitest.Server, map[string]*unstructured.Unstructured) {
	t.Helper()
	fake := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1(), apitest.BatchV1())
	web := map[string]string{"app": "web"}
	objs := map[string]*unstructured.Unstructured{}
	objs["deploy"] = apitest.Deployment("demo", "web", 2, web)
	objs["rs"] = apitest.ReplicaSet("demo", "web-abc", 2, map[string]string{"app": "web", "pod-template-hash": "abc"}, objs["deploy"])
	objs["rs-old"] = apitest.ReplicaSet("demo", "web-old", 0, map[string]string{"app": "web", "pod-template-hash": "old"}, objs["deploy"])
	objs["rs-stray"] = apitest.ReplicaSet("demo", "stray", 1, web)
	objs["pod-1"] = apitest.Pod("demo", "web-abc-1", map[string]string{"app": "web", "pod-template-hash": "abc"}, objs["rs"])
	objs["pod-2"] = apitest.Pod("demo", "web-abc-2", map[string]string{"app": "web", "pod-template-hash": "abc"}, objs["rs"])
	if err := unstructured.SetNestedField(objs["pod-2"].Object, "Pending", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	objs["pod-stray"] = apitest.Pod("demo", "stray-1", web, objs["rs-stray"])
	objs["pod-manual"] = apitest.Pod("demo", "manual", web)
	objs["pod-db"] = apitest.Pod("demo", "db-0", map[string]string{"app": "db"})
	objs["pod-elsewhere"] = apitest.Pod("other", "web-abc-9", web, objs["rs"])
	objs["svc"] = apitest.Service("demo", "web", web)
	objs["svc-headless"] = apitest.Service("demo", "external", nil)
	objs["cron"] = apitest.CronJob("demo", "report")
	objs["job-1"] = apitest.Job("demo", "report-1", map[string]string{"job-name": "report-1"}, objs["cron"])
	objs["job-manual"] = apitest.Job("demo", "adhoc", map[string]string{"job-name": "adhoc"})
	objs["job-pod"] = apitest.Pod("demo", "report-1-x", map[string]string{"job-name": "report-1"}, objs["job-1"])
	for _, o := range objs {
		fake.Add(o)
	}
	return fake, objs
}

func describeRelated(rs []apiclient.Related) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %s/%s %s %s", r.Resource.Name, r.Namespace, r.Name, r.Relation, r.Ready))
	}
	return strings.Join(parts, "; ")
}

func TestOwnerResources(t *testing.T) {
	fake, objs := relatedWorld(t, apitest.Options{})
	c := clientFor(t, fake)
	d, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pod := objs["pod-1"].DeepCopy()
	refs := pod.GetOwnerReferences()
	refs = append(refs,
		metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "demo", UID: "ns-uid"},
		metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "w-uid"})
	pod.SetOwnerReferences(refs)

	got := apiclient.OwnerResources(d, pod)
	if len(got) != 3 {
		t.Fatalf("owners = %+v", got)
	}
	if r := got[0]; r.Resource.Name != "replicasets" || r.Resource.Group != "apps" || r.Namespace != "demo" || r.Name != "web-abc" ||
		r.UID != apitest.UID(objs["rs"]) || r.Relation != apiclient.RelationOwner {
		t.Errorf("replicaset owner = %+v", r)
	}
	if r := got[1]; r.Resource.Name != "namespaces" || r.Namespace != "" {
		t.Errorf("cluster-scoped owner = %+v", r)
	}
	if r := got[2]; r.Resource.Name != "" || r.Resource.Group != "example.com" || r.Resource.Kind != "Widget" || r.Namespace != "demo" {
		t.Errorf("unknown owner = %+v", r)
	}
}
