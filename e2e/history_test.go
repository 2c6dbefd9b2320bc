//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// A Deployment rolled out three times: its History tab lists the three
// revisions, diffs 1 against 3 (the image), and rolls back to 1 through the
// editor's review; a `kubectl scale` between the review and the apply takes
// the conflict page, where re-applying keeps both the rollback and the
// scale.
func TestHistoryDiffAndGuardedRollback(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-history"
	editDeployment(t, cs, name, nil)
	deployments := cs.AppsV1().Deployments(editNS)
	for i, image := range []string{"ghcr.io/tabula-console/demo-web:1.1.0", "ghcr.io/tabula-console/demo-web:1.2.0"} {
		// The controller writes the Deployment's status as the test writes
		// its spec: a 409 is retried on the latest, as kubectl does.
		must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			d, err := deployments.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			d.Spec.Template.Spec.Containers[0].Image = image
			d.Annotations = map[string]string{"kubernetes.io/change-cause": "image " + image}
			_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
			return err
		}))
		want := fmt.Sprint(i + 2)
		apitest.WaitFor(t, time.Minute, func() error {
			d, err := deployments.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got := d.Annotations["deployment.kubernetes.io/revision"]; got != want {
				return fmt.Errorf("revision %q, want %s", got, want)
			}
			return nil
		})
	}

	page := newPage(t)
	objectPath := "/c/admin/apis/apps/v1/namespaces/demo/deployments/" + name
	goTo(t, page, objectPath)
	must(t, page.Locator(`nav.tabs a`, playwright.PageLocatorOptions{HasText: "History"}).Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`\?view=history$`)))
	rows := page.GetByTestId("revision")
	must(t, expect.Locator(rows).ToHaveCount(3))
	must(t, expect.Locator(page.Locator(`[data-testid=revision][data-current=true]`)).ToHaveAttribute("data-revision", "3"))

	// Revision 1 against 3.
	_, err := page.GetByTestId("revision-from").SelectOption(playwright.SelectOptionValues{Values: &[]string{"1"}})
	must(t, err)
	_, err = page.GetByTestId("revision-to").SelectOption(playwright.SelectOptionValues{Values: &[]string{"3"}})
	must(t, err)
	must(t, page.GetByTestId("revision-diff-form").Locator("button").Click())
	diff := page.GetByTestId("revision-diff")
	must(t, expect.Locator(diff.Locator(".diff-del")).ToContainText([]string{"demo-web:1.0.0"}))
	must(t, expect.Locator(diff.Locator(".diff-add")).ToContainText([]string{"demo-web:1.2.0"}))
	screenshotThemes(t, page, "history-diff")
	checkA11y(t, page, "history-diff")

	// Roll back to 1: the editor's review, nothing written yet.
	wantStatus(t, submit(t, page, page.Locator(`[data-testid=revision][data-revision="1"] [data-testid=rollback]`)), http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("spec.template.spec.containers"))
	must(t, expect.Locator(page.GetByTestId("dry-run-diff").Locator(".diff-add")).ToContainText([]string{"demo-web:1.0.0"}))
	screenshotThemes(t, page, "history-rollback-review")
	checkA11y(t, page, "history-rollback-review")

	// kubectl scale meanwhile: the apply meets the conflict page, and
	// re-applying keeps the rollback and the scale.
	scaleDeployment(t, cs, editNS, name, 3)
	wantStatus(t, submit(t, page, page.GetByTestId("apply")), http.StatusConflict)
	must(t, expect.Locator(page.GetByTestId("their-changes")).ToContainText("spec.replicas"))
	must(t, expect.Locator(page.GetByTestId("my-changes")).ToContainText("spec.template"))
	wantStatus(t, submit(t, page, page.GetByTestId("reapply")), http.StatusOK)
	must(t, page.GetByTestId("apply").Click())
	must(t, expect.Locator(page.GetByTestId("notice")).ToContainText("Saved"))
	d, err := deployments.Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if image := d.Spec.Template.Spec.Containers[0].Image; image != "ghcr.io/tabula-console/demo-web:1.0.0" || *d.Spec.Replicas != 3 {
		t.Errorf("after the rollback: image %s, replicas %d; want 1.0.0 and the scale's 3", image, *d.Spec.Replicas)
	}
}
