package kube

import (
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
)

// The custom-columns dialect is kubectl's: every relaxed path form, and
// errors that name the column.
func TestParseCustomColumns(t *testing.T) {
	cols, err := ParseCustomColumns("NAME:metadata.name, IMAGE:.spec.containers[*].image,NODE:{.spec.nodeName},X:{spec.a}")
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, c := range cols {
		exprs = append(exprs, c.Name+"="+c.Expr)
	}
	if got := strings.Join(exprs, " "); got != "NAME={.metadata.name} IMAGE={.spec.containers[*].image} NODE={.spec.nodeName} X={.spec.a}" {
		t.Errorf("parsed %s", got)
	}
	if spec := CustomColumnsSpec(cols); spec != "NAME:metadata.name,IMAGE:.spec.containers[*].image,NODE:{.spec.nodeName},X:{spec.a}" {
		t.Errorf("spec written back %q", spec)
	}
	for spec, want := range map[string]string{
		"IMAGE:.spec.containers[*.image": `custom column 1 ("IMAGE:.spec.containers[*.image")`,
		"A:.a,B":                         `custom column 2 ("B"): expected HEADER:JSONPATH`,
		":.a":                            "the header is empty",
		"A:{.a}}":                        "expected a path",
		"A\x01:.a":                       "cannot be shown",
	} {
		if _, err := ParseCustomColumns(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", spec, err, want)
		}
	}
}

// A custom column that fails on one row leaves that cell empty, with the
// reason as its title; the other rows and columns are unharmed. Rows sort
// by an added column's cells, numbers as numbers.
func TestCustomCellsFailAloneAndSort(t *testing.T) {
	table := &apiclient.Table{
		Served:  apiclient.TableV1,
		Columns: []apiclient.Column{{Name: "Name", Type: "string", Format: "name"}},
		Rows: []apiclient.Row{
			{Cells: []any{"a"}, Raw: []byte(`{"metadata":{"name":"a"},"spec":{"replicas":10,"ports":[1]}}`)},
			{Cells: []any{"b"}, Raw: []byte(`{"metadata":{"name":"b"},"spec":{"replicas":9,"ports":"none"}}`)},
			{Cells: []any{"c"}, Raw: []byte(`{"metadata":{"name":"c"},"spec":{}}`)},
		},
	}
	cols, err := ParseCustomColumns("REPLICAS:.spec.replicas,PORT:.spec.ports[0]")
	if err != nil {
		t.Fatal(err)
	}
	view := NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: "demo", Table: table,
		CustomColumns: cols, Sort: "REPLICAS", SortHref: func(s string) templ.SafeURL { return templ.SafeURL("?sort=" + s) }})
	var got []string
	for _, r := range view.Rows(table.Rows) {
		got = append(got, r.Cells[0].Text+":"+r.Cells[1].Text+":"+r.Cells[2].Text)
		if r.Cells[0].Text == "b" && !strings.Contains(r.Cells[2].Title, "not array or slice") {
			t.Errorf("row b's failing cell: %+v", r.Cells[2])
		}
	}
	if strings.Join(got, " ") != "b:9: a:10:1 c:<none>:<none>" {
		t.Errorf("rows %v", got)
	}
	if view.Columns[1].Sort != "ascending" || view.Columns[1].SortHref != "?sort=-REPLICAS" {
		t.Errorf("header %+v", view.Columns[1])
	}
}

// Bounds: counts (repeats included) and lengths, and label keys checked.
func TestColumnBounds(t *testing.T) {
	if _, err := ParseLabelColumns(strings.Repeat("app,", 21)); err == nil {
		t.Error("21 label columns accepted")
	}
	if keys, err := ParseLabelColumns("app, app.kubernetes.io/name,,APP"); err != nil || strings.Join(keys, " ") != "app app.kubernetes.io/name" {
		t.Errorf("keys %v, %v", keys, err)
	}
	for _, bad := range []string{"a b", "-x", "a/b/c", strings.Repeat("k", 64)} {
		if _, err := ParseLabelColumns(bad); err == nil {
			t.Errorf("label key %q accepted", bad)
		}
	}
	if _, err := ParseCustomColumns(strings.Repeat("A:.a,", 32) + "A:.a"); err == nil {
		t.Error("33 custom columns accepted")
	}
	if _, err := ParseCustomColumns("A:." + strings.Repeat("a", MaxColumnsSpec)); err == nil {
		t.Error("an over-long spec accepted")
	}
}

// Columns that start at a member decode only the members they read; one
// that may read anything ({..image}) decodes the whole object; the cells
// are the same either way.
func TestCustomColumnsDecodeWhatTheyRead(t *testing.T) {
	raw := []byte(`{"metadata":{"name":"a","managedFields":[{"manager":"x"}]},"spec":{"containers":[{"image":"i:1"}],"replicas":2},"status":{"phase":"Running"}}`)
	table := &apiclient.Table{Served: apiclient.TableV1, Columns: []apiclient.Column{{Name: "Name", Type: "string", Format: "name"}},
		Rows: []apiclient.Row{{Cells: []any{"a"}, Raw: raw}}}
	for spec, want := range map[string]string{
		"I:.spec.containers[*].image,P:.status.phase,R:.spec.replicas": "i:1|Running|2",
		"I:{..image},N:.metadata.name":                                 "i:1|a",
		"M:.metadata.managedFields[0].manager,X:.nothing":              "x|<none>",
	} {
		cols, err := ParseCustomColumns(spec)
		if err != nil {
			t.Fatal(err)
		}
		view := NewListView(ListTable{URLs: contextURLs("dev"), Resource: pods, Namespace: "demo", Table: table, CustomColumns: cols})
		var got []string
		for _, c := range view.Rows(table.Rows)[0].Cells[1:] {
			got = append(got, c.Text)
		}
		if strings.Join(got, "|") != want {
			t.Errorf("%s: cells %v, want %s", spec, got, want)
		}
	}
	if topMember("{.spec.containers[*].image}") != "spec" || topMember("{..image}") != "" || topMember("{.*}") != "" {
		t.Error("topMember")
	}
}
