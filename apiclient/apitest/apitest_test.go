package apitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

const kubectlTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

type answer struct {
	code        int
	contentType string
	header      http.Header
	body        map[string]any
}

func get(t *testing.T, s *apitest.Server, path, accept string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), header: resp.Header}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("GET %s: body is not a JSON object: %s", path, raw)
	}
	return a
}

func seeded(t *testing.T, opts apitest.Options) *apitest.Server {
	t.Helper()
	s := apitest.NewServerWith(t, opts, apitest.CoreV1(), apitest.AppsV1(), apitest.CSMGroup())
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		s.Add(apitest.Pod("demo", "web-"+name, map[string]string{"app": "web"}))
	}
	s.Add(apitest.Pod("demo", "db-0", map[string]string{"app": "db"}), apitest.Pod("other", "web-z", map[string]string{"app": "web"}))
	s.Add(apitest.CSMSession("s-1", "boot", "compute", "running"))
	return s
}

func TestTableNegotiation(t *testing.T) {
	const v1Only = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
	const v1NoFallback = "application/json;as=Table;v=v1;g=meta.k8s.io"
	for _, tc := range []struct {
		name     string
		mode     apitest.TableMode
		accept   string
		wantCode int
		wantKind string // kind and apiVersion of the answer
		wantAPI  string
	}{
		{"v1 server, kubectl Accept", apitest.TableV1, kubectlTableAccept, 200, "Table", "meta.k8s.io/v1"},
		{"v1 server, plain JSON", apitest.TableV1, "application/json", 200, "PodList", "v1"},
		{"v1 server, no Accept", apitest.TableV1, "", 200, "PodList", "v1"},
		{"v1beta1 server picks the v1beta1 entry", apitest.TableV1Beta1Only, kubectlTableAccept, 200, "Table", "meta.k8s.io/v1beta1"},
		{"v1beta1 server skips v1 to plain JSON", apitest.TableV1Beta1Only, v1Only, 200, "PodList", "v1"},
		{"v1beta1 server, v1 only without fallback", apitest.TableV1Beta1Only, v1NoFallback, 406, "Status", "v1"},
		{"no-Table server sends the plain list", apitest.TableNone, kubectlTableAccept, 200, "PodList", "v1"},
		{"no-Table server ignores as= even alone", apitest.TableNone, v1NoFallback, 200, "PodList", "v1"},
		{"406 server", apitest.TableNotAcceptable, kubectlTableAccept, 406, "Status", "v1"},
		{"406 server still serves plain JSON", apitest.TableNotAcceptable, "application/json", 200, "PodList", "v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seeded(t, apitest.Options{Table: tc.mode})
			a := get(t, s, "/api/v1/namespaces/demo/pods", tc.accept)
			if a.code != tc.wantCode || a.body["kind"] != tc.wantKind || a.body["apiVersion"] != tc.wantAPI {
				t.Fatalf("got %d %v %v, want %d %s %s", a.code, a.body["apiVersion"], a.body["kind"], tc.wantCode, tc.wantAPI, tc.wantKind)
			}
			if tc.wantCode == 406 && a.body["reason"] != string(metav1.StatusReasonNotAcceptable) {
				t.Errorf("reason = %v", a.body["reason"])
			}
			if tc.wantKind == "Table" && !strings.Contains(a.contentType, "as=Table") {
				t.Errorf("Content-Type = %q", a.contentType)
			}
		})
	}
}

func decodeTable(t *testing.T, a answer) metav1.Table {
	t.Helper()
	b, _ := json.Marshal(a.body)
	var table metav1.Table
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	return table
}

func TestTableColumnsRowsAndIncludeObject(t *testing.T) {
	s := seeded(t, apitest.Options{})
	for _, tc := range []struct {
		include  string
		wantKind string // of each row's object; "" for none
	}{
		{"", "PartialObjectMetadata"},
		{"Metadata", "PartialObjectMetadata"},
		{"None", ""},
		{"Object", "Pod"},
	} {
		path := "/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb"
		if tc.include != "" {
			path += "&includeObject=" + tc.include
		}
		table := decodeTable(t, get(t, s, path, kubectlTableAccept))
		var cols []string
		for _, c := range table.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		if got := strings.Join(cols, ","); got != "Name,Ready,Status,Restarts,Age,IP,Node" {
			t.Fatalf("columns = %s", got)
		}
		if len(table.Rows) != 5 || table.Rows[0].Cells[0] != "web-a" || table.Rows[0].Cells[1] != "1/1" || table.Rows[0].Cells[2] != "Running" {
			t.Fatalf("includeObject=%q: rows = %+v", tc.include, table.Rows)
		}
		raw := table.Rows[0].Object.Raw
		if tc.wantKind == "" {
			if len(raw) != 0 {
				t.Errorf("includeObject=None: row object %s", raw)
			}
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil || obj["kind"] != tc.wantKind {
			t.Errorf("includeObject=%q: row object %s", tc.include, raw)
		}
	}
	// A single object asked for as a Table is a one-row Table.
	one := decodeTable(t, get(t, s, "/api/v1/namespaces/demo/pods/db-0", kubectlTableAccept))
	if len(one.Rows) != 1 || one.Rows[0].Cells[0] != "db-0" {
		t.Errorf("one-object Table = %+v", one)
	}
	// Resources without columns get Name and Age.
	dflt := decodeTable(t, get(t, s, "/api/v1/namespaces", kubectlTableAccept))
	if len(dflt.ColumnDefinitions) != 2 || dflt.ColumnDefinitions[0].Name != "Name" || dflt.ColumnDefinitions[1].Name != "Age" {
		t.Errorf("default columns = %+v", dflt.ColumnDefinitions)
	}
}

func TestPagingAndExpiredContinue(t *testing.T) {
	s := seeded(t, apitest.Options{})
	var names []string
	cont := ""
	pages := 0
	for {
		q := url.Values{"limit": {"2"}, "labelSelector": {"app=web"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		a := get(t, s, "/api/v1/pods?"+q.Encode(), "application/json")
		if a.code != 200 {
			t.Fatalf("page %d: %d %v", pages, a.code, a.body)
		}
		pages++
		meta := a.body["metadata"].(map[string]any)
		for _, it := range a.body["items"].([]any) {
			m := it.(map[string]any)
			if _, ok := m["kind"]; ok {
				t.Error("list items carry kind")
			}
			md := m["metadata"].(map[string]any)
			names = append(names, md["namespace"].(string)+"/"+md["name"].(string))
		}
		c, _ := meta["continue"].(string)
		if c == "" {
			if _, ok := meta["remainingItemCount"]; ok {
				t.Error("last page has remainingItemCount")
			}
			break
		}
		if _, ok := meta["remainingItemCount"]; ok {
			// kube-apiserver cannot count what a selector leaves.
			t.Errorf("a selected list's page says remainingItemCount = %v", meta["remainingItemCount"])
		}
		cont = c
	}
	if pages != 3 || strings.Join(names, ",") != "demo/web-a,demo/web-b,demo/web-c,demo/web-d,demo/web-e,other/web-z" {
		t.Fatalf("%d pages: %v", pages, names)
	}
	whole := get(t, s, "/api/v1/pods?limit=2", "application/json")
	all := get(t, s, "/api/v1/pods", "application/json")
	want := float64(len(all.body["items"].([]any)) - 2)
	if got := whole.body["metadata"].(map[string]any)["remainingItemCount"]; got != want {
		t.Errorf("remainingItemCount of an unselected first page = %v, want %v", got, want)
	}

	first := get(t, s, "/api/v1/pods?limit=2", "application/json")
	token := first.body["metadata"].(map[string]any)["continue"].(string)
	s.ExpireContinueTokens()
	expired := get(t, s, "/api/v1/pods?limit=2&continue="+url.QueryEscape(token), "application/json")
	if expired.code != http.StatusGone || expired.body["reason"] != string(metav1.StatusReasonExpired) {
		t.Errorf("expired continue: %d %v", expired.code, expired.body)
	}
}

// A collection cut in the middle: the second page's token answers 410,
// the first page's was continued before it.
func TestExpireContinueTokensAfter(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.ExpireContinueTokensAfter(2)
	next := func(cont string) answer {
		q := url.Values{"limit": {"2"}, "labelSelector": {"app=web"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		return get(t, s, "/api/v1/pods?"+q.Encode(), "application/json")
	}
	token := func(a answer) string {
		c, _ := a.body["metadata"].(map[string]any)["continue"].(string)
		return c
	}
	first := next("")
	second := next(token(first))
	if second.code != http.StatusOK || token(second) == "" {
		t.Fatalf("second page: %d %v", second.code, second.body)
	}
	if third := next(token(second)); third.code != http.StatusGone || third.body["reason"] != string(metav1.StatusReasonExpired) {
		t.Errorf("third page: %d %v, want 410 Expired", third.code, third.body)
	}
	// Only once: a new list pages through to its end.
	if again := next(token(next(""))); again.code != http.StatusOK {
		t.Errorf("a new list after the cut: %d %v", again.code, again.body)
	}
}

func TestSelectors(t *testing.T) {
	s := seeded(t, apitest.Options{})
	count := func(a answer) int { return len(a.body["items"].([]any)) }
	if a := get(t, s, "/api/v1/pods?fieldSelector=metadata.name%3Ddb-0", ""); count(a) != 1 {
		t.Errorf("metadata.name: %d items", count(a))
	}
	if a := get(t, s, "/api/v1/pods?fieldSelector=metadata.namespace%21%3Ddemo", ""); count(a) != 1 {
		t.Errorf("metadata.namespace!=demo: %d items", count(a))
	}
	if a := get(t, s, "/api/v1/pods?labelSelector=app+in+(db)", ""); count(a) != 1 {
		t.Errorf("app in (db): %d items", count(a))
	}
	if a := get(t, s, "/api/v1/pods?fieldSelector=spec.bogus%3Dx", ""); a.code != 400 || !strings.Contains(a.body["message"].(string), "field label not supported") {
		t.Errorf("unsupported field: %d %v", a.code, a.body)
	}
}

func TestPartialObjectMetadata(t *testing.T) {
	accept := apitest.PartialListMediaType + ",application/json"
	for _, tc := range []struct {
		opts     apitest.Options
		wantKind string
	}{
		{apitest.Options{}, "PartialObjectMetadataList"},
		{apitest.Options{Table: apitest.TableNone}, "PartialObjectMetadataList"},
		{apitest.Options{Table: apitest.TableNone, NoPartialMetadata: true}, "PodList"},
	} {
		s := seeded(t, tc.opts)
		a := get(t, s, "/api/v1/namespaces/demo/pods", accept)
		if a.body["kind"] != tc.wantKind {
			t.Errorf("%+v: kind %v, want %s", tc.opts, a.body["kind"], tc.wantKind)
		}
		item := a.body["items"].([]any)[0].(map[string]any)
		if _, ok := item["spec"]; ok == (tc.wantKind == "PartialObjectMetadataList") {
			t.Errorf("%+v: item %v", tc.opts, item)
		}
	}
}

func TestDiscoveryVariants(t *testing.T) {
	aggregated := apitest.AggregatedDiscoveryMediaType + ",application/json"
	s := seeded(t, apitest.Options{})
	a := get(t, s, "/apis", aggregated)
	if a.body["kind"] != "APIGroupDiscoveryList" || !strings.Contains(a.contentType, "as=APIGroupDiscoveryList") {
		t.Fatalf("aggregated /apis: %s %v", a.contentType, a.body["kind"])
	}
	if a := get(t, s, "/apis", "application/json"); a.body["kind"] != "APIGroupList" {
		t.Errorf("legacy /apis: %v", a.body["kind"])
	}
	core := get(t, s, "/api", aggregated)
	items := core.body["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("aggregated /api: %v", core.body)
	}
	legacy := seeded(t, apitest.Options{LegacyDiscovery: true})
	if a := get(t, legacy, "/api", aggregated); a.body["kind"] != "APIVersions" {
		t.Errorf("legacy-only /api: %v", a.body["kind"])
	}
}

func TestDescribeVariants(t *testing.T) {
	accept := apitest.DescribeMediaType + ", application/json"
	for _, tc := range []struct {
		mode     apitest.DescribeMode
		wantCode int
		wantKind string
	}{
		{apitest.DescribeIgnored, 200, "Pod"},
		{apitest.DescribeServed, 200, "Description"},
		{apitest.DescribeNotAcceptable, 406, "Status"},
	} {
		s := seeded(t, apitest.Options{Describe: tc.mode})
		a := get(t, s, "/api/v1/namespaces/demo/pods/db-0", accept)
		if a.code != tc.wantCode || a.body["kind"] != tc.wantKind {
			t.Errorf("mode %d: %d %v", tc.mode, a.code, a.body["kind"])
		}
	}
}

func TestInjectedFailures(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.FailResource("", "secrets", apitest.Forbidden("alice", "list", "", "secrets", ""))
	if a := get(t, s, "/api/v1/namespaces/demo/secrets", ""); a.code != 403 || a.body["reason"] != "Forbidden" {
		t.Errorf("forbidden: %d %v", a.code, a.body)
	}
	s.FailPath("/api/v1/namespaces/demo/pods", apitest.TooManyRequests(3))
	a := get(t, s, "/api/v1/namespaces/demo/pods", "")
	if a.code != 429 || a.header.Get("Retry-After") != "3" {
		t.Errorf("429: %d Retry-After %q", a.code, a.header.Get("Retry-After"))
	}
	if a := get(t, s, "/api/v1/namespaces/demo/pods/missing", ""); a.code != 404 || a.body["reason"] != "NotFound" {
		t.Errorf("missing: %d %v", a.code, a.body)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("Requests() = %d, want 3", n)
	}
}

func TestCSMGroupIsClusterScopedWithItsOwnColumns(t *testing.T) {
	s := seeded(t, apitest.Options{})
	table := decodeTable(t, get(t, s, "/apis/policy.example.com/v1/sessions", kubectlTableAccept))
	if len(table.Rows) != 1 || table.ColumnDefinitions[1].Name != "Operation" || table.Rows[0].Cells[1] != "boot" || table.Rows[0].Cells[3] != "running" {
		t.Errorf("sessions table = %+v", table)
	}
	if a := get(t, s, "/apis/policy.example.com/v1/sessions/s-1", "application/json"); a.code != 200 || a.body["kind"] != "Session" {
		t.Errorf("get session: %d %v", a.code, a.body)
	}
}

func TestScaleSubresource(t *testing.T) {
	s := seeded(t, apitest.Options{})
	s.Add(apitest.Deployment("demo", "web", 3, map[string]string{"app": "web"}))
	a := get(t, s, "/apis/apps/v1/namespaces/demo/deployments/web/scale", "")
	if a.body["kind"] != "Scale" || a.body["status"].(map[string]any)["selector"] != "app=web" {
		t.Errorf("scale = %v", a.body)
	}
}
