//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Bulk actions (web/bulk) through Chromium: checkboxes on a list (one
// click, a shift-click range, "select all on this page"), the review with
// its access reviews and dry runs, the apply and its streamed results.

// bulkPod creates a pod that stops at once when deleted. A new namespace's
// default ServiceAccount, which admission requires, comes a moment after
// the namespace: creation is retried until it is there.
func bulkPod(t *testing.T, cs *kubernetes.Clientset, ns, name string, labels map[string]string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "ghcr.io/tabula-console/demo-web:1.0.0",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("4Mi"),
				}},
			}},
			TerminationGracePeriodSeconds: new(int64(0)),
		},
	}
	apitest.WaitFor(t, time.Minute, func() error {
		_, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	t.Cleanup(func() {
		_ = cs.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
	})
}

// settledPods waits until the pods of ns that selector matches are n,
// Running and Ready, and were not written for half a second: kwok moves new
// pods to Running with status writes, and a pod written between the review
// and the apply is rightly a conflict, which these journeys do not test.
func settledPods(t *testing.T, cs *kubernetes.Clientset, ns, selector string, n int) {
	t.Helper()
	last, since := "", time.Now()
	apitest.WaitFor(t, time.Minute, func() error {
		pods, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		var versions strings.Builder
		for _, p := range pods.Items {
			ready := false
			for _, c := range p.Status.Conditions {
				ready = ready || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
			}
			if p.Status.Phase != corev1.PodRunning || !ready {
				return fmt.Errorf("%s/%s is %s (ready %v)", ns, p.Name, p.Status.Phase, ready)
			}
			versions.WriteString(p.ResourceVersion + ",")
		}
		if len(pods.Items) != n {
			return fmt.Errorf("%d pods of %s, want %d", len(pods.Items), ns, n)
		}
		if v := versions.String(); v != last {
			last, since = v, time.Now()
			return fmt.Errorf("pods of %s just written", ns)
		}
		if time.Since(since) < 500*time.Millisecond {
			return fmt.Errorf("pods of %s unchanged for %v only", ns, time.Since(since))
		}
		return nil
	})
}

func bulkBox(page playwright.Page, key string) playwright.Locator {
	return page.Locator(fmt.Sprintf(`input[data-bulk-item][value=%q]`, key))
}

// As admin: five pods of a namespace of the test's own, checked by a
// click, a shift-click range and a click, deleted through the review:
// five results "done", and the pods are gone.
func TestBulkDeleteOfFivePodsThroughTheReview(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ns := fmt.Sprintf("bulk-%d", time.Now().UnixNano()%1_000_000)
	freshNamespace(t, cs, ns)
	for i := 1; i <= 5; i++ {
		bulkPod(t, cs, ns, fmt.Sprintf("p-%d", i), map[string]string{"journey": "bulk"})
	}
	settledPods(t, cs, ns, "", 5)
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/"+ns+"/pods")
	rows := page.Locator("[data-testid=list-table] tbody tr")
	must(t, expect.Locator(rows).ToHaveCount(5))

	// p-1, then shift-click p-4 checks p-1..p-4, then p-5.
	must(t, bulkBox(page, ns+"/p-1").Click())
	must(t, bulkBox(page, ns+"/p-4").Click(playwright.LocatorClickOptions{Modifiers: []playwright.KeyboardModifier{*playwright.KeyboardModifierShift}}))
	for i := 1; i <= 4; i++ {
		must(t, expect.Locator(bulkBox(page, fmt.Sprintf("%s/p-%d", ns, i))).ToBeChecked())
	}
	must(t, expect.Locator(bulkBox(page, ns+"/p-5")).Not().ToBeChecked())
	must(t, bulkBox(page, ns+"/p-5").Click())
	must(t, expect.Locator(page.GetByTestId("bulk-count")).ToHaveText("5 selected."))
	must(t, expect.Locator(page.GetByTestId("bulk-all")).ToBeChecked())
	// The header's box selects all here: the link that does it without
	// script is hidden.
	must(t, expect.Locator(page.GetByTestId("bulk-select-all")).ToBeHidden())
	// Only the chosen action's fields show.
	_, err := page.GetByTestId("bulk-op").SelectOption(playwright.SelectOptionValues{Values: &[]string{"delete"}})
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("bulk-propagation")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("bulk-key")).ToBeHidden())
	checkA11y(t, page, "bulk list")
	screenshotThemes(t, page, "bulk-list")

	must(t, page.GetByTestId("bulk-review").Click())
	must(t, expect.Locator(page.GetByTestId("bulk-title")).ToHaveText("Review: Delete (propagation Background)"))
	items := page.Locator("[data-testid=review-item]")
	must(t, expect.Locator(items).ToHaveCount(5))
	must(t, expect.Locator(page.Locator("[data-testid=review-item][data-state=ready]")).ToHaveCount(5))
	must(t, expect.Locator(page.Locator("[data-testid=review-item] [data-testid=review-dry-run]")).ToHaveText([]string{"accepted", "accepted", "accepted", "accepted", "accepted"}))
	pods, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	must(t, err)
	if len(pods.Items) != 5 {
		t.Fatalf("the review changed the pods: %d left", len(pods.Items))
	}
	checkA11y(t, page, "bulk review")
	screenshotThemes(t, page, "bulk-review")

	must(t, page.GetByTestId("bulk-apply").Click())
	results := page.Locator("[data-testid=bulk-result]")
	must(t, expect.Locator(results).ToHaveCount(5))
	must(t, expect.Locator(page.Locator("[data-testid=bulk-result][data-outcome=done]")).ToHaveCount(5))
	must(t, expect.Locator(page.GetByTestId("bulk-summary-done")).ToHaveText("5 done"))
	must(t, expect.Locator(page.GetByTestId("bulk-progress")).ToHaveText("Finished: 5 of 5; the summary is below."))
	checkA11y(t, page, "bulk results")
	screenshotThemes(t, page, "bulk-results")

	apitest.WaitFor(t, 30*time.Second, func() error {
		pods, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		if n := len(pods.Items); n > 0 {
			return fmt.Errorf("%d pods left", n)
		}
		return nil
	})
}

// As the editor (edit in demo only): pods in demo and in a namespace the
// editor may only read, all selected on one all-namespaces list. The
// review marks the second namespace's forbidden with the reason and sends
// them nothing; the apply deletes demo's and leaves them untouched.
func TestBulkAsEditorLeavesAForbiddenNamespaceUntouched(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	suffix := fmt.Sprint(time.Now().UnixNano() % 1_000_000)
	other := "bulk-ro-" + suffix
	freshNamespace(t, cs, other)
	// The editor reads pods everywhere (a view-like ClusterRoleBinding), so
	// one list shows both namespaces; it still edits only demo.
	reader := "bulk-e2e-pod-reader-" + suffix
	_, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: reader},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), reader, metav1.DeleteOptions{}) })
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "editor"}},
	}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), reader, metav1.DeleteOptions{})
	})

	labels := map[string]string{"journey": "bulk-editor-" + suffix}
	bulkPod(t, cs, "demo", "bulk-ed-1-"+suffix, labels)
	bulkPod(t, cs, "demo", "bulk-ed-2-"+suffix, labels)
	bulkPod(t, cs, other, "ro-1", labels)
	bulkPod(t, cs, other, "ro-2", labels)
	settledPods(t, cs, "demo", "journey="+labels["journey"], 2)
	settledPods(t, cs, other, "", 2)
	// kwok moves the pods to Running meanwhile, so their versions change:
	// untouched is the same pod, not being deleted, never written by the
	// console (its field manager).
	before := map[string]string{}
	for _, name := range []string{"ro-1", "ro-2"} {
		p, err := cs.CoreV1().Pods(other).Get(ctx, name, metav1.GetOptions{})
		must(t, err)
		before[name] = string(p.UID)
	}

	page := newPage(t)
	list := "/c/editor/api/v1/pods?labelSelector=" + url.QueryEscape("journey="+labels["journey"])
	// RBAC's caches take the new binding in a moment.
	apitest.WaitFor(t, 30*time.Second, func() error {
		resp, err := page.Goto(env.console.URL + list)
		if err != nil {
			return err
		}
		if resp.Status() != 200 {
			return fmt.Errorf("the editor's all-namespaces list: %d", resp.Status())
		}
		return nil
	})
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody tr")).ToHaveCount(4))
	must(t, page.GetByTestId("bulk-all").Check())
	must(t, expect.Locator(page.GetByTestId("bulk-count")).ToHaveText("4 selected."))
	must(t, page.GetByTestId("bulk-review").Click())

	must(t, expect.Locator(page.Locator("[data-testid=review-item]")).ToHaveCount(4))
	forbidden := page.Locator("[data-testid=review-item][data-state=forbidden]")
	must(t, expect.Locator(forbidden).ToHaveCount(2))
	for _, name := range []string{"ro-1", "ro-2"} {
		row := page.Locator(fmt.Sprintf(`[data-testid=review-item][data-key=%q]`, other+"/"+name))
		must(t, expect.Locator(row).ToHaveAttribute("data-state", "forbidden"))
		must(t, expect.Locator(row.GetByTestId("review-reason")).ToContainText("You may not delete pods in namespace "+other))
		must(t, expect.Locator(row.GetByTestId("review-dry-run")).ToHaveText("not sent"))
	}
	must(t, expect.Locator(page.Locator("[data-testid=review-item][data-state=ready]")).ToHaveCount(2))
	must(t, expect.Locator(page.GetByTestId("review-summary")).ToContainText("2 forbidden"))
	checkA11y(t, page, "bulk review with forbidden items")
	screenshotThemes(t, page, "bulk-review-forbidden")

	must(t, expect.Locator(page.GetByTestId("bulk-apply")).ToHaveText("Apply to 2"))
	must(t, page.GetByTestId("bulk-apply").Click())
	must(t, expect.Locator(page.Locator("[data-testid=bulk-result]")).ToHaveCount(2))
	must(t, expect.Locator(page.Locator("[data-testid=bulk-result][data-outcome=done]")).ToHaveCount(2))
	keys, err := page.Locator("[data-testid=bulk-result]").EvaluateAll(`rows => rows.map(r => r.dataset.key)`)
	must(t, err)
	if got := fmt.Sprint(keys); strings.Contains(got, other) {
		t.Errorf("the apply reached the forbidden namespace: %s", got)
	}
	apitest.WaitFor(t, 30*time.Second, func() error {
		pods, err := cs.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{LabelSelector: "journey=" + labels["journey"]})
		if err != nil {
			return err
		}
		if n := len(pods.Items); n > 0 {
			return fmt.Errorf("%d of demo's selected pods left", n)
		}
		return nil
	})
	for _, name := range []string{"ro-1", "ro-2"} {
		p, err := cs.CoreV1().Pods(other).Get(ctx, name, metav1.GetOptions{})
		must(t, err)
		if string(p.UID) != before[name] || p.DeletionTimestamp != nil {
			t.Errorf("%s/%s changed: uid %s → %s, deletionTimestamp %v", other, name, before[name], p.UID, p.DeletionTimestamp)
		}
		for _, m := range p.ManagedFields {
			if m.Manager == "tabula" {
				t.Errorf("%s/%s was written by the console: %+v", other, name, m)
			}
		}
	}
}

// Without JavaScript the bulk form is a plain form: the checked rows join
// it (form=), every action's fields show, and the review and apply post as
// they are; the results page ends with its summary.
func TestBulkLabelWithoutJavaScript(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ns := fmt.Sprintf("bulk-nojs-%d", time.Now().UnixNano()%1_000_000)
	freshNamespace(t, cs, ns)
	for i := 1; i <= 3; i++ {
		bulkPod(t, cs, ns, fmt.Sprintf("q-%d", i), nil)
	}
	settledPods(t, cs, ns, "", 3)
	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport:          &playwright.Size{Width: 1360, Height: 900},
		JavaScriptEnabled: playwright.Bool(false),
	})
	goTo(t, page, "/c/admin/api/v1/namespaces/"+ns+"/pods")
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody tr")).ToHaveCount(3))
	must(t, expect.Locator(page.GetByTestId("bulk-all")).ToBeHidden())
	must(t, expect.Locator(page.GetByTestId("bulk-key")).ToBeVisible())
	// "Select all on this page" is a link here: every row comes back
	// checked, and "Clear the checks" takes them away again.
	must(t, page.GetByTestId("bulk-select-all").Click())
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody input[name=item]:checked")).ToHaveCount(3))
	must(t, page.GetByTestId("bulk-clear-all").Click())
	must(t, expect.Locator(page.Locator("[data-testid=list-table] tbody input[name=item]:checked")).ToHaveCount(0))
	must(t, bulkBox(page, ns+"/q-1").Check())
	must(t, bulkBox(page, ns+"/q-3").Check())
	_, err := page.GetByTestId("bulk-op").SelectOption(playwright.SelectOptionValues{Values: &[]string{"label"}})
	must(t, err)
	must(t, page.GetByTestId("bulk-key").Fill("tier"))
	must(t, page.GetByTestId("bulk-value").Fill("gold"))
	must(t, page.GetByTestId("bulk-review").Click())
	must(t, expect.Locator(page.GetByTestId("bulk-title")).ToHaveText("Review: Set label tier=gold"))
	must(t, expect.Locator(page.Locator("[data-testid=review-item][data-state=ready]")).ToHaveCount(2))
	must(t, page.GetByTestId("bulk-apply").Click())
	must(t, expect.Locator(page.Locator("[data-testid=bulk-result][data-outcome=done]")).ToHaveCount(2))
	must(t, expect.Locator(page.GetByTestId("bulk-summary-done")).ToHaveText("2 done"))
	for name, want := range map[string]string{"q-1": "gold", "q-2": "", "q-3": "gold"} {
		p, err := cs.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
		must(t, err)
		if got := p.Labels["tier"]; got != want {
			t.Errorf("%s: tier=%q, want %q", name, got, want)
		}
	}
}
