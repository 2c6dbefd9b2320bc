package apiclient_test

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name            string
		mode            apitest.DescribeMode
		wantDescription bool
		wantRequests    int
	}{
		{"server serves descriptions", apitest.DescribeServed, true, 1},
		{"server ignores as=Description", apitest.DescribeIgnored, false, 1},
		{"server answers 406", apitest.DescribeNotAcceptable, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, apitest.Options{Describe: tc.mode}, apitest.CoreV1(), apitest.AppsV1())
			fake.Add(apitest.Deployment("demo", "web", 3, map[string]string{"app": "web"}))
			c := clientFor(t, fake)
			fake.ResetRequests()

			res, err := c.Describe(context.Background(), deploymentsRes, "demo", "web")
			if err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			if len(reqs) != tc.wantRequests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.wantRequests)
			}
			if got, want := reqs[0].Header.Get("Accept"), apiclient.MediaTypeDescription+", application/json"; got != want {
				t.Errorf("first Accept = %q, want %q", got, want)
			}
			if tc.wantRequests == 2 && reqs[1].Header.Get("Accept") != "application/json" {
				t.Errorf("retry Accept = %q", reqs[1].Header.Get("Accept"))
			}
			if !tc.wantDescription {
				if res.Description != nil || res.Object == nil || res.Object.GetKind() != "Deployment" {
					t.Fatalf("result = %+v, want the plain object", res)
				}
				return
			}
			d := res.Description
			if d == nil || res.Object != nil {
				t.Fatalf("result = %+v, want a Description only", res)
			}
			if d.Kind != "Description" || d.APIVersion != "describe.tabula.dev/v1alpha1" ||
				d.Metadata.Name != "web" || d.Metadata.Namespace != "demo" || d.Metadata.Kind != "Deployment" ||
				d.Metadata.UID != apitest.UIDFor("Deployment", "demo", "web") {
				t.Errorf("description head = %+v", d)
			}
			var titles []string
			for _, s := range d.Sections {
				titles = append(titles, s.Title)
			}
			if len(titles) != 3 || titles[0] != "Metadata" || titles[1] != "Spec" || titles[2] != "Status" {
				t.Fatalf("sections = %v", titles)
			}
			if f := d.Sections[0].Fields[0]; f.Name != "Name" || f.Value != "web" {
				t.Errorf("first field = %+v", f)
			}
			conds := d.Sections[2].Tables
			if len(conds) != 1 || conds[0].Title != "Conditions" || len(conds[0].Rows) != 1 || conds[0].Rows[0][0] != "Available" {
				t.Errorf("status tables = %+v", conds)
			}
		})
	}
}

func TestDescribeNormalizesRaggedTables(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/namespaces/demo/pods/odd", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json") // a server that labels everything plain JSON
		_, _ = w.Write([]byte(`{"apiVersion":"describe.tabula.dev/v1alpha1","kind":"Description",
			"metadata":{"name":"odd","namespace":"demo","kind":"Pod"},
			"sections":[{"title":"Containers","tables":[{"columns":["Name","Image"],"rows":[["a"],["b","img","extra"]]}]}],
			"futureField":true}`))
	})
	res, err := clientFor(t, fake).Describe(context.Background(), podsRes, "demo", "odd")
	if err != nil {
		t.Fatal(err)
	}
	tbl := res.Description.Sections[0].Tables[0]
	if len(tbl.Columns) != 3 || len(tbl.Rows[0]) != 3 || len(tbl.Rows[1]) != 3 || tbl.Rows[1][2] != "extra" {
		t.Errorf("table = %+v", tbl)
	}
}

func TestDescribeKeepsTheServersStatus(t *testing.T) {
	fake := apitest.NewServerWith(t, apitest.Options{Describe: apitest.DescribeServed}, apitest.CoreV1())
	c := clientFor(t, fake)
	_, err := c.Describe(context.Background(), podsRes, "demo", "missing")
	wantStatus(t, err, http.StatusNotFound, metav1.StatusReasonNotFound)

	fake.FailResource("", "pods", apitest.Forbidden("bob", "get", "", "pods", "web"))
	_, err = c.Describe(context.Background(), podsRes, "demo", "web")
	wantStatus(t, err, http.StatusForbidden, metav1.StatusReasonForbidden)
}
