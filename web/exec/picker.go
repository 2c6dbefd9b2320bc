package exec

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// maxPickerPods bounds the pods a pick-a-pod page lists.
const maxPickerPods = 100

// pickPod serves …/{workload}/{name}/exec: the pods the object selects,
// each leading to its terminal.
func (h *Handler) pickPod(c echo.Context, t page.Target) error {
	client, r, p := t.Client, t.Resource, t.Path
	if !r.Namespaced {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s %s has no pods in a namespace to open a terminal to.", r.Kind, p.Name))
	}
	ctx, cancel := h.env.WithDeadline(c.Request().Context())
	defer cancel()
	// Every pod's terminal would be a 404 on a server without exec.
	podsResource, err := client.Resource(ctx, "", "v1", "pods")
	if err != nil {
		return err
	}
	if !apiclient.SupportsExec(podsResource) {
		return notServed(podsResource, "exec")
	}
	sel, err := client.PodSelector(ctx, r, p.Namespace, p.Name)
	if err != nil {
		return page.WithAction(err, "get", r, p.Namespace, "")
	}
	pods, _, more, err := client.ListPods(ctx, p.Namespace, sel, maxPickerPods)
	if err != nil {
		return err
	}
	m := PickerModel(t.URLs, r, podsResource, p.Namespace, p.Name, sel, pods, more)
	m.Layout = h.env.ContextLayout(ctx, client, p.Name+" · terminal", &r, p.Namespace)
	return h.env.Render(c, http.StatusOK, views.PodPickerPage(m))
}

// PickerModel builds a pick-a-pod page: running pods first, then by name.
func PickerModel(u page.URLs, r, pods apiclient.Resource, namespace, name, selector string, items []corev1.Pod, more bool) views.PodPicker {
	m := views.PodPicker{
		Kind: r.Kind, Name: name, Namespace: namespace, Selector: selector, More: more,
		BackHref: u.Resource(r, namespace, name),
	}
	slices.SortFunc(items, func(a, b corev1.Pod) int {
		ar, br := a.Status.Phase == corev1.PodRunning, b.Status.Phase == corev1.PodRunning
		if ar != br {
			if ar {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
	for _, pod := range items {
		ready := 0
		for _, s := range pod.Status.ContainerStatuses {
			if s.Ready {
				ready++
			}
		}
		m.Pods = append(m.Pods, views.PodChoice{
			Name:  pod.Name,
			Phase: string(pod.Status.Phase),
			Ready: fmt.Sprintf("%d/%d", ready, len(pod.Spec.Containers)),
			Href:  u.Action(pods, namespace, pod.Name, "exec"),
		})
	}
	return m
}
