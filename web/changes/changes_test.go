package changes_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient/apitest"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/changes"
	"github.com/tabula-console/tabula/web/webtest"
)

// written sets obj's managedFields to one entry per write.
func written(obj *unstructured.Unstructured, writes ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	obj.SetManagedFields(writes)
	return obj
}

func entry(manager string, op metav1.ManagedFieldsOperationType, ago time.Duration, subresource, fields string) metav1.ManagedFieldsEntry {
	at := metav1.NewTime(time.Now().Add(-ago).UTC().Truncate(time.Second))
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}, Subresource: subresource}
}

func changesWorld(t *testing.T, budget changes.Budget) (*webtest.Console, *apitest.Server) {
	t.Helper()
	fake := apitest.NewServer(t, apitest.CoreV1(), apitest.AppsV1(), apitest.EventsV1())
	fake.Add(
		written(apitest.Pod("demo", "recent", nil), entry("kubelet", metav1.ManagedFieldsOperationUpdate, 2*time.Minute, "status", `{"f:status":{"f:phase":{}}}`),
			entry("kubectl", metav1.ManagedFieldsOperationApply, 3*time.Hour, "", `{"f:spec":{"f:containers":{}}}`)),
		written(apitest.Service("demo", "older", nil), entry("kubectl", metav1.ManagedFieldsOperationApply, 30*time.Minute, "", `{"f:metadata":{"f:labels":{}},"f:spec":{"f:ports":{}}}`)),
		written(apitest.Pod("demo", "old", nil), entry("kubectl", metav1.ManagedFieldsOperationApply, 3*time.Hour, "", `{"f:spec":{}}`)),
		written(apitest.Pod("other", "elsewhere", nil), entry("kubectl", metav1.ManagedFieldsOperationApply, time.Minute, "", `{"f:spec":{}}`)),
		apitest.Deployment("demo", "untracked", 1, map[string]string{"app": "x"}),
	)
	// An entry that is not FieldsV1 at all.
	broken := apitest.Pod("demo", "broken", nil)
	unstructured.SetNestedSlice(broken.Object, []any{"nonsense", map[string]any{"manager": "m", "operation": "Update", "time": time.Now().UTC().Format(time.RFC3339), "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": map[string]any{}}}}, "metadata", "managedFields")
	fake.Add(broken)
	return webtest.Start(t, fake, webtest.Options{Deps: web.Deps{Changes: budget}}), fake
}

func rowsOf(doc *goquery.Document) []string {
	var out []string
	doc.Find("[data-testid=change-row]").Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-kind", "")+" "+s.AttrOr("data-name", ""))
	})
	return out
}

func TestRecentChangesNewestFirstWithTheirWriters(t *testing.T) {
	h, _ := changesWorld(t, changes.DefaultBudget())
	_, body := h.Get(t, "/c/dev/changes?namespace=demo&since=1h", http.StatusOK)
	doc := webtest.Parse(t, body)
	// broken's readable entry is now, recent's 2 minutes ago, older's 30;
	// old (3 h), the untracked Deployment and the other namespace's pod
	// are not within the hour in demo.
	if got, want := strings.Join(rowsOf(doc), ", "), "Pod broken, Pod recent, Service older"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	recent := doc.Find("[data-testid=change-row][data-name=recent] [data-testid=change-write]")
	if recent.Length() != 1 || recent.AttrOr("data-manager", "") != "kubelet" || !strings.Contains(recent.Text(), "status") || recent.Find("[data-testid=change-fields]").Text() != "status" {
		t.Errorf("recent's writes: %q (the 3 h old Apply is outside the window)", recent.Text())
	}
	if got := doc.Find("[data-testid=change-row][data-name=older] [data-testid=change-fields]").Text(); got != "metadata, spec" {
		t.Errorf("older's fields %q", got)
	}
	if href := doc.Find("[data-testid=change-row][data-name=older] a").AttrOr("href", ""); href != "/c/dev/api/v1/namespaces/demo/services/older" {
		t.Errorf("link %q", href)
	}
	if got := doc.Find("[data-testid=changes-unreadable]").Text(); !strings.HasPrefix(strings.TrimSpace(got), "1 object has") {
		t.Errorf("unreadable note %q", got)
	}
	if !strings.Contains(doc.Find("[data-testid=changes-cost]").Text(), "requests") {
		t.Errorf("no cost stated")
	}

	// A day back, the 3 h old pod too.
	_, body = h.Get(t, "/c/dev/changes?namespace=demo&since=24h", http.StatusOK)
	if got := rowsOf(webtest.Parse(t, body)); len(got) != 4 {
		t.Errorf("24h: rows %q", got)
	}
}

func TestRecentChangesRefuseWhatTheyCannotUse(t *testing.T) {
	h, fake := changesWorld(t, changes.DefaultBudget())
	fake.ResetRequests()
	_, body := h.Get(t, "/c/dev/changes", http.StatusOK)
	if doc := webtest.Parse(t, body); doc.Find("[data-testid=changes-form]").Length() != 1 || doc.Find("[data-testid=changes]").Length() != 0 {
		t.Errorf("without a namespace: the form alone")
	}
	for _, q := range []string{"namespace=Not_A_Namespace", "namespace=demo&since=yesterday", "namespace=demo&since=-5m", "namespace=demo&since=9999h"} {
		_, body := h.Get(t, "/c/dev/changes?"+q, http.StatusBadRequest)
		doc := webtest.Parse(t, body)
		if doc.Find("[data-testid=changes-error]").Text() == "" || doc.Find("[data-testid=changes-form]").Length() != 1 {
			t.Errorf("%s: no reason, or no form", q)
		}
	}
	for _, r := range fake.Requests() {
		if strings.Contains(r.URL.Path, "/namespaces/") {
			t.Errorf("a refused page listed %s", r.URL.Path)
		}
	}
}

func TestRecentChangesNameAForbiddenKindAndKeepTheirBound(t *testing.T) {
	h, fake := changesWorld(t, changes.Budget{Concurrency: 2, PerKind: 5 * time.Second, Total: 10 * time.Second, PageSize: 1, MaxObjects: 100, Shown: 1})
	fake.FailResource("", "services", metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "services is forbidden"})
	_, body := h.Get(t, "/c/dev/changes?namespace=demo", http.StatusOK)
	doc := webtest.Parse(t, body)
	if got := doc.Find("[data-testid=changes-skipped-kind][data-resource=services]").Text(); !strings.Contains(got, "forbidden") {
		t.Errorf("skipped services: %q", got)
	}
	if got := rowsOf(doc); len(got) != 1 || got[0] != "Pod broken" {
		t.Errorf("rows %q, want the newest alone", got)
	}
	if got := doc.Find("[data-testid=changes-more]").Text(); !strings.Contains(got, "1 more changed object") {
		t.Errorf("more: %q", got)
	}
}

// A server copying the conventions without a core group or events: the
// page works and says what it read.
func TestRecentChangesOnACSMServer(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CSMGroup())
	h := webtest.Start(t, fake, webtest.Options{})
	_, body := h.Get(t, "/c/dev/changes?namespace=demo", http.StatusOK)
	doc := webtest.Parse(t, body)
	if doc.Find("[data-testid=changes-empty]").Length() != 1 || !strings.Contains(doc.Find("[data-testid=changes-cost]").Text(), "0 kinds asked") {
		t.Errorf("on a CSM server: %q", doc.Find("[data-testid=changes]").Text())
	}
}
