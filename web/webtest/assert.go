package webtest

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Stored is the object at apiPath (an API server path) as the fake stores
// it now, read over its API (which records no write); nil when it is not
// there.
func (c *Console) Stored(t testing.TB, apiPath string) *unstructured.Unstructured {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Fake.URL+apiPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Fake.Token)
	resp, err := c.Fake.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fake GET %s: %d %s", apiPath, resp.StatusCode, body)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(body); err != nil {
		t.Fatal(err)
	}
	return obj
}

// Writes are the fake's write requests so far, by method (all without
// one).
func (c *Console) Writes(methods ...string) []apitest.Write {
	var out []apitest.Write
	for _, w := range c.Fake.Writes() {
		if len(methods) == 0 || slices.Contains(methods, w.Method) {
			out = append(out, w)
		}
	}
	return out
}

// NoWrites fails unless the fake saw no write request at all.
func (c *Console) NoWrites(t testing.TB, why string) {
	t.Helper()
	if ws := c.Fake.Writes(); len(ws) != 0 {
		t.Errorf("%s: the fake saw %d writes, want none; first: %s %s %s", why, len(ws), ws[0].Method, ws[0].Path, ws[0].Body)
	}
}

// NoRealWrites fails if a write without dryRun=All reached the fake.
func (c *Console) NoRealWrites(t testing.TB, why string) {
	t.Helper()
	for _, w := range c.Fake.Writes() {
		if w.Query.Get("dryRun") != "All" {
			t.Errorf("%s: a real %s %s reached the fake: %s", why, w.Method, w.Path, w.Body)
		}
	}
}

// ListRV is the resourceVersion the list page at path hands its live
// stream.
func (c *Console) ListRV(t testing.TB, path string) string {
	t.Helper()
	_, body := c.Get(t, path, http.StatusOK)
	rv, ok := Parse(t, body).Find("[data-testid=live-list]").Attr("data-rv")
	if !ok || rv == "" {
		t.Fatal("the list page carries no resourceVersion to watch from")
	}
	return rv
}

// Columns are a list page's column headers.
func Columns(doc *goquery.Document) []string {
	var out []string
	doc.Find("[data-testid=list-table] thead th:not(.select-col)").Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Text()))
	})
	return out
}

// Texts are the trimmed texts of what sel finds.
func Texts(doc *goquery.Document, sel string) []string {
	var out []string
	doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, strings.TrimSpace(s.Text())) })
	return out
}

// Outer is s's HTML, for failure messages.
func Outer(s *goquery.Selection) string {
	h, _ := goquery.OuterHtml(s)
	return h
}

// ObjectActions are the data-testids of the object page's actions that
// follow the user's access.
var ObjectActions = []string{"edit-link", "scale-link", "restart", "delete-link", "logs-link"}

// Disabled checks that the action id is shown disabled with reason: a
// focusable button, aria-disabled, no link, the reason its description.
func Disabled(t testing.TB, p Page, id, reason string) {
	t.Helper()
	s := p.Doc.Find("[data-testid=" + id + "]")
	if s.Length() != 1 {
		t.Errorf("%s: %d elements", id, s.Length())
		return
	}
	if goquery.NodeName(s) != "button" || s.AttrOr("aria-disabled", "") != "true" || s.AttrOr("type", "") != "button" {
		t.Errorf("%s is not an aria-disabled button: %s", id, Outer(s))
	}
	if _, ok := s.Attr("href"); ok {
		t.Errorf("%s is disabled but links: %s", id, Outer(s))
	}
	if _, ok := s.Attr("disabled"); ok {
		t.Errorf("%s has the disabled attribute, which takes it out of the tab order", id)
	}
	if s.AttrOr("tabindex", "0") == "-1" {
		t.Errorf("%s is not focusable", id)
	}
	if s.Closest("form").Length() > 0 {
		t.Errorf("%s is disabled inside a form", id)
	}
	tip := p.Doc.Find("#" + s.AttrOr("aria-describedby", "none"))
	if got := strings.TrimSpace(tip.Text()); got != reason {
		t.Errorf("%s: reason %q, want %q", id, got, reason)
	}
	if tip.AttrOr("role", "") != "tooltip" {
		t.Errorf("%s: the reason is not a tooltip: %s", id, Outer(tip))
	}
}

// Enabled checks that the action id is a working link (or the restart
// form's button).
func Enabled(t testing.TB, p Page, id string) {
	t.Helper()
	s := p.Doc.Find("[data-testid=" + id + "]")
	if s.Length() != 1 {
		t.Errorf("%s: %d elements", id, s.Length())
		return
	}
	if _, ok := s.Attr("aria-disabled"); ok {
		t.Errorf("%s is disabled: %s", id, Outer(s))
	}
	if id == "restart" {
		if s.Closest("form").AttrOr("action", "") == "" {
			t.Errorf("restart is not a form's button")
		}
		return
	}
	if s.AttrOr("href", "") == "" {
		t.Errorf("%s does not link: %s", id, Outer(s))
	}
}

// EditorText is the YAML editor's text of p.
func EditorText(t testing.TB, p Page) string {
	t.Helper()
	ta := p.Doc.Find("textarea[data-testid=yaml-editor]")
	if ta.Length() != 1 {
		t.Fatalf("no editor textarea; page:\n%s", Clip(p.Body))
	}
	return ta.Text()
}

// ReplaceLine swaps one exact line of text, failing when it is not there.
func ReplaceLine(t testing.TB, text, old, new string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	i := slices.Index(lines, old)
	if i < 0 {
		t.Fatalf("no line %q in:\n%s", old, text)
	}
	lines[i] = new
	return strings.Join(lines, "\n")
}

// KeepsText fails unless the page still carries text in its yaml field
// (the editor's textarea, or the hidden one of a review or conflict form).
func KeepsText(t testing.TB, p Page, text string) {
	t.Helper()
	if got := p.Textarea("yaml"); got != text {
		t.Errorf("the page lost the user's text:\n got: %q\nwant: %q", Clip(got), Clip(text))
	}
}
