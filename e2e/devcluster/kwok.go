package main

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// stageFiles are copies of kwok v0.8.0's stage definitions:
// kustomize/stage/node/fast/node-initialize.yaml,
// kustomize/stage/node/heartbeat/node-heartbeat.yaml and
// kustomize/stage/pod/fast/*.yaml (pod-ready.yaml and pod-complete.yaml
// with one selector added, leaving crash-looping pods alone); and
// devcluster's own pod-ephemeral-containers.yaml and pod-crash-loop.yaml.
// kwok refuses to start without stages.
//
//go:embed stages/*.yaml
var stageFiles embed.FS

// metricsFiles configure kwok's simulated resource usage:
// metrics-resource.yaml is kwok v0.8.0's kustomize/metrics/resource, a
// kubelet-like /metrics/resource endpoint per node that metrics-server
// scrapes (with one change, explained in the file); resource-usage.yaml is
// devcluster's own: how much each container uses.
//
//go:embed kwokmetrics/*.yaml
var metricsFiles embed.FS

// writeKwokConfig writes kwok's --config file: the stages, the resource usage
// and metrics, and a ClusterLogs object that serves the growing demo log file
// as the log of every container. With benchLogPath, a ClusterLogs for namespace logbench comes first and
// serves that file instead (see benchLogsConfig). Objects (kwok API objects
// such as a ClusterExec) follow.
func writeKwokConfig(path, demoLogPath, benchLogPath string, objects ...any) error {
	var docs []string
	for _, files := range []struct {
		fsys    embed.FS
		pattern string
	}{{stageFiles, "stages/*.yaml"}, {metricsFiles, "kwokmetrics/*.yaml"}} {
		names, err := fs.Glob(files.fsys, files.pattern)
		if err != nil {
			return err
		}
		sort.Strings(names)
		for _, name := range names {
			data, err := files.fsys.ReadFile(name)
			if err != nil {
				return err
			}
			docs = append(docs, strings.TrimSpace(string(data)))
		}
	}
	if benchLogPath != "" {
		docs = append(docs, benchLogsConfig(benchLogPath))
	}
	docs = append(docs, fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: demo-logs
spec:
  selector: {}
  logs:
  - containers: []
    logsFile: %q
    follow: true`, demoLogPath))
	for _, obj := range objects {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	return os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o644)
}

func kwokNodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// ensureNodes creates the fake nodes kwok-node-0..n-1 that kwok then manages
// (it turns them Ready and keeps their heartbeat).
func ensureNodes(ctx context.Context, client kubernetes.Interface, n, maxPods, kubeletPort int) error {
	for i := range n {
		name := kwokNodeName(i)
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:              resource.MustParse("32"),
			corev1.ResourceMemory:           resource.MustParse("256Gi"),
			corev1.ResourcePods:             *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
			corev1.ResourceEphemeralStorage: resource.MustParse("1Ti"),
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: name,
				Annotations: map[string]string{
					"kwok.x-k8s.io/node":                                     "fake",
					"node.alpha.kubernetes.io/ttl":                           "0",
					"volumes.kubernetes.io/controller-managed-attach-detach": "true",
					metricsPathAnnotation:                                    kwokMetricsPath(name),
				},
				Labels: map[string]string{
					"type":                          "kwok",
					"kubernetes.io/arch":            "amd64",
					"kubernetes.io/os":              "linux",
					"kubernetes.io/hostname":        name,
					"kubernetes.io/role":            "agent",
					"node-role.kubernetes.io/agent": "",
					"topology.kubernetes.io/zone":   fmt.Sprintf("zone-%c", 'a'+rune(i%3)),
				},
			},
			Status: corev1.NodeStatus{
				DaemonEndpoints: corev1.NodeDaemonEndpoints{
					KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(kubeletPort)},
				},
				Capacity:    capacity,
				Allocatable: capacity,
				NodeInfo: corev1.NodeSystemInfo{
					Architecture:    "amd64",
					OperatingSystem: "linux",
					KubeletVersion:  "fake",
				},
			},
		}
		_, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = updateExistingNode(ctx, client, name, maxPods, kubeletPort)
		}
		if err != nil {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
	}
	return nil
}

// updateExistingNode adapts a node from an earlier run: kwok's kubelet API
// now listens on another port (kwok only sets the port when it initializes a
// node that is not Ready yet, so without this `kubectl logs` would dial the
// old port), a larger --pods may need a larger pod capacity, and a data
// directory older than metrics-server support lacks the metrics path.
func updateExistingNode(ctx context.Context, client kubernetes.Interface, name string, maxPods, kubeletPort int) error {
	node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if node.Annotations[metricsPathAnnotation] != kwokMetricsPath(name) {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{metricsPathAnnotation: kwokMetricsPath(name)},
		}})
		if err != nil {
			return err
		}
		if _, err := client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	status := map[string]any{
		"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": kubeletPort}},
	}
	if node.Status.Capacity.Pods().Value() < int64(maxPods) {
		pods := strconv.Itoa(maxPods)
		status["capacity"] = map[string]any{"pods": pods}
		status["allocatable"] = map[string]any{"pods": pods}
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	_, err = client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}
