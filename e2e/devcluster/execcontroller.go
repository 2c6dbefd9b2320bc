package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/workqueue"
	kwokcrd "sigs.k8s.io/kwok/kustomize/crd"
	kwokv1alpha1 "sigs.k8s.io/kwok/pkg/apis/v1alpha1"
	kwokclient "sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/yaml"
)

// installExecCRD serves kwok's Exec resource, which kwok watches with
// --enable-crds=Exec: per-pod exec configuration must follow pods whose names
// (a Deployment's) are only known once they exist, and kwok reads its
// --config file once.
func installExecCRD(ctx context.Context, ext apiextensionsclient.Interface) error {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(kwokcrd.Exec, &crd); err != nil {
		return fmt.Errorf("kwok's Exec CRD: %w", err)
	}
	return ensureCRD(ctx, ext, &crd)
}

// execController gives every pod of some namespaces a work directory
// <data>/exec/<namespace>/<pod> and a kwok Exec named after the pod, which
// kwok prefers to the shared ClusterExec. The Exec is owned by the pod, so
// the garbage collector deletes it with the pod; the directory stays, with
// whatever the sessions left there.
type execController struct {
	layout  layout
	user    execUser
	kwok    kwokclient.Interface
	listers map[string]corelisters.PodLister
	queue   workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// startExecController watches the pods of namespaces until ctx ends.
func startExecController(ctx context.Context, kube kubernetes.Interface, kwok kwokclient.Interface, l layout, u execUser, namespaces []string) (*execController, error) {
	c := &execController{
		layout:  l,
		user:    u,
		kwok:    kwok,
		listers: map[string]corelisters.PodLister{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "exec"}),
	}
	for _, ns := range namespaces {
		f := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(ns))
		pods := f.Core().V1().Pods()
		if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			// A pod's name never changes: it needs its Exec once. A pod
			// recreated under the same name (a StatefulSet's) is a new Add.
			AddFunc: func(obj any) {
				if pod, ok := obj.(*corev1.Pod); ok {
					c.queue.Add(cache.MetaObjectToName(pod))
				}
			},
		}); err != nil {
			return nil, err
		}
		c.listers[ns] = pods.Lister()
		f.Start(ctx.Done())
		for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return nil, fmt.Errorf("pods of %s (%v) did not sync", ns, typ)
			}
		}
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	go c.work(ctx)
	return c, nil
}

func (c *execController) work(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		err := c.sync(ctx, key)
		switch {
		case err == nil:
			c.queue.Forget(key)
		case ctx.Err() == nil:
			slog.Warn("exec configuration for a pod failed; retrying", "pod", key.String(), "err", err)
			c.queue.AddRateLimited(key)
		}
		c.queue.Done(key)
	}
}

func (c *execController) sync(ctx context.Context, key cache.ObjectName) error {
	lister, ok := c.listers[key.Namespace]
	if !ok {
		return nil
	}
	pod, err := lister.Pods(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.ensure(ctx, pod)
}

// ensure gives pod its directory and Exec; it is idempotent.
func (c *execController) ensure(ctx context.Context, pod *corev1.Pod) error {
	if pod.DeletionTimestamp != nil {
		return nil
	}
	dir := c.layout.podExecDir(pod.Namespace, pod.Name)
	if err := ensureWorkDir(dir, pod.Namespace+"/"+pod.Name, c.user); err != nil {
		return fmt.Errorf("work directory of %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	want := podExec(pod, dir, c.user)
	execs := c.kwok.KwokV1alpha1().Execs(pod.Namespace)
	_, err := execs.Create(ctx, want, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	got, err := execs.Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	// From an earlier run (another exec user), or of an earlier pod of the
	// same name, which the garbage collector would delete.
	if equality.Semantic.DeepEqual(got.Spec, want.Spec) && equality.Semantic.DeepEqual(got.OwnerReferences, want.OwnerReferences) {
		return nil
	}
	got.Spec, got.OwnerReferences = want.Spec, want.OwnerReferences
	_, err = execs.Update(ctx, got, metav1.UpdateOptions{})
	return err
}

// podExec is the kwok Exec of one pod, for all its containers (ephemeral
// ones included).
func podExec(pod *corev1.Pod, dir string, u execUser) *kwokv1alpha1.Exec {
	return &kwokv1alpha1.Exec{
		ObjectMeta: metav1.ObjectMeta{
			Name:      pod.Name,
			Namespace: pod.Namespace,
			Labels:    managedBy,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
			}},
		},
		Spec: kwokv1alpha1.ExecSpec{Execs: []kwokv1alpha1.ExecTarget{{Local: execLocal(dir, pod.Namespace, pod.Name, u)}}},
	}
}

// syncAll configures every pod the controller knows now and, through the
// API server, checks that kwok runs a command in each Running one's own
// directory: kwok picks up new Exec objects from a watch, so this is what
// makes "ready" mean exec works.
func (c *execController) syncAll(ctx context.Context, cfg *rest.Config, kube kubernetes.Interface) error {
	var running []*corev1.Pod
	for _, ns := range slices.Sorted(maps.Keys(c.listers)) {
		pods, err := c.listers[ns].List(k8slabels.Everything())
		if err != nil {
			return err
		}
		for _, pod := range pods {
			if err := c.ensure(ctx, pod); err != nil {
				return fmt.Errorf("exec configuration of %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			if pod.Status.Phase == corev1.PodRunning && pod.DeletionTimestamp == nil {
				running = append(running, pod)
			}
		}
	}
	var took []time.Duration
	for _, pod := range running {
		dir := c.layout.podExecDir(pod.Namespace, pod.Name)
		var out string
		err := poll(ctx, 100*time.Millisecond, "exec into "+pod.Namespace+"/"+pod.Name, func(ctx context.Context) (bool, string, error) {
			// A Job's pod completes, a pod may go: only a running one can
			// be asked.
			if now, err := c.listers[pod.Namespace].Pods(pod.Namespace).Get(pod.Name); err != nil ||
				now.UID != pod.UID || now.Status.Phase != corev1.PodRunning || now.DeletionTimestamp != nil {
				return true, "", nil
			}
			t := time.Now()
			var err error
			out, err = execOutput(ctx, cfg, kube, pod, "pwd")
			if err != nil {
				return false, err.Error(), nil
			}
			took = append(took, time.Since(t))
			return out == dir, "pwd is " + out, nil
		})
		if err != nil {
			return err
		}
	}
	if len(took) > 0 {
		slices.Sort(took)
		slog.Info("exec into demo pods works", "pods", len(running), "user", c.user.String(),
			"median", took[len(took)/2].Round(time.Millisecond), "max", took[len(took)-1].Round(time.Millisecond))
	}
	return nil
}

// execOutput runs command in the pod's first container through the API
// server and returns its trimmed stdout.
func execOutput(ctx context.Context, cfg *rest.Config, kube kubernetes.Interface, pod *corev1.Pod, command ...string) (string, error) {
	u := kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(pod.Namespace).Name(pod.Name).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: pod.Spec.Containers[0].Name, Command: command, Stdout: true, Stderr: true,
		}, scheme.ParameterCodec).URL()
	executor, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, u)
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		return "", fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
