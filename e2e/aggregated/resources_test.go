package aggregated

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTable(t *testing.T) {
	s := startTestServer(t)
	wantColumns := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Target", Type: "string"},
		{Name: "Healthy", Type: "boolean"},
		{Name: "Latency", Type: "integer"},
		{Name: "Interval", Type: "integer", Priority: 1},
		{Name: "Age", Type: "date"},
	}
	for _, version := range []string{"v1", "v1beta1"} {
		for _, include := range []string{"", "None", "Metadata", "Object"} {
			t.Run(version+"/"+include, func(t *testing.T) {
				accept := "application/json;as=Table;v=" + version + ";g=meta.k8s.io"
				path := basePath + "/namespaces/demo/probes"
				if include != "" {
					path += "?includeObject=" + include
				}
				resp, body := s.get(t, path, accept)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/json;as=Table;v="+version+";g=meta.k8s.io" {
					t.Errorf("Content-Type %q", ct)
				}
				table := decode[metav1.Table](t, body)
				if table.APIVersion != "meta.k8s.io/"+version || table.Kind != "Table" || table.ResourceVersion == "" {
					t.Errorf("got %s %s rv %q", table.APIVersion, table.Kind, table.ResourceVersion)
				}
				if len(table.ColumnDefinitions) != len(wantColumns) {
					t.Fatalf("columns %+v", table.ColumnDefinitions)
				}
				for i, c := range table.ColumnDefinitions {
					w := wantColumns[i]
					if c.Name != w.Name || c.Type != w.Type || c.Format != w.Format || c.Priority != w.Priority {
						t.Errorf("column %d = %+v, want %+v", i, c, w)
					}
				}
				if len(table.Rows) != 3 {
					t.Fatalf("%d rows, want 3: %s", len(table.Rows), body)
				}
				// db-reachable: unhealthy, 1250 ms, every 60 s, created 48 h before testNow.
				want := []any{"db-reachable", "tcp://db.demo.svc:5432", false, float64(1250), float64(60), "2d"}
				if got := table.Rows[1].Cells; !slices.Equal(got, want) {
					t.Errorf("cells %v, want %v", got, want)
				}
				checkRowObject(t, table.Rows[1].Object.Raw, version, include)
			})
		}
	}
}

// checkRowObject checks what a row carries for includeObject.
func checkRowObject(t *testing.T, raw []byte, version, include string) {
	t.Helper()
	switch include {
	case "None":
		if len(raw) != 0 {
			t.Errorf("includeObject=None row carries %s", raw)
		}
	case "Object":
		p := decode[Probe](t, raw)
		if p.Kind != Kind || p.APIVersion != Group+"/"+Version || p.Spec.IntervalSeconds != 60 || p.Status.Healthy {
			t.Errorf("row object %s", raw)
		}
	default: // Metadata is the default
		m := decode[metav1.PartialObjectMetadata](t, raw)
		if m.Kind != "PartialObjectMetadata" || m.APIVersion != "meta.k8s.io/"+version ||
			m.Name != "db-reachable" || m.Namespace != "demo" || m.UID == "" || m.Labels["app"] != "db" {
			t.Errorf("row object %s", raw)
		}
	}
}

func TestTableOfOneProbe(t *testing.T) {
	s := startTestServer(t)
	_, body := s.get(t, basePath+"/namespaces/team-a/probes/checkout", acceptTable)
	table := decode[metav1.Table](t, body)
	if table.Kind != "Table" || len(table.Rows) != 1 || table.Rows[0].Cells[0] != "checkout" {
		t.Fatalf("got %s", body)
	}
}

func TestPlainListAndGet(t *testing.T) {
	s := startTestServer(t)
	resp, body := s.get(t, basePath+"/probes", "application/json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	list := decode[ProbeList](t, body)
	if list.Kind != ListKind || list.APIVersion != Group+"/"+Version || list.ResourceVersion == "" || list.Continue != "" {
		t.Errorf("list meta: %s %s %+v", list.APIVersion, list.Kind, list.ListMeta)
	}
	if got, want := keys(list.Items), []string{"demo/api-latency", "demo/db-reachable", "demo/dns", "team-a/checkout"}; !slices.Equal(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}

	_, body = s.get(t, basePath+"/namespaces/team-a/probes", "")
	if got := keys(decode[ProbeList](t, body).Items); !slices.Equal(got, []string{"team-a/checkout"}) {
		t.Errorf("team-a items %v", got)
	}

	_, body = s.get(t, basePath+"/namespaces/demo/probes/dns", "application/json")
	p := decode[Probe](t, body)
	if p.Kind != Kind || p.Name != "dns" || p.UID == "" || p.ResourceVersion == "" || p.CreationTimestamp.IsZero() ||
		p.Spec.Target == "" || p.Spec.IntervalSeconds != 10 || !p.Status.Healthy || p.Status.LastProbeTime.IsZero() {
		t.Errorf("probe %s", body)
	}
}

func TestPaging(t *testing.T) {
	s := startTestServer(t)
	var all []string
	cont, pages := "", 0
	for {
		q := url.Values{"limit": {"3"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		_, body := s.get(t, basePath+"/probes?"+q.Encode(), "")
		list := decode[ProbeList](t, body)
		all = append(all, keys(list.Items)...)
		pages++
		if pages == 1 && (list.RemainingItemCount == nil || *list.RemainingItemCount != 1) {
			t.Errorf("first page remainingItemCount = %v, want 1", list.RemainingItemCount)
		}
		if cont = list.Continue; cont == "" {
			break
		}
		if pages > 4 {
			t.Fatal("paging does not end")
		}
	}
	if want := []string{"demo/api-latency", "demo/db-reachable", "demo/dns", "team-a/checkout"}; pages != 2 || !slices.Equal(all, want) {
		t.Errorf("%d pages of %v, want 2 pages of %v", pages, all, want)
	}

	// Tables page the same way.
	_, body := s.get(t, basePath+"/namespaces/demo/probes?limit=2", acceptTable)
	table := decode[metav1.Table](t, body)
	if len(table.Rows) != 2 || table.Continue == "" {
		t.Fatalf("first Table page: %s", body)
	}
	_, body = s.get(t, basePath+"/namespaces/demo/probes?limit=2&continue="+url.QueryEscape(table.Continue), acceptTable)
	table = decode[metav1.Table](t, body)
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "dns" || table.Continue != "" {
		t.Fatalf("second Table page: %s", body)
	}

	resp, body := s.get(t, basePath+"/probes?continue=garbage", "")
	wantStatus(t, resp, body, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestLabelSelector(t *testing.T) {
	s := startTestServer(t)
	for selector, want := range map[string][]string{
		"tier=backend":             {"demo/api-latency", "demo/db-reachable"},
		"app in (dns, checkout)":   {"demo/dns", "team-a/checkout"},
		"tier!=backend,app":        {"demo/dns", "team-a/checkout"},
		"app=nothing-has-this-app": nil,
	} {
		_, body := s.get(t, basePath+"/probes?labelSelector="+url.QueryEscape(selector), "")
		if got := keys(decode[ProbeList](t, body).Items); !slices.Equal(got, want) {
			t.Errorf("labelSelector %q: %v, want %v", selector, got, want)
		}
	}
	resp, body := s.get(t, basePath+"/probes?labelSelector="+url.QueryEscape("app in ("), "")
	wantStatus(t, resp, body, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestNotFound(t *testing.T) {
	s := startTestServer(t)
	resp, body := s.get(t, basePath+"/namespaces/demo/probes/nope", acceptTable)
	st := wantStatus(t, resp, body, http.StatusNotFound, metav1.StatusReasonNotFound)
	if st.Details == nil || st.Details.Name != "nope" || st.Details.Group != Group || st.Details.Kind != Resource {
		t.Errorf("details %+v", st.Details)
	}
	if want := `probes.ops.tabula.dev "nope" not found`; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	// A probe of another namespace is not found either.
	resp, body = s.get(t, basePath+"/namespaces/team-a/probes/dns", "")
	wantStatus(t, resp, body, http.StatusNotFound, metav1.StatusReasonNotFound)
	resp, body = s.get(t, "/apis/other.example.com/v1", "")
	wantStatus(t, resp, body, http.StatusNotFound, metav1.StatusReasonNotFound)
}

func TestUnsupported(t *testing.T) {
	s := startTestServer(t)
	resp, body := s.get(t, basePath+"/probes?watch=true", "")
	wantStatus(t, resp, body, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
	resp, body = s.get(t, basePath+"/probes", "application/vnd.kubernetes.protobuf")
	wantStatus(t, resp, body, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
	// A Table of a discovery document is not a thing.
	resp, body = s.get(t, basePath, "application/json;as=Table;v=v1;g=meta.k8s.io")
	wantStatus(t, resp, body, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
}

func keys(probes []Probe) []string {
	var out []string
	for i := range probes {
		out = append(out, key(&probes[i]))
	}
	return out
}
