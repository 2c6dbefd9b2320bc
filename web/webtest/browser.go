package webtest

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Browser is a console user: a cookie jar, forms as a browser sends them
// (same-origin Origin and Sec-Fetch-Site, textareas with CRLF line ends),
// redirects not followed. Every request asserts its status code, failing
// the test the browser was made for (see For).
type Browser struct {
	Console *Console
	Client  *http.Client
	t       testing.TB
}

// NewBrowser is a browser of c with an empty cookie jar.
func NewBrowser(t testing.TB, c *Console) *Browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Browser{Console: c, t: t, Client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// For is the same browser (its cookies) failing t, a subtest, instead.
func (b *Browser) For(t testing.TB) *Browser {
	c := *b
	c.t = t
	return &c
}

// Page is one response.
type Page struct {
	Resp *http.Response
	Body string
	Doc  *goquery.Document
}

// Location is the response's Location header.
func (p Page) Location() string { return p.Resp.Header.Get("Location") }

// Text of the first element with data-testid id.
func (p Page) Text(id string) string {
	return strings.TrimSpace(p.Doc.Find("[data-testid=" + id + "]").First().Text())
}

// Has tells whether an element has data-testid id.
func (p Page) Has(id string) bool { return p.Doc.Find("[data-testid="+id+"]").Length() > 0 }

// Textarea is the content of the form's textarea named name (the hidden
// yaml field on review and conflict pages, the editor's own otherwise).
func (p Page) Textarea(name string) string {
	return p.Doc.Find("textarea[name=" + name + "]").Last().Text()
}

// Get fetches path.
func (b *Browser) Get(path string, want int) Page {
	b.t.Helper()
	return b.GetWith(path, want, nil)
}

// GetWith is Get with request headers, such as the Sec-Fetch-Dest a
// browser sends for a script or a fetch, or As(token).
func (b *Browser) GetWith(path string, want int, hdr map[string]string) Page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.Console.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return b.Do(req, want)
}

// Post sends form values to path, with headers as a same-origin browser
// sends them unless hdr overrides them ("" removes one).
func (b *Browser) Post(path string, values url.Values, want int, hdr map[string]string) Page {
	b.t.Helper()
	return b.post(path, values.Encode(), want, hdr)
}

// post sends an encoded form body to path, as Post does.
func (b *Browser) post(path, body string, want int, hdr map[string]string) Page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.Console.URL+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.Console.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return b.Do(req, want)
}

// Do sends req with the browser's cookies.
func (b *Browser) Do(req *http.Request, want int) Page {
	b.t.Helper()
	resp, err := b.Client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	if resp.StatusCode != want {
		b.t.Fatalf("%s %s: status %d, want %d; body:\n%s", req.Method, req.URL.Path, resp.StatusCode, want, Clip(string(body)))
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		b.t.Fatal(err)
	}
	return Page{Resp: resp, Body: string(body), Doc: doc}
}

// CSRFToken is the browser's CSRF cookie for the console.
func (b *Browser) CSRFToken() string {
	u, _ := url.Parse(b.Console.URL)
	for _, c := range b.Client.Jar.Cookies(u) {
		if c.Name == "tabula_csrf" {
			return c.Value
		}
	}
	return ""
}

// Form is an HTML form as read from a page.
type Form struct {
	// Action is where the form posts; Values are the fields it sends.
	Action  string
	Values  url.Values
	b       *Browser
	buttons []string // values of the submit buttons named "action"
	areas   map[string]bool
	// order is the fields' names as the page has them: a browser sends
	// them in that order (the CSRF check reads the first one).
	order []string
}

// Form reads the form matching sel (a CSS selector) of p.
func (b *Browser) Form(p Page, sel string) *Form {
	b.t.Helper()
	s := p.Doc.Find(sel)
	if s.Length() != 1 {
		b.t.Fatalf("%d forms match %q; page:\n%s", s.Length(), sel, Clip(p.Body))
	}
	f := &Form{b: b, Action: s.AttrOr("action", ""), Values: url.Values{}, areas: map[string]bool{}}
	add := func(name, value string) {
		if _, seen := f.Values[name]; !seen {
			f.order = append(f.order, name)
		}
		f.Values.Add(name, value)
	}
	fields := s.Find("input[name], textarea[name]")
	if id := s.AttrOr("id", ""); id != "" {
		// As a browser does: fields outside the form join it by form=.
		fields = fields.AddSelection(p.Doc.Find(fmt.Sprintf(`input[name][form=%q], textarea[name][form=%q]`, id, id)))
	}
	fields.Each(func(_ int, in *goquery.Selection) {
		name := in.AttrOr("name", "")
		if goquery.NodeName(in) == "textarea" {
			add(name, in.Text())
			f.areas[name] = true
			return
		}
		switch in.AttrOr("type", "text") {
		case "checkbox", "radio":
			if _, checked := in.Attr("checked"); !checked {
				return
			}
			add(name, in.AttrOr("value", "on"))
		case "submit", "button":
		default:
			add(name, in.AttrOr("value", ""))
		}
	})
	s.Find("button[name=action]").Each(func(_ int, btn *goquery.Selection) {
		f.buttons = append(f.buttons, btn.AttrOr("value", ""))
	})
	return f
}

// Set replaces a field's values.
func (f *Form) Set(name string, values ...string) *Form {
	f.Values[name] = values
	return f
}

// Get is a field's first value.
func (f *Form) Get(name string) string { return f.Values.Get(name) }

// Submit posts the form as if the button with value action was pressed
// ("" for a form without named buttons). The button must be on the page.
func (f *Form) Submit(action string, want int) Page {
	f.b.t.Helper()
	return f.SubmitWith(action, want, nil)
}

// SubmitWith is Submit with request headers, as Browser.Post takes them.
func (f *Form) SubmitWith(action string, want int, hdr map[string]string) Page {
	f.b.t.Helper()
	if action != "" && !slices.Contains(f.buttons, action) {
		f.b.t.Fatalf("the form has no %q button; it has %q", action, f.buttons)
	}
	return f.Send(action, want, hdr)
}

// Send posts the form with any action value, as a forged or scripted
// request may. Fields go in the page's order, as a browser sends them,
// then those a test added, then the action.
func (f *Form) Send(action string, want int, hdr map[string]string) Page {
	f.b.t.Helper()
	names := slices.Clone(f.order)
	for _, k := range slices.Sorted(maps.Keys(f.Values)) {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	var body []string
	field := func(k, v string) { body = append(body, url.QueryEscape(k)+"="+url.QueryEscape(v)) }
	for _, k := range names {
		if k == "action" && action != "" {
			continue
		}
		for _, v := range f.Values[k] {
			if f.areas[k] {
				// Browsers send textarea line ends as CRLF.
				v = strings.ReplaceAll(v, "\n", "\r\n")
			}
			field(k, v)
		}
	}
	if action != "" {
		field("action", action)
	}
	return f.b.post(f.Action, strings.Join(body, "&"), want, hdr)
}
