package list_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/webtest"
)

const demoPods = "/c/dev/api/v1/namespaces/demo/pods"

// includeObjects are the includeObject values of the page's list requests.
func includeObjects(fake *apitest.Server) []string {
	var got []string
	for _, r := range fake.Requests() {
		if strings.HasSuffix(r.URL.Path, "/pods") && !r.URL.Query().Has("watch") {
			got = append(got, r.URL.Query().Get("includeObject")+" limit="+r.URL.Query().Get("limit"))
		}
	}
	return got
}

// cellsOf is each row's cells by column name.
func cellsOf(doc *goquery.Document) []map[string]string {
	cols := webtest.Columns(doc)
	var rows []map[string]string
	doc.Find("[data-testid=list-table] tbody tr").Each(func(_ int, tr *goquery.Selection) {
		row := map[string]string{}
		tr.Find("td:not(.select-col)").Each(func(i int, td *goquery.Selection) {
			if i < len(cols) {
				row[cols[i]] = strings.TrimSpace(td.Text())
			}
		})
		rows = append(rows, row)
	})
	return rows
}

// ?labelColumns adds a column per label key, read from the Metadata Table,
// which the page says, as its kubectl command does (-L).
func TestLabelColumns(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.ResetRequests()
	_, body := h.Get(t, demoPods+"?labelColumns=app,tier", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,Restarts,Age,app,tier" {
		t.Errorf("headers %s", got)
	}
	rows := cellsOf(doc)
	if len(rows) != 2 || rows[0]["app"] != "web" || rows[0]["tier"] != "" {
		t.Errorf("rows %v", rows)
	}
	if got := includeObjects(fake); len(got) != 1 || got[0] != "Metadata limit=500" {
		t.Errorf("list requests %v, want one Metadata Table", got)
	}
	if note := doc.Find("[data-testid=column-note]").Text(); !strings.Contains(note, "includeObject=Metadata") {
		t.Errorf("note %q", note)
	}
	if cmd := doc.Find("[data-testid=kubectl-command]").Text(); !strings.Contains(cmd, "-L app,tier") {
		t.Errorf("kubectl %q", cmd)
	}
	// Sorted by a label column: rows of the label first, in its order.
	_, body = h.Get(t, "/c/dev/api/v1/pods?labelColumns=app&sort=-app", http.StatusOK)
	sorted := cellsOf(webtest.Parse(t, body))
	if len(sorted) < 2 || sorted[0]["app"] == "" {
		t.Errorf("sorted by app, descending: %v", sorted)
	}
	for i := 1; i < len(sorted); i++ {
		if a, b := sorted[i-1]["app"], sorted[i]["app"]; b != "" && a < b {
			t.Errorf("row %d: %q before %q", i, a, b)
		}
	}
}

// ?columns adds kubectl custom columns after the server's, evaluated on
// each row's whole object, with the page bounded and the bound said.
func TestCustomColumns(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.ResetRequests()
	spec := "IMAGE:.spec.containers[*].image,NODE:{.spec.nodeName},GONE:.status.nothing"
	_, body := h.Get(t, demoPods+"?columns="+url.QueryEscape(spec), http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,Restarts,Age,IMAGE,NODE,GONE" {
		t.Errorf("headers %s", got)
	}
	rows := cellsOf(doc)
	if len(rows) != 2 || rows[0]["IMAGE"] != "registry.example.com/app:1" || rows[0]["NODE"] != "node-1" || rows[0]["GONE"] != "<none>" {
		t.Errorf("rows %v", rows)
	}
	if got := includeObjects(fake); len(got) != 1 || got[0] != "Object limit=200" {
		t.Errorf("list requests %v, want one Object Table of at most 200 rows", got)
	}
	if note := doc.Find("[data-testid=column-note]").Text(); !strings.Contains(note, "at most 200 rows") {
		t.Errorf("note %q", note)
	}
	// The chooser keeps the spec as it was written.
	if got := doc.Find("[data-testid=custom-columns-input]").AttrOr("value", ""); got != spec {
		t.Errorf("chooser's custom columns %q", got)
	}
}

// Bad or hostile column parameters are a 400 that says what is wrong and
// shows what was sent; nothing is asked of the server.
func TestBadColumnParametersAreRefused(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	many := make([]string, 1000)
	for i := range many {
		many[i] = "C:.metadata.name"
	}
	// 1,000 distinct label keys of two characters ("aa", "ab" … "a9",
	// "ba" …): short enough together to pass the length bound, so that
	// the count's is what refuses them.
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	manyLabels := make([]string, 1000)
	distinct := map[string]bool{}
	for i := range manyLabels {
		manyLabels[i] = string(alnum[i/len(alnum)]) + string(alnum[i%len(alnum)])
		distinct[manyLabels[i]] = true
	}
	if len(distinct) != 1000 || len(strings.Join(manyLabels, ",")) > kube.MaxColumnsSpec {
		t.Fatalf("%d distinct label keys, %d bytes: want 1000 within %d", len(distinct), len(strings.Join(manyLabels, ",")), kube.MaxColumnsSpec)
	}
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"bad JSONPath", "columns=" + url.QueryEscape("IMAGE:.spec.containers[*.image"), []string{"columns parameter", "custom column 1", "IMAGE:.spec.containers[*.image"}},
		{"no header", "columns=" + url.QueryEscape(".metadata.name"), []string{"HEADER:JSONPATH", ".metadata.name"}},
		{"1,000 custom columns", "columns=" + url.QueryEscape(strings.Join(many, ",")), []string{"1000 custom columns", "32 at most"}},
		{"1,000 repeated parameters", strings.Repeat("columns=C:.a&", 1000), []string{"1000 custom columns"}},
		{"very long", "columns=" + strings.Repeat("A", 100<<10), []string{"102400 bytes", "4096"}},
		{"bad label key", "labelColumns=" + url.QueryEscape("app,not a key!"), []string{"labelColumns parameter", "not a key!"}},
		{"1,000 label columns", "labelColumns=" + url.QueryEscape(strings.Join(manyLabels, ",")), []string{"21 label columns or more", "20 at most", "aa,ab,ac", "(2999 bytes in all)"}},
		{"very long label columns", "labelColumns=" + strings.Repeat("a", 5000), []string{"5000 bytes"}},
		{"very long hide", "hide=" + strings.Repeat("a", 5000), []string{"hide parameter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake.ResetRequests()
			_, body := h.Get(t, demoPods+"?"+tc.query, http.StatusBadRequest)
			msg := webtest.Parse(t, body).Find("main").Text()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("page lacks %q:\n%.2000s", w, msg)
				}
			}
			if len(msg) > 20<<10 {
				t.Errorf("the page quotes %d bytes", len(msg))
			}
			if got := includeObjects(fake); len(got) != 0 {
				t.Errorf("the server was asked %v", got)
			}
		})
	}
}

// ?showLabels adds a Labels column of chips, each a menu: filter the list
// by the label, or show it as a column.
func TestShowLabels(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.ResetRequests()
	_, body := h.Get(t, demoPods+"?showLabels=1", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,Restarts,Age,Labels" {
		t.Errorf("headers %s", got)
	}
	chip := doc.Find("[data-testid=list-table] tbody tr").First().Find("details.chip-menu")
	if chip.Find("summary[data-testid=label-chip]").Text() != "app=web" {
		t.Fatalf("chip %s", webtest.Outer(chip))
	}
	if got := chip.Find("[data-testid=chip-filter]").AttrOr("href", ""); got != demoPods+"?labelSelector=app%3Dweb&showLabels=1" {
		t.Errorf("filter link %q", got)
	}
	column := chip.Find("[data-testid=chip-column]").AttrOr("href", "")
	if column != demoPods+"?labelColumns=app&showLabels=1" {
		t.Errorf("column link %q", column)
	}
	if got := includeObjects(fake); len(got) != 1 || got[0] != "Metadata limit=500" {
		t.Errorf("list requests %v", got)
	}
	if cmd := doc.Find("[data-testid=kubectl-command]").Text(); !strings.Contains(cmd, "--show-labels") {
		t.Errorf("kubectl %q", cmd)
	}
	// Once a column, the chip offers only the filter.
	_, body = h.Get(t, column, http.StatusOK)
	doc = webtest.Parse(t, body)
	if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,Restarts,Age,app,Labels" {
		t.Errorf("headers %s", got)
	}
	if doc.Find("[data-testid=chip-column]").Length() != 0 || doc.Find("[data-testid=chip-filter]").Length() == 0 {
		t.Error("a label shown as a column still offers to be one")
	}
}

// ?hide and ?show choose columns, priority ones included (their cells are
// then decoded without wide); the name column stays.
func TestHideAndShowColumns(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, demoPods+"?hide=age,Restarts,Name&show=IP&labelColumns=app", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := strings.Join(webtest.Columns(doc), ","); got != "Name,Ready,Status,IP,app" {
		t.Errorf("headers %s", got)
	}
	if rows := cellsOf(doc); len(rows) != 2 || rows[0]["IP"] != "10.0.0.1" {
		t.Errorf("rows %v", rows)
	}
	_, body = h.Get(t, demoPods+"?wide=1&hide=Node,app&labelColumns=app", http.StatusOK)
	if got := strings.Join(webtest.Columns(webtest.Parse(t, body)), ","); got != "Name,Ready,Status,Restarts,Age,IP" {
		t.Errorf("wide, Node and app hidden: headers %s", got)
	}
}

// The chooser is a GET form: its choice comes back as the URL that keeps
// it (a 303 to hide/show/labelColumns/columns), carrying the rest of the
// query; the page at that URL shows the same choice checked.
func TestColumnChooserRedirectsToTheView(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	b := webtest.NewBrowser(t, h)
	p := b.Get(demoPods+"?labelSelector=app%3Dweb&sort=Name", http.StatusOK)
	choices := webtest.Texts(p.Doc, "[data-testid=column-chooser] fieldset label.check > span:first-of-type")
	if got := strings.Join(choices, ","); got != "Name,Ready,Status,Restarts,Age,IP,Node" {
		t.Errorf("choices %s", got)
	}
	if p.Doc.Find("[data-testid=column-choice][value=Name]").AttrOr("disabled", "no") == "no" {
		t.Error("the name column can be hidden")
	}
	form := b.Form(p, "[data-testid=column-form]")
	form.Set("col", "Name", "Ready", "Status", "Age", "Node") // Restarts off, Node on
	form.Set("labelColumns", "app")
	form.Set("columns", "IMAGE:.spec.containers[*].image")
	to := p.Doc.Find("[data-testid=column-form]").AttrOr("action", "")
	_ = form
	q := form.Values.Encode()
	resp, _ := h.Get(t, to+"?"+q, http.StatusSeeOther)
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	got := loc.Query()
	if got.Get("hide") != "Restarts" || got.Get("show") != "Node" || got.Get("labelColumns") != "app" ||
		got.Get("columns") != "IMAGE:.spec.containers[*].image" || got.Get("labelSelector") != "app=web" || got.Get("sort") != "Name" || got.Has("chooser") || got.Has("col") {
		t.Errorf("redirected to %s", loc)
	}
	view := b.Get(loc.String(), http.StatusOK)
	if got := strings.Join(webtest.Columns(view.Doc), ","); got != "Name,Ready,Status,Age,Node,app,IMAGE" {
		t.Errorf("headers %s", got)
	}
	if save := view.Doc.Find("[data-testid=save-view]").AttrOr("href", ""); save != loc.String() {
		t.Errorf("Save view links %q, want %q", save, loc)
	}
	var unchecked []string
	view.Doc.Find("[data-testid=column-choice]").Each(func(_ int, s *goquery.Selection) {
		if _, on := s.Attr("checked"); !on {
			unchecked = append(unchecked, s.AttrOr("value", ""))
		}
	})
	if strings.Join(unchecked, ",") != "Restarts,IP" {
		t.Errorf("unchecked %v", unchecked)
	}
}

// Live rows carry the page's added columns: label cells from the watch's
// metadata, custom cells from its whole objects. A page with custom
// columns has its own upstream watch (includeObject=Object); one with
// label columns shares the plain page's.
func TestLiveRowsCarryAddedColumns(t *testing.T) {
	h := webtest.Pods(t)
	const path = "/c/dev/api/v1/namespaces/demo/pods"
	rv := h.ListRV(t, path)
	// Dialled as the page dials: its rows have the bulk checkbox.
	plain := h.Dial(t, path+"?select=on&resourceVersion="+rv)
	labels := h.Dial(t, path+"?labelColumns=app&showLabels=1&select=on&resourceVersion="+rv)
	if !h.Fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("no upstream watch")
	}
	const custom = "?columns=PHASE:.status.phase,IMAGE:.spec.containers[*].image&hide=Status"
	objects := h.Dial(t, path+custom+"&select=on&resourceVersion="+rv)
	if !h.Fake.AwaitOpenWatches(2, 5*time.Second) {
		t.Fatalf("%d upstream watches, want 2: one with metadata, one with objects", h.Fake.OpenWatches())
	}
	h.Fake.Modify(webtest.PodGVK, "demo", "web-1", webtest.SetPhase("Failed"))
	for _, tc := range []struct {
		ws    *webtest.WS
		query string
		want  string
	}{
		{plain, "", "<td>Failed</td>"},
		{labels, "?labelColumns=app&showLabels=1", `<td>web</td>`},
		{objects, custom, "<td>Failed</td><td>registry.example.com/app:1</td>"},
	} {
		m := webtest.NextData(tc.ws, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "demo/web-1" })
		_, body := h.Get(t, path+tc.query, http.StatusOK)
		row, err := goquery.OuterHtml(webtest.Parse(t, body).Find(`tr[data-key="demo/web-1"]`))
		if err != nil {
			t.Fatal(err)
		}
		// Equal but for the age's title (see TestLiveListPushesRowsRenderedLikeThePage).
		norm := func(html string) string {
			html = strings.Replace(html, ` elementtiming="list-first-row"`, "", 1)
			return timeTitle.ReplaceAllString(strings.TrimSpace(html), `<time>`)
		}
		// Both as the HTML parser reads them (it orders attributes its way).
		pushed, err := goquery.OuterHtml(webtest.Parse(t, "<table><tbody>"+m.HTML+"</tbody></table>").Find("tr"))
		if err != nil {
			t.Fatal(err)
		}
		if norm(pushed) != norm(row) || !strings.Contains(m.HTML, tc.want) {
			t.Errorf("%q: pushed row\n%s\npage row\n%s", tc.query, m.HTML, row)
		}
	}
	var includes []string
	for _, r := range h.Fake.Requests() {
		if r.URL.Query().Get("watch") == "true" {
			includes = append(includes, r.URL.Query().Get("includeObject"))
		}
	}
	if strings.Join(includes, ",") != "Metadata,Object" {
		t.Errorf("watches asked for %v", includes)
	}
}
