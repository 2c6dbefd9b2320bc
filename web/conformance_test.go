package web_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// A server without Tables gets kubectl's generic columns, and, as kubectl
// prints NAMESPACE only with -A, a Namespace column only across namespaces.
func TestFallbackListsShowNamespacesOnlyAcrossNamespaces(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{Table: apitest.TableNone})
	for path, want := range map[string]bool{
		"/c/dev/api/v1/namespaces/demo/pods":              false,
		"/c/dev/apis/policy.example.com/v1/sessions":      false, // cluster-scoped
		"/c/dev/api/v1/pods":                              true,
		"/c/dev/api/v1/namespaces":                        false,
		"/c/dev/apis/apps/v1/namespaces/demo/replicasets": false,
	} {
		_, body := h.Get(t, path, http.StatusOK)
		cols := webtest.Columns(webtest.Parse(t, body))
		if got := slices.Contains(cols, "Namespace"); got != want {
			t.Errorf("%s: columns %q; Namespace column %v, want %v", path, cols, got, want)
		}
	}
}

// A served subresource URL shows something useful or says clearly why not;
// one the server does not serve is a 404.
func TestSubresourceURLs(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/status", http.StatusOK)
	doc := webtest.Parse(t, body)
	if yaml := doc.Find("#yaml-text").Text(); !strings.HasPrefix(yaml, "status:") {
		t.Errorf("status page YAML = %q, want the object's status", yaml)
	}
	if tab := strings.TrimSpace(doc.Find(`nav [aria-current=page]`).Last().Text()); tab != "Status" {
		t.Errorf("current tab = %q, want Status", tab)
	}
	// scale is served as the scale form.
	_, body = h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments/web/scale", http.StatusOK)
	if webtest.Parse(t, body).Find("[data-testid=scale-form]").Length() != 1 {
		t.Error("…/scale does not show the scale form")
	}
	// A served subresource with no page is 405, leading to the object.
	fake.AddGroupVersions(apitest.GroupVersion{Group: "example.com", Version: "v1", Resources: []metav1.APIResource{
		{Name: "widgets", Kind: "Widget", Namespaced: true, Verbs: []string{"get", "list"}},
		{Name: "widgets/approval", Kind: "Widget", Namespaced: true, Verbs: []string{"update"}},
	}})
	_, body = h.Get(t, "/c/dev/apis/example.com/v1/namespaces/demo/widgets/w/approval", http.StatusMethodNotAllowed)
	if !strings.Contains(body, "/c/dev/apis/example.com/v1/namespaces/demo/widgets/w") {
		t.Error("the refusal does not lead to the object's page")
	}
	_, body = h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/portforward", http.StatusNotFound)
	if !strings.Contains(body, `no &#34;portforward&#34; subresource`) && !strings.Contains(body, `no "portforward" subresource`) {
		t.Errorf("the 404 does not name the subresource:\n%s", body)
	}
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods/web-5d9-a/nonsense", http.StatusNotFound)
}

// An object that selects no pods has no logs: a clear 404, not a 500.
func TestLogsOfAnObjectWithoutSelectorIs404(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.Add(apitest.Service("demo", "headless", nil))
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/services/headless/log", http.StatusNotFound)
	if !strings.Contains(body, "no pod selector") {
		t.Errorf("the page does not say why:\n%s", body)
	}
}

// client-go never sends a bearer token over plain HTTP, so such a server
// answers 401; the page says why.
func TestUnauthorizedOverPlainHTTPExplainsTheToken(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("a bearer token went over plain HTTP to %s", r.URL.Path)
		}
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
	}))
	t.Cleanup(plain.Close)
	cfg := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"plain": {Server: plain.URL}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"user": {Token: "s3cret"}},
		Contexts:       map[string]*clientcmdapi.Context{"dev": {Cluster: "plain", AuthInfo: "user"}},
		CurrentContext: "dev",
	}
	clusters, err := apiclient.FromKubeconfig(cfg, apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := webtest.Start(t, nil, webtest.Options{Deps: web.Deps{Clusters: clusters}})
	_, body := h.Get(t, "/c/dev/", http.StatusUnauthorized)
	hint := webtest.Parse(t, body).Find("[data-testid=error-hint]").Text()
	if !strings.Contains(hint, "plain HTTP") || !strings.Contains(hint, plain.URL) {
		t.Errorf("401 hint = %q, want it to explain the plain-HTTP server %s", hint, plain.URL)
	}
}

// A kind served only by a non-preferred version is on the home page, in
// the sidebar and in the jump box, and its list works.
func TestResourcesOfNonPreferredVersionsAreReachable(t *testing.T) {
	res := func(name, kind string) metav1.APIResource {
		return metav1.APIResource{Name: name, SingularName: strings.TrimSuffix(name, "s"), Kind: kind, Namespaced: true, Verbs: []string{"get", "list"}}
	}
	fake := apitest.NewServer(t, apitest.CoreV1(),
		apitest.GroupVersion{Group: "widgets.example.com", Version: "v1beta1", Resources: []metav1.APIResource{res("widgets", "Widget")}},
		apitest.GroupVersion{Group: "widgets.example.com", Version: "v1alpha1", Resources: []metav1.APIResource{res("widgets", "Widget"), res("gadgets", "Gadget")}},
	)
	fake.Add(apitest.Object("widgets.example.com/v1alpha1", "Gadget", "demo", "sprocket", nil))
	h := webtest.Start(t, fake, webtest.Options{})
	_, body := h.Get(t, "/c/dev/", http.StatusOK)
	doc := webtest.Parse(t, body)
	const href = "/c/dev/apis/widgets.example.com/v1alpha1/gadgets"
	if doc.Find(`[data-group="widgets.example.com"] a.resource-name[href="`+href+`"]`).Length() != 1 {
		t.Error("the home page does not list gadgets at v1alpha1")
	}
	if doc.Find(`[data-testid=sidebar] a[href="`+href+`"]`).Length() != 1 {
		t.Error("the sidebar does not list gadgets")
	}
	if doc.Find(`#jump-names option[value="gadgets"]`).Length() != 1 {
		t.Error("the jump box does not offer gadgets")
	}
	resp, _ := h.Get(t, "/c/dev/jump?q=gadgets&namespace=demo", http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != "/c/dev/apis/widgets.example.com/v1alpha1/namespaces/demo/gadgets" {
		t.Errorf("jump to gadgets: Location %q", got)
	}
	_, body = h.Get(t, "/c/dev/apis/widgets.example.com/v1alpha1/namespaces/demo/gadgets", http.StatusOK)
	if !strings.Contains(body, "sprocket") {
		t.Error("the gadgets list lacks its object")
	}
}

// Warning headers reach the page, as kubectl prints them.
func TestServerWarningsAreShownOnThePage(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{Warnings: map[string]string{"pods": "v1 Pod is deprecated in v9.99+"}})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)
	got := webtest.Parse(t, body).Find("[data-testid=server-warnings] li").Text()
	if !strings.Contains(got, "Warning: v1 Pod is deprecated in v9.99+") {
		t.Errorf("warnings shown: %q", got)
	}
	_, body = h.Get(t, "/c/dev/apis/apps/v1/namespaces/demo/deployments", http.StatusOK)
	if webtest.Parse(t, body).Find("[data-testid=server-warnings]").Length() != 0 {
		t.Error("a page without warnings shows some")
	}
}

// A server without an events API (here: a CSM-style server with no core
// group) gets no events requests, and its object pages say so calmly.
func TestObjectPagesOfServersWithoutEvents(t *testing.T) {
	fake := apitest.NewServerWith(t, apitest.Options{LegacyDiscovery: true, Table: apitest.TableNone}, apitest.CSMGroup())
	fake.Add(apitest.CSMSession("boot-x3000", "boot", "compute-23.7", "running"))
	h := webtest.Start(t, fake, webtest.Options{})
	h.Get(t, "/c/dev/", http.StatusOK)
	fake.ResetRequests()
	_, body := h.Get(t, "/c/dev/apis/policy.example.com/v1/sessions/boot-x3000", http.StatusOK)
	if note := webtest.Parse(t, body).Find("[data-testid=events]").Text(); !strings.Contains(note, "no events API") || strings.Contains(note, "could not") {
		t.Errorf("events section: %q", note)
	}
	for _, r := range fake.Requests() {
		if strings.Contains(r.URL.Path, "events") {
			t.Errorf("the console asked for events: %s", r.URL)
		}
	}
	h.Get(t, "/c/dev/apis/policy.example.com/v1/sessions", http.StatusOK)
}
