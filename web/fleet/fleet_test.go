package fleet_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/page"
	"github.com/tabula-console/tabula/web/webtest"
)

// twoClusters serves a console over two fake API servers, east and west,
// each with its own token.
func twoClusters(t *testing.T) (*webtest.Console, map[string]*apitest.Server) {
	return twoClustersWith(t, web.Deps{})
}

// twoClustersWith is twoClusters with the console's dependencies d.
func twoClustersWith(t *testing.T, d web.Deps) (*webtest.Console, map[string]*apitest.Server) {
	t.Helper()
	fakes := map[string]*apitest.Server{}
	merged := clientcmdapi.NewConfig()
	for _, name := range []string{"east", "west"} {
		gvs := []apitest.GroupVersion{apitest.CoreV1(), apitest.AppsV1()}
		if name == "east" {
			gvs = append(gvs, apitest.MaritimeV1Alpha1()) // west does not serve lighthouses
		}
		fake := apitest.NewServer(t, gvs...)
		fake.Token = "token-of-" + name
		fake.Add(apitest.Pod("demo", "web-"+name, nil))
		fakes[name] = fake
		cfg := fake.Kubeconfig(name)
		merged.Clusters[name] = cfg.Clusters["fake"]
		merged.AuthInfos[name] = cfg.AuthInfos["fake-user"]
		merged.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	merged.CurrentContext = "east"
	clusters, err := apiclient.FromKubeconfig(*merged, apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Clusters = clusters
	return webtest.Start(t, fakes["east"], webtest.Options{Deps: d}), fakes
}

// noCrossing fails if a fake received a request without its own token.
func noCrossing(t *testing.T, fakes map[string]*apitest.Server) {
	t.Helper()
	for name, fake := range fakes {
		n := 0
		for _, r := range fake.Requests() {
			n++
			if got := r.Header.Get("Authorization"); got != "Bearer token-of-"+name {
				t.Errorf("%s received %s %s with Authorization %q", name, r.Method, r.URL.Path, got)
			}
		}
		if n == 0 {
			t.Errorf("%s was never asked", name)
		}
	}
}

func TestFleetHomeHasARowPerCluster(t *testing.T) {
	h, fakes := twoClusters(t)
	for path, want := range map[string][]string{
		"/c/_all/":      {"east", "west"},
		"/c/west,east/": {"west", "east"},
	} {
		_, body := h.Get(t, path, http.StatusOK)
		doc := webtest.Parse(t, body)
		var got []string
		doc.Find("[data-testid=fleet-row]").Each(func(_ int, s *goquery.Selection) {
			got = append(got, s.AttrOr("data-context", "")+"/"+s.AttrOr("data-reachable", ""))
		})
		if strings.Join(got, ",") != want[0]+"/true,"+want[1]+"/true" {
			t.Errorf("%s: rows %v", path, got)
		}
		if v := doc.Find("[data-testid=fleet-row][data-context=west] [data-testid=fleet-version]").Text(); v == "" {
			t.Errorf("%s: no server version for west", path)
		}
		if href := doc.Find("[data-testid=fleet-row][data-context=west] [data-testid=fleet-problems]").AttrOr("href", ""); href != "/c/west/problems" {
			t.Errorf("%s: west's problems link %q", path, href)
		}
	}
	noCrossing(t, fakes)
}

func TestFleetURLsRefuseWhatTheyCannotServe(t *testing.T) {
	h, fakes := twoClusters(t)
	many := make([]string, 65)
	for i := range many {
		many[i] = fmt.Sprintf("c%d", i)
	}
	for path, status := range map[string]int{
		"/c/east,east/":                                http.StatusBadRequest, // twice
		"/c/east,,west/":                               http.StatusBadRequest, // empty name
		"/c/" + strings.Join(many, ",") + "/":          http.StatusBadRequest, // too many
		"/c/east," + strings.Repeat("x", 5000) + "/":   http.StatusBadRequest, // too long
		"/c/east,nosuch/":                              http.StatusNotFound,   // not offered
		"/c/_all/api/v1/namespaces/demo/pods/web-east": http.StatusBadRequest, // an object
		"/c/_all/jump?q=pods":                          http.StatusBadRequest, // one cluster's page
		"/c/_all/api/v1/pods?export=csv":               http.StatusBadRequest, // one cluster's export
		"/fleet":                                       http.StatusBadRequest, // nothing chosen
		"/fleet?context=nosuch":                        http.StatusNotFound,
	} {
		for _, f := range fakes {
			f.ResetRequests()
		}
		h.Get(t, path, status)
		for name, f := range fakes {
			if n := len(f.Requests()); n != 0 {
				t.Errorf("%s: %d requests reached %s", path[:min(len(path), 40)], n, name)
			}
		}
	}
	resp, _ := h.Get(t, "/fleet?context=west&context=east&context=west", http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); loc != "/c/west,east/" {
		t.Errorf("the switcher's form went to %q", loc)
	}
	resp, _ = h.Get(t, "/fleet?context=west", http.StatusSeeOther)
	if loc := resp.Header.Get("Location"); loc != "/c/west/" {
		t.Errorf("one context chosen went to %q", loc)
	}
}

// A cluster that stopped shows why in its own row and section; the other
// answers as usual.
func TestFleetPagesWithAStoppedCluster(t *testing.T) {
	h, fakes := twoClusters(t)
	fakes["west"].Close()
	_, body := h.Get(t, "/c/_all/", http.StatusOK)
	doc := webtest.Parse(t, body)
	if doc.Find("[data-testid=fleet-row][data-context=east][data-reachable=true]").Length() != 1 {
		t.Error("east is not reachable")
	}
	if msg := doc.Find("[data-testid=fleet-row][data-context=west] [data-testid=fleet-error]").Text(); msg == "" {
		t.Error("west's row does not say why it is unreachable")
	}
	_, body = h.Get(t, "/c/_all/problems", http.StatusOK)
	doc = webtest.Parse(t, body)
	if doc.Find("[data-testid=fleet-problems-section][data-context=east] [data-testid=problem-counts]").Length() != 1 {
		t.Error("east's Problems are missing")
	}
	if msg := doc.Find("[data-testid=fleet-problems-section][data-context=west] [data-testid=fleet-problems-error]").Text(); msg == "" {
		t.Error("west's section does not say why")
	}
	// Every id once: each cluster's sections have their own.
	seen := map[string]bool{}
	doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if seen[id] {
			t.Errorf("id %q twice", id)
		}
		seen[id] = true
	})
}

// The fleet's home asks again on its own: a cluster that stops shows as
// unreachable without a reload.
func TestFleetHomeIsLive(t *testing.T) {
	h, fakes := twoClustersWith(t, web.Deps{FleetRefresh: 20 * time.Millisecond})
	_, body := h.Get(t, "/c/_all/", http.StatusOK)
	if live := webtest.Parse(t, body).Find("[data-testid=fleet-live]").AttrOr("data-live", ""); live != "sections" {
		t.Fatalf("data-live = %q", live)
	}
	c := h.Dial(t, "/c/_all/")
	fakes["west"].Close()
	webtest.NextData(c, 10*time.Second, func(m struct {
		Type     string            `json:"type"`
		Sections map[string]string `json:"sections"`
	}) bool {
		return m.Type == "SECTIONS" && strings.Contains(m.Sections["fleet"], `data-context="west" data-reachable="false"`)
	})
}

// A list over two clusters: a section each, in its own columns, its rows
// linked into its own context, live from its own list; a kind one cluster
// does not serve says so there.
func TestFleetListHasASectionPerCluster(t *testing.T) {
	h, fakes := twoClusters(t)
	_, body := h.Get(t, "/c/_all/api/v1/namespaces/demo/pods", http.StatusOK)
	doc := webtest.Parse(t, body)
	for _, name := range []string{"east", "west"} {
		sec := doc.Find("[data-testid=fleet-list-section][data-context=" + name + "]")
		if href := sec.Find("[data-testid=list-table] tbody a").First().AttrOr("href", ""); href != "/c/"+name+"/api/v1/namespaces/demo/pods/web-"+name {
			t.Errorf("%s: first row links to %q", name, href)
		}
		live := sec.Find("[data-testid=live-list]")
		if live.AttrOr("data-live", "") != "list" || live.AttrOr("data-live-url", "") != "/c/"+name+"/api/v1/namespaces/demo/pods" || live.AttrOr("data-rv", "") == "" {
			t.Errorf("%s: live %q from %q at %q", name, live.AttrOr("data-live", ""), live.AttrOr("data-live-url", ""), live.AttrOr("data-rv", ""))
		}
	}
	_, body = h.Get(t, "/c/_all/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses?labelSelector=app%3Dx", http.StatusOK)
	doc = webtest.Parse(t, body)
	if msg := doc.Find("[data-testid=fleet-list-section][data-context=west] [data-testid=fleet-list-error]").Text(); !strings.Contains(msg, "does not serve") {
		t.Errorf("west does not say it serves no lighthouses: %q", msg)
	}
	if doc.Find("[data-testid=fleet-list-section][data-context=east] [data-testid=live-list]").Length() != 1 {
		t.Error("east's lighthouses are missing")
	}
	fakes["west"].Close()
	_, body = h.Get(t, "/c/east,west/api/v1/namespaces/demo/pods", http.StatusOK)
	doc = webtest.Parse(t, body)
	if doc.Find("[data-testid=fleet-list-section][data-context=east] [data-testid=list-table]").Length() != 1 || doc.Find("[data-testid=fleet-list-section][data-context=west] [data-testid=fleet-list-error]").Text() == "" {
		t.Error("a stopped cluster's section does not say why, or held up the other")
	}
	noCrossing(t, map[string]*apitest.Server{"east": fakes["east"]})
}

// A search over two clusters: a section each, its kinds in it, linking to
// the same search in that context alone.
func TestFleetSearchGroupsByClusterThenKind(t *testing.T) {
	h, fakes := twoClusters(t)
	_, body := h.Get(t, "/c/_all/search?q=web+ns:demo", http.StatusOK)
	doc := webtest.Parse(t, body)
	for _, name := range []string{"east", "west"} {
		sec := doc.Find("[data-testid=fleet-search-section][data-context=" + name + "]")
		if sec.Find("[data-testid=search-group][data-kind=Pod]").Length() != 1 {
			t.Errorf("%s: no Pod group: %q", name, sec.Text())
		}
		if href := sec.Find("h2 a").AttrOr("href", ""); !strings.HasPrefix(href, "/c/"+name+"/search?") {
			t.Errorf("%s: links to %q", name, href)
		}
	}
	seen := map[string]bool{}
	doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
		if id := s.AttrOr("id", ""); seen[id] {
			t.Errorf("id %q twice", id)
		} else {
			seen[id] = true
		}
	})
	_, body = h.Get(t, "/c/_all/search?q="+strings.Repeat("(", 3), http.StatusBadRequest)
	if webtest.Parse(t, body).Find("[data-testid=search-error]").Text() == "" {
		t.Error("a bad query is refused without a reason")
	}
	noCrossing(t, fakes)
}

// ?merge=1: one table with a Cluster column where the columns agree; a
// cluster without rows says why above it.
func TestFleetListMerged(t *testing.T) {
	h, _ := twoClusters(t)
	_, body := h.Get(t, "/c/_all/api/v1/namespaces/demo/pods?merge=1", http.StatusOK)
	doc := webtest.Parse(t, body)
	table := doc.Find("[data-testid=fleet-merged] table")
	if head := table.Find("th").First().Text(); head != "Cluster" {
		t.Errorf("first column %q", head)
	}
	var clusters []string
	table.Find("tbody tr").Each(func(_ int, s *goquery.Selection) {
		clusters = append(clusters, strings.TrimSpace(s.Find("td").First().Text()))
	})
	if strings.Join(clusters, ",") != "east,west" {
		t.Errorf("rows from %v", clusters)
	}
	if href := doc.Find("[data-testid=fleet-merge-toggle]").AttrOr("href", ""); href != "/c/_all/api/v1/namespaces/demo/pods" {
		t.Errorf("the toggle goes to %q", href)
	}
	_, body = h.Get(t, "/c/_all/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses?merge=1", http.StatusOK)
	doc = webtest.Parse(t, body)
	if doc.Find("[data-testid=fleet-merged]").Length() != 1 || doc.Find("[data-testid=fleet-list-error][data-context=west]").Length() != 1 {
		t.Error("a cluster that serves no lighthouses does not say so above the merged table")
	}
}

// A signed-in token is for the contexts it was accepted in: over a fleet,
// the others do not take part, the page says so, and they are never sent
// it.
func TestFleetLeavesOutContextsATokenIsNotFor(t *testing.T) {
	h, fakes := twoClusters(t)
	e, ok := h.Server.Handler().(*echo.Echo)
	if !ok {
		t.Fatalf("handler %T", h.Server.Handler())
	}
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			page.SetRequester(c, page.Requester{Mode: page.ModeToken, Identity: apiclient.Identity{BearerToken: "token-of-east", Contexts: []string{"east"}}})
			return next(c)
		}
	})
	fakes["west"].ResetRequests()
	_, body := h.Get(t, "/c/_all/", http.StatusOK)
	doc := webtest.Parse(t, body)
	if doc.Find("[data-testid=fleet-row][data-context=east][data-reachable=true]").Length() != 1 {
		t.Error("east, which the token is for, does not answer")
	}
	if msg := doc.Find("[data-testid=fleet-row][data-context=west] [data-testid=fleet-error]").Text(); !strings.Contains(msg, "does not take part") {
		t.Errorf("west's row: %q", msg)
	}
	_, body = h.Get(t, "/c/_all/api/v1/namespaces/demo/pods", http.StatusOK)
	if msg := webtest.Parse(t, body).Find("[data-testid=fleet-list-section][data-context=west] [data-testid=fleet-list-error]").Text(); !strings.Contains(msg, "Does not take part") {
		t.Errorf("west's section: %q", msg)
	}
	if n := len(fakes["west"].Requests()); n != 0 {
		t.Errorf("west received %d requests", n)
	}
}

// Each section pages on its own, on the fleet page: east's next page
// leaves west's section where it was.
func TestFleetListSectionsPageOnTheirOwn(t *testing.T) {
	h, fakes := twoClusters(t)
	for i := range 120 {
		fakes["east"].Add(apitest.Pod("demo", fmt.Sprintf("more-%03d", i), nil))
	}
	_, body := h.Get(t, "/c/_all/api/v1/namespaces/demo/pods?labelSelector=", http.StatusOK)
	doc := webtest.Parse(t, body)
	next := doc.Find("[data-testid=fleet-list-section][data-context=east] [data-testid=fleet-list-next]").AttrOr("href", "")
	if !strings.Contains(next, "continue.east=") || doc.Find("[data-testid=fleet-list-section][data-context=west] [data-testid=fleet-list-next]").Length() != 0 {
		t.Fatalf("east's next page %q; west has one: %v", next, doc.Find("[data-testid=fleet-list-section][data-context=west] [data-testid=fleet-list-next]").Length() != 0)
	}
	_, body = h.Get(t, next, http.StatusOK)
	doc = webtest.Parse(t, body)
	east := doc.Find("[data-testid=fleet-list-section][data-context=east]")
	if east.Find("tbody a[href$=more-119]").Length() != 1 || east.Find("tbody a[href$=more-000]").Length() != 0 {
		t.Errorf("east's second page: %q", east.Find("tbody").Text())
	}
	if east.Find("[data-testid=live-list]").AttrOr("data-page", "") != "2" || east.Find("[data-testid=fleet-list-first]").Length() != 1 {
		t.Error("east's second page does not know it")
	}
	if doc.Find("[data-testid=fleet-list-section][data-context=west] tbody a[href$=web-west]").Length() != 1 {
		t.Error("west's section moved with east's")
	}
}
