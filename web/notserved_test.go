package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// hrefs are the href attributes of the links a selector finds.
func hrefs(doc *goquery.Document, selector string) []string {
	var out []string
	doc.Find(selector).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("href", "")) })
	return out
}

// A 404 for a resource the server does not serve at that version, or under
// that name, or in that group, says what it serves instead and links to
// the same page there, for every kind of page resolving a resource.
func TestUnservedResourceLeadsToWhatIsServed(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	for _, tc := range []struct {
		name, path  string
		testID      string // of the link expected
		want        string // its href
		message     string
		servedLabel string // of the group's resources, when listed
	}{
		{"a list at an unserved version keeps namespace and selector",
			"/c/dev/apis/apps/v1beta1/namespaces/demo/deployments?labelSelector=app%3Dweb",
			"served-version", "/c/dev/apis/apps/v1/namespaces/demo/deployments?labelSelector=app%3Dweb",
			"The API group apps serves deployments in v1, not in v1beta1.", "What apps/v1 serves"},
		{"an object page", "/c/dev/apis/apps/v1beta1/namespaces/demo/deployments/web?view=yaml",
			"served-version", "/c/dev/apis/apps/v1/namespaces/demo/deployments/web?view=yaml", "", ""},
		{"an edit page", "/c/dev/apis/apps/v1beta1/namespaces/demo/deployments/web/edit",
			"served-version", "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/edit", "", ""},
		{"a log page", "/c/dev/apis/apps/v1beta1/namespaces/demo/deployments/web/log",
			"served-version", "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/log", "", ""},
		{"a create page", "/c/dev/apis/apps/v1beta1/namespaces/demo/deployments/new",
			"served-version", "/c/dev/apis/apps/v1/namespaces/demo/deployments/new", "", ""},
		{"a typo", "/c/dev/apis/apps/v1/namespaces/demo/deploymnets",
			"did-you-mean", "/c/dev/apis/apps/v1/namespaces/demo/deployments",
			`The API group apps serves no resource "deploymnets" in v1. Did you mean deployments in apps/v1?`, "What apps/v1 serves"},
		{"a kind in the core group", "/c/dev/api/v1/namespaces/demo/Pod/web-5d9-a",
			"did-you-mean", "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a", "", "What the core group v1 serves"},
		{"a cluster-scoped suggestion drops the namespace", "/c/dev/api/v1/namespaces/demo/namespace",
			"did-you-mean", "/c/dev/api/v1/namespaces", "", ""},
		{"another group's resource", "/c/dev/apis/apps/v1/namespaces/demo/pods",
			"did-you-mean", "/c/dev/api/v1/namespaces/demo/pods", "", ""},
		{"an unknown group", "/c/dev/apis/app/v1/deployments",
			"closest-group", "/c/dev/#group-apps",
			`The server does not serve the API group "app". Did you mean deployments in apps/v1 or the group apps?`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body := h.Get(t, tc.path, http.StatusNotFound)
			doc := webtest.Parse(t, body)
			if got := hrefs(doc, "[data-testid="+tc.testID+"]"); len(got) == 0 || got[0] != tc.want {
				t.Errorf("%s links = %q, want %q first", tc.testID, got, tc.want)
			}
			if msg := doc.Find("[data-testid=error-message]").Text(); tc.message != "" && msg != tc.message {
				t.Errorf("message = %q, want %q", msg, tc.message)
			}
			served := doc.Find("[data-testid=served-resources]")
			if got := served.AttrOr("aria-label", ""); got != tc.servedLabel && tc.servedLabel != "" {
				t.Errorf("served resources labelled %q, want %q", got, tc.servedLabel)
			}
			if doc.Find("[data-testid=error-page] a[href='/c/dev/']").Length() != 1 {
				t.Error("no link to the context's API resources")
			}
		})
	}

	// The group's resources link to their lists in the same namespace.
	_, body := h.Get(t, "/c/dev/apis/apps/v1beta1/namespaces/demo/deployments", http.StatusNotFound)
	served := hrefs(webtest.Parse(t, body), "[data-testid=served-resources] a")
	if len(served) != 4 || served[1] != "/c/dev/apis/apps/v1/namespaces/demo/deployments" {
		t.Errorf("served resources = %q", served)
	}
	// Following the link shows the list.
	h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments?labelSelector=app%3Dweb", http.StatusOK)
}

// Names from the URL are text on the 404 page, never markup, and a
// hostile one suggests nothing.
func TestUnservedResourcePageEscapesTheURL(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	for path, code := range map[string]int{
		"/c/dev/apis/apps/v1/namespaces/demo/%3Cscript%3Ealert(1)%3C%2Fscript%3E?x=%22%3E%3Cimg%20src%3Dx%3E": http.StatusNotFound,
		"/c/dev/apis/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E/v1/deployments":                                 http.StatusNotFound,
		// No namespace can be named so: refused before discovery is asked.
		"/c/dev/apis/apps/v1beta1/namespaces/%22%3E%3Cb%3E/deployments?labelSelector=%22%3E%3Cb%3E": http.StatusBadRequest,
	} {
		_, body := h.Get(t, path, code)
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page contains %q unescaped", path, bad)
			}
		}
		doc := webtest.Parse(t, body)
		if doc.Find("[data-testid=error-message]").Text() == "" {
			t.Errorf("%s: no message", path)
		}
		for _, href := range hrefs(doc, "[data-testid=error-page] a") {
			if !strings.HasPrefix(href, "/c/dev/") {
				t.Errorf("%s: a link leaves the console: %q", path, href)
			}
		}
	}
}
