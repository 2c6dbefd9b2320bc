package exec

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// DefaultDebugImage is the debug form's suggestion: small, with a shell
// and the usual tools.
const DefaultDebugImage = "busybox:1.37"

// debugForm is the debug form as posted.
type debugForm struct {
	Image, Target, Name, ResourceVersion string
}

// DebugForm serves …/pods/{name}/debug: the form that adds a debug
// container.
func (h *Handler) DebugForm(c echo.Context, t page.Target) error {
	if !kube.CanDebug(t.Resource) {
		return noDebug(t.Resource)
	}
	ctx := c.Request().Context()
	pod, err := t.Client.GetPod(ctx, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return page.WithAction(err, "get", t.Resource, t.Path.Namespace, t.URLs.Resource(t.Resource, t.Path.Namespace, ""))
	}
	f := debugForm{Image: DefaultDebugImage, Target: kube.DefaultContainer(pod), Name: apiclient.DebugContainerName(kube.ContainerNames(kube.PodContainers(pod))), ResourceVersion: pod.ResourceVersion}
	return h.renderDebug(c, t, pod, f, "", http.StatusOK)
}

// Debug serves the form's POST: add the ephemeral container, guarded by
// the pod's resourceVersion, then open a terminal to it.
func (h *Handler) Debug(c echo.Context, t page.Target) error {
	if !kube.CanDebug(t.Resource) {
		return noDebug(t.Resource)
	}
	ctx := c.Request().Context()
	client, p := t.Client, t.Path
	f := debugForm{
		Image:           strings.TrimSpace(c.FormValue("image")),
		Target:          c.FormValue("target"),
		Name:            strings.TrimSpace(c.FormValue("name")),
		ResourceVersion: c.FormValue("resourceVersion"),
	}
	pod, err := client.GetPod(ctx, p.Namespace, p.Name)
	if err != nil {
		return page.WithAction(err, "get", t.Resource, p.Namespace, t.URLs.Resource(t.Resource, p.Namespace, ""))
	}
	if f.Name == "" {
		f.Name = apiclient.DebugContainerName(kube.ContainerNames(kube.PodContainers(pod)))
	}
	if msg := validateDebug(f, pod); msg != "" {
		return h.renderDebug(c, t, pod, f, msg, http.StatusBadRequest)
	}
	ec := corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: f.Name, Image: f.Image,
		// As kubectl debug -it: the image's own command, with a terminal.
		Stdin: true, TTY: true,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}, TargetContainerName: f.Target}
	_, err = client.AddEphemeralContainer(ctx, p.Namespace, p.Name, f.ResourceVersion, ec)
	h.env.LogWrite(c, "patch", t.Resource, p.Namespace, p.Name+"/ephemeralcontainers", false, err)
	if err != nil {
		status := page.StatusOf(err)
		if status >= 500 || status == http.StatusUnauthorized {
			return err
		}
		msg := debugError(err)
		// The form is shown again with what was typed, and the pod's
		// current version for a retry.
		if fresh, getErr := client.GetPod(ctx, p.Namespace, p.Name); getErr == nil {
			pod = fresh
			f.ResourceVersion = fresh.ResourceVersion
		}
		return h.renderDebug(c, t, pod, f, msg, status)
	}
	base := t.URLs.Resource(t.Resource, p.Namespace, p.Name)
	return c.Redirect(http.StatusSeeOther, string(page.WithQuery(base+"/exec", url.Values{"container": {f.Name}})))
}

func noDebug(pods apiclient.Resource) error {
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no \"ephemeralcontainers\" subresource for %s, so debug containers cannot be added.", pods.Name))
}

// debugError says what went wrong in the words an operator needs.
func debugError(err error) string {
	if apierrors.IsConflict(err) {
		return "The pod changed since this form was loaded (another debug container was added?). Its current version is loaded: submit again."
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}

// validateDebug checks the form before anything is sent.
func validateDebug(f debugForm, pod *corev1.Pod) string {
	switch {
	case f.Image == "":
		return "An image is needed, e.g. " + DefaultDebugImage + "."
	case strings.ContainsAny(f.Image, " \t\r\n"):
		return fmt.Sprintf("%q is not an image reference: it contains whitespace.", f.Image)
	}
	if errs := validation.IsDNS1123Label(f.Name); len(errs) > 0 {
		return fmt.Sprintf("%q is not a container name: %s.", f.Name, strings.Join(errs, "; "))
	}
	for _, n := range kube.ContainerNames(kube.PodContainers(pod)) {
		if n == f.Name {
			return fmt.Sprintf("The pod already has a container named %q.", f.Name)
		}
	}
	if f.Target != "" {
		found := false
		for _, c := range pod.Spec.Containers {
			found = found || c.Name == f.Target
		}
		if !found {
			return fmt.Sprintf("The pod has no container %q to target.", f.Target)
		}
	}
	return ""
}

func (h *Handler) renderDebug(c echo.Context, t page.Target, pod *corev1.Pod, f debugForm, msg string, status int) error {
	ctx := c.Request().Context()
	m := DebugModel(t.URLs, t.Resource, pod, f, msg)
	m.Layout = h.env.ContextLayout(ctx, t.Client, pod.Name+" · debug", &t.Resource, pod.Namespace)
	return h.env.Render(c, status, views.Debug(m))
}

// DebugModel builds the debug form.
func DebugModel(u page.URLs, pods apiclient.Resource, pod *corev1.Pod, f debugForm, msg string) views.DebugForm {
	podHref := u.Resource(pods, pod.Namespace, pod.Name)
	m := views.DebugForm{
		Pod: pod.Name, Namespace: pod.Namespace, PodHref: podHref,
		Action:          u.Action(pods, pod.Namespace, pod.Name, "debug"),
		ResourceVersion: f.ResourceVersion,
		Image:           f.Image, Target: f.Target, Name: f.Name, Error: msg,
	}
	for _, c := range pod.Spec.Containers {
		m.Targets = append(m.Targets, c.Name)
	}
	return m
}
