package list_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/list"
	"github.com/tabula-console/tabula/web/webtest"
)

const scanPods = "/c/dev/api/v1/namespaces/scan/pods"

// scanConsole serves pods pod-00 … pod-29 in namespace scan, every third
// one (pod-00, pod-03, …) Pending and the others Running, to a console
// whose filtered pages read upstream pages of 4 objects.
func scanConsole(t *testing.T, change func(*list.ScanBudget)) (*webtest.Console, *apitest.Server) {
	t.Helper()
	b := list.DefaultScanBudget()
	b.PageSize = 4
	if change != nil {
		change(&b)
	}
	h, fake := webtest.DemoWith(t, apitest.Options{}, webtest.Options{Deps: web.Deps{List: web.ListLimits{Scan: b}}})
	for i := range 30 {
		p := apitest.Pod("scan", fmt.Sprintf("pod-%02d", i), map[string]string{"app": "scan"})
		if i%3 == 0 {
			webtest.SetPhase("Pending")(p)
		}
		fake.Add(p)
	}
	return h, fake
}

// filtered is a filtered page of scanPods.
func filtered(query string, filters ...string) string {
	q, _ := url.ParseQuery(query)
	for _, f := range filters {
		q.Add("filter", f)
	}
	return scanPods + "?" + q.Encode()
}

type filteredPage struct {
	doc   *goquery.Document
	names []string
}

func (p filteredPage) text(id string) string {
	return strings.Join(strings.Fields(p.doc.Find("[data-testid="+id+"]").Text()), " ")
}

func (p filteredPage) href(id string) string {
	return p.doc.Find("[data-testid="+id+"]").AttrOr("href", "")
}

func getFiltered(t *testing.T, h *webtest.Console, path string) filteredPage {
	t.Helper()
	_, body := h.Get(t, path, http.StatusOK)
	doc := webtest.Parse(t, body)
	var names []string
	doc.Find("[data-testid=list-table] tbody tr").Each(func(_ int, s *goquery.Selection) {
		names = append(names, s.Find("td a").First().Text())
	})
	return filteredPage{doc: doc, names: names}
}

func pods(nums ...int) []string {
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = fmt.Sprintf("pod-%02d", n)
	}
	return out
}

// listRequests are the upstream list requests of namespace scan's pods.
func listRequests(fake *apitest.Server) []*http.Request {
	var out []*http.Request
	for _, r := range fake.Requests() {
		if r.URL.Path == "/api/v1/namespaces/scan/pods" {
			out = append(out, r)
		}
	}
	return out
}

// A filtered page reads upstream pages until it has its limit of matches,
// says how many objects it read, and its More link goes on exactly where
// it stopped, mid-page included, to the end of the list; Back returns.
func TestFilterMatchesAcrossUpstreamPagesAndMoreGoesOn(t *testing.T) {
	h, fake := scanConsole(t, nil)
	fake.ResetRequests()
	p1 := getFiltered(t, h, filtered("limit=5", "Status!=Running"))
	if want := pods(0, 3, 6, 9, 12); !slices.Equal(p1.names, want) {
		t.Fatalf("page 1 rows %v, want %v", p1.names, want)
	}
	// pod-12 is the first row of the fourth upstream page; the page peeked
	// at pod-13 to know the upstream page goes on.
	if got := p1.text("filter-matches"); got != "5 matches in the first 13 objects" {
		t.Errorf("matches line %q", got)
	}
	if got := p1.doc.Find("[data-testid=filter-matches]").AttrOr("title", ""); got != "Each filtered page reads at most 10,000 objects, in at most 20 requests of 4, within 10s." {
		t.Errorf("budget stated as %q", got)
	}
	reqs := listRequests(fake)
	if len(reqs) != 4 {
		t.Errorf("%d upstream list requests, want 4", len(reqs))
	}
	for _, r := range reqs {
		if got := r.URL.Query().Get("limit"); got != "4" {
			t.Errorf("upstream limit %q, want the scan's page size 4", got)
		}
	}
	if p1.has("scan-stopped") {
		t.Errorf("a page that found its limit says the scan stopped: %q", p1.text("scan-stopped"))
	}
	more := p1.href("page-next")
	if more == "" || p1.text("page-next") != "More" {
		t.Fatalf("no More link: %q %q", more, p1.text("page-next"))
	}

	p2 := getFiltered(t, h, more)
	if want := pods(15, 18, 21, 24, 27); !slices.Equal(p2.names, want) {
		t.Fatalf("page 2 rows %v, want %v", p2.names, want)
	}
	// Live updates count new matches within the objects each page read.
	scanRange := func(p filteredPage) [2]string {
		live := p.doc.Find("[data-testid=live-list]")
		return [2]string{live.AttrOr("data-scan-from", ""), live.AttrOr("data-scan-to", "")}
	}
	if got := scanRange(p1); got != [2]string{"", "scan/pod-12"} {
		t.Errorf("page 1 scanned %v", got)
	}
	if got := scanRange(p2); got != [2]string{"scan/pod-13", "scan/pod-27"} {
		t.Errorf("page 2 scanned %v", got)
	}
	if got := p2.text("filter-matches"); got != "5 matches in objects 14–28" {
		t.Errorf("page 2 matches line %q", got)
	}
	// pod-27 ended its upstream page: page 3 starts at the next one.
	p3 := getFiltered(t, h, p2.href("page-next"))
	if len(p3.names) != 0 {
		t.Errorf("page 3 rows %v, want none", p3.names)
	}
	if got := p3.text("list-empty-reason"); got != "No row matched the filters in objects 29–30." {
		t.Errorf("page 3 empty state %q", got)
	}
	if got := p3.text("filter-matches"); got != "0 matches in objects 29–30, the end of the list" {
		t.Errorf("page 3 matches line %q", got)
	}
	if got := scanRange(p3); got != [2]string{"scan/pod-28", ""} {
		t.Errorf("page 3 scanned %v", got)
	}
	if p3.href("page-next") != "" {
		t.Error("the end of the list has a More link")
	}
	if p3.href("list-empty-clear-filters") == "" {
		t.Error("the empty filtered page offers no way to clear the row filters")
	}
	back := getFiltered(t, h, p3.href("page-back"))
	if !slices.Equal(back.names, p2.names) {
		t.Errorf("Back from page 3 shows %v, want page 2's %v", back.names, p2.names)
	}
	first := getFiltered(t, h, p3.href("page-first"))
	if !slices.Equal(first.names, p1.names) {
		t.Errorf("First shows %v, want page 1's %v", first.names, p1.names)
	}
}

func (p filteredPage) has(id string) bool {
	return p.doc.Find("[data-testid="+id+"]").Length() > 0
}

// Column=value, Column!=value (column names in any case) and free text
// (in any cell, ignoring case) each keep exactly their rows, and several
// filters must all match.
func TestFilterTerms(t *testing.T) {
	h, _ := scanConsole(t, nil)
	var pending, running []int
	for i := range 30 {
		if i%3 == 0 {
			pending = append(pending, i)
		} else {
			running = append(running, i)
		}
	}
	tests := []struct {
		filters []string
		want    []string
	}{
		{[]string{"Status=Running"}, pods(running...)},
		{[]string{"status = Pending"}, pods(pending...)},
		{[]string{"STATUS!=Running"}, pods(pending...)},
		{[]string{"POD-1"}, pods(10, 11, 12, 13, 14, 15, 16, 17, 18, 19)},
		{[]string{"pend"}, pods(pending...)},
		{[]string{"Status=Running", "pod-1"}, pods(10, 11, 13, 14, 16, 17, 19)},
		{[]string{"Status=running"}, nil}, // a column's value is compared exactly, as shown
		{[]string{"Name=pod-07", ""}, pods(7)},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.filters, "&"), func(t *testing.T) {
			p := getFiltered(t, h, filtered("", tt.filters...))
			if !slices.Equal(p.names, tt.want) {
				t.Errorf("rows %v, want %v", p.names, tt.want)
			}
			want := fmt.Sprintf("%d matches in the first 30 objects, the end of the list", len(tt.want))
			if len(tt.want) == 1 {
				want = strings.Replace(want, "matches", "match", 1)
			}
			if got := p.text("filter-matches"); got != want {
				t.Errorf("matches line %q, want %q", got, want)
			}
			// The form shows each filter in its own field, and one more.
			var fields []string
			p.doc.Find("[data-testid=row-filter]").Each(func(_ int, s *goquery.Selection) { fields = append(fields, s.AttrOr("value", "")) })
			nonEmpty := slices.DeleteFunc(slices.Clone(tt.filters), func(f string) bool { return f == "" })
			if !slices.Equal(fields, nonEmpty) || !p.has("row-filter-new") {
				t.Errorf("filter fields %v (and a new one: %v), want %v", fields, p.has("row-filter-new"), nonEmpty)
			}
		})
	}
}

// The scan stops at its budget and says where and why; More reads on from
// there, and the page counts the objects it covered.
func TestFilterScanStopsAtItsBudget(t *testing.T) {
	t.Run("requests", func(t *testing.T) {
		h, fake := scanConsole(t, func(b *list.ScanBudget) { b.MaxPages = 3 })
		fake.ResetRequests()
		p1 := getFiltered(t, h, filtered("", "pod-2"))
		if len(p1.names) != 0 {
			t.Fatalf("rows %v, want none in the first 12 objects", p1.names)
		}
		if got := len(listRequests(fake)); got != 3 {
			t.Errorf("%d upstream requests, want the budget's 3", got)
		}
		if got := p1.text("list-empty-reason"); got != "No row matched the filters in the first 12 objects. The list goes on: More reads the next objects." {
			t.Errorf("empty state %q", got)
		}
		if got := p1.text("scan-stopped"); got != "The scan stopped at its budget of 3 requests (it read 12 objects); More goes on from there." {
			t.Errorf("scan-stopped %q", got)
		}
		p2 := getFiltered(t, h, p1.href("page-next"))
		if want := pods(20, 21, 22, 23); !slices.Equal(p2.names, want) {
			t.Errorf("page 2 rows %v, want %v", p2.names, want)
		}
		if got := p2.text("filter-matches"); got != "4 matches in objects 13–24" {
			t.Errorf("page 2 matches line %q", got)
		}
		p3 := getFiltered(t, h, p2.href("page-next"))
		if want := pods(24, 25, 26, 27, 28, 29); !slices.Equal(p3.names, want) {
			t.Errorf("page 3 rows %v, want %v", p3.names, want)
		}
	})
	t.Run("objects", func(t *testing.T) {
		h, fake := scanConsole(t, func(b *list.ScanBudget) { b.MaxObjects = 10 })
		fake.ResetRequests()
		p := getFiltered(t, h, filtered("", "Status!=Running"))
		if want := pods(0, 3, 6, 9); !slices.Equal(p.names, want) {
			t.Errorf("rows %v, want %v", p.names, want)
		}
		// The last request asks only for what the budget has left.
		var limits []string
		for _, r := range listRequests(fake) {
			limits = append(limits, r.URL.Query().Get("limit"))
		}
		if !slices.Equal(limits, []string{"4", "4", "2"}) {
			t.Errorf("upstream limits %v, want [4 4 2]", limits)
		}
		if got := p.text("scan-stopped"); got != "The scan stopped at its budget of 10 objects (in 3 requests); More goes on from there." {
			t.Errorf("scan-stopped %q", got)
		}
		if got := p.text("filter-matches"); got != "4 matches in the first 10 objects" {
			t.Errorf("matches line %q", got)
		}
		next := getFiltered(t, h, p.href("page-next"))
		if want := pods(12, 15, 18); !slices.Equal(next.names, want) {
			t.Errorf("next rows %v, want %v", next.names, want)
		}
	})
}

// Bad filters are a 400 that says what was wrong and shows what was sent.
func TestFilterBadInputIsA400(t *testing.T) {
	h, _ := scanConsole(t, nil)
	many := make([]string, 11)
	for i := range many {
		many[i] = fmt.Sprintf("pod-%d", i)
	}
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"unknown column", filtered("", "Colour=red"), []string{`"Colour=red"`, "Colour", "Its columns are: Name, Ready, Status, Restarts, Age."}},
		{"a wide column on a page that is not wide", filtered("", "Node=node-1"), []string{"Name, Ready, Status, Restarts, Age."}},
		{"too many", filtered("", many...), []string{"At most 10 filters", "11 were sent"}},
		{"too long", filtered("", "Status="+strings.Repeat("x", 300)), []string{"at most 256 characters", "this one has 307", "Status=xxxx"}},
		{"bad position", filtered("continue=nonsense", "Status=Running"), []string{"position of a filtered page is not valid", "nonsense"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := h.Get(t, tt.path, http.StatusBadRequest)
			msg := webtest.Parse(t, body).Find("[data-testid=error-page]").Text()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error page %q does not say %q", webtest.Clip(msg), w)
				}
			}
		})
	}
	// A wide page shows the Node column, so it may be filtered on.
	p := getFiltered(t, h, filtered("wide=1", "Node=node-1", "pod-0"))
	if len(p.names) != 10 {
		t.Errorf("wide page filtered on Node: %v", p.names)
	}
}

// Sorting, the namespace picker, the selectors and clearing keep working
// with filters.
func TestFilterKeepsTheRestOfThePageWorking(t *testing.T) {
	h, _ := scanConsole(t, nil)
	p := getFiltered(t, h, filtered("limit=5&sort=-Name", "Status!=Running"))
	// Sorted within the page's matches, not across the list.
	if want := pods(12, 9, 6, 3, 0); !slices.Equal(p.names, want) {
		t.Errorf("sorted rows %v, want %v", p.names, want)
	}
	var carried []string
	p.doc.Find("form[data-ns-picker] input[name=filter]").Each(func(_ int, s *goquery.Selection) { carried = append(carried, s.AttrOr("value", "")) })
	if !slices.Equal(carried, []string{"Status!=Running"}) {
		t.Errorf("the namespace picker carries filters %v", carried)
	}
	clear, err := url.Parse(p.href("clear-row-filters"))
	if err != nil || clear.Query().Has("filter") || clear.Query().Get("sort") != "-Name" {
		t.Errorf("clear-row-filters %q should drop only the filters", p.href("clear-row-filters"))
	}
	if all := p.href("clear-filter"); strings.Contains(all, "filter=") {
		t.Errorf("Clear %q keeps the row filters", all)
	}
	// A label selector still goes upstream; the filters apply to its rows.
	sel := getFiltered(t, h, filtered("labelSelector=app%3Dweb", "Status=Running"))
	if len(sel.names) != 0 {
		t.Errorf("no pod in scan has app=web, got %v", sel.names)
	}
	all := getFiltered(t, h, "/c/dev/api/v1/pods?filter=Namespace%3Dteam-a")
	if !slices.Equal(all.names, []string{"team-a"}) { // the namespace cell links first
		t.Errorf("all namespaces filtered on Namespace: %v", all.names)
	}
	if got := all.doc.Find("[data-testid=kubectl-command]").Text(); !strings.Contains(got, "kubectl get pods") {
		t.Errorf("kubectl command %q", got)
	}
}

// A continue token that expired restarts a filtered page at the first
// page, which the page says.
func TestFilterExpiredPositionRestarts(t *testing.T) {
	h, fake := scanConsole(t, nil)
	p1 := getFiltered(t, h, filtered("limit=2", "Status!=Running"))
	fake.ExpireContinueTokens()
	again := getFiltered(t, h, p1.href("page-next"))
	if !strings.Contains(again.text("list-notice"), "expired") || !slices.Equal(again.names, p1.names) {
		t.Errorf("after expiry: notice %q, rows %v, want page 1's %v", again.text("list-notice"), again.names, p1.names)
	}
}

// A filtered page's live list marks pushed rows its filters do not keep.
func TestFilterLiveMarksUnmatchedRows(t *testing.T) {
	h, _ := scanConsole(t, nil)
	path := filtered("", "Status!=Running")
	rv := h.ListRV(t, path)
	c := h.Dial(t, path+"&resourceVersion="+rv)
	h.Fake.Modify(webtest.PodGVK, "scan", "pod-03", webtest.SetPhase("Running"))
	m := webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "scan/pod-03" })
	if !m.Unmatched {
		t.Errorf("pod-03, now Running, is not marked unmatched: %+v", m)
	}
	h.Fake.Modify(webtest.PodGVK, "scan", "pod-04", webtest.SetPhase("Failed"))
	m = webtest.NextData(c, 5*time.Second, func(m list.Message) bool { return m.Type == "MODIFIED" && m.Key == "scan/pod-04" })
	if m.Unmatched || !strings.Contains(m.HTML, "Failed") {
		t.Errorf("pod-04, now Failed, matches: %+v", m)
	}
}

// The scan stops at its time budget when an upstream page hangs, shows
// what it found, and says so; More goes on from the page that hung.
func TestFilterScanStopsAtItsTimeBudget(t *testing.T) {
	// Long enough for the first page on a loaded machine: the second never
	// comes, however long the budget.
	h, fake := scanConsole(t, func(b *list.ScanBudget) { b.Time = 2 * time.Second })
	fake.Override("/api/v1/namespaces/scan/pods", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("continue") != "" {
			// The second upstream page never comes.
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		fmt.Fprint(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7","continue":"second"},`+
			`"columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Status","type":"string"}],`+
			`"rows":[{"cells":["a-1","Pending"]},{"cells":["a-2","Running"]}]}`)
	})
	start := time.Now()
	p := getFiltered(t, h, filtered("", "Status=Pending"))
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the page took %v, far past its 2 s scan budget", took)
	}
	if !slices.Equal(p.names, []string{"a-1"}) {
		t.Errorf("rows %v, want the first page's match a-1", p.names)
	}
	if got := p.text("scan-stopped"); got != "The scan stopped at its time budget of 2s; More goes on from there." {
		t.Errorf("scan-stopped %q", got)
	}
	if got := p.text("filter-matches"); got != "1 match in the first 2 objects" {
		t.Errorf("matches line %q", got)
	}
	more, err := url.Parse(p.href("page-next"))
	if err != nil || !strings.HasSuffix(more.Query().Get("continue"), ".second") {
		t.Errorf("More %q does not go on from the page that hung", p.href("page-next"))
	}
}

// A server without Tables (the generic Name and Age columns) is filtered
// the same way, on the columns it gets.
func TestFilterOnAServerWithoutTables(t *testing.T) {
	for _, opts := range []apitest.Options{{Table: apitest.TableNone}, {Table: apitest.TableNotAcceptable}} {
		h, _ := webtest.Demo(t, opts)
		p := getFiltered(t, h, "/c/dev/api/v1/namespaces/demo/pods?filter=name%3Dweb-5d9-b")
		if !slices.Equal(p.names, []string{"web-5d9-b"}) {
			t.Errorf("%+v: rows %v, want [web-5d9-b]", opts, p.names)
		}
		_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?filter=Status%3DRunning", http.StatusBadRequest)
		if msg := webtest.Parse(t, body).Find("[data-testid=error-message]").Text(); !strings.Contains(msg, "Its columns are: Name, Age.") {
			t.Errorf("%+v: %q", opts, msg)
		}
	}
}

// A filter's text is shown escaped, on the page and in its 400.
func TestFilterTextIsEscaped(t *testing.T) {
	h, _ := scanConsole(t, nil)
	// No "=": free text.
	const hostile = `<script>alert(1)</script>`
	for path, status := range map[string]int{
		filtered("", hostile):                        http.StatusOK,
		filtered("", "Status=Running", hostile+"=1"): http.StatusBadRequest,
	} {
		_, body := h.Get(t, path, status)
		if strings.Contains(body, hostile) {
			t.Errorf("%s: the filter's text is in the page unescaped", path)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: the filter's text is not shown at all", path)
		}
	}
}
