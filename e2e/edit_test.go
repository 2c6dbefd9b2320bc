//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/playwright-community/playwright-go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// The edit feature's journeys: the YAML editor (CodeMirror over a hidden,
// synced textarea), review, apply, conflicts, create, scale, delete and
// Secrets, through Chromium; and the conflict and 422 paths at the HTTP
// level, as a browser without JavaScript posts the forms.

const editNS = "demo"

// ---------------------------------------------------------------------------
// Helpers: objects

func editConfigMap(t *testing.T, cs *kubernetes.Clientset, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: editNS, Labels: map[string]string{"journey": "edit"}},
		Data:       data,
	}
	created, err := cs.CoreV1().ConfigMaps(editNS).Create(t.Context(), cm, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = cs.CoreV1().ConfigMaps(editNS).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return created
}

// editDeployment creates a one-replica Deployment and waits until its
// controller has settled it, so no status write races the test's own.
func editDeployment(t *testing.T, cs *kubernetes.Clientset, name string, labels map[string]string) *appsv1.Deployment {
	t.Helper()
	ctx := t.Context()
	meta := map[string]string{"app": name}
	for k, v := range labels {
		meta[k] = v
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: editNS, Labels: meta},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "app", Image: "ghcr.io/tabula-console/demo-web:1.0.0",
				}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(editNS).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.AppsV1().Deployments(editNS).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := cs.AppsV1().Deployments(editNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		d = got
		s := got.Status
		last = fmt.Sprintf("observed %d/%d, available %d, updated %d", s.ObservedGeneration, got.Generation, s.AvailableReplicas, s.UpdatedReplicas)
		complete := false
		for _, c := range s.Conditions {
			if c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable" {
				complete = true
			}
		}
		return complete && s.ObservedGeneration == got.Generation && s.AvailableReplicas == 1 && s.UpdatedReplicas == 1 && s.Replicas == 1, nil
	})
	if err != nil {
		t.Fatalf("deployment %s never settled: %v (%s)", name, err, last)
	}
	return d
}

var lighthouseGVR = schema.GroupVersionResource{Group: "maritime.tabula.dev", Version: "v1alpha1", Resource: "lighthouses"}

// ---------------------------------------------------------------------------
// Helpers: the editor in the browser

// editorReady waits until CodeMirror has replaced the textarea, which stays
// in the form, hidden.
func editorReady(t *testing.T, page playwright.Page) playwright.Locator {
	t.Helper()
	cm := page.Locator(".cm-editor .cm-content")
	must(t, expect.Locator(cm).ToBeVisible())
	must(t, expect.Locator(page.Locator("textarea#yaml")).ToBeHidden())
	return cm
}

// editorText is the editor's text as the form will post it.
func editorText(t *testing.T, page playwright.Page) string {
	t.Helper()
	v, err := page.Locator("textarea#yaml").InputValue()
	must(t, err)
	return v
}

// setEditorText replaces the editor's text, as select-all and typing would,
// and waits until the hidden textarea holds it.
func setEditorText(t *testing.T, page playwright.Page, text string) {
	t.Helper()
	must(t, page.Locator(".cm-editor .cm-content").Fill(text))
	must(t, expect.Locator(page.Locator("textarea#yaml")).ToHaveValue(text))
}

// replaceOnce replaces old, which must occur exactly once in s.
func replaceOnce(t *testing.T, s, old, repl string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times in:\n%s", old, n, s)
	}
	return strings.Replace(s, old, repl, 1)
}

// screenshotThemes takes one screenshot in the light and one in the dark
// theme, through html[data-theme] as the theme toggle sets it, and restores
// the page's own theme.
func screenshotThemes(t *testing.T, page playwright.Page, base string) {
	t.Helper()
	original, err := page.Evaluate(`() => document.documentElement.getAttribute("data-theme")`)
	must(t, err)
	for _, theme := range []string{"light", "dark"} {
		_, err := page.Evaluate(`(theme) => { document.documentElement.dataset.theme = theme }`, theme)
		must(t, err)
		screenshot(t, page, base+"-"+theme+".png")
	}
	_, err = page.Evaluate(`(theme) => theme === null
		? document.documentElement.removeAttribute("data-theme")
		: document.documentElement.setAttribute("data-theme", theme)`, original)
	must(t, err)
}

// submit clicks a form's button and returns the response to its POST,
// the first response from the form's action URL.
func submit(t *testing.T, page playwright.Page, button playwright.Locator) playwright.Response {
	t.Helper()
	// A button's formAction is the document's URL when it has no
	// formaction of its own: its form's action attribute is where it posts
	// (read as an attribute: form.action is the button itself when the
	// button is named "action", as the editor's are).
	action, err := button.Evaluate(`(b) => b.hasAttribute("formaction") ? b.formAction : new URL(b.form.getAttribute("action") || "", document.baseURI).href`, nil)
	must(t, err)
	resp, err := page.ExpectResponse(func(u string) bool { return u == action }, func() error { return button.Click() })
	must(t, err)
	if resp.Request().Method() != http.MethodPost {
		t.Fatalf("the first response from %s answered a %s", action, resp.Request().Method())
	}
	return resp
}

func wantStatus(t *testing.T, resp playwright.Response, want int) {
	t.Helper()
	if resp.Status() != want {
		t.Fatalf("POST %s: status %d, want %d", resp.URL(), resp.Status(), want)
	}
}

// ---------------------------------------------------------------------------
// 1. Edit a label and save.

func TestEditLabelReviewAndApply(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const name = "e2e-edit-label"
	editDeployment(t, cs, name, map[string]string{"journey": "before"})

	page := newPage(t)
	objectPath := "/c/admin/apis/apps/v1/namespaces/demo/deployments/" + name
	goTo(t, page, objectPath)
	must(t, page.GetByTestId("edit-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`/edit$`)))
	editorReady(t, page)
	must(t, expect.Locator(page.GetByTestId("write-title")).ToContainText("Edit"))
	// The YAML leaves status out; the page shows it read-only beside.
	if text := editorText(t, page); strings.Contains(text, "\nstatus:") || !strings.Contains(text, "journey: before") {
		t.Fatalf("the editor's text:\n%s", text)
	}
	must(t, expect.Locator(page.GetByTestId("status-toggle")).ToBeVisible())
	screenshotThemes(t, page, "edit-editor")
	checkA11y(t, page, "edit-editor")

	// Change the label from the keyboard: click its line, go to its end,
	// rub out the value, type the new one.
	line := page.Locator(".cm-line", playwright.PageLocatorOptions{HasText: "journey: before"})
	must(t, line.Click())
	kb := page.Keyboard()
	must(t, kb.Press("End"))
	for range len("before") {
		must(t, kb.Press("Backspace"))
	}
	must(t, kb.Type("after"))
	must(t, expect.Locator(page.Locator("textarea#yaml")).ToHaveValue(regexp.MustCompile(`\n    journey: after\n`)))

	wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("write-title")).ToContainText("Review"))
	must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("metadata.labels.journey"))
	must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("after"))
	must(t, expect.Locator(page.GetByTestId("patch-changes").Locator("li")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("patch-type")).ToContainText("merge patch"))
	diff := page.GetByTestId("dry-run-diff")
	must(t, expect.Locator(diff.Locator(".diff-add")).ToContainText([]string{"journey: after"}))
	must(t, expect.Locator(diff.Locator(".diff-del")).ToContainText([]string{"journey: before"}))
	screenshotThemes(t, page, "edit-review")
	checkA11y(t, page, "edit-review")
	// Nothing is saved by the review.
	d, err := cs.AppsV1().Deployments(editNS).Get(t.Context(), name, metav1.GetOptions{})
	must(t, err)
	if d.Labels["journey"] != "before" {
		t.Fatalf("the dry run saved: journey=%q", d.Labels["journey"])
	}

	must(t, page.GetByTestId("apply").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`$`)))
	must(t, expect.Locator(page.GetByTestId("notice")).ToContainText(`Saved deployment "`+name+`"`))
	must(t, expect.Locator(page.GetByTestId("label-chip").Filter(playwright.LocatorFilterOptions{HasText: "journey="})).ToHaveText("journey=after"))
	screenshot(t, page, "edit-saved-light.png")
	d, err = cs.AppsV1().Deployments(editNS).Get(t.Context(), name, metav1.GetOptions{})
	must(t, err)
	if d.Labels["journey"] != "after" || d.Labels["app"] != name {
		t.Errorf("labels after the save: %v", d.Labels)
	}
}

// ---------------------------------------------------------------------------
// 2. Two editors in two browsers, different fields.

func TestConcurrentEditConflictAndReapply(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const name = "e2e-edit-concurrent"
	editConfigMap(t, cs, name, map[string]string{"first": "one", "second": "one"})
	editPath := "/c/admin/api/v1/namespaces/demo/configmaps/" + name + "/edit"

	a, b := newPage(t), newPage(t)
	goTo(t, a, editPath)
	goTo(t, b, editPath)
	editorReady(t, a)
	editorReady(t, b)
	// B's live banner starts hidden: nothing changed since it loaded.
	must(t, expect.Locator(b.GetByTestId("live-banner")).ToBeHidden())

	// A changes the first field and saves.
	setEditorText(t, a, replaceOnce(t, editorText(t, a), "first: one", "first: two"))
	wantStatus(t, submit(t, a, a.GetByTestId("review")), http.StatusOK)
	must(t, a.GetByTestId("apply").Click())
	must(t, expect.Page(a).ToHaveURL(regexp.MustCompile(`/configmaps/`+name+`$`)))
	must(t, expect.Locator(a.GetByTestId("notice")).ToContainText("Saved"))

	// B is told before it saves.
	banner := b.GetByTestId("live-banner")
	must(t, expect.Locator(banner).ToBeVisible())
	must(t, expect.Locator(banner).ToContainText("Changed on the server"))
	must(t, expect.Locator(banner).ToContainText("your text is kept"))
	screenshot(t, b, "edit-live-banner-light.png")
	checkA11y(t, b, "edit-live-banner")

	// B changes the second field: the review's dry run meets the 409.
	setEditorText(t, b, replaceOnce(t, editorText(t, b), "second: one", "second: two"))
	wantStatus(t, submit(t, b, b.GetByTestId("review")), http.StatusConflict)
	must(t, expect.Locator(b.GetByTestId("conflict")).ToBeVisible())
	must(t, expect.Locator(b.GetByTestId("disjoint")).ToBeVisible())
	must(t, expect.Locator(b.GetByTestId("my-changes")).ToContainText("data.second"))
	must(t, expect.Locator(b.GetByTestId("their-changes")).ToContainText("data.first"))
	must(t, expect.Locator(b.GetByTestId("their-diff")).ToContainText("first: two"))
	screenshotThemes(t, b, "edit-conflict")
	checkA11y(t, b, "edit-conflict")

	wantStatus(t, submit(t, b, b.GetByTestId("reapply")), http.StatusOK)
	must(t, expect.Locator(b.GetByTestId("reapplied")).ToBeVisible())
	must(t, expect.Locator(b.GetByTestId("patch-changes")).ToContainText("data.second"))
	must(t, expect.Locator(b.GetByTestId("patch-changes").Locator("li")).ToHaveCount(1))
	must(t, b.GetByTestId("apply").Click())
	must(t, expect.Page(b).ToHaveURL(regexp.MustCompile(`/configmaps/`+name+`$`)))
	must(t, expect.Locator(b.GetByTestId("notice")).ToContainText("Saved"))

	cm, err := cs.CoreV1().ConfigMaps(editNS).Get(t.Context(), name, metav1.GetOptions{})
	must(t, err)
	if cm.Data["first"] != "two" || cm.Data["second"] != "two" {
		t.Errorf("data after both saves: %v, want both changes", cm.Data)
	}
}

// ---------------------------------------------------------------------------
// 3. Create a ConfigMap from YAML.

func TestCreateConfigMapFromYAML(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const name = "e2e-created-from-yaml"
	t.Cleanup(func() {
		_ = cs.CoreV1().ConfigMaps(editNS).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/configmaps")
	must(t, page.GetByTestId("create-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/api/v1/namespaces/demo/configmaps/new$`)))
	editorReady(t, page)
	must(t, expect.Locator(page.GetByTestId("write-title")).ToContainText("Create"))
	// The skeleton names the kind and the namespace.
	if text := editorText(t, page); !strings.Contains(text, "kind: ConfigMap") || !strings.Contains(text, "namespace: demo") {
		t.Fatalf("the skeleton:\n%s", text)
	}
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  labels:\n    made-by: e2e\ndata:\n  greeting: hello from the editor\n  port: \"8080\"\n"
	setEditorText(t, page, text)
	screenshotThemes(t, page, "create-editor")
	checkA11y(t, page, "create-editor")

	wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("write-title")).ToContainText("Review"))
	must(t, expect.Locator(page.GetByTestId("dry-run-diff")).ToContainText("greeting: hello from the editor"))
	must(t, expect.Locator(page.GetByTestId("dry-run-diff")).ToContainText("uid:"))
	must(t, expect.Locator(page.GetByTestId("apply")).ToHaveText("Create"))
	screenshotThemes(t, page, "create-review")
	checkA11y(t, page, "create-review")
	if _, err := cs.CoreV1().ConfigMaps(editNS).Get(t.Context(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the dry run created it (or: %v)", err)
	}

	must(t, page.GetByTestId("apply").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/api/v1/namespaces/demo/configmaps/`+name+`$`)))
	must(t, expect.Locator(page.GetByTestId("notice")).ToContainText(`Created configmap "`+name+`"`))
	must(t, expect.Locator(page.GetByTestId("object-name")).ToHaveText(name))
	cm, err := cs.CoreV1().ConfigMaps(editNS).Get(t.Context(), name, metav1.GetOptions{})
	must(t, err)
	if cm.Data["greeting"] != "hello from the editor" || cm.Data["port"] != "8080" || cm.Labels["made-by"] != "e2e" {
		t.Errorf("created: data %v, labels %v", cm.Data, cm.Labels)
	}
}

// ---------------------------------------------------------------------------
// 4. Scale a custom resource through its scale subresource.

func TestScaleLighthouseThroughTheScaleSubresource(t *testing.T) {
	dyn, _ := adminDynamic(t)
	ctx := t.Context()
	const name = "e2e-scale-beacon"
	lighthouses := dyn.Resource(lighthouseGVR).Namespace(editNS)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "maritime.tabula.dev/v1alpha1", "kind": "Lighthouse",
		"metadata": map[string]any{"name": name, "namespace": editNS},
		"spec":     map[string]any{"coast": "Wales, Anglesey", "replicas": int64(2), "lit": true, "keeper": "Gwen Parry", "rangeNauticalMiles": int64(16)},
	}}
	if _, err := lighthouses.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lighthouses.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	page := newPage(t)
	objectPath := "/c/admin/apis/maritime.tabula.dev/v1alpha1/namespaces/demo/lighthouses/" + name
	goTo(t, page, objectPath)
	must(t, page.GetByTestId("scale-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`/scale$`)))
	must(t, expect.Locator(page.GetByTestId("scale-form").GetByTestId("scale-desired")).ToHaveText("2"))
	replicas := page.GetByTestId("scale-replicas")
	must(t, expect.Locator(replicas).ToHaveValue("2"))
	must(t, replicas.Fill("5"))
	screenshotThemes(t, page, "scale-form")
	checkA11y(t, page, "scale-form")

	must(t, page.GetByTestId("scale-submit").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`$`)))
	must(t, expect.Locator(page.GetByTestId("notice")).ToContainText(`Scaled lighthouse "`+name+`" to 5 replicas`))
	must(t, expect.Locator(page.GetByTestId("scale").GetByTestId("scale-desired")).ToHaveText("5"))
	got, err := lighthouses.Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); n != 5 {
		t.Errorf("spec.replicas = %d, want 5", n)
	}
}

// ---------------------------------------------------------------------------
// 5. Delete with Foreground propagation.

func TestDeleteDeploymentInTheForeground(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-delete-foreground"
	editDeployment(t, cs, name, nil)
	// It owns a ReplicaSet, which Foreground deletes first.
	rsets, err := cs.AppsV1().ReplicaSets(editNS).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
	must(t, err)
	if len(rsets.Items) == 0 {
		t.Fatal("the deployment owns no ReplicaSet")
	}

	page := newPage(t)
	objectPath := "/c/admin/apis/apps/v1/namespaces/demo/deployments/" + name
	goTo(t, page, objectPath)
	must(t, page.GetByTestId("delete-link").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(objectPath)+`/delete$`)))
	must(t, expect.Locator(page.GetByTestId("delete-name")).ToHaveText(name))
	must(t, expect.Locator(page.GetByTestId("propagation-Background")).ToBeChecked())
	must(t, page.GetByTestId("propagation-Foreground").Check())
	screenshotThemes(t, page, "delete-confirm")
	checkA11y(t, page, "delete-confirm")

	wantStatus(t, submit(t, page, page.GetByTestId("confirm-delete")), http.StatusOK)
	result := page.GetByTestId("delete-result")
	must(t, expect.Locator(result).ToBeVisible())
	// Foreground: the server answers with the object, marked for deletion
	// and held by the foregroundDeletion finalizer, unless the garbage
	// collector was quicker still and it answers with a Status.
	must(t, expect.Locator(result.Locator("[data-testid=pending-finalizers], [data-testid=delete-status]")).ToHaveText(regexp.MustCompile(`foregroundDeletion|Success`)))
	must(t, expect.Locator(page.GetByTestId("delete-body")).ToContainText(regexp.MustCompile(`foregroundDeletion|status: Success`)))
	screenshotThemes(t, page, "delete-result")
	checkA11y(t, page, "delete-result")

	// The garbage collector deletes the ReplicaSet and its pods, then the
	// Deployment; until then it is marked.
	var last string
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(editNS).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if d.DeletionTimestamp == nil {
			return false, fmt.Errorf("the deployment is not marked for deletion")
		}
		last = fmt.Sprintf("finalizers %v", d.Finalizers)
		return false, nil
	})
	if err != nil {
		t.Fatalf("the deployment was not deleted: %v (last: %s)", err, last)
	}
	rsets, err = cs.AppsV1().ReplicaSets(editNS).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
	must(t, err)
	if len(rsets.Items) != 0 {
		t.Errorf("ReplicaSets left after a foreground delete: %d", len(rsets.Items))
	}
}

// ---------------------------------------------------------------------------
// 6. Bad YAML: the line is named and the text stays.

func TestBadYAMLShowsTheLineAndKeepsTheText(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const name = "e2e-edit-bad-yaml"
	editConfigMap(t, cs, name, map[string]string{"good": "value"})
	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/configmaps/"+name+"/edit")
	editorReady(t, page)

	text := replaceOnce(t, editorText(t, page), "  good: value\n", "  good: value\n  bad: [unclosed\n")
	badLine := 0
	for i, l := range strings.Split(text, "\n") {
		if l == "  bad: [unclosed" {
			badLine = i + 1
		}
	}
	setEditorText(t, page, text)
	// The editor marks it before anything is sent.
	must(t, expect.Locator(page.Locator(".cm-lintRange-error, .cm-lint-marker-error").First()).ToBeVisible())

	resp := submit(t, page, page.GetByTestId("review"))
	wantStatus(t, resp, http.StatusBadRequest)
	must(t, expect.Locator(page.GetByTestId("edit-error-code")).ToHaveText("400"))
	pos := page.GetByTestId("edit-error-position")
	must(t, expect.Locator(pos).ToBeVisible())
	posText, err := pos.TextContent()
	must(t, err)
	m := regexp.MustCompile(`Line (\d+)`).FindStringSubmatch(posText)
	if m == nil {
		t.Fatalf("edit-error-position = %q", posText)
	}
	// The parser notices an unclosed list where the next line starts, or
	// at the end of the text: at the bad line or after it, never before.
	var reported int
	fmt.Sscan(m[1], &reported)
	if reported < badLine {
		t.Errorf("the error names line %d; the bad line is %d", reported, badLine)
	}
	// The text is still there, in CodeMirror and in the form, and the
	// server's error is marked in it.
	editorReady(t, page)
	must(t, expect.Locator(page.Locator(".cm-content")).ToContainText("bad: [unclosed"))
	if got := editorText(t, page); got != text {
		t.Errorf("the editor's text after the 400:\n%s\nwant:\n%s", got, text)
	}
	must(t, expect.Locator(page.Locator(".cm-lintRange-error, .cm-lint-marker-error").First()).ToBeVisible())
	screenshotThemes(t, page, "edit-bad-yaml")
	checkA11y(t, page, "edit-bad-yaml")
}

// ---------------------------------------------------------------------------
// 7. A Secret's values stay hidden unless revealed, and survive a label edit.

func TestEditSecretHidesValuesAndKeepsData(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-edit-secret"
	values := map[string]string{"username": "ada-lovelace-7", "password": "Engine-Analytical-1843"}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: editNS, Labels: map[string]string{"tier": "backend"}},
		StringData: values,
	}
	if _, err := cs.CoreV1().Secrets(editNS).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Secrets(editNS).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	leaks := func(t *testing.T, page playwright.Page, allowed string) {
		t.Helper()
		body, err := page.Content()
		must(t, err)
		text := editorText(t, page)
		for k, v := range values {
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
				if k == allowed && form == v {
					continue
				}
				if strings.Contains(body, form) || strings.Contains(text, form) {
					t.Errorf("the page shows %s's value (%s)", k, form)
				}
			}
		}
	}

	page := newPage(t)
	goTo(t, page, "/c/admin/api/v1/namespaces/demo/secrets/"+name)
	must(t, page.GetByTestId("edit-link").Click())
	editorReady(t, page)
	must(t, expect.Locator(page.GetByTestId("secret-masked")).ToHaveCount(2))
	must(t, expect.Locator(page.GetByTestId("secret-revealed")).ToHaveCount(0))
	leaks(t, page, "")
	screenshotThemes(t, page, "edit-secret")
	checkA11y(t, page, "edit-secret")

	// Reveal one key: only its value shows.
	row := page.GetByTestId("secret-key").Filter(playwright.LocatorFilterOptions{HasText: "password"})
	wantStatus(t, submit(t, page, row.GetByTestId("secret-reveal")), http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("secret-revealed")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("secret-key").Filter(playwright.LocatorFilterOptions{HasText: "password"}).GetByTestId("secret-revealed")).ToHaveText(values["password"]))
	must(t, expect.Locator(page.GetByTestId("secret-key").Filter(playwright.LocatorFilterOptions{HasText: "username"}).GetByTestId("secret-masked")).ToBeVisible())
	leaks(t, page, "password")
	screenshot(t, page, "edit-secret-revealed-light.png")

	// A label change; the data is not in the text and is not sent.
	editorReady(t, page)
	setEditorText(t, page, replaceOnce(t, editorText(t, page), "tier: backend", "tier: frontend"))
	wantStatus(t, submit(t, page, page.GetByTestId("review")), http.StatusOK)
	must(t, expect.Locator(page.GetByTestId("patch-changes")).ToContainText("metadata.labels.tier"))
	must(t, expect.Locator(page.GetByTestId("patch-changes").Locator("li")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("secret-changes")).ToHaveCount(0))
	body, err := page.Content()
	must(t, err)
	// The review shows no value, not even the one revealed before.
	for k, v := range values {
		if strings.Contains(body, base64.StdEncoding.EncodeToString([]byte(v))) || strings.Contains(body, v) {
			t.Errorf("the review shows %s's value", k)
		}
	}
	screenshot(t, page, "edit-secret-review-light.png")
	must(t, page.GetByTestId("apply").Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/secrets/`+name+`$`)))
	must(t, expect.Locator(page.GetByTestId("notice")).ToContainText("Saved"))

	got, err := cs.CoreV1().Secrets(editNS).Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if got.Labels["tier"] != "frontend" {
		t.Errorf("labels %v, want tier=frontend", got.Labels)
	}
	if len(got.Data) != len(values) {
		t.Errorf("data has %d keys, want %d", len(got.Data), len(values))
	}
	for k, v := range values {
		if string(got.Data[k]) != v {
			t.Errorf("data[%s] = %q, want %q", k, got.Data[k], v)
		}
	}
}

// ---------------------------------------------------------------------------
// HTTP-level: the forms as a browser without JavaScript posts them.

// formSession is one browser's cookie jar (the CSRF cookie) against the
// console; it follows redirects as a browser does.
type formSession struct {
	t      *testing.T
	client *http.Client
}

func newFormSession(t *testing.T) *formSession {
	jar, err := cookiejar.New(nil)
	must(t, err)
	return &formSession{t: t, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// formPage is a loaded page: its status, final URL and document.
type formPage struct {
	status int
	url    *url.URL
	doc    *goquery.Document
}

func (s *formSession) do(req *http.Request) formPage {
	s.t.Helper()
	resp, err := s.client.Do(req)
	must(s.t, err)
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	must(s.t, err)
	return formPage{status: resp.StatusCode, url: resp.Request.URL, doc: doc}
}

func (s *formSession) get(path string) formPage {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), http.MethodGet, env.console.URL+path, nil)
	must(s.t, err)
	return s.do(req)
}

// submit posts the form matched by selector with its fields, changed by
// edit, and the named button's action.
func (s *formSession) submit(p formPage, selector, action string, edit func(url.Values)) formPage {
	s.t.Helper()
	return s.submitTo(p, selector, "", action, edit)
}

// submitTo is submit posting to path instead of the form's own action
// (when path is not ""), as a form forged from another page would.
func (s *formSession) submitTo(p formPage, selector, path, action string, edit func(url.Values)) formPage {
	s.t.Helper()
	form := p.doc.Find(selector)
	if form.Length() != 1 {
		s.t.Fatalf("the page (%d %s) has %d forms %s", p.status, p.url, form.Length(), selector)
	}
	values := url.Values{}
	form.Find("input[name], textarea[name]").Each(func(_ int, f *goquery.Selection) {
		name, _ := f.Attr("name")
		if goquery.NodeName(f) == "textarea" {
			values.Add(name, f.Text())
			return
		}
		switch typ, _ := f.Attr("type"); typ {
		case "checkbox", "radio":
			if _, checked := f.Attr("checked"); !checked {
				return
			}
		case "submit", "button":
			return
		}
		v, _ := f.Attr("value")
		values.Add(name, v)
	})
	if edit != nil {
		edit(values)
	}
	values.Set("action", action)
	target, _ := form.Attr("action")
	if path != "" {
		target = path
	}
	u, err := p.url.Parse(target)
	must(s.t, err)
	req, err := http.NewRequestWithContext(s.t.Context(), http.MethodPost, u.String(), strings.NewReader(values.Encode()))
	must(s.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return s.do(req)
}

func (p formPage) testID(id string) *goquery.Selection {
	return p.doc.Find(`[data-testid="` + id + `"]`)
}

func (p formPage) want(t *testing.T, status int, testID string) {
	t.Helper()
	if p.status != status || p.testID(testID).Length() == 0 {
		msg := strings.TrimSpace(p.testID("edit-error").Text() + " " + p.testID("error-message").Text())
		t.Fatalf("%s: status %d, want %d with %s (%s)", p.url, p.status, status, testID, msg)
	}
}

// 8. Two editors change different fields: the second gets 409, and after
// re-applying, both changes are there.
func TestConcurrentEditsOverHTTP(t *testing.T) {
	cs, _ := clientset(t, "admin")
	const name = "e2e-http-concurrent"
	editConfigMap(t, cs, name, map[string]string{"left": "0", "right": "0"})
	editPath := "/c/admin/api/v1/namespaces/demo/configmaps/" + name + "/edit"

	one, two := newFormSession(t), newFormSession(t)
	page1, page2 := one.get(editPath), two.get(editPath)
	page1.want(t, http.StatusOK, "edit-form")
	page2.want(t, http.StatusOK, "edit-form")
	change := func(old, repl string) func(url.Values) {
		return func(v url.Values) { v.Set("yaml", replaceOnce(t, v.Get("yaml"), old, repl)) }
	}

	// The first saves: review, then apply, then the object page.
	review := one.submit(page1, "[data-testid=edit-form]", "review", change(`left: "0"`, `left: "1"`))
	review.want(t, http.StatusOK, "dry-run-diff")
	if got := review.testID("patch-changes").Text(); !strings.Contains(got, "data.left") {
		t.Fatalf("review lists %q", got)
	}
	saved := one.submit(review, "[data-testid=review-form]", "apply", nil)
	saved.want(t, http.StatusOK, "notice")
	if !strings.HasSuffix(saved.url.Path, "/configmaps/"+name) {
		t.Fatalf("after apply: %s", saved.url)
	}

	// The second, loaded at the older version: its review and its apply
	// both meet the 409.
	conflict := two.submit(page2, "[data-testid=edit-form]", "review", change(`right: "0"`, `right: "2"`))
	conflict.want(t, http.StatusConflict, "disjoint")
	if two.submit(conflict, "[data-testid=conflict-form]", "apply", nil).status != http.StatusConflict {
		t.Error("applying the stale text did not answer 409")
	}
	if got := conflict.testID("their-changes").Text(); !strings.Contains(got, "data.left") {
		t.Errorf("their changes: %q", got)
	}
	reviewed := two.submit(conflict, "[data-testid=conflict-form]", "reapply", nil)
	reviewed.want(t, http.StatusOK, "reapplied")
	if got := reviewed.testID("patch-changes").Find("li").Length(); got != 1 {
		t.Errorf("the re-applied patch has %d changes, want 1: %q", got, reviewed.testID("patch-changes").Text())
	}
	done := two.submit(reviewed, "[data-testid=review-form]", "apply", nil)
	done.want(t, http.StatusOK, "notice")

	cm, err := cs.CoreV1().ConfigMaps(editNS).Get(t.Context(), name, metav1.GetOptions{})
	must(t, err)
	if cm.Data["left"] != "1" || cm.Data["right"] != "2" {
		t.Errorf("data %v, want left=1 and right=2", cm.Data)
	}
}

// 9. A 422 for an immutable field names it, and the text is kept.
func TestImmutableFieldEditShows422Cause(t *testing.T) {
	cs, _ := clientset(t, "admin")
	ctx := t.Context()
	const name = "e2e-edit-immutable"
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: editNS},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	created, err := cs.CoreV1().Services(editNS).Create(ctx, svc, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() { _ = cs.CoreV1().Services(editNS).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	ip := created.Spec.ClusterIP
	other := "10.96.250.250"
	if ip == other {
		other = "10.96.250.251"
	}

	s := newFormSession(t)
	editor := s.get("/c/admin/api/v1/namespaces/demo/services/" + name + "/edit")
	editor.want(t, http.StatusOK, "edit-form")
	var text string
	failed := s.submit(editor, "[data-testid=edit-form]", "review", func(v url.Values) {
		text = replaceOnce(t, v.Get("yaml"), "clusterIP: "+ip+"\n", "clusterIP: "+other+"\n")
		v.Set("yaml", text)
	})
	failed.want(t, http.StatusUnprocessableEntity, "edit-error-causes")
	if code := failed.testID("edit-error-code").Text(); code != "422" {
		t.Errorf("edit-error-code %q", code)
	}
	// kube-apiserver copies a changed clusterIP into clusterIPs before it
	// validates, so the cause may name either; each is placed at its line.
	lines := strings.Split(text, "\n")
	lineOf := map[string]int{}
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case "clusterIP: " + other:
			lineOf["spec.clusterIP"] = i + 1
		case "clusterIPs:":
			lineOf["spec.clusterIPs[0]"] = i + 2
		}
	}
	causes := failed.testID("edit-error-causes")
	found := false
	causes.Find("li").Each(func(_ int, li *goquery.Selection) {
		field := li.Find("code").Text()
		line, ok := lineOf[field]
		if !ok {
			return
		}
		found = true
		if got := strings.TrimSpace(li.Find(".line-ref").Text()); got != fmt.Sprintf("line %d", line) {
			t.Errorf("the cause %s is placed at %q, want line %d", field, got, line)
		}
	})
	if !found || !strings.Contains(causes.Text(), "spec.clusterIP") {
		t.Errorf("no cause names spec.clusterIP: %q", causes.Text())
	}
	if got := failed.doc.Find("textarea#yaml").Text(); got != text {
		t.Errorf("the editor lost the text:\n%s\nwant:\n%s", got, text)
	}
	got, err := cs.CoreV1().Services(editNS).Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if got.Spec.ClusterIP != ip {
		t.Errorf("clusterIP changed to %s", got.Spec.ClusterIP)
	}
}
