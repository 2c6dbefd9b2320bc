package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
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

func TestChildren(t *testing.T) {
	for _, tc := range []struct {
		name string
		of   string
		want string
	}{
		{"deployment: replicasets then their pods", "deploy",
			"replicasets demo/web-abc owned 2/2; replicasets demo/web-old owned 0/0; pods demo/web-abc-1 owned 1/1; pods demo/web-abc-2 owned Pending"},
		{"replicaset: its pods", "rs", "pods demo/web-abc-1 owned 1/1; pods demo/web-abc-2 owned Pending"},
		{"service: the pods it selects", "svc",
			"pods demo/manual selected 1/1; pods demo/stray-1 selected 1/1; pods demo/web-abc-1 selected 1/1; pods demo/web-abc-2 selected Pending"},
		{"service without selector: nothing", "svc-headless", ""},
		{"cronjob: its jobs, metadata only", "cron", "jobs demo/report-1 owned "},
		{"job: its pods", "job-1", "pods demo/report-1-x owned 1/1"},
		{"pod: no children", "pod-1", ""},
	} {
		for _, opts := range []apitest.Options{{}, {LegacyDiscovery: true, Table: apitest.TableNone, NoPartialMetadata: true}} {
			t.Run(fmt.Sprintf("%s/%+v", tc.name, opts), func(t *testing.T) {
				fake, objs := relatedWorld(t, opts)
				c := clientFor(t, fake)
				ctx := context.Background()
				d, err := c.Discover(ctx)
				if err != nil {
					t.Fatal(err)
				}
				obj := objs[tc.of]
				fake.ResetRequests()
				got, err := c.Children(ctx, d, obj)
				if err != nil {
					t.Fatal(err)
				}
				if s := describeRelated(got); s != tc.want {
					t.Errorf("children =\n  %s\nwant\n  %s", s, tc.want)
				}
				for _, r := range got {
					if r.UID == "" || r.Resource.Version == "" {
						t.Errorf("incomplete %+v", r)
					}
				}
				for _, r := range fake.Requests() {
					accept := r.Header.Get("Accept")
					switch {
					case strings.HasSuffix(r.URL.Path, "/jobs"):
						if accept != apiclient.MediaTypePartialObjectMetadataList+", application/json" {
							t.Errorf("jobs listed with Accept %q", accept)
						}
					case accept != "application/json":
						t.Errorf("%s listed with Accept %q", r.URL.Path, accept)
					}
					if !strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/demo/") && !strings.HasPrefix(r.URL.Path, "/apis/apps/v1/namespaces/demo/") && !strings.HasPrefix(r.URL.Path, "/apis/batch/v1/namespaces/demo/") {
						t.Errorf("listed outside the namespace: %s", r.URL.Path)
					}
				}
			})
		}
	}
}

func TestChildrenUsesTheSelector(t *testing.T) {
	fake, objs := relatedWorld(t, apitest.Options{})
	c := clientFor(t, fake)
	d, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fake.ResetRequests()
	if _, err := c.Children(context.Background(), d, objs["rs"]); err != nil {
		t.Fatal(err)
	}
	q := fake.Requests()[0].URL.Query()
	if q.Get("labelSelector") != "app=web,pod-template-hash=abc" || q.Get("limit") == "" {
		t.Errorf("query = %v", q)
	}
}

func TestChildrenKeepsTheServersStatus(t *testing.T) {
	fake, objs := relatedWorld(t, apitest.Options{})
	c := clientFor(t, fake)
	d, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fake.FailResource("", "pods", apitest.Forbidden("viewer", "list", "", "pods", ""))
	got, err := c.Children(context.Background(), d, objs["deploy"])
	wantStatus(t, err, http.StatusForbidden, metav1.StatusReasonForbidden)
	if len(got) != 2 {
		t.Errorf("children found before the failure = %s", describeRelated(got))
	}
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
