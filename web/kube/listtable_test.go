package kube

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// contextURLs links as page.URLs does in one context, which kube's tests
// cannot import (web/page imports kube).
type contextURLs string

func (c contextURLs) Resource(r apiclient.Resource, namespace, name string) templ.SafeURL {
	return templ.SafeURL("/c/" + string(c) + r.Path(namespace, name))
}

var pods = apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"list", "watch"}}

// jobTable is a one-row Table of a finished job's pod.
var jobTable = &apiclient.Table{
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

// A row's condition tags sit with the object's name, also in an
// all-namespaces list, whose first column is the namespace.
func TestConditionTagsSitWithTheName(t *testing.T) {
	for _, tc := range []struct {
		name, namespace string
		nameCell        int
	}{
		{name: "one namespace", namespace: "batch-jobs", nameCell: 0},
		{name: "all namespaces", namespace: "", nameCell: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			view := NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: tc.namespace, Table: jobTable})
			rows := view.Rows(jobTable.Rows)
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
			for i, c := range view.Columns {
				if c.NameColumn != (i == tc.nameCell) {
					t.Errorf("column %d (%s): NameColumn %v", i, c.Name, c.NameColumn)
				}
			}
		})
	}
}

// A header links to the list sorted by its column, and, when the list is
// sorted by it ascending, to the descending order; a table without
// SortHref (a section of another page) links no header.
func TestColumnHeadersLinkToTheirSort(t *testing.T) {
	sortHref := func(sort string) templ.SafeURL { return templ.SafeURL("?sort=" + sort) }
	cols := NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: "batch-jobs", Table: jobTable, Sort: "name", SortHref: sortHref}).Columns
	if cols[0].SortHref != "?sort=-Name" || cols[0].Sort != "ascending" || cols[1].SortHref != "?sort=Status" || cols[1].Sort != "none" {
		t.Errorf("sorted by name: headers %+v", cols)
	}
	for _, c := range NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: "batch-jobs", Table: jobTable}).Columns {
		if c.SortHref != "" {
			t.Errorf("column %s links to %q without SortHref", c.Name, c.SortHref)
		}
	}
}
