package apiclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// IncludeFullObject keeps each row's whole object as JSON, on every server
// kind and through a watch; the other policies keep none.
func TestRowsKeepTheirWholeObject(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts apitest.Options
		spec bool // the representation carries the spec
	}{
		{"kube-apiserver", apitest.Options{}, true},
		{"v1beta1", apitest.Options{Table: apitest.TableV1Beta1Only}, true},
		{"no Tables", apitest.Options{Table: apitest.TableNone}, true},
		{"406 without metadata lists", apitest.Options{Table: apitest.TableNotAcceptable, NoPartialMetadata: true}, true},
		// A metadata list would carry no spec: whole objects skip it.
		{"406", apitest.Options{Table: apitest.TableNotAcceptable}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := apitest.NewServerWith(t, tc.opts, apitest.CoreV1())
			seedPods(fake)
			c := clientFor(t, fake)
			tab, err := c.ListTable(context.Background(), podsRes, apiclient.ListOptions{Namespace: "demo", LabelSelector: "app=web", IncludeObject: apiclient.IncludeFullObject})
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Rows) != 2 {
				t.Fatalf("rows %+v", tab.Rows)
			}
			for _, row := range tab.Rows {
				var obj struct {
					Metadata struct{ Name string }
					Spec     map[string]any
				}
				if err := json.Unmarshal(row.Raw, &obj); err != nil {
					t.Fatalf("raw %q: %v", row.Raw, err)
				}
				if row.Object == nil || obj.Metadata.Name != row.Object.Name || row.Object.Labels["app"] != "web" || tc.spec && obj.Spec == nil {
					t.Errorf("row object %+v, raw %s", row.Object, row.Raw)
				}
			}
			if q := fake.Requests()[len(fake.Requests())-1].URL.Query(); q.Get("includeObject") != "Object" {
				t.Errorf("includeObject=%q", q.Get("includeObject"))
			}
			meta, err := c.ListTable(context.Background(), podsRes, apiclient.ListOptions{Namespace: "demo", IncludeObject: apiclient.IncludeMetadata})
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range meta.Rows {
				if row.Raw != nil {
					t.Errorf("Metadata row kept %s", row.Raw)
				}
			}
		})
	}
	t.Run("watch", func(t *testing.T) {
		fake := apitest.NewServer(t, apitest.CoreV1())
		seedPods(fake)
		c := clientFor(t, fake)
		w := startWatch(t, watchTable(c, podsRes, apiclient.WatchOptions{Namespace: "demo", LabelSelector: "app=db", IncludeObject: apiclient.IncludeFullObject}))
		ev := w.next()
		if ev.Table == nil || len(ev.Table.Rows) != 1 {
			t.Fatalf("event %+v", ev)
		}
		var obj struct{ Spec map[string]any }
		if err := json.Unmarshal(ev.Table.Rows[0].Raw, &obj); err != nil || obj.Spec == nil {
			t.Fatalf("raw %q: %v", ev.Table.Rows[0].Raw, err)
		}
		if q := fake.Requests()[len(fake.Requests())-1].URL.Query(); q.Get("includeObject") != "Object" {
			t.Errorf("includeObject=%q", q.Get("includeObject"))
		}
	})
}
