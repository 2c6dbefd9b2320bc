//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"

	"github.com/tabula-console/tabula/e2e/aggregated"
)

// TestAggregatedDiscovery checks that kube-apiserver's aggregated /apis
// lists the group served by the registered aggregated server.
func TestAggregatedDiscovery(t *testing.T) {
	cs, _ := clientset(t, "admin")
	rest := cs.Discovery().RESTClient()
	// Register already waited for this; poll anyway, because the aggregator
	// re-merges backends' discovery periodically.
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		raw, err := rest.Get().AbsPath("/apis").SetHeader("Accept", discovery.AcceptV2).DoRaw(ctx)
		if err != nil {
			return false, err
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(raw, &list); err != nil {
			return false, err
		}
		for _, g := range list.Items {
			if g.Name != aggregated.Group {
				continue
			}
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					if v.Version == aggregated.Version && r.Resource == aggregated.Resource {
						if r.Scope != apidiscoveryv2.ScopeNamespace || !slices.Equal(r.Verbs, []string{"get", "list"}) {
							t.Errorf("probes discovered as %+v", r)
						}
						return true, nil
					}
				}
			}
			last = "the group is listed without probes"
			return false, nil
		}
		last = "the group is not listed"
		return false, nil
	})
	if err != nil {
		t.Fatalf("aggregated discovery never listed %s.%s: %v (%s)", aggregated.Resource, aggregated.Group, err, last)
	}
}

// TestAggregatedTable lists probes through kube-apiserver as a Table, the
// way the console and kubectl ask for them.
func TestAggregatedTable(t *testing.T) {
	cs, _ := clientset(t, "admin")
	raw, err := cs.Discovery().RESTClient().Get().
		AbsPath("/apis", aggregated.Group, aggregated.Version, "namespaces", "demo", aggregated.Resource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").
		DoRaw(t.Context())
	if err != nil {
		t.Fatalf("Table GET through kube-apiserver: %v: %s", err, raw)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
		t.Fatalf("got %s %s, want a meta.k8s.io/v1 Table", table.APIVersion, table.Kind)
	}
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	if want := []string{"Name", "Target", "Healthy", "Latency", "Interval", "Age"}; !slices.Equal(columns, want) {
		t.Errorf("columns %v, want %v", columns, want)
	}
	var names []string
	for _, row := range table.Rows {
		names = append(names, row.Cells[0].(string))
		var meta metav1.PartialObjectMetadata
		if err := json.Unmarshal(row.Object.Raw, &meta); err != nil || meta.Namespace != "demo" || meta.UID == "" {
			t.Errorf("row %v carries %s (%v), want PartialObjectMetadata in demo", row.Cells, row.Object.Raw, err)
		}
	}
	if want := []string{"api-latency", "db-reachable", "dns"}; !slices.Equal(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}
}
