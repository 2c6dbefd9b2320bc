package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// poll calls check every interval until it reports done, returns an error,
// or ctx ends. The last "not yet" reason is logged every 10 s and returned on
// timeout.
func poll(ctx context.Context, interval time.Duration, what string, check func(context.Context) (done bool, reason string, err error)) error {
	lastLog := time.Now()
	reason := ""
	for {
		done, r, err := check(ctx)
		if err != nil && ctx.Err() == nil {
			r = err.Error()
		} else if err == nil && done {
			return nil
		}
		reason = r
		if time.Since(lastLog) > 10*time.Second {
			slog.Info("still waiting", "for", what, "status", reason)
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last status: %s)", context.Cause(ctx), reason)
		case <-time.After(interval):
		}
	}
}

// waitForAPIServer waits until kube-apiserver has written its self-signed
// serving certificate and answers /readyz, and returns the certificate (which
// includes its CA) for clients to trust.
func waitForAPIServer(ctx context.Context, certPath, server, token string) ([]byte, error) {
	var caData []byte
	err := poll(ctx, 200*time.Millisecond, "kube-apiserver /readyz", func(ctx context.Context) (bool, string, error) {
		if caData == nil {
			data, err := os.ReadFile(certPath)
			if err != nil || len(data) == 0 {
				return false, "serving certificate not written yet", nil
			}
			caData = data
		}
		client, err := kubernetes.NewForConfig(restConfigFor(server, caData, token))
		if err != nil {
			return false, "", err
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(rctx)
		if err != nil {
			return false, fmt.Sprintf("readyz: %v %s", err, body), nil
		}
		return true, "", nil
	})
	return caData, err
}

// waitForNodes waits until the n kwok nodes are Ready.
func waitForNodes(ctx context.Context, client kubernetes.Interface, n int) error {
	return poll(ctx, 250*time.Millisecond, "kwok nodes", func(ctx context.Context) (bool, string, error) {
		ready := 0
		for i := range n {
			node, err := client.CoreV1().Nodes().Get(ctx, kwokNodeName(i), metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready == n, fmt.Sprintf("%d/%d nodes ready", ready, n), nil
	})
}

// waitForDeployments waits until every Deployment in the namespaces has all
// its replicas ready and updated.
func waitForDeployments(ctx context.Context, client kubernetes.Interface, namespaces ...string) error {
	return poll(ctx, 250*time.Millisecond, "deployments", func(ctx context.Context) (bool, string, error) {
		for _, ns := range namespaces {
			list, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, "", err
			}
			for _, d := range list.Items {
				if !deploymentReady(&d) {
					return false, fmt.Sprintf("deployment %s/%s: %d/%d ready", ns, d.Name, d.Status.ReadyReplicas, replicas(d.Spec.Replicas)), nil
				}
			}
		}
		return true, "", nil
	})
}

func deploymentReady(d *appsv1.Deployment) bool {
	want := replicas(d.Spec.Replicas)
	return d.Status.ObservedGeneration >= d.Generation &&
		d.Status.UpdatedReplicas == want && d.Status.ReadyReplicas == want && d.Status.Replicas == want
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// waitForRunningPods waits until at least n pods of the namespace are Running.
func waitForRunningPods(ctx context.Context, client kubernetes.Interface, namespace string, n int) error {
	return poll(ctx, 2*time.Second, "pods in "+namespace, func(ctx context.Context) (bool, string, error) {
		// resourceVersion=0: served from the watch cache, not from etcd.
		opts := metav1.ListOptions{ResourceVersion: "0", FieldSelector: "status.phase=Running"}
		list, err := client.CoreV1().Pods(namespace).List(ctx, opts)
		if err != nil {
			return false, "", err
		}
		running := len(list.Items)
		return running >= n, fmt.Sprintf("%d/%d running", running, n), nil
	})
}

// ensureCRD creates a CustomResourceDefinition unless it exists and waits
// until it is established, so its resources can be served.
func ensureCRD(ctx context.Context, ext apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	if err := ignoreExists(ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	return poll(ctx, 100*time.Millisecond, "CRD "+crd.Name+" established", func(ctx context.Context) (bool, string, error) {
		got, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, "", nil
			}
		}
		return false, "not established yet", nil
	})
}
