package main

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	bulkNamespace = "bulk"
	bulkWorkers   = 16
)

// createBulkPods creates n bare pods bulk-00000... in namespace bulk, with
// bulkWorkers concurrent workers. Existing pods are left alone.
func createBulkPods(ctx context.Context, client kubernetes.Interface, n int) error {
	if err := ensureNamespace(ctx, client, bulkNamespace); err != nil {
		return err
	}
	if err := waitForDefaultServiceAccount(ctx, client, bulkNamespace); err != nil {
		return err
	}

	existing := map[string]bool{}
	list, err := client.CoreV1().Pods(bulkNamespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return err
	}
	for _, p := range list.Items {
		existing[p.Name] = true
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	names := make(chan string)
	var wg sync.WaitGroup
	for range bulkWorkers {
		wg.Go(func() {
			for name := range names {
				if err := ignoreExists(client.CoreV1().Pods(bulkNamespace).Create(ctx, bulkPod(name), metav1.CreateOptions{})); err != nil {
					cancel(fmt.Errorf("pod %s: %w", name, err))
				}
			}
		})
	}
feed:
	for i := range n {
		name := fmt.Sprintf("bulk-%05d", i)
		if existing[name] {
			continue
		}
		select {
		case names <- name:
		case <-ctx.Done():
			break feed
		}
	}
	close(names)
	wg.Wait()
	return context.Cause(ctx)
}

func bulkPod(name string) *corev1.Pod { return sleeperPod(bulkNamespace, name, "bulk", "sleeper") }

// sleeperPod is a bare pod for kwok to run: it has no image to pull, so the
// image only documents intent, and its requests are tiny.
func sleeperPod(namespace, name, app, container string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: namespace,
			Labels: map[string]string{
				"app.kubernetes.io/name":       app,
				"app.kubernetes.io/managed-by": "devcluster",
			},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  container,
				Image: "busybox:1.36",
				Args:  []string{"sleep", "infinity"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    mustQuantity("1m"),
					corev1.ResourceMemory: mustQuantity("4Mi"),
				}},
			}},
			TerminationGracePeriodSeconds: new(int64(0)),
		},
	}
}
