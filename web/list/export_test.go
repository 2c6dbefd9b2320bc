package list_test

import (
	"bufio"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

// exportGet fetches an export as a browser or curl would, keeping what
// arrived even when the response was aborted (readErr).
func exportGet(t *testing.T, c *webtest.Console, path string, hdr map[string]string) (resp *http.Response, body string, readErr error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, readErr := io.ReadAll(resp.Body)
	return resp, string(b), readErr
}

// bulkPods seeds n pods in namespace bulk: more than one export page.
func bulkPods(t *testing.T, fake *apitest.Server, n int) {
	t.Helper()
	for i := range n {
		fake.Add(apitest.Pod("bulk", fmt.Sprintf("p-%05d", i), map[string]string{"app": "bulk"}))
	}
}

func TestExportCSVHasEveryRowOfEveryPageOnce(t *testing.T) {
	const n = 2345 // three pages of the export's 1,000
	h, fake := webtest.Demo(t, apitest.Options{})
	bulkPods(t, fake, n)
	resp, body, err := exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export=csv", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, read error %v", resp.StatusCode, err)
	}
	// Go's client asked for gzip, and decoded it.
	if !resp.Uncompressed {
		t.Error("the export was not compressed for a client that accepts gzip")
	}
	for k, want := range map[string]string{
		"Content-Type":        "text/csv; charset=utf-8",
		"Content-Disposition": "attachment; filename=dev-bulk-pods.csv",
		"Cache-Control":       "no-store",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The header is the list page's columns.
	_, page := h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods", http.StatusOK)
	if got, want := strings.Join(records[0], ","), strings.Join(webtest.Columns(webtest.Parse(t, page)), ","); got != want {
		t.Errorf("header %s, want the page's columns %s", got, want)
	}
	seen := map[string]int{}
	for _, r := range records[1:] {
		seen[r[0]]++
	}
	if len(records)-1 != n || len(seen) != n {
		t.Errorf("%d rows, %d names; want %d of each", len(records)-1, len(seen), n)
	}
	for i := range n {
		if name := fmt.Sprintf("p-%05d", i); seen[name] != 1 {
			t.Errorf("%s exported %d times", name, seen[name])
		}
	}
	// Page by page, following the continue tokens, in pages of 1,000
	// (the page shown above asked for its own 500).
	var pages, continued int
	for _, r := range fake.Requests() {
		if q := r.URL.Query(); r.URL.Path == "/api/v1/namespaces/bulk/pods" && q.Get("limit") == "1000" {
			pages++
			if q.Get("continue") != "" {
				continued++
			}
		}
	}
	if pages != 3 || continued != 2 {
		t.Errorf("%d export pages, %d continued; want 3 and 2", pages, continued)
	}
}

func TestExportTSVAcrossNamespacesKeepsTheirColumnAndSelectors(t *testing.T) {
	h, _ := webtest.Demo(t, apitest.Options{})
	resp, body, err := exportGet(t, h, "/c/dev/api/v1/pods?export=tsv&labelSelector=app%3Dweb", map[string]string{"Accept-Encoding": "identity"})
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("status %d, read error %v, Content-Encoding %q", resp.StatusCode, err, resp.Header.Get("Content-Encoding"))
	}
	if got := resp.Header.Get("Content-Disposition"); got != "attachment; filename=dev-pods.tsv" {
		t.Errorf("Content-Disposition %q", got)
	}
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "Namespace\tName\t") || !strings.HasPrefix(lines[1], "demo\tweb-5d9-a\t") {
		t.Errorf("TSV:\n%s", body)
	}
}

// eachExportFormat runs fn as a subtest, named prefix, format and encoding,
// for each export format, compressed (Go's client asks for gzip) and not
// (identity).
func eachExportFormat(t *testing.T, prefix string, fn func(t *testing.T, format, encoding string)) {
	t.Helper()
	for _, format := range []string{"csv", "tsv", "json", "yaml"} {
		for _, encoding := range []string{"gzip", "identity"} {
			t.Run(prefix+format+" "+encoding, func(t *testing.T) { fn(t, format, encoding) })
		}
	}
}

// exportNoun is what an export in format holds: CSV and TSV rows, JSON
// and YAML objects.
func exportNoun(format string) string {
	if format == "json" || format == "yaml" {
		return "objects"
	}
	return "rows"
}

// cutExport fetches namespace bulk's pods as format, in encoding (gzip:
// as Go's client asks by itself), from an upstream that cuts the
// collection: the status must be 200 and the response aborted. It returns
// what arrived.
func cutExport(t *testing.T, h *webtest.Console, format, encoding string) string {
	t.Helper()
	var accept map[string]string
	if encoding != "gzip" {
		accept = map[string]string{"Accept-Encoding": encoding}
	}
	resp, body, err := exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export="+format, accept)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if err == nil {
		t.Error("the response ended normally: a browser would keep a short file")
	}
	return body
}

// The upstream ends the collection early (its continue token expired): the
// file ends with an error line, and the response is aborted.
func TestExportCutByExpiredContinueEndsWithAnErrorLine(t *testing.T) {
	eachExportFormat(t, "", func(t *testing.T, format, encoding string) {
		h, fake := webtest.Demo(t, apitest.Options{})
		bulkPods(t, fake, 1500)
		fake.ExpireContinueTokensAfter(1)
		body := cutExport(t, h, format, encoding)
		want := "\n# ERROR: the export ended after 1000 " + exportNoun(format) + ": The provided continue parameter is too old"
		if !strings.Contains(body, want) {
			t.Errorf("no error line %q at the end of:\n…%s", want, body[max(0, len(body)-300):])
		}
		if strings.Contains(body, "p-01000") {
			t.Error("rows after the cut")
		}
		if strings.Count(body, "p-00999") == 0 {
			t.Error("the first page is missing")
		}
	})
}

// cutUpstream serves namespace bulk's pods through fake from upstream, a
// fake of its own holding n of them: each page as upstream answers it,
// but the page that continues the first, which cut answers, with
// upstream's answer at hand.
func cutUpstream(t *testing.T, fake *apitest.Server, n int, cut func(w http.ResponseWriter, page *httptest.ResponseRecorder)) {
	t.Helper()
	upstream := apitest.NewServer(t, apitest.CoreV1())
	bulkPods(t, upstream, n)
	fake.Override("/api/v1/namespaces/bulk/pods", func(w http.ResponseWriter, r *http.Request) {
		page := httptest.NewRecorder()
		upstream.Config.Handler.ServeHTTP(page, r)
		if r.URL.Query().Get("continue") != "" {
			cut(w, page)
			return
		}
		maps.Copy(w.Header(), page.Header())
		w.WriteHeader(page.Code)
		_, _ = w.Write(page.Body.Bytes())
	})
}

// exportedNames matches an exported pod's name: a CSV or TSV row's first
// cell, a JSON or YAML object's metadata.name.
var exportedNames = regexp.MustCompile(`(?m)(^|"name":"|name: )p-\d{5}`)

// The upstream cuts the collection part-way otherwise than with a 410: the
// connection drops in the middle of a page or before it, or the server
// gives up on the request (504 Timeout). The file ends with an error line
// that says how many rows it holds, the response is aborted, and the
// export is logged as cut short: never a file that looks complete.
func TestExportCutByTheUpstreamEndsWithAnErrorLine(t *testing.T) {
	const n = 1500 // a first page of 1,000, and a second of 500
	timeout := metav1.Status{Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: "Timeout: request did not complete within requested timeout - context deadline exceeded"}
	for _, cut := range []struct {
		name string
		cut  func(w http.ResponseWriter, page *httptest.ResponseRecorder)
		// says is what the error line says of the cut (in part); rows, how
		// many came before it (0: some of the second page's, not all).
		says string
		rows int
	}{
		{"dropped mid-page", func(w http.ResponseWriter, page *httptest.ResponseRecorder) {
			maps.Copy(w.Header(), page.Header())
			w.WriteHeader(page.Code)
			_, _ = w.Write(page.Body.Bytes()[:page.Body.Len()/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}, "unexpected EOF", 0},
		{"dropped before the page", func(http.ResponseWriter, *httptest.ResponseRecorder) {
			panic(http.ErrAbortHandler)
		}, "EOF", 1000},
		{"504 timeout", func(w http.ResponseWriter, _ *httptest.ResponseRecorder) {
			apitest.WriteStatus(w, timeout)
		}, timeout.Message, 1000},
	} {
		fake := apitest.NewServer(t, apitest.CoreV1())
		cutUpstream(t, fake, n, cut.cut)
		h := webtest.Start(t, fake, webtest.Options{CaptureLog: true})
		eachExportFormat(t, cut.name+" ", func(t *testing.T, format, encoding string) {
			body := cutExport(t, h, format, encoding)
			what := exportNoun(format)
			head, line, ok := strings.Cut(body, "\n# ERROR: the export ended after ")
			if !ok || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
				t.Fatalf("the file does not end with one error line:\n…%s", body[max(0, len(body)-300):])
			}
			rows := len(exportedNames.FindAllString(head, -1))
			prefix := fmt.Sprintf("%d %s: ", rows, what)
			message, counted := strings.CutPrefix(strings.TrimSuffix(line, "\n"), prefix)
			switch {
			case !counted:
				t.Errorf("the error line %q does not say the %d %s the file holds", line, rows, what)
			case !strings.Contains(message, cut.says):
				t.Errorf("the error line says %q, want %q", message, cut.says)
			case strings.Contains(message, "Nothing of it is shown"):
				// The page's words: the file holds what was read of it.
				t.Errorf("the error line says %q, of a file holding %d %s", message, rows, what)
			}
			if (cut.rows != 0 && rows != cut.rows) || (cut.rows == 0 && rows <= 1000) {
				t.Errorf("%d %s before the error line, want %d (0: more than the first page's)", rows, what, cut.rows)
			}
			if rows < 1000 || rows >= n || !strings.Contains(head, "p-00999") {
				t.Errorf("%d %s before the error line, want the first page's 1000 and not all %d", rows, what, n)
			}
			recs := h.Log.Records(t, "export")
			if len(recs) == 0 {
				t.Fatal("the export was not logged")
			}
			if r := recs[len(recs)-1]; !strings.HasPrefix(fmt.Sprint(r["result"]), "cut short: ") || r["rows"] != float64(rows) {
				t.Errorf("logged as %v after %v rows, want cut short after %d", r["result"], r["rows"], rows)
			}
		})
	}
}

func TestExportErrorsBeforeTheFirstByteArePages(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?export=xlsx", http.StatusBadRequest)
	if !strings.Contains(body, "export must be csv, tsv, json or yaml, not &#34;xlsx&#34;") {
		t.Errorf("400 page does not say what was wrong:\n%s", webtest.Clip(body))
	}
	h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?export=", http.StatusBadRequest)
	fake.FailResource("", "pods", apitest.Forbidden("alice", "list", "", "pods", ""))
	for _, format := range []string{"csv", "yaml"} {
		resp, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?export="+format, http.StatusForbidden)
		if resp.Header.Get("Content-Disposition") != "" || !strings.Contains(body, "forbidden") {
			t.Errorf("%s: a refusal is not an error page: %q\n%s", format, resp.Header.Get("Content-Disposition"), webtest.Clip(body))
		}
	}
}

func TestExportJSONAndYAMLAreLists(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	bulkPods(t, fake, 1199)
	managed := apitest.Pod("bulk", "p-01199", map[string]string{"app": "bulk"})
	managed.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1"}})
	fake.Add(managed)
	resp, body, err := exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export=json", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	var list struct {
		APIVersion, Kind string
		Items            []map[string]any
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if list.Kind != "List" || list.APIVersion != "v1" || len(list.Items) != 1200 || list.Items[0]["kind"] != "Pod" || list.Items[0]["apiVersion"] != "v1" {
		t.Errorf("%s %s, %d items, first %v %v", list.APIVersion, list.Kind, len(list.Items), list.Items[0]["apiVersion"], list.Items[0]["kind"])
	}
	if strings.Contains(body, "managedFields") {
		t.Error("the objects keep their managedFields")
	}
	resp, body, err = exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export=yaml", nil)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != "attachment; filename=dev-bulk-pods.yaml" {
		t.Fatalf("status %d, %v, %q", resp.StatusCode, err, resp.Header.Get("Content-Disposition"))
	}
	list.Items = nil
	if err := yaml.Unmarshal([]byte(body), &list); err != nil {
		t.Fatalf("YAML: %v", err)
	}
	if list.Kind != "List" || len(list.Items) != 1200 || list.Items[1199]["metadata"].(map[string]any)["name"] != "p-01199" {
		t.Errorf("YAML: %s, %d items", list.Kind, len(list.Items))
	}
	// The first lines say what was exported, each a comment whatever the
	// selectors hold.
	_, body, _ = exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export=yaml&fieldSelector=metadata.name%3Dp-00001&labelSelector=app%3Dbulk,%0A!evil", nil)
	if want := "# pods (v1) in context dev, namespace bulk, labelSelector app=bulk, !evil, fieldSelector metadata.name=p-00001; exported by Tabula at "; !strings.HasPrefix(body, want) {
		t.Errorf("YAML head, want %q:\n%s", want, body)
	}
	list.Items = nil
	if err := yaml.Unmarshal([]byte(body), &list); err != nil || list.Kind != "List" || len(list.Items) != 1 {
		t.Errorf("selected YAML: %v, %s, %d items", err, list.Kind, len(list.Items))
	}
	_, body, _ = exportGet(t, h, "/c/dev/api/v1/namespaces/nothing/pods?export=yaml", nil)
	if !strings.HasSuffix(body, "\nitems: []\n") {
		t.Errorf("an empty export:\n%s", body)
	}
}

// secretsConsole is WithAccess with Secret creds holding values, and a
// user (alice, the viewer) who may list Secrets in demo but not get them.
func secretsConsole(t *testing.T) *webtest.Console {
	ac := webtest.AccessRules()
	ac.Rules = append(ac.Rules, apitest.Rule{Users: []string{"alice@example.com"}, Namespaces: []string{"demo"}, Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"secrets"}})
	c := webtest.WithAccess(t, ac)
	s := apitest.Object("v1", "Secret", "demo", "db", map[string]any{
		"type":       "Opaque",
		"data":       map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(webtest.SecretPassword))},
		"stringData": map[string]any{"token": webtest.SecretToken},
	})
	c.Fake.Add(s)
	return c
}

func TestExportMasksSecretValuesUnlessRevealedToWhoMayGetThem(t *testing.T) {
	c := secretsConsole(t)
	const path = "/c/dev/api/v1/namespaces/demo/secrets?export="
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			// Masked by default, for everyone, keys kept.
			for _, token := range []string{webtest.ConsoleToken, webtest.ViewerToken} {
				resp, body, err := exportGet(t, c, path+format, webtest.As(token))
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %d %v", token, resp.StatusCode, err)
				}
				if strings.Contains(body, base64.StdEncoding.EncodeToString([]byte(webtest.SecretPassword))) || strings.Contains(body, webtest.SecretToken) {
					t.Errorf("%s: a Secret value was exported:\n%s", token, body)
				}
				if !strings.Contains(body, "password") || !strings.Contains(body, "hidden (22 bytes)") {
					t.Errorf("%s: keys or sizes missing:\n%s", token, body)
				}
				if got := resp.Header.Get("X-Tabula-Secret-Values"); got != "masked" {
					t.Errorf("X-Tabula-Secret-Values %q", got)
				}
				if format == "yaml" && !strings.Contains(body, "\n# Secret values are masked") {
					t.Errorf("the YAML does not say the values are masked:\n%s", body)
				}
			}
			// Revealed to who asks and may get them.
			resp, body, err := exportGet(t, c, path+format+"&reveal=1", webtest.As(webtest.EditorToken))
			if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("X-Tabula-Secret-Values") != "revealed" {
				t.Fatalf("editor: %d %v %q", resp.StatusCode, err, resp.Header.Get("X-Tabula-Secret-Values"))
			}
			if !strings.Contains(body, base64.StdEncoding.EncodeToString([]byte(webtest.SecretPassword))) || !strings.Contains(body, webtest.SecretToken) {
				t.Errorf("revealed export lacks the values:\n%s", body)
			}
			if format == "yaml" && !strings.Contains(body, "\n# Secret values are revealed") {
				t.Errorf("the YAML does not say the values are revealed:\n%s", body)
			}
			// Refused, with the reason, to who may list but not get them.
			body = c.GetAs(t, webtest.ViewerToken, path+format+"&reveal=1", http.StatusForbidden)
			if !strings.Contains(body, "You may not get secrets in namespace demo (verb get)") || strings.Contains(body, webtest.SecretToken) {
				t.Errorf("refusal page:\n%s", webtest.Clip(body))
			}
		})
	}
}

func TestExportLogsWhoWhatAndHowItEnded(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	c := webtest.Start(t, fake, webtest.Options{CaptureLog: true})
	bulkPods(t, fake, 3)
	if _, _, err := exportGet(t, c, "/c/dev/api/v1/namespaces/bulk/pods?export=csv", nil); err != nil {
		t.Fatal(err)
	}
	recs := c.Log.Records(t, "export")
	if len(recs) != 1 {
		t.Fatalf("%d export records", len(recs))
	}
	r := recs[0]
	if r["who"] != "kubeconfig-context:dev" || r["resource"] != "pods" || r["namespace"] != "bulk" || r["format"] != "csv" || r["rows"] != float64(3) || r["result"] != "complete" {
		t.Errorf("log record %v", r)
	}
}

// The Export menu carries the page's query, without what an export ignores
// (paging, the page size, sorting).
func TestListPageOffersExportsOfItsQuery(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	bulkPods(t, fake, 3)
	_, first := h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods?labelSelector=app%3Dbulk&limit=2&wide=1&sort=Name", http.StatusOK)
	next := webtest.Parse(t, first).Find("[data-testid=page-next]").AttrOr("href", "")
	if next == "" {
		t.Fatal("no next page")
	}
	_, body := h.Get(t, next, http.StatusOK)
	doc := webtest.Parse(t, body)
	for _, f := range []string{"csv", "tsv", "json", "yaml"} {
		href := doc.Find("[data-testid=export-menu] [data-testid=export-"+f+"]").AttrOr("href", "")
		want := "/c/dev/api/v1/namespaces/bulk/pods?export=" + f + "&labelSelector=app%3Dbulk&wide=1"
		if href != want {
			t.Errorf("%s: %q, want %q", f, href, want)
		}
	}
	resp, body, err := exportGet(t, h, doc.Find("[data-testid=export-csv]").AttrOr("href", ""), nil)
	if err != nil || resp.StatusCode != http.StatusOK || strings.Count(body, "\n") != 4 {
		t.Errorf("the menu's CSV: %d %v\n%s", resp.StatusCode, err, body)
	}
}

// twoPageTable serves pods of demo as a two-page Table whose second page
// waits for release (or the request's end).
func twoPageTable(fake *apitest.Server, release <-chan struct{}) {
	fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		next, name := "page-2", "pod-1"
		if r.URL.Query().Get("continue") != "" {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			next, name = "", "pod-2"
		}
		w.Header().Set("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io")
		fmt.Fprintf(w, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7","continue":%q},`+
			`"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"","priority":0}],"rows":[{"cells":[%q]}]}`, next, name)
	})
}

// An export is not cut by the page deadline: it has its own. What was
// written reaches the browser while a slow page is awaited.
func TestExportOutlastsThePageDeadline(t *testing.T) {
	const timeout = 300 * time.Millisecond
	fake := apitest.NewServer(t, apitest.CoreV1())
	release := make(chan struct{})
	twoPageTable(fake, release)
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: timeout}})
	resp, err := http.Get(h.URL + "/c/dev/api/v1/namespaces/demo/pods?export=csv")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := bufio.NewReader(resp.Body)
	for _, want := range []string{"Name\n", "pod-1\n"} {
		if line, err := r.ReadString('\n'); line != want || err != nil {
			t.Fatalf("read %q (%v), want %q", line, err, want)
		}
	}
	// The first page was read and written; the second is held past the
	// page deadline.
	time.Sleep(2 * timeout)
	close(release)
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "pod-2\n" {
		t.Errorf("after the page deadline: %q (%v), want the second page", rest, err)
	}
}

// Until its first byte an export is bounded as a page is: an upstream that
// does not answer is a 504 page, not a download that never starts.
func TestExportSetupHasThePageDeadline(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override("/api/v1/namespaces/demo/pods", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; returns when the console gives up
	})
	h := webtest.Start(t, fake, webtest.Options{Deps: web.Deps{RequestTimeout: 300 * time.Millisecond}})
	for _, format := range []string{"csv", "json"} {
		resp, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods?export="+format, http.StatusGatewayTimeout)
		if resp.Header.Get("Content-Disposition") != "" || !strings.Contains(body, "did not start answering within 300ms; nothing was exported") {
			t.Errorf("%s: %s", format, webtest.Clip(body))
		}
	}
}

// A cell a spreadsheet would run as a formula is exported with a leading
// apostrophe (OWASP's advice against CSV injection); numbers stay numbers.
func TestExportNeutralizesFormulas(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	fake.Add(apitest.CSMSession("evil", `=HYPERLINK("http://evil.example/")`, "+cmd|' /C calc'!A0", "@SUM(1+1)"))
	fake.Add(apitest.CSMSession("numbers", "-2", "-1.5e3", "\tTAB"))
	resp, body, err := exportGet(t, h, "/c/dev/apis/policy.example.com/v1/sessions?export=csv&wide=1", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if got := resp.Header.Get("Content-Disposition"); got != "attachment; filename=dev-sessions.policy.example.com.csv" {
		t.Errorf("Content-Disposition %q", got)
	}
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, r := range records[1:] {
		rows[r[0]] = r
	}
	// Name, Operation, Template, Status, Limit, Age
	for name, want := range map[string][]string{
		"evil":    {`'=HYPERLINK("http://evil.example/")`, "'+cmd|' /C calc'!A0", "'@SUM(1+1)"},
		"numbers": {"-2", "-1.5e3", "'\tTAB"},
	} {
		if got := rows[name]; len(got) < 4 || !slices.Equal(got[1:4], want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// A browser that leaves mid-export ends it: the page awaited upstream is
// dropped, the stream slot given back, and the export logged as such.
func TestExportEndsWhenTheBrowserLeaves(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	release := make(chan struct{})
	defer close(release)
	twoPageTable(fake, release)
	h := webtest.Start(t, fake, webtest.Options{CaptureLog: true})
	req, err := http.NewRequest(http.MethodGet, h.URL+"/c/dev/api/v1/namespaces/demo/pods?export=csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	for _, want := range []string{"Name\n", "pod-1\n"} {
		if line, err := r.ReadString('\n'); line != want || err != nil {
			t.Fatalf("read %q (%v), want %q", line, err, want)
		}
	}
	resp.Body.Close() // the browser leaves while the second page is held
	apitest.WaitFor(t, 10*time.Second, func() error {
		recs := h.Log.Records(t, "export")
		if len(recs) != 1 {
			return fmt.Errorf("%d export records", len(recs))
		}
		if recs[0]["result"] != "the browser went away" || recs[0]["rows"] != float64(1) {
			return fmt.Errorf("export record %v", recs[0])
		}
		return nil
	})
	apitest.WaitFor(t, 10*time.Second, func() error {
		if _, metrics := h.Get(t, "/metrics", http.StatusOK); !strings.Contains(metrics, "tabula_stream_slots_in_use 0\n") {
			return errors.New("the export's stream slot is still taken")
		}
		return nil
	})
}

// A filtered page's CSV holds the rows its filters keep, from the whole
// collection, not only those its scan budget reached; a JSON or YAML export
// of objects refuses row filters rather than ignoring them.
func TestExportCSVKeepsTheRowsTheFiltersKeep(t *testing.T) {
	h, fake := webtest.Demo(t, apitest.Options{})
	for i := range 1500 {
		p := apitest.Pod("bulk", fmt.Sprintf("p-%05d", i), map[string]string{"app": "bulk"})
		if i%100 == 0 {
			webtest.SetPhase("Pending")(p)
		}
		fake.Add(p)
	}
	resp, body, err := exportGet(t, h, "/c/dev/api/v1/namespaces/bulk/pods?export=csv&filter=Status%3DPending", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, read error %v", resp.StatusCode, err)
	}
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1+15 || records[1][0] != "p-00000" || records[15][0] != "p-01400" {
		t.Errorf("%d records (want a header and 15 Pending pods): %v", len(records), records)
	}
	// The page's Export menu leaves the filters out of the Lists, and says so.
	_, page := h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods?filter=Status%3DPending", http.StatusOK)
	doc := webtest.Parse(t, page)
	for format, filtered := range map[string]bool{"csv": true, "tsv": true, "json": false, "yaml": false} {
		link := doc.Find(`[data-testid=export-` + format + `]`)
		href := link.AttrOr("href", "")
		if strings.Contains(href, "filter=") != filtered || strings.Contains(link.Text(), "without the row filters") == filtered {
			t.Errorf("%s export link %q (%q): filtered %v wanted", format, href, strings.TrimSpace(link.Text()), filtered)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		_, body := h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods?export="+format+"&filter=Status%3DPending", http.StatusBadRequest)
		if !strings.Contains(body, "apply to CSV and TSV") {
			t.Errorf("%s with a row filter: the 400 does not say why", format)
		}
	}
	h.Get(t, "/c/dev/api/v1/namespaces/bulk/pods?export=csv&filter=Nope%3Dx", http.StatusBadRequest)
}

// Custom columns never print a Secret's values: not on the page, not in a
// CSV, not through a filter on them.
func TestCustomColumnsOfSecretValuesAreMasked(t *testing.T) {
	c := secretsConsole(t)
	password := base64.StdEncoding.EncodeToString([]byte(webtest.SecretPassword))
	spec := url.QueryEscape("PASSWORD:.data.password,TOKEN:.stringData.token,ALL:.data")
	const secrets = "/c/dev/api/v1/namespaces/demo/secrets"
	body := c.GetAs(t, webtest.EditorToken, secrets+"?columns="+spec, http.StatusOK)
	if strings.Contains(body, password) || strings.Contains(body, webtest.SecretToken) || !strings.Contains(body, "hidden (22 bytes)") {
		t.Errorf("the page shows a Secret value, or not its masked size:\n%s", webtest.Clip(body))
	}
	resp, csvBody, err := exportGet(t, c, secrets+"?export=csv&columns="+spec, webtest.As(webtest.EditorToken))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if strings.Contains(csvBody, password) || strings.Contains(csvBody, webtest.SecretToken) || !strings.Contains(csvBody, "hidden (22 bytes)") {
		t.Errorf("the CSV shows a Secret value, or not its masked size:\n%s", csvBody)
	}
	// A filter on the value finds nothing: it sees the mask.
	body = c.GetAs(t, webtest.EditorToken, secrets+"?columns="+spec+"&filter="+url.QueryEscape("PASSWORD="+password), http.StatusOK)
	if webtest.Parse(t, body).Find("[data-testid=list-table] tbody tr").Length() != 0 {
		t.Error("a filter on a Secret value matched it")
	}
}

// A Secret list's Export menu offers the values revealed only to who the
// server says may get them, and as a choice of its own.
func TestSecretListOffersRevealedExportsToWhoMayGetThem(t *testing.T) {
	c := secretsConsole(t)
	const secrets = "/c/dev/api/v1/namespaces/demo/secrets"
	for token, offered := range map[string]bool{webtest.EditorToken: true, webtest.ViewerToken: false} {
		doc := webtest.Parse(t, c.GetAs(t, token, secrets, http.StatusOK))
		for _, f := range []string{"json", "yaml"} {
			link := doc.Find("[data-testid=export-" + f + "-reveal]")
			if (link.Length() == 1) != offered {
				t.Errorf("%s: %s with values offered: %v, want %v", token, f, link.Length() == 1, offered)
			}
			if offered && !strings.Contains(link.AttrOr("href", ""), "reveal=1") {
				t.Errorf("%s: %s link %q", token, f, link.AttrOr("href", ""))
			}
			if href := doc.Find("[data-testid=export-"+f+"]").AttrOr("href", ""); strings.Contains(href, "reveal") {
				t.Errorf("%s: the plain %s export %q reveals", token, f, href)
			}
		}
	}
	// Not on other lists.
	if webtest.Parse(t, c.GetAs(t, webtest.EditorToken, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)).Find("[data-testid$=-reveal]").Length() != 0 {
		t.Error("a pod list offers revealed exports")
	}
}
