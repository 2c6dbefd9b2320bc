package bulk_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web/webtest"
)

// The bulk pages' tests drive the console as a browser does
// (webtest.Browser) over the apitest fake, which records every write:
// the list page's checkboxes and form, the review (access reviews, reads,
// dry runs), the apply (writes guarded by resourceVersion) and its
// streamed results. Every request asserts its status code.

const (
	podsPath  = "/c/dev/api/v1/namespaces/demo/pods"
	reviewURL = "/c/dev/bulk"
	applyURL  = "/c/dev/bulk/apply"
)

// podsConsole is webtest.Pods with three more pods in demo (web-3..web-5).
func podsConsole(t *testing.T) *webtest.Console {
	t.Helper()
	c := webtest.Pods(t)
	for i := 3; i <= 5; i++ {
		c.Fake.Add(apitest.Pod("demo", fmt.Sprintf("web-%d", i), map[string]string{"app": "web"}))
	}
	return c
}

// reviewForm is the list page's bulk form with op and items set, as a
// browser sends it once rows are checked (their boxes join it by form=).
func reviewForm(t *testing.T, b *webtest.Browser, listPath, op string, items ...string) *webtest.Form {
	t.Helper()
	p := b.Get(listPath, http.StatusOK)
	return b.Form(p, "[data-testid=bulk-form]").Set("op", op).Set("item", items...)
}

func stored(t *testing.T, c *webtest.Console, ns, name string) bool {
	t.Helper()
	return c.Stored(t, "/api/v1/namespaces/"+ns+"/pods/"+name) != nil
}

// storedAs reads an object from the fake as the user of token (a fake
// with Access has no token of its own).
func storedAs(t *testing.T, c *webtest.Console, token, apiPath string) *unstructured.Unstructured {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Fake.URL+apiPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Fake.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fake GET %s: %d", apiPath, resp.StatusCode)
	}
	obj := &unstructured.Unstructured{}
	if err := json.NewDecoder(resp.Body).Decode(&obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

// The list page's rows carry a checkbox of the bulk form, keyed
// namespace/name, and the header a "select all" box; the form offers the
// actions the server serves for the resource.
func TestListRowsHaveCheckboxesOfTheBulkForm(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	p := b.Get(podsPath, http.StatusOK)
	boxes := p.Doc.Find("[data-testid=list-table] tbody input[type=checkbox][name=item]")
	if boxes.Length() != 5 {
		t.Fatalf("%d checkboxes, want one per row (5)", boxes.Length())
	}
	boxes.Each(func(i int, s *goquery.Selection) {
		if s.AttrOr("form", "") != "bulk-form" {
			t.Errorf("checkbox %d: form=%q", i, s.AttrOr("form", ""))
		}
	})
	if got := boxes.First().AttrOr("value", ""); got != "demo/web-1" {
		t.Errorf("first checkbox value %q, want demo/web-1", got)
	}
	if !p.Has("bulk-all") {
		t.Error("no select-all box in the header")
	}
	if got := p.Doc.Find("[data-testid=list-table] thead th").Length(); got != p.Doc.Find("[data-testid=list-table] tbody tr").First().Find("td").Length() {
		t.Errorf("header has %d cells, rows %d", got, p.Doc.Find("[data-testid=list-table] tbody tr").First().Find("td").Length())
	}
	var ops []string
	p.Doc.Find("[data-testid=bulk-op] option").Each(func(_ int, s *goquery.Selection) { ops = append(ops, s.AttrOr("value", "")) })
	if got := strings.Join(ops, ","); got != "delete,label,unlabel,annotate,unannotate" {
		t.Errorf("pod actions %q", got)
	}
	d := b.Get("/c/dev/apis/apps/v1/namespaces/demo/deployments", http.StatusOK)
	ops = nil
	d.Doc.Find("[data-testid=bulk-op] option").Each(func(_ int, s *goquery.Selection) { ops = append(ops, s.AttrOr("value", "")) })
	if got := strings.Join(ops, ","); got != "delete,restart,scale,label,unlabel,annotate,unannotate" {
		t.Errorf("deployment actions %q", got)
	}
	// The form's token comes first, as the CSRF check reads it.
	if first := p.Doc.Find("[data-testid=bulk-form] input").First().AttrOr("name", ""); first != "_csrf" {
		t.Errorf("first field of the bulk form is %q", first)
	}
}

// A resource the server lets no one delete or patch gets no checkboxes.
func TestListWithoutBulkActionsHasNoCheckboxes(t *testing.T) {
	c, _ := webtest.Demo(t, apitest.Options{})
	b := webtest.NewBrowser(t, c)
	p := b.Get("/c/dev/apis/policy.example.com/v1/sessions", http.StatusOK)
	if p.Has("bulk-form") || p.Doc.Find("input[name=item]").Length() > 0 {
		t.Error("a list without delete or patch offers bulk actions")
	}
}

// The review reads each object, dry-runs the delete with its version, and
// stores nothing; the apply deletes each with that version as its
// precondition and shows a result per object.
func TestBulkDeleteReviewsThenApplies(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	items := []string{"demo/web-1", "demo/web-2", "demo/web-3"}
	c.Fake.ResetRequests()
	r := reviewForm(t, b, podsPath, "delete", items...).Set("propagationPolicy", "Orphan").Submit("", http.StatusOK)
	if got := r.Text("bulk-title"); got != "Review: Delete (propagation Orphan)" {
		t.Errorf("title %q", got)
	}
	rows := r.Doc.Find("[data-testid=review-item]")
	if rows.Length() != 3 {
		t.Fatalf("%d review rows, want 3", rows.Length())
	}
	rows.Each(func(i int, s *goquery.Selection) {
		if s.AttrOr("data-state", "") != "ready" || strings.TrimSpace(s.Find("[data-testid=review-dry-run]").Text()) != "accepted" {
			t.Errorf("row %d: state %q, dry run %q", i, s.AttrOr("data-state", ""), s.Find("[data-testid=review-dry-run]").Text())
		}
	})
	ws := c.Fake.Writes()
	if len(ws) != 3 {
		t.Fatalf("review sent %d writes, want 3 dry runs: %+v", len(ws), ws)
	}
	for _, w := range ws {
		var opts metav1.DeleteOptions
		if err := json.Unmarshal(w.Body, &opts); err != nil {
			t.Fatal(err)
		}
		if w.Method != http.MethodDelete || len(opts.DryRun) != 1 || opts.DryRun[0] != "All" || opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil || *opts.PropagationPolicy != "Orphan" {
			t.Errorf("review write %s %s %s: want a dry-run DELETE with a resourceVersion precondition", w.Method, w.Path, w.Body)
		}
	}
	for _, it := range items {
		if !stored(t, c, "demo", strings.TrimPrefix(it, "demo/")) {
			t.Fatalf("the review deleted %s", it)
		}
	}
	// Orphan keeps each pod, marked, until the garbage collector removes
	// its finalizer: the results say so.
	apply := b.Form(r, "[data-testid=apply-form]")
	if got := apply.Values["item"]; strings.Join(got, ",") != strings.Join(items, ",") || len(apply.Values["rv"]) != 3 {
		t.Fatalf("apply form items %q, rvs %q", got, apply.Values["rv"])
	}
	c.Fake.ResetRequests()
	res := apply.Submit("", http.StatusOK)
	results := res.Doc.Find("[data-testid=bulk-result]")
	if results.Length() != 3 {
		t.Fatalf("%d results, want 3:\n%s", results.Length(), webtest.Clip(res.Body))
	}
	results.Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("data-outcome", "") != "done" || s.Find("[data-testid=bulk-detail]").Text() != "marked for deletion; finalizers: orphan" {
			t.Errorf("%s: outcome %q, %q", s.AttrOr("data-key", ""), s.AttrOr("data-outcome", ""), s.Find("[data-testid=bulk-detail]").Text())
		}
	})
	if got := res.Text("bulk-summary-done"); got != "3 done" {
		t.Errorf("summary %q", got)
	}
	for _, it := range items {
		name := strings.TrimPrefix(it, "demo/")
		if c.Stored(t, "/api/v1/namespaces/demo/pods/"+name).GetDeletionTimestamp() == nil {
			t.Errorf("%s was not marked for deletion", it)
		}
		c.Fake.Finalize("", "pods", "demo", name)
		if stored(t, c, "demo", name) {
			t.Errorf("%s is still there", it)
		}
	}
	for _, w := range c.Fake.Writes() {
		if strings.Contains(string(w.Body), "dryRun") {
			t.Errorf("apply sent a dry run: %s", w.Body)
		}
	}
	if !stored(t, c, "demo", "web-4") || !stored(t, c, "demo", "web-5") {
		t.Error("an object not selected was deleted")
	}
}

// One object changed between the review and the apply: its delete is a
// 409 Conflict, shown with a way to review it again, and the others are
// deleted all the same.
func TestBulkApplyConflictOnOneItemOthersSucceed(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	r := reviewForm(t, b, podsPath, "delete", "demo/web-1", "demo/web-2", "demo/web-3").Submit("", http.StatusOK)
	apply := b.Form(r, "[data-testid=apply-form]")
	c.Fake.Modify(webtest.PodGVK, "demo", "web-2", webtest.SetPhase("Failed"))
	res := apply.Submit("", http.StatusOK)
	outcomes := map[string]string{}
	res.Doc.Find("[data-testid=bulk-result]").Each(func(_ int, s *goquery.Selection) {
		outcomes[s.AttrOr("data-key", "")] = s.AttrOr("data-outcome", "")
	})
	want := map[string]string{"demo/web-1": "done", "demo/web-2": "conflict", "demo/web-3": "done"}
	for k, v := range want {
		if outcomes[k] != v {
			t.Errorf("%s: outcome %q, want %q (all: %v)", k, outcomes[k], v, outcomes)
		}
	}
	if !stored(t, c, "demo", "web-2") || stored(t, c, "demo", "web-1") || stored(t, c, "demo", "web-3") {
		t.Error("the conflicted object was deleted, or the others were not")
	}
	conflict := res.Doc.Find(`[data-testid=bulk-result][data-key="demo/web-2"]`)
	if got := strings.TrimSpace(conflict.Find("[data-testid=bulk-error-code]").Text()); got != "409 Conflict" {
		t.Errorf("conflict code %q", got)
	}
	if res.Text("bulk-summary-done") != "2 done" || !strings.HasPrefix(res.Text("bulk-summary-conflict"), "1 ") {
		t.Errorf("summary %q / %q", res.Text("bulk-summary-done"), res.Text("bulk-summary-conflict"))
	}
	// Retry: a review of that one object, at its new version.
	retry := b.Form(res, `[data-testid=bulk-result][data-key="demo/web-2"] form`)
	if retry.Action != reviewURL || strings.Join(retry.Values["item"], ",") != "demo/web-2" || retry.Get("op") != "delete" {
		t.Fatalf("retry form %q %v", retry.Action, retry.Values)
	}
	again := retry.Submit("", http.StatusOK)
	if n := again.Doc.Find(`[data-testid=review-item][data-state=ready]`).Length(); n != 1 {
		t.Errorf("the retried review has %d ready items:\n%s", n, webtest.Clip(again.Body))
	}
}

// Between the review and the apply, two objects' writes start failing on
// the server's side: a webhook that can no longer be called (500
// InternalError) and an admission policy that now denies (422 Invalid,
// without causes, the object unchanged). Each is "failed" with the
// server's code and message, is not a conflict and is written once; the
// others are done, and the page says so.
func TestBulkApplyServerErrorOnOneItemOthersSucceed(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	items := []string{"demo/web-1", "demo/web-2", "demo/web-3", "demo/web-4"}
	r := reviewForm(t, b, podsPath, "label", items...).Set("key", "tier").Set("value", "gold").Submit("", http.StatusOK)
	if n := r.Doc.Find(`[data-testid=review-item][data-state=ready]`).Length(); n != 4 {
		t.Fatalf("%d ready in the review, want 4:\n%s", n, webtest.Clip(r.Body))
	}
	apply := b.Form(r, "[data-testid=apply-form]")
	failures := map[string]metav1.Status{
		"web-2": {Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
			Message: `Internal error occurred: failed calling webhook "validate.example.com": failed to call webhook: Post "https://validate.example.svc:443/?timeout=10s": dial tcp 10.96.0.12:443: connect: connection refused`},
		"web-3": {Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: `ValidatingAdmissionPolicy 'require-owner' with binding 'require-owner-demo' denied request: failed expression: has(object.metadata.labels.owner)`},
	}
	for name, st := range failures {
		pod := c.Stored(t, "/api/v1/namespaces/demo/pods/"+name)
		c.Fake.Override("/api/v1/namespaces/demo/pods/"+name, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet { // as stored: the 422 is no stale version
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(pod.Object)
				return
			}
			apitest.WriteStatus(w, st)
		})
	}
	c.Fake.ResetRequests()
	res := apply.Submit("", http.StatusOK)
	rows := map[string]*goquery.Selection{}
	res.Doc.Find("[data-testid=bulk-result]").Each(func(_ int, s *goquery.Selection) {
		rows[s.AttrOr("data-key", "")] = s
	})
	if len(rows) != 4 {
		t.Fatalf("%d results, want 4:\n%s", len(rows), webtest.Clip(res.Body))
	}
	for _, name := range []string{"web-1", "web-4"} {
		row := rows["demo/"+name]
		if got := row.AttrOr("data-outcome", ""); got != "done" || row.Find("[data-testid=bulk-detail]").Text() != "set" {
			t.Errorf("%s: outcome %q, detail %q; want done, set", name, got, row.Find("[data-testid=bulk-detail]").Text())
		}
		if l := c.Stored(t, "/api/v1/namespaces/demo/pods/"+name).GetLabels()["tier"]; l != "gold" {
			t.Errorf("%s: tier=%q, want gold", name, l)
		}
	}
	for name, st := range failures {
		row := rows["demo/"+name]
		if got := row.AttrOr("data-outcome", ""); got != "failed" {
			t.Errorf("%s: outcome %q, want failed", name, got)
		}
		if got, want := strings.TrimSpace(row.Find("[data-testid=bulk-error-code]").Text()), fmt.Sprintf("%d %s", st.Code, st.Reason); got != want {
			t.Errorf("%s: code %q, want %q", name, got, want)
		}
		if got := row.Find("[data-testid=bulk-error-message]").Text(); got != st.Message {
			t.Errorf("%s: message %q, want the server's %q", name, got, st.Message)
		}
		if row.Find("[data-testid=bulk-retry]").Length() != 0 {
			t.Errorf("%s: a failure is offered a review again, as a conflict is", name)
		}
	}
	if n := len(c.Writes(http.MethodPatch)); n != 4 {
		t.Errorf("%d patches, want one per object (4)", n)
	}
	if got := res.Text("bulk-summary-done"); got != "2 done" {
		t.Errorf("summary done %q", got)
	}
	if got := res.Text("bulk-summary-failed"); got != "2 failed" {
		t.Errorf("summary failed %q", got)
	}
	if res.Has("bulk-summary-conflict") {
		t.Errorf("the summary counts a conflict: %q", res.Text("bulk-summary-conflict"))
	}
}

// forbiddenConsole is an editor of demo (edit there, as the edit
// ClusterRole) who may only view the other namespaces, with pods in demo
// and team-a.
func forbiddenConsole(t *testing.T) *webtest.Console {
	t.Helper()
	ac := webtest.AccessRules()
	// Viewers of every namespace, as a view ClusterRoleBinding makes them:
	// the editor lists pods across namespaces.
	ac.Rules = append(ac.Rules, apitest.Viewer("tabula:editors")...)
	c := webtest.WithAccess(t, ac)
	c.Fake.Add(
		apitest.Pod("demo", "web-2", map[string]string{"app": "web"}),
		apitest.Pod("team-a", "worker-1", map[string]string{"app": "worker"}),
		apitest.Pod("team-a", "worker-2", map[string]string{"app": "worker"}),
	)
	return c
}

// The editor selects pods in demo and in team-a, which they may only view:
// the review marks team-a's forbidden with the authorizer's answer and
// sends them no dry run; the apply writes only demo's, even when a forged
// form names team-a's.
func TestBulkForbiddenItemsNeverReceiveAWrite(t *testing.T) {
	c := forbiddenConsole(t)
	b := webtest.NewBrowser(t, c)
	as := webtest.As(webtest.EditorToken)
	p := b.GetWith("/c/dev/api/v1/pods", http.StatusOK, as)
	fm := b.Form(p, "[data-testid=bulk-form]").Set("op", "label").Set("key", "tier").Set("value", "gold").
		Set("item", "demo/web-1", "team-a/worker-1", "demo/web-2", "team-a/worker-2")
	c.Fake.ResetRequests()
	r := fm.SubmitWith("", http.StatusOK, as)
	states := map[string]string{}
	r.Doc.Find("[data-testid=review-item]").Each(func(_ int, s *goquery.Selection) {
		states[s.AttrOr("data-key", "")] = s.AttrOr("data-state", "")
	})
	want := map[string]string{"demo/web-1": "ready", "demo/web-2": "ready", "team-a/worker-1": "forbidden", "team-a/worker-2": "forbidden"}
	for k, v := range want {
		if states[k] != v {
			t.Errorf("%s: state %q, want %q", k, states[k], v)
		}
	}
	reason := r.Doc.Find(`[data-testid=review-item][data-key="team-a/worker-1"] [data-testid=review-reason]`).Text()
	if !strings.Contains(reason, "You may not patch pods in namespace team-a") {
		t.Errorf("forbidden reason %q", reason)
	}
	if got := r.Text("review-summary"); !strings.Contains(got, "2 forbidden") {
		t.Errorf("summary %q", got)
	}
	noWriteTo := func(phase string) {
		t.Helper()
		for _, w := range c.Fake.Writes() {
			if strings.Contains(w.Path, "/namespaces/team-a/") {
				t.Errorf("%s sent %s %s to a forbidden object", phase, w.Method, w.Path)
			}
		}
	}
	noWriteTo("the review")
	apply := b.Form(r, "[data-testid=apply-form]")
	if got := strings.Join(apply.Values["item"], ","); got != "demo/web-1,demo/web-2" {
		t.Errorf("apply form carries %q", got)
	}
	// A forged apply naming a forbidden object as well.
	apply.Values["item"] = append(apply.Values["item"], "team-a/worker-1")
	apply.Values["rv"] = append(apply.Values["rv"], "1")
	c.Fake.ResetRequests()
	res := apply.SubmitWith("", http.StatusOK, as)
	outcomes := map[string]string{}
	res.Doc.Find("[data-testid=bulk-result]").Each(func(_ int, s *goquery.Selection) {
		outcomes[s.AttrOr("data-key", "")] = s.AttrOr("data-outcome", "")
	})
	if outcomes["demo/web-1"] != "done" || outcomes["demo/web-2"] != "done" || outcomes["team-a/worker-1"] != "forbidden" {
		t.Errorf("outcomes %v", outcomes)
	}
	noWriteTo("the apply")
	if n := len(c.Fake.Writes()); n != 2 {
		t.Errorf("the apply sent %d writes, want 2", n)
	}
	for _, name := range []string{"worker-1", "worker-2"} {
		if l := storedAs(t, c, webtest.ConsoleToken, "/api/v1/namespaces/team-a/pods/"+name).GetLabels()["tier"]; l != "" {
			t.Errorf("team-a/%s was labelled", name)
		}
	}
	if l := storedAs(t, c, webtest.ConsoleToken, "/api/v1/namespaces/demo/pods/web-1").GetLabels()["tier"]; l != "gold" {
		t.Errorf("demo/web-1 label tier=%q", l)
	}
}

// A dry run the server refuses is shown on its row with the server's
// code, reason and message; the object is left out of the apply form.
func TestBulkDryRunFailuresShownPerItem(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	pod := c.Stored(t, "/api/v1/namespaces/demo/pods/web-2")
	c.Fake.Override("/api/v1/namespaces/demo/pods/web-2", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(pod.Object)
			return
		}
		apitest.WriteStatus(w, metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: `Pod "web-2" is invalid: metadata.labels: Invalid value: "gold": denied by policy`})
	})
	r := reviewForm(t, b, podsPath, "label", "demo/web-1", "demo/web-2").Set("key", "tier").Set("value", "gold").Submit("", http.StatusOK)
	row := r.Doc.Find(`[data-testid=review-item][data-key="demo/web-2"]`)
	if row.AttrOr("data-state", "") != "failed" {
		t.Errorf("web-2 state %q", row.AttrOr("data-state", ""))
	}
	if got := strings.TrimSpace(row.Find("[data-testid=bulk-error-code]").Text()); got != "422 Invalid" {
		t.Errorf("code %q", got)
	}
	if got := row.Find("[data-testid=bulk-error-message]").Text(); !strings.Contains(got, "denied by policy") {
		t.Errorf("message %q", got)
	}
	if got := r.Doc.Find(`[data-testid=review-item][data-key="demo/web-1"]`).AttrOr("data-state", ""); got != "ready" {
		t.Errorf("web-1 state %q", got)
	}
	if got := strings.Join(b.Form(r, "[data-testid=apply-form]").Values["item"], ","); got != "demo/web-1" {
		t.Errorf("apply form carries %q", got)
	}
}

// Scale goes through the scale subresource with the Scale's version;
// restart and label patches carry metadata.resourceVersion.
func TestBulkWritesCarryTheReviewedVersion(t *testing.T) {
	c := podsConsole(t)
	c.Fake.Add(apitest.Deployment("demo", "api", 1, map[string]string{"app": "api"}))
	b := webtest.NewBrowser(t, c)
	deploys := "/c/dev/apis/apps/v1/namespaces/demo/deployments"
	for _, tc := range []struct {
		op, extra, value string
		check            func(w apitest.Write) error
	}{
		{"scale", "replicas", "4", func(w apitest.Write) error {
			if !strings.HasSuffix(w.Path, "/scale") || !strings.Contains(string(w.Body), `"resourceVersion"`) || !strings.Contains(string(w.Body), `"replicas":4`) {
				return fmt.Errorf("scale write %s %s", w.Path, w.Body)
			}
			return nil
		}},
		{"restart", "", "", func(w apitest.Write) error {
			if !strings.Contains(string(w.Body), "kubectl.kubernetes.io/restartedAt") || !strings.Contains(string(w.Body), `"resourceVersion"`) {
				return fmt.Errorf("restart write %s", w.Body)
			}
			return nil
		}},
	} {
		fm := reviewForm(t, b, deploys, tc.op, "demo/web", "demo/api")
		if tc.extra != "" {
			fm.Set(tc.extra, tc.value)
		}
		r := fm.Submit("", http.StatusOK)
		c.Fake.ResetRequests()
		res := b.Form(r, "[data-testid=apply-form]").Submit("", http.StatusOK)
		if n := res.Doc.Find(`[data-testid=bulk-result][data-outcome=done]`).Length(); n != 2 {
			t.Errorf("%s: %d done, want 2:\n%s", tc.op, n, webtest.Clip(res.Body))
		}
		ws := c.Fake.Writes()
		if len(ws) != 2 {
			t.Fatalf("%s: %d writes", tc.op, len(ws))
		}
		for _, w := range ws {
			if err := tc.check(w); err != nil {
				t.Error(err)
			}
		}
	}
	var d unstructured.Unstructured
	d.Object = c.Stored(t, "/apis/apps/v1/namespaces/demo/deployments/api").Object
	if n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); n != 4 {
		t.Errorf("api replicas %d", n)
	}
}

// Removing a label, then adding and removing an annotation: the review
// says what happens to each object (a long value cut short, on a character
// boundary), its dry run and the apply send the same merge patch (the key
// set, or null to remove it, and the version reviewed as
// metadata.resourceVersion), and the objects end as the review said.
func TestBulkLabelAndAnnotationChangesReviewedThenApplied(t *testing.T) {
	c := podsConsole(t)
	c.Fake.Add(apitest.Pod("demo", "solo", nil))
	b := webtest.NewBrowser(t, c)
	const key = "example.com/note"
	value := "Owned by platform operations; escalate to the 運用チーム on-call rota before changing it"
	// A review shows 60 bytes of a value; here they end inside ム, which
	// is left out whole.
	shown := "Owned by platform operations; escalate to the 運用チー…"
	for _, tc := range []struct {
		op, key, value string
		title, detail  string
		// changes is what the review says will happen to each object, by
		// name; noChange those it says are left as they are.
		changes  map[string]string
		noChange []string
		// field is the metadata map the patch changes; set the value it
		// sends for the key (nil removes it).
		field string
		set   any
		// after checks an object once the apply is done.
		after func(name string, o *unstructured.Unstructured) error
	}{
		{
			op: "unlabel", key: "app", title: "Review: Remove label app", detail: "removed",
			changes: map[string]string{"web-1": "Removes label app (was web)", "solo": "Has no label app: no change"}, noChange: []string{"solo"},
			field: "labels", set: nil,
			after: func(name string, o *unstructured.Unstructured) error {
				if v, ok := o.GetLabels()["app"]; ok {
					return fmt.Errorf("%s keeps label app=%s", name, v)
				}
				return nil
			},
		},
		{
			op: "annotate", key: key, value: value, title: "Review: Set annotation " + key, detail: "set",
			changes: map[string]string{"web-1": "Adds annotation " + key + "=" + shown, "web-2": "Adds annotation " + key + "=" + shown},
			field:   "annotations", set: value,
			after: func(name string, o *unstructured.Unstructured) error {
				if got := o.GetAnnotations()[key]; got != value {
					return fmt.Errorf("%s: annotation %q, want %q", name, got, value)
				}
				return nil
			},
		},
		{
			op: "unannotate", key: key, title: "Review: Remove annotation " + key, detail: "removed",
			changes: map[string]string{"web-1": "Removes annotation " + key + " (was " + shown + ")", "web-3": "Has no annotation " + key + ": no change"}, noChange: []string{"web-3"},
			field: "annotations", set: nil,
			after: func(name string, o *unstructured.Unstructured) error {
				if v, ok := o.GetAnnotations()[key]; ok {
					return fmt.Errorf("%s keeps annotation %q", name, v)
				}
				return nil
			},
		},
	} {
		var items []string
		for name := range tc.changes {
			items = append(items, "demo/"+name)
		}
		slices.Sort(items)
		fm := reviewForm(t, b, podsPath, tc.op, items...).Set("key", tc.key)
		if tc.value != "" {
			fm.Set("value", tc.value)
		}
		c.Fake.ResetRequests()
		r := fm.Submit("", http.StatusOK)
		if got := r.Text("bulk-title"); got != tc.title {
			t.Errorf("%s: title %q, want %q", tc.op, got, tc.title)
		}
		for name, want := range tc.changes {
			row := r.Doc.Find(`[data-testid=review-item][data-key="demo/` + name + `"]`)
			if got := row.AttrOr("data-state", ""); got != "ready" {
				t.Errorf("%s %s: state %q, want ready", tc.op, name, got)
			}
			if got := row.Find("[data-testid=review-change]").Text(); got != want || !utf8.ValidString(got) {
				t.Errorf("%s %s: the review says %q, want %q", tc.op, name, got, want)
			}
		}
		apply := b.Form(r, "[data-testid=apply-form]")
		if len(apply.Values["item"]) != len(items) || len(apply.Values["rv"]) != len(items) {
			t.Fatalf("%s: apply form items %q, versions %q", tc.op, apply.Values["item"], apply.Values["rv"])
		}
		rvs := map[string]string{} // by API path
		for i, it := range apply.Values["item"] {
			ns, name, _ := strings.Cut(it, "/")
			rvs["/api/v1/namespaces/"+ns+"/pods/"+name] = apply.Values["rv"][i]
		}
		// sent checks the writes: one merge patch per object, of the key
		// and the version reviewed, as a dry run or not.
		sent := func(phase string, dryRun bool) {
			t.Helper()
			ws := c.Fake.Writes()
			if len(ws) != len(items) {
				t.Errorf("%s %s: %d writes, want %d", tc.op, phase, len(ws), len(items))
			}
			for _, w := range ws {
				rv, ok := rvs[w.Path]
				if !ok || w.Method != http.MethodPatch || w.ContentType != "application/merge-patch+json" || (w.Query.Get("dryRun") == "All") != dryRun {
					t.Errorf("%s %s: %s %s?%s (%s), want a merge patch of a selected object, dry run %v", tc.op, phase, w.Method, w.Path, w.Query.Encode(), w.ContentType, dryRun)
					continue
				}
				var got map[string]any
				if err := json.Unmarshal(w.Body, &got); err != nil {
					t.Fatalf("%s %s: patch %s: %v", tc.op, phase, w.Body, err)
				}
				want := map[string]any{"metadata": map[string]any{
					tc.field:          map[string]any{tc.key: tc.set},
					"resourceVersion": rv,
				}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s of %s: patch %s, want %v", tc.op, phase, w.Path, w.Body, want)
				}
			}
		}
		sent("review", true)
		c.Fake.ResetRequests()
		res := apply.Submit("", http.StatusOK)
		sent("apply", false)
		for name := range tc.changes {
			row := res.Doc.Find(`[data-testid=bulk-result][data-key="demo/` + name + `"]`)
			if got := row.AttrOr("data-outcome", ""); got != "done" {
				t.Errorf("%s %s: outcome %q, want done:\n%s", tc.op, name, got, webtest.Clip(res.Body))
			}
			want := tc.detail
			if slices.Contains(tc.noChange, name) {
				want = "no change"
			}
			if got := row.Find("[data-testid=bulk-detail]").Text(); got != want {
				t.Errorf("%s %s: detail %q, want %q", tc.op, name, got, want)
			}
			if err := tc.after(name, c.Stored(t, "/api/v1/namespaces/demo/pods/"+name)); err != nil {
				t.Errorf("%s: %v", tc.op, err)
			}
		}
		if got, want := res.Text("bulk-summary-done"), fmt.Sprintf("%d done", len(items)); got != want {
			t.Errorf("%s: summary %q, want %q", tc.op, got, want)
		}
	}
}

// Bad forms are a 400 that says what was wrong; nothing is sent upstream.
func TestBulkRefusesBadForms(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("demo/p-%d", i)
	}
	for _, tc := range []struct {
		name   string
		change func(*webtest.Form)
		want   string
	}{
		{"too many items", func(f *webtest.Form) { f.Set("item", many...) }, "1001 objects were selected; one review takes at most 1000"},
		{"no items", func(f *webtest.Form) { f.Set("item") }, "No object was selected"},
		{"unknown op", func(f *webtest.Form) { f.Set("op", "explode") }, `"explode" is not a bulk action`},
		{"restart of pods", func(f *webtest.Form) { f.Set("op", "restart") }, `"restart" is not a bulk action the server serves for pods`},
		{"bad label key", func(f *webtest.Form) { f.Set("op", "label").Set("key", "no spaces please") }, `The label key "no spaces please" is not valid`},
		{"bad propagation", func(f *webtest.Form) { f.Set("propagationPolicy", "Sideways") }, `Unknown propagation policy "Sideways"`},
		{"item without a namespace", func(f *webtest.Form) { f.Set("item", "/web-1") }, `"/web-1" has no namespace`},
		{"item with a path", func(f *webtest.Form) { f.Set("item", "demo/web-1/../x") }, `names no object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm := reviewForm(t, b.For(t), podsPath, "delete", "demo/web-1")
			tc.change(fm)
			c.Fake.ResetRequests()
			p := fm.Submit("", http.StatusBadRequest)
			if !strings.Contains(p.Text("error-message"), tc.want) {
				t.Errorf("page does not say %q:\n%s", tc.want, webtest.Clip(p.Text("error-message")))
			}
			if ws := c.Fake.Writes(); len(ws) > 0 {
				t.Errorf("sent %d writes", len(ws))
			}
		})
	}
	// An apply whose items and versions do not pair up.
	fm := reviewForm(t, b, podsPath, "delete", "demo/web-1", "demo/web-2")
	fm.Action = applyURL
	fm.Set("rv", "1")
	fm.Submit("", http.StatusBadRequest)
	if stored(t, c, "demo", "web-1") == false {
		t.Error("a refused apply deleted web-1")
	}
}

// Review and apply are writes: without the CSRF token (or from another
// site) they are refused before anything is read.
func TestBulkNeedsCSRF(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	fm := reviewForm(t, b, podsPath, "delete", "demo/web-1")
	for _, path := range []string{reviewURL, applyURL} {
		values := url.Values{}
		for k, v := range fm.Values {
			if k != "_csrf" {
				values[k] = v
			}
		}
		values.Set("rv", "1")
		c.Fake.ResetRequests()
		b.Post(path, values, http.StatusForbidden, nil)
		fm.Values.Set("rv", "1")
		b.Post(path, fm.Values, http.StatusForbidden, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
		if ws := c.Fake.Writes(); len(ws) > 0 {
			t.Errorf("%s without CSRF sent %d writes", path, len(ws))
		}
		fm.Values.Del("rv")
	}
	if !stored(t, c, "demo", "web-1") {
		t.Error("web-1 was deleted")
	}
}

// A fleet list's sections (web/fleet) have no checkboxes: a bulk action
// is about one cluster's list.
func TestFleetListSectionsHaveNoCheckboxes(t *testing.T) {
	c := webtest.New(t, "dev", "prod")
	c.Fake.Add(apitest.Pod("demo", "web-1", map[string]string{"app": "web"}))
	b := webtest.NewBrowser(t, c)
	p := b.Get("/c/dev,prod/api/v1/pods", http.StatusOK)
	if p.Doc.Find("tbody tr").Length() == 0 {
		t.Fatalf("the fleet list shows no rows:\n%s", webtest.Clip(p.Body))
	}
	if p.Has("bulk-form") || p.Doc.Find("input[name=item]").Length() > 0 || p.Has("bulk-all") {
		t.Error("a fleet list offers bulk actions")
	}
}

// The apply has at most 8 writes in flight upstream: the fake holds every
// DELETE until 8 are waiting at once, then lets them all go, and the most
// ever in flight is 8.
func TestBulkApplyHasAtMostEightWritesInFlight(t *testing.T) {
	c := webtest.Pods(t)
	var items []string
	for i := range 20 {
		name := fmt.Sprintf("p-%02d", i)
		c.Fake.Add(apitest.Pod("demo", name, nil))
		items = append(items, "demo/"+name)
	}
	b := webtest.NewBrowser(t, c)
	r := reviewForm(t, b, podsPath, "delete", items...).Submit("", http.StatusOK)
	apply := b.Form(r, "[data-testid=apply-form]")

	var mu sync.Mutex
	inFlight, most := 0, 0
	release := make(chan struct{})
	for _, it := range items {
		c.Fake.Override("/api/v1/namespaces/demo/pods/"+strings.TrimPrefix(it, "demo/"), func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			<-release
			mu.Lock()
			inFlight--
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
		})
	}
	// The apply is posted from another goroutine, as a browser would; its
	// answer is checked here.
	type answer struct {
		status int
		body   string
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		rest := url.Values{}
		for k, v := range apply.Values {
			if k != "_csrf" {
				rest[k] = v
			}
		}
		req, err := http.NewRequest(http.MethodPost, c.URL+applyURL, strings.NewReader("_csrf="+url.QueryEscape(apply.Get("_csrf"))+"&"+rest.Encode()))
		if err != nil {
			done <- answer{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", c.URL)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := b.Client.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		done <- answer{status: resp.StatusCode, body: string(body), err: err}
	}()
	apitest.WaitFor(t, 10*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if inFlight < 8 {
			return fmt.Errorf("%d writes in flight, waiting for 8", inFlight)
		}
		return nil
	})
	close(release)
	var res answer
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the apply did not finish")
	}
	if res.err != nil || res.status != http.StatusOK {
		t.Fatalf("apply: %d %v\n%s", res.status, res.err, webtest.Clip(res.body))
	}
	if most != 8 {
		t.Errorf("at most %d writes were in flight, want 8", most)
	}
	if n := webtest.Parse(t, res.body).Find(`[data-testid=bulk-result][data-outcome=done]`).Length(); n != 20 {
		t.Errorf("%d done, want 20", n)
	}
}

// A server that takes only JSON Patch answers a stale version with a 422
// (its failed test of metadata.resourceVersion): the apply still calls it a
// conflict, and the others are done.
func TestBulkApplyConflictOnAJSONPatchOnlyServer(t *testing.T) {
	c := webtest.Start(t, webtest.EditableFake(t, apitest.Options{NoMergePatch: true}), webtest.Options{})
	c.Fake.Add(apitest.Pod("demo", "web-2", map[string]string{"app": "web"}))
	b := webtest.NewBrowser(t, c)
	r := reviewForm(t, b, podsPath, "label", "demo/web-1", "demo/web-2").Set("key", "tier").Set("value", "gold").Submit("", http.StatusOK)
	apply := b.Form(r, "[data-testid=apply-form]")
	c.Fake.Modify(webtest.PodGVK, "demo", "web-2", webtest.SetPhase("Failed"))
	res := apply.Submit("", http.StatusOK)
	outcomes := map[string]string{}
	res.Doc.Find("[data-testid=bulk-result]").Each(func(_ int, s *goquery.Selection) {
		outcomes[s.AttrOr("data-key", "")] = s.AttrOr("data-outcome", "")
	})
	if outcomes["demo/web-1"] != "done" || outcomes["demo/web-2"] != "conflict" {
		t.Errorf("outcomes %v", outcomes)
	}
	if l := c.Stored(t, "/api/v1/namespaces/demo/pods/web-2").GetLabels()["tier"]; l != "" {
		t.Errorf("web-2 was labelled %q", l)
	}
	if l := c.Stored(t, "/api/v1/namespaces/demo/pods/web-1").GetLabels()["tier"]; l != "gold" {
		t.Errorf("web-1 label %q", l)
	}
}

// Cluster-scoped objects are keyed "/name": a label added to two
// namespaces, and a server without access reviews says it could not tell.
func TestBulkLabelsClusterScopedObjects(t *testing.T) {
	c := webtest.Pods(t)
	c.Fake.Add(apitest.Object("v1", "Namespace", "", "demo", nil), apitest.Object("v1", "Namespace", "", "team-a", nil))
	b := webtest.NewBrowser(t, c)
	p := b.Get("/c/dev/api/v1/namespaces", http.StatusOK)
	if got := p.Doc.Find(`input[data-bulk-item]`).First().AttrOr("value", ""); got != "/demo" {
		t.Errorf("first checkbox %q, want /demo", got)
	}
	r := b.Form(p, "[data-testid=bulk-form]").Set("op", "label").Set("key", "env").Set("value", "prod").
		Set("item", "/demo", "/team-a").Submit("", http.StatusOK)
	if got := r.Text("review-notice"); !strings.Contains(got, "could not say") {
		t.Errorf("notice %q", got)
	}
	if got := r.Doc.Find(`[data-testid=review-item][data-key="/demo"] [data-testid=review-change]`).Text(); got != "Adds label env=prod" {
		t.Errorf("change %q", got)
	}
	res := b.Form(r, "[data-testid=apply-form]").Submit("", http.StatusOK)
	if n := res.Doc.Find(`[data-testid=bulk-result][data-outcome=done]`).Length(); n != 2 {
		t.Fatalf("%d done:\n%s", n, webtest.Clip(res.Body))
	}
	for _, ns := range []string{"demo", "team-a"} {
		if l := c.Stored(t, "/api/v1/namespaces/"+ns).GetLabels()["env"]; l != "prod" {
			t.Errorf("namespace %s: env=%q", ns, l)
		}
	}
}

// A one-namespace list offers the bulk actions the user may take there,
// and no checkboxes to a user who may take none; across namespaces the
// review decides, namespace by namespace.
func TestListOffersOnlyTheBulkActionsTheUserMayTake(t *testing.T) {
	c := forbiddenConsole(t)
	b := webtest.NewBrowser(t, c)
	ops := func(p webtest.Page) string {
		var out []string
		p.Doc.Find("[data-testid=bulk-op] option").Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("value", "")) })
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		token, path, ops string
	}{
		{webtest.EditorToken, "/c/dev/api/v1/namespaces/demo/pods", "delete,label,unlabel,annotate,unannotate"},
		{webtest.EditorToken, "/c/dev/api/v1/namespaces/team-a/pods", ""},
		{webtest.ViewerToken, "/c/dev/api/v1/namespaces/demo/pods", ""},
		{webtest.EditorToken, "/c/dev/api/v1/pods", "delete,label,unlabel,annotate,unannotate"},
	} {
		p := b.GetWith(tc.path, http.StatusOK, webtest.As(tc.token))
		boxes := p.Doc.Find("[data-testid=list-table] tbody input[name=item]").Length()
		if got := ops(p); got != tc.ops || (tc.ops == "") != (boxes == 0) || p.Has("bulk-form") != (tc.ops != "") {
			t.Errorf("%s as %s: actions %q and %d checkboxes, want actions %q", tc.path, tc.token, got, boxes, tc.ops)
		}
	}
}

// Without JavaScript, "select all on this page" is a link to the page with
// every row checked, and the checked page links back; paging and the view
// carry neither.
func TestSelectAllOnThisPageWithoutJavaScript(t *testing.T) {
	c := podsConsole(t)
	b := webtest.NewBrowser(t, c)
	p := b.Get(podsPath+"?labelColumns=app", http.StatusOK)
	if p.Doc.Find("input[name=item][checked]").Length() != 0 {
		t.Fatal("rows are checked before anyone asked")
	}
	href := p.Doc.Find("[data-testid=bulk-select-all]").AttrOr("href", "")
	if !strings.Contains(href, "selectAll=1") || !strings.Contains(href, "labelColumns=app") {
		t.Fatalf("select-all link %q, want the same view with every row checked", href)
	}
	all := b.Get(href, http.StatusOK)
	if n, checked := all.Doc.Find("input[name=item]").Length(), all.Doc.Find("input[name=item][checked]").Length(); n != 5 || checked != 5 {
		t.Errorf("%d of %d rows checked, want every one", checked, n)
	}
	clear := all.Doc.Find("[data-testid=bulk-clear-all]").AttrOr("href", "")
	if clear == "" || strings.Contains(clear, "selectAll") || all.Has("bulk-select-all") {
		t.Errorf("clear link %q", clear)
	}
	// The checked rows post as any checked rows do.
	r := b.Form(all, "[data-testid=bulk-form]").Set("op", "delete").Submit("", http.StatusOK)
	if got := r.Doc.Find("[data-testid=review-item]").Length(); got != 5 {
		t.Errorf("the review lists %d objects, want the 5 checked", got)
	}
}
