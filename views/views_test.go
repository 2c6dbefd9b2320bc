package views

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
)

func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(templ.WithNonce(context.Background(), "n0nce"), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func testLayout() Layout {
	return Layout{
		Title:  "API resources",
		Assets: Assets{Styles: ".brand{color:teal}", JS: "/static/app.1.js"},
		Context: ContextBar{Current: "dev", Cluster: "kind-dev", Server: "https://127.0.0.1:6443", Options: []ContextOption{
			{Name: "dev", Cluster: "kind-dev", Href: "/c/dev/", Current: true},
			{Name: "prod", Cluster: "eks", Href: "/c/prod/"},
		}},
	}
}

func TestBaseCarriesNonceAssetsAndContext(t *testing.T) {
	doc := renderDoc(t, Home(HomePage{Layout: testLayout()}))
	if got := doc.Find("script[type=module]").AttrOr("nonce", ""); got != "n0nce" {
		t.Errorf("script nonce = %q", got)
	}
	// The stylesheet is inline, under the nonce, and nothing blocks the
	// first paint on a request.
	if style := doc.Find("head style"); style.AttrOr("nonce", "") != "n0nce" || style.Text() != ".brand{color:teal}" {
		t.Errorf("inline stylesheet: nonce %q, text %q", style.AttrOr("nonce", ""), style.Text())
	}
	if n := doc.Find("link[rel=stylesheet]").Length(); n != 0 {
		t.Errorf("%d linked stylesheets", n)
	}
	if got := doc.Find("title").Text(); got != "API resources · dev · Tabula" {
		t.Errorf("title = %q", got)
	}
	current := doc.Find("[data-testid=context-switcher] a[aria-current]")
	if current.Length() != 1 || current.AttrOr("href", "") != "/c/dev/" {
		t.Errorf("current context link: %d, href %q", current.Length(), current.AttrOr("href", ""))
	}
	if doc.Find("html").AttrOr("data-theme", "x") != "" {
		t.Error("data-theme should be empty without a stored choice")
	}
}

// The sidebar is a popover the header's menu button opens (used below the
// CSS breakpoint); a page without a sidebar has no menu button.
func TestMenuButtonOpensTheSidebar(t *testing.T) {
	l := testLayout()
	l.Nav = []NavGroup{{Label: "core", Open: true, Items: []NavItem{{Label: "pods", Href: "/c/dev/api/v1/pods"}}}}
	doc := renderDoc(t, Home(HomePage{Layout: l}))
	toggle := doc.Find("header [data-testid=nav-toggle]")
	sidebar := doc.Find("nav#sidebar[popover]")
	if toggle.Length() != 1 || sidebar.Length() != 1 || toggle.AttrOr("popovertarget", "") != "sidebar" {
		t.Fatalf("menu button %d (target %q), popover sidebar %d", toggle.Length(), toggle.AttrOr("popovertarget", ""), sidebar.Length())
	}
	if toggle.AttrOr("aria-label", "") == "" || sidebar.Find("[data-testid=nav-close]").AttrOr("popovertargetaction", "") != "hide" {
		t.Error("the menu button needs a name, and the sidebar a close button")
	}
	if doc := renderDoc(t, Home(HomePage{Layout: testLayout()})); doc.Find("[data-testid=nav-toggle]").Length() != 0 {
		t.Error("a page without a sidebar shows a menu button")
	}
}

func TestThemeOnlyAcceptsKnownValues(t *testing.T) {
	l := testLayout()
	l.Theme = `dark" onload="alert(1)`
	doc := renderDoc(t, Home(HomePage{Layout: l}))
	if got := doc.Find("html").AttrOr("data-theme", "x"); got != "" {
		t.Errorf("data-theme = %q, want empty for an unknown value", got)
	}
	l.Theme = "dark"
	if got := renderDoc(t, Home(HomePage{Layout: l})).Find("html").AttrOr("data-theme", ""); got != "dark" {
		t.Errorf("data-theme = %q, want dark", got)
	}
}

func TestHomeRendersGroupsAndResources(t *testing.T) {
	page := HomePage{
		Layout: testLayout(),
		Health: func() HomeHealth {
			return HomeHealth{ServerVersion: "v1.36.1", Nodes: "1 of 2 ready", ProblemsHref: "/c/dev/problems",
				Counts: []ProblemCount{{ID: "pods", Label: "pods in trouble", N: 3, Href: "/c/dev/problems#pods"}}}
		},
		Unavailable: []string{"metrics.k8s.io/v1beta1"},
		Groups: []APIGroup{
			{Anchor: "group-core", Name: "core", Version: "v1", Versions: []string{"v1"}, Resources: []APIResource{
				{Name: "pods", Kind: "Pod", Href: "/c/dev/api/v1/pods", Namespaced: true, ShortNames: []string{"po"}, Listable: true},
				{Name: "bindings", Kind: "Binding", Namespaced: true},
			}},
			{Anchor: "group-empty", Name: "empty.example.com", Version: "v1"},
		},
	}
	doc := renderDoc(t, Home(page))
	if n := doc.Find("[data-testid=api-group]").Length(); n != 2 {
		t.Fatalf("%d groups rendered", n)
	}
	pods := doc.Find("[data-testid=api-resource]").First()
	if pods.Find("a").AttrOr("href", "") != "/c/dev/api/v1/pods" || !strings.Contains(pods.Text(), "po") {
		t.Errorf("pods item = %q", pods.Text())
	}
	if doc.Find("[data-testid=api-resource]").Eq(1).Find("a").Length() != 0 {
		t.Error("an unlistable resource is a link")
	}
	if !strings.Contains(doc.Find("[data-testid=discovery-warning]").Text(), "metrics.k8s.io/v1beta1") {
		t.Error("the discovery warning does not name the failed group version")
	}
	if !strings.Contains(doc.Find("#group-empty").Text(), "No resources") {
		t.Error("an empty group says nothing")
	}
	health := doc.Find("[data-testid=home-health]")
	if health.Find("[data-testid=server-version]").Text() != "v1.36.1" || health.Find("[data-testid=nodes-ready]").Text() != "1 of 2 ready" {
		t.Errorf("health = %q", health.Text())
	}
	if c := health.Find("[data-testid=problem-count][data-category=pods]"); c.AttrOr("href", "") != "/c/dev/problems#pods" || !strings.Contains(c.Text(), "3") {
		t.Errorf("pods count = %q → %q", c.Text(), c.AttrOr("href", ""))
	}
	// The health is counted last, so it is sent after the catalogue, and a
	// declarative shadow root shows it first: its slot comes before the
	// catalogue's, with a note in its place until it arrives.
	body := doc.Find("[data-testid=home-body]")
	if body.Find(".page-head ~ [slot=health] [data-testid=home-health]").Length() != 1 {
		t.Error("the health is not sent after the catalogue, into the health slot")
	}
	slots := body.ChildrenFiltered("template[shadowrootmode=open]").Find("slot")
	if slots.Length() != 2 || slots.First().AttrOr("name", "") != "health" || slots.Last().AttrOr("name", "-") != "-" {
		t.Errorf("the shadow root's slots: %d, first %q", slots.Length(), slots.First().AttrOr("name", ""))
	}
	if got := slots.First().Find("[data-testid=health-pending]").Text(); got != "Counting problems…" {
		t.Errorf("the health's place says %q until it comes", got)
	}
}

func TestErrorRendersStatusFaithfully(t *testing.T) {
	doc := renderDoc(t, Error(ErrorPage{
		Layout: testLayout(), Code: 422, Title: "Unprocessable Entity", Reason: "Invalid",
		Message:   `Lighthouse.maritime.tabula.dev "x" is invalid`,
		Causes:    []ErrorCause{{Field: "spec.rangeNauticalMiles", Reason: "FieldValueInvalid", Message: "must be positive"}},
		RetryHref: "/c/dev/", Links: []Link{{Label: "Home", Href: "/c/dev/"}},
	}))
	for sel, want := range map[string]string{
		"[data-testid=error-code]":    "422",
		"[data-testid=error-reason]":  "Invalid",
		"[data-testid=error-message]": `Lighthouse.maritime.tabula.dev "x" is invalid`,
		".causes code":                "spec.rangeNauticalMiles",
	} {
		if got := doc.Find(sel).Text(); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if doc.Find("[data-testid=error-retry]").AttrOr("href", "") != "/c/dev/" {
		t.Error("retry link missing")
	}
}

func TestErrorEscapesHostileMessages(t *testing.T) {
	doc := renderDoc(t, Error(ErrorPage{Layout: testLayout(), Code: 404, Message: `<script>alert(1)</script>`}))
	if doc.Find("main script").Length() != 0 {
		t.Error("a message injected a script element")
	}
	if got := doc.Find("[data-testid=error-message]").Text(); got != `<script>alert(1)</script>` {
		t.Errorf("message = %q, want it shown as text", got)
	}
}

func TestListRowsEscapeEverything(t *testing.T) {
	page := ListPage{Layout: testLayout(), Kind: "Pod", Resource: "pods", Rows: StaticRows([]ListRow{{
		Key:        `"><script>`,
		Conditions: []string{"<Completed>"},
		Cells: []Cell{
			{Text: "<b>web</b>", Href: `/c/dev/api/v1/pods/"x"`},
			{Text: "5d", Title: `2026-01-01T00:00:00Z"`, Time: true},
			{Text: "3", Numeric: true},
		},
	}})}
	doc := renderDoc(t, List(page))
	row := doc.Find("[data-testid=list-table] tbody tr")
	if row.Length() != 1 || doc.Find("tbody script, tbody b").Length() != 0 {
		t.Fatalf("rows = %d; injected elements present", row.Length())
	}
	if got := row.AttrOr("data-key", ""); got != `"><script>` {
		t.Errorf("data-key = %q", got)
	}
	if !row.HasClass("row-done") || row.Find(".tag-cond").Text() != "<Completed>" {
		t.Error("row condition lost")
	}
	a := row.Find("td a")
	if a.Text() != "<b>web</b>" || a.AttrOr("href", "") != `/c/dev/api/v1/pods/"x"` {
		t.Errorf("link = %q → %q", a.Text(), a.AttrOr("href", ""))
	}
	if row.Find("time").AttrOr("title", "") != `2026-01-01T00:00:00Z"` {
		t.Error("time title lost")
	}
	if !row.Find("td").Eq(2).HasClass("num") {
		t.Error("numeric cell not marked")
	}
}

// make bench reads the list's first paint from Element Timing: exactly one
// element, the first row's first cell, carries the mark, and rows pushed
// live never do.
func TestOnlyThePagesFirstCellIsMarkedForElementTiming(t *testing.T) {
	rows := []ListRow{
		{Key: "x/a", Cells: []Cell{{Text: "a", Href: "/c/dev/api/v1/namespaces/x/pods/a"}, {Text: "1", Numeric: true}}},
		{Key: "x/b", Cells: []Cell{{Text: "b", Href: "/c/dev/api/v1/namespaces/x/pods/b"}, {Text: "2", Numeric: true}}},
	}
	doc := renderDoc(t, List(ListPage{Layout: testLayout(), Kind: "Pod", Resource: "pods", Rows: StaticRows(rows)}))
	if n := doc.Find("[elementtiming]").Length(); n != 1 {
		t.Fatalf("%d elements carry elementtiming, want 1", n)
	}
	if !doc.Find("[data-testid=list-table] tbody tr").First().Find("td").First().Is("[elementtiming=list-first-row]") {
		t.Error("the first row's first cell is not the one marked")
	}
	if got := doc.Find("[data-live-count]").Text(); got != "2" {
		t.Errorf("row count %q, want 2 (counted as the rows were written)", got)
	}
	var live strings.Builder
	if err := WriteRows(context.Background(), &live, rows); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(live.String(), "elementtiming") {
		t.Errorf("a live row carries the first-paint mark: %s", live.String())
	}
}

// A row source that fails after some rows fails the render, so the page
// buffer is dropped and an error page is served instead.
func TestAFailingRowSourceFailsTheRender(t *testing.T) {
	src := &failingRows{rows: []ListRow{{Key: "x/a", Cells: []Cell{{Text: "a"}}}}, err: errors.New("cut short")}
	err := List(ListPage{Layout: testLayout(), Kind: "Pod", Resource: "pods", Rows: StreamRows(src)}).Render(context.Background(), io.Discard)
	if !errors.Is(err, src.err) {
		t.Fatalf("render error %v, want %v", err, src.err)
	}
}

type failingRows struct {
	rows []ListRow
	i    int
	err  error
}

func (f *failingRows) Next() bool   { f.i++; return f.i <= len(f.rows) }
func (f *failingRows) Row() ListRow { return f.rows[f.i-1] }
func (f *failingRows) Err() error   { return f.err }

// An empty list says why: the selectors that matched nothing and where,
// offering to clear them; without selectors, where nothing is, offering
// to create one when the user may.
func TestEmptyListSaysWhy(t *testing.T) {
	base := ListPage{Layout: testLayout(), Kind: "Pod", Resource: "pods", Namespaced: true, Namespace: "demo", Rows: StaticRows(nil),
		Filter: ListFilter{ClearHref: "/c/dev/api/v1/namespaces/demo/pods?wide=1"}, CreateHref: "/c/dev/api/v1/namespaces/demo/pods/new"}
	for _, tc := range []struct {
		name         string
		edit         func(*ListPage)
		reason       string
		clear, creat string
	}{
		{"label selector", func(p *ListPage) { p.Filter.LabelSelector = "app=web" },
			"No pods match the label selector app=web in namespace demo.", "Clear the selector", ""},
		{"both selectors, all namespaces", func(p *ListPage) {
			p.Filter.LabelSelector, p.Filter.FieldSelector, p.Namespace = "tier in (a,b)", "status.phase=Running", ""
		}, "No pods match the label selector tier in (a,b) and the field selector status.phase=Running in any namespace.", "Clear the selectors", ""},
		{"field selector, cluster-scoped", func(p *ListPage) {
			p.Kind, p.Resource, p.Namespaced, p.Namespace, p.Filter.FieldSelector = "Node", "nodes", false, "", "metadata.name=x"
		}, "No nodes match the field selector metadata.name=x.", "Clear the selector", ""},
		{"nothing in a namespace", func(*ListPage) {}, "No pods in namespace demo.", "", "Create a Pod"},
		{"nothing anywhere", func(p *ListPage) { p.Namespace, p.Kind, p.Resource = "", "Ingress", "ingresses" }, "No ingresses in any namespace.", "", "Create an Ingress"},
		{"may not create", func(p *ListPage) { p.CreateDenied = "You may not create pods." }, "No pods in namespace demo.", "", ""},
		{"cluster-scoped", func(p *ListPage) { p.Resource, p.Namespaced, p.Namespace, p.CreateHref = "nodes", false, "", "" }, "No nodes.", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.edit(&p)
			doc := renderDoc(t, List(p))
			empty := doc.Find("[data-testid=list-empty]")
			if _, hidden := empty.Attr("hidden"); hidden {
				t.Error("the empty state is hidden")
			}
			if got := empty.Find("[data-testid=list-empty-reason]").Text(); got != tc.reason {
				t.Errorf("reason = %q, want %q", got, tc.reason)
			}
			clear := empty.Find("[data-testid=list-empty-clear]")
			if got := clear.Text(); got != tc.clear {
				t.Errorf("clear link %q, want %q", got, tc.clear)
			} else if tc.clear != "" && clear.AttrOr("href", "") != "/c/dev/api/v1/namespaces/demo/pods?wide=1" {
				t.Errorf("clear link leads to %q", clear.AttrOr("href", ""))
			}
			if got := empty.Find("[data-testid=list-empty-create]").Text(); got != tc.creat {
				t.Errorf("create link %q, want %q", got, tc.creat)
			}
		})
	}
	// A list with rows has the empty state hidden (live updates show it).
	p := base
	p.Rows = StaticRows([]ListRow{{Key: "demo/a", Cells: []Cell{{Text: "a", Name: true}}}})
	if _, hidden := renderDoc(t, List(p)).Find("[data-testid=list-empty]").Attr("hidden"); !hidden {
		t.Error("a list with rows shows its empty state")
	}
	// Selectors are text, never markup.
	p = base
	p.Filter.LabelSelector = `<img src=x onerror=alert(1)>`
	var buf bytes.Buffer
	if err := List(p).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<img src=x") {
		t.Error("a selector is rendered as markup")
	}
}

// A condition's status names its class only when it is one the conventions
// define: a server's "False hidden" must not pick classes of the page.
func TestConditionStatusNamesNoClassOfTheServers(t *testing.T) {
	conds := []Condition{{Type: "Ready", Status: "True"}, {Type: "Odd", Status: "False hidden skip-link"}, {Type: "Stale", Status: "Unknown"}}
	doc := renderDoc(t, conditionsSection(conds))
	var classes []string
	doc.Find("span.status").Each(func(_ int, s *goquery.Selection) {
		classes = append(classes, strings.Join(strings.Fields(s.AttrOr("class", "")), " "))
	})
	want := []string{"status status-True", "status", "status status-Unknown"}
	if strings.Join(classes, "|") != strings.Join(want, "|") {
		t.Errorf("status classes %q, want %q", classes, want)
	}
	if got := doc.Find("span.status").Eq(1).Text(); got != "False hidden skip-link" {
		t.Errorf("the status text %q is not shown as sent", got)
	}
}
