//go:build e2e

package e2e

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Widgets are the test's own kind: the console has no code for it; what it
// knows of the kind's health comes from its status conditions.
var widgetGVR = schema.GroupVersionResource{Group: "problems.e2e.tabula.dev", Version: "v1", Resource: "widgets"}

const widgetCRDName = "widgets.problems.e2e.tabula.dev"

func widgetCRD() *unstructured.Unstructured {
	str := map[string]any{"type": "string"}
	condition := map[string]any{
		"type": "object", "required": []any{"type", "status"},
		"properties": map[string]any{
			"type": str, "status": str, "reason": str, "message": str,
			"lastTransitionTime": map[string]any{"type": "string", "format": "date-time"},
		},
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": widgetCRDName},
		"spec": map[string]any{
			"group": widgetGVR.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
						"status": map[string]any{"type": "object", "properties": map[string]any{
							"conditions": map[string]any{"type": "array", "items": condition},
						}},
					},
				}},
			}},
		},
	}}
}

// setReady writes the widget's Ready condition through the status
// subresource, as its controller would.
func setReady(t *testing.T, widgets interface {
	UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error)
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
}, name, status, reason, message string, since time.Time) {
	t.Helper()
	apitest.WaitFor(t, 30*time.Second, func() error {
		w, err := widgets.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		w.Object["status"] = map[string]any{"conditions": []any{map[string]any{
			"type": "Ready", "status": status, "reason": reason, "message": message,
			"lastTransitionTime": since.UTC().Format(time.RFC3339),
		}}}
		_, err = widgets.UpdateStatus(t.Context(), w, metav1.UpdateOptions{FieldManager: "widget-controller"})
		return err
	})
}

// What is broken now: an object of a kind no code knows, Ready=False for
// ten minutes, is on the Problems page with its reason, and leaves it live
// when its condition turns True; a crash-looping pod (the dev control
// plane's kwok stage makes one of any pod with its annotation) is there
// too, with its container and restarts. The home page opens with the
// counts, linked to the page.
func TestProblemsFollowAnUnknownKindAndACrashLoop(t *testing.T) {
	ctx := t.Context()
	cs, _ := clientset(t, "admin")
	dyn, _ := adminDynamic(t)
	const ns = "e2e-problems"
	crds := dyn.Resource(crdGVR)
	if _, err := crds.Create(ctx, widgetCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	t.Cleanup(func() { _ = crds.Delete(context.Background(), widgetCRDName, metav1.DeleteOptions{}) })
	freshNamespace(t, cs, ns)

	widgets := dyn.Resource(widgetGVR).Namespace(ns)
	apitest.WaitFor(t, time.Minute, func() error {
		_, err := widgets.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": widgetGVR.GroupVersion().String(), "kind": "Widget",
			"metadata": map[string]any{"name": "jammed"}, "spec": map[string]any{"size": int64(3)},
		}}, metav1.CreateOptions{})
		return err
	})
	setReady(t, widgets, "jammed", "False", "GearsJammed", "the gears do not turn", time.Now().Add(-10*time.Minute))

	// The namespace's default ServiceAccount, which admission requires of
	// a Pod, comes a moment after the namespace.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crashy", Annotations: map[string]string{"devcluster.tabula.dev/crash-loop": "true"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "busybox:1.36", Args: []string{"false"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("1m"), corev1.ResourceMemory: resource.MustParse("4Mi"),
				}},
			}},
			TerminationGracePeriodSeconds: new(int64(0)),
		},
	}
	apitest.WaitFor(t, time.Minute, func() error {
		_, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		return err
	})

	// The kubelet's BackOff warning, as a core event about the pod: the
	// dev control plane's kwok names no container in its own.
	crashy, err := cs.CoreV1().Pods(ns).Get(ctx, "crashy", metav1.GetOptions{})
	must(t, err)
	now := metav1.Now()
	_, err = cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "crashy.backoff"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: "crashy", UID: crashy.UID},
		Type:           corev1.EventTypeWarning, Reason: "BackOff", Message: "Back-off restarting failed container app",
		Count: 4, FirstTimestamp: metav1.NewTime(now.Add(-5 * time.Minute)), LastTimestamp: now,
		Source: corev1.EventSource{Component: "kubelet"},
	}, metav1.CreateOptions{})
	must(t, err)

	page := newPage(t)
	goTo(t, page, "/c/admin/problems?namespace="+ns+"&after=5m")
	widget := page.Locator(`[data-testid=problems-section][data-category=stuck] [data-testid=problem-row][data-kind=Widget][data-name=jammed]`)
	// The CRD is seconds old: the page asked before the console's schema
	// of it settled, or after; either way the next page has it.
	apitest.WaitFor(t, time.Minute, func() error {
		if n, _ := widget.Count(); n == 1 {
			return nil
		}
		goTo(t, page, "/c/admin/problems?namespace="+ns+"&after=5m")
		return errors.New("the jammed widget is not on the Problems page yet")
	})
	must(t, expect.Locator(widget.GetByTestId("problem-reason")).ToHaveText("GearsJammed"))
	must(t, expect.Locator(widget.GetByTestId("problem-message")).ToHaveText("the gears do not turn"))
	must(t, expect.Locator(page.GetByTestId("live-status")).ToContainText("Live"))

	// The crash loop appears live, from the pod's own container states.
	crash := page.Locator(`[data-testid=problems-section][data-category=pods] [data-testid=problem-row][data-name=crashy]`)
	must(t, expect.Locator(crash).ToHaveAttribute("data-reason", "CrashLoopBackOff", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: new(60000.0)}))
	must(t, expect.Locator(crash).ToContainText("app"))
	must(t, expect.Locator(page.Locator(`[data-testid=problem-counts] [data-testid=problem-count][data-category=pods]`)).ToContainText("1"))
	warning := page.Locator(`[data-testid=warning-row][data-name=crashy][data-reason=BackOff]`)
	must(t, expect.Locator(warning.GetByTestId("warning-count")).ToHaveText("4"))
	screenshotThemes(t, page, "problems-namespace")
	checkA11y(t, page, "problems-namespace")

	// Its controller says Ready: the row leaves without a reload.
	setReady(t, widgets, "jammed", "True", "Turning", "", time.Now())
	must(t, expect.Locator(widget).ToHaveCount(0, playwright.LocatorAssertionsToHaveCountOptions{Timeout: new(30000.0)}))
	must(t, expect.Locator(page.Locator(`[data-testid=problems-section][data-category=stuck] [data-testid=problems-empty]`)).ToBeVisible())

	// The home page opens with health; its counts lead to the page.
	goTo(t, page, "/c/admin/")
	health := page.GetByTestId("home-health")
	must(t, expect.Locator(health.GetByTestId("nodes-ready")).ToHaveText(regexp.MustCompile(`^\d+ of \d+ ready$`)))
	must(t, expect.Locator(health.GetByTestId("server-version")).ToHaveText(regexp.MustCompile(`^v1\.`)))
	pods := health.Locator(`[data-testid=problem-count][data-category=pods]`)
	must(t, expect.Locator(pods.Locator(".problem-count-n")).Not().ToHaveText("0"))
	// Sent after the catalogue, it is shown above it (a shadow root's slot).
	must(t, expect.Locator(page.GetByTestId("health-pending")).ToBeHidden())
	healthBox, err := health.BoundingBox()
	must(t, err)
	headBox, err := page.Locator(".page-head").BoundingBox()
	must(t, err)
	if healthBox.Y >= headBox.Y {
		t.Errorf("the health is at %.0f px, not above the catalogue's head at %.0f px", healthBox.Y, headBox.Y)
	}
	screenshotThemes(t, page, "home-health")
	checkA11y(t, page, "home-health")
	must(t, pods.Click())
	must(t, expect.Page(page).ToHaveURL(regexp.MustCompile(`/c/admin/problems#pods$`)))
	must(t, expect.Locator(page.Locator(`[data-testid=problem-row][data-namespace=`+ns+`][data-name=crashy]`)).ToBeVisible())
	screenshotThemes(t, page, "problems-cluster")
	checkA11y(t, page, "problems-cluster")
}
