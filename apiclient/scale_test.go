package apiclient_test

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestGetScale(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1())
	dep := apitest.Deployment("demo", "web", 3, map[string]string{"app": "web", "tier": "front"})
	if err := unstructured.SetNestedField(dep.Object, int64(2), "status", "replicas"); err != nil {
		t.Fatal(err)
	}
	fake.Add(dep, apitest.Pod("demo", "web-1", nil))
	c := clientFor(t, fake)
	ctx := context.Background()
	obj, err := c.GetObject(ctx, deploymentsRes, "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	rv := obj.GetResourceVersion()
	fake.ResetRequests()
	d, err := c.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := func(group, name string) apiclient.Resource {
		for _, g := range d.Groups {
			for _, r := range g.Resources {
				if g.Name == group && r.Name == name {
					return r
				}
			}
		}
		t.Fatalf("no %s in discovery", name)
		return apiclient.Resource{}
	}

	for _, tc := range []struct {
		name     string
		r        apiclient.Resource
		obj      string
		want     *apiclient.Scale
		requests int
	}{
		{"deployment has scale", res("apps", "deployments"), "web", &apiclient.Scale{Desired: 3, Current: 2, Selector: "app=web,tier=front"}, 1},
		{"pod has no scale: no request", res("", "pods"), "web-1", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.ResetRequests()
			got, err := c.GetScale(ctx, tc.r, "demo", tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				tc.want.ResourceVersion = rv
			}
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("scale = %+v, want %+v", got, tc.want)
			}
			reqs := fake.Requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.requests)
			}
			if tc.requests == 1 && reqs[0].URL.Path != "/apis/apps/v1/namespaces/demo/deployments/web/scale" {
				t.Errorf("path = %s", reqs[0].URL.Path)
			}
		})
	}

	_, err = c.GetScale(ctx, res("apps", "deployments"), "demo", "missing")
	wantStatus(t, err, http.StatusNotFound, metav1.StatusReasonNotFound)
}
