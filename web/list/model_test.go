package list

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// A row's condition tags sit with the object's name, also in an
// all-namespaces list, whose first column is the namespace.
func TestConditionTagsSitWithTheName(t *testing.T) {
	table := &apiclient.Table{
		Served: apiclient.TableV1,
		Columns: []apiclient.Column{
			{Name: "Name", Type: "string", Format: "name"},
			{Name: "Status", Type: "string"},
		},
		Rows: []apiclient.Row{{
			Cells:      []any{"job-1-abcde", "Completed"},
			Conditions: []metav1.TableRowCondition{{Type: "Completed", Status: "True"}},
			Object:     &apiclient.ObjectMeta{Name: "job-1-abcde", Namespace: "batch-jobs"},
		}},
	}
	lq, err := ParseQuery(url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, namespace string
		nameCell        int
	}{
		{name: "one namespace", namespace: "batch-jobs", nameCell: 0},
		{name: "all namespaces", namespace: "", nameCell: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rows := Rows(ctx, Input{URLs: page.URLsOf(ctx).In("dev"), Resource: benchPods, Namespace: tc.namespace, Query: lq, Table: table})
			var buf bytes.Buffer
			if err := views.WriteRows(ctx, &buf, rows); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader("<table><tbody>" + buf.String() + "</tbody></table>"))
			if err != nil {
				t.Fatal(err)
			}
			cells := doc.Find("tr td")
			tagged := cells.FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Find(".tag-cond").Length() > 0 })
			if tagged.Length() != 1 || cells.IndexOfSelection(tagged) != tc.nameCell {
				t.Fatalf("tags in cell %d of %q, want only in cell %d", cells.IndexOfSelection(tagged), buf.String(), tc.nameCell)
			}
			if got := tagged.Find("a").Text(); got != "job-1-abcde" {
				t.Errorf("the tagged cell names %q, want the object", got)
			}
			// The same cell stays in view while a wide table scrolls.
			if sticky := doc.Find("td.col-name"); sticky.Length() != 1 || cells.IndexOfSelection(sticky) != tc.nameCell {
				t.Errorf("col-name on cell %d of %q, want only on cell %d", cells.IndexOfSelection(sticky), buf.String(), tc.nameCell)
			}
			cols, _, _ := tableView(Input{URLs: page.URLsOf(ctx).In("dev"), Resource: benchPods, Namespace: tc.namespace, Query: lq, Table: table})
			for i, c := range cols {
				if c.NameColumn != (i == tc.nameCell) {
					t.Errorf("column %d (%s): NameColumn %v", i, c.Name, c.NameColumn)
				}
			}
		})
	}
}
