package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func debugger(name string) corev1.EphemeralContainer {
	return corev1.EphemeralContainer{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: name, Image: "busybox:1.36", Stdin: true, TTY: true},
		TargetContainerName:      "app",
	}
}

func TestAddEphemeralContainer(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	ctx := context.Background()
	pod, err := c.GetPod(ctx, "demo", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.AddEphemeralContainer(ctx, "demo", "web-1", pod.ResourceVersion, debugger("debugger-abcde"))
	if err != nil {
		t.Fatal(err)
	}
	if ecs := got.Spec.EphemeralContainers; len(ecs) != 1 || ecs[0].Name != "debugger-abcde" || ecs[0].TargetContainerName != "app" || !ecs[0].TTY {
		t.Errorf("stored ephemeral containers %+v", ecs)
	}
	// The write: a merge patch of the subresource, guarded by the pod's resourceVersion.
	w := fake.Writes()[len(fake.Writes())-1]
	var patch struct {
		Metadata struct{ ResourceVersion string }
		Spec     struct{ EphemeralContainers []corev1.EphemeralContainer }
	}
	if err := json.Unmarshal(w.Body, &patch); err != nil {
		t.Fatal(err)
	}
	if w.Method != http.MethodPatch || w.Path != "/api/v1/namespaces/demo/pods/web-1/ephemeralcontainers" || w.ContentType != apiclient.MergePatchType ||
		patch.Metadata.ResourceVersion != pod.ResourceVersion || len(patch.Spec.EphemeralContainers) != 1 {
		t.Errorf("write %s %s %s %s", w.Method, w.Path, w.ContentType, w.Body)
	}

	// The kubelet (the fake) starts it; a terminal can attach to it.
	pod, err = c.GetPod(ctx, "demo", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	if st := pod.Status.EphemeralContainerStatuses; len(st) != 1 || st[0].Name != "debugger-abcde" || st[0].State.Running == nil {
		t.Fatalf("ephemeral statuses %+v", st)
	}
	var out syncBuffer
	err = c.Stream(ctx, apiclient.Session{Namespace: "demo", Pod: "web-1", Container: "debugger-abcde", Attach: true,
		Stdin: strings.NewReader("echo from the debugger\nexit\n"), Stdout: &out})
	if err != nil || out.String() != "from the debugger\n" {
		t.Errorf("attach: err %v, stdout %q", err, out.String())
	}

	// A second one keeps the first (a merge patch replaces the whole list);
	// no resourceVersion given: the one just read guards it. An empty name
	// is generated.
	got, err = c.AddEphemeralContainer(ctx, "demo", "web-1", "", debugger(""))
	if err != nil {
		t.Fatal(err)
	}
	if ecs := got.Spec.EphemeralContainers; len(ecs) != 2 || ecs[0].Name != "debugger-abcde" || !regexp.MustCompile(`^debugger-[a-z0-9]{5}$`).MatchString(ecs[1].Name) {
		t.Errorf("ephemeral containers after the second %+v", ecs)
	}
}

func TestAddEphemeralContainerConflictsOnAStalePod(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	ctx := context.Background()
	pod, err := c.GetPod(ctx, "demo", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	fake.Modify(podGVK, "demo", "web-1", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"changed": "yes"}) })
	_, err = c.AddEphemeralContainer(ctx, "demo", "web-1", pod.ResourceVersion, debugger("debugger-abcde"))
	if !apierrors.IsConflict(err) {
		t.Fatalf("err %v, want 409 Conflict", err)
	}
	if now, _ := c.GetPod(ctx, "demo", "web-1"); len(now.Spec.EphemeralContainers) != 0 {
		t.Errorf("stored despite the conflict: %+v", now.Spec.EphemeralContainers)
	}
}

func TestAddEphemeralContainerRefusals(t *testing.T) {
	fake, c := execFake(t, apitest.Options{})
	ctx := context.Background()
	for _, tc := range []struct{ namespace, pod string }{{"demo", "../web-1"}, {"", "web-1"}, {"demo", ""}, {"de%2fmo", "web-1"}} {
		if _, err := c.AddEphemeralContainer(ctx, tc.namespace, tc.pod, "", debugger("debugger-abcde")); !apierrors.IsBadRequest(err) {
			t.Errorf("%q/%q: err %v, want 400 before any request", tc.namespace, tc.pod, err)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests for bad names", n)
	}
	// The server validates the container.
	for _, tc := range []struct {
		ec    corev1.EphemeralContainer
		field string
	}{
		{debugger("Not_A_Label"), "spec.ephemeralContainers[0].name"},
		{debugger("app"), "spec.ephemeralContainers[0].name"}, // the pod's own container's name
		{corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-noimg"}}, "spec.ephemeralContainers[0].image"},
		{corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-x", Image: "busybox"}, TargetContainerName: "nope"}, "spec.ephemeralContainers[0].targetContainerName"},
	} {
		_, err := c.AddEphemeralContainer(ctx, "demo", "web-1", "", tc.ec)
		var se *apierrors.StatusError
		if !errors.As(err, &se) || !apierrors.IsInvalid(err) || se.Status().Details == nil || len(se.Status().Details.Causes) == 0 ||
			se.Status().Details.Causes[0].Field != tc.field {
			t.Errorf("%+v: err %v, want 422 on %s", tc.ec, err, tc.field)
		}
	}
	if _, err := c.AddEphemeralContainer(ctx, "demo", "gone", "", debugger("debugger-abcde")); !apierrors.IsNotFound(err) {
		t.Errorf("missing pod: err %v", err)
	}
}

func TestEphemeralContainersUnsupportedOrNotStarted(t *testing.T) {
	// A server without the subresource: discovery hides it, and a try is the server's 404.
	fake, c := execFake(t, apitest.Options{Exec: apitest.ExecOptions{NoEphemeralContainers: true}})
	ctx := context.Background()
	d, err := c.Discovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pods, _ := d.Lookup("", "v1", "pods")
	if apiclient.SupportsEphemeralContainers(pods) || !apiclient.SupportsExec(pods) || !apiclient.SupportsAttach(pods) {
		t.Errorf("pods subresources %v", pods.Subresources)
	}
	if _, err := c.AddEphemeralContainer(ctx, "demo", "web-1", "", debugger("debugger-abcde")); !apierrors.IsNotFound(err) {
		t.Errorf("err %v, want 404", err)
	}
	if n := len(fake.Writes()); n != 0 {
		t.Errorf("%d writes", n)
	}

	// A container that never starts (an image that cannot be pulled; kwok
	// never starts one): exec into it is the server's 400.
	fake, c = execFake(t, apitest.Options{Exec: apitest.ExecOptions{EphemeralWaiting: true}})
	if _, err := c.AddEphemeralContainer(ctx, "demo", "web-1", "", debugger("debugger-abcde")); err != nil {
		t.Fatal(err)
	}
	pod, _ := c.GetPod(ctx, "demo", "web-1")
	if st := pod.Status.EphemeralContainerStatuses; len(st) != 1 || st[0].State.Waiting == nil {
		t.Errorf("statuses %+v", st)
	}
	err = c.Stream(ctx, apiclient.Session{Namespace: "demo", Pod: "web-1", Container: "debugger-abcde", Attach: true, Stdout: io.Discard})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "is waiting to start: ContainerCreating") {
		t.Errorf("attach to a waiting container: %v", err)
	}
	if len(fake.ExecSessions()) != 0 {
		t.Error("a session into a waiting container")
	}
}

func TestDebugContainerName(t *testing.T) {
	name := apiclient.DebugContainerName([]string{"app"})
	if !regexp.MustCompile(`^debugger-[a-z0-9]{5}$`).MatchString(name) {
		t.Errorf("name %q", name)
	}
}
