package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	discoveryv1ac "k8s.io/client-go/applyconfigurations/discovery/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1ac "k8s.io/kube-aggregator/pkg/client/applyconfiguration/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// metrics-server (sigs.k8s.io/metrics-server, its own binary) scrapes kwok's
// simulated kubelet resource metrics and serves metrics.k8s.io through the
// aggregation layer, as in a real cluster, so `kubectl top` and the console
// show usage.
const (
	metricsServerNamespace = "kube-system"
	metricsServerName      = "metrics-server"
	// metricsServerHost is the name the aggregator verifies in
	// metrics-server's serving certificate: <service>.<namespace>.svc.
	metricsServerHost = metricsServerName + "." + metricsServerNamespace + ".svc"
	metricsGroup      = "metrics.k8s.io"
	metricsVersion    = "v1beta1"
	// minMetricsResolution is the shortest period metrics-server accepts
	// between two scrapes of every node, and devcluster's default. CPU usage
	// is the rate between two scrapes, so a pod's first figures come one to
	// two periods after it runs.
	minMetricsResolution = 10 * time.Second
	// metricsPathAnnotation tells metrics-server (v0.8+) where a node's
	// kubelet resource metrics are; kwok serves them per node under this path
	// on its kubelet port (kwokmetrics/metrics-resource.yaml).
	metricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
	fieldManager          = "devcluster"
)

func kwokMetricsPath(node string) string { return "/metrics/nodes/" + node + "/metrics/resource" }

func (cp *controlPlane) startMetricsServer() error {
	if _, err := os.Stat(cp.opts.metricsServerBinary); err != nil {
		return fmt.Errorf("metrics-server binary (set --metrics-server-binary): %w", err)
	}
	l := cp.layout
	kubeconfig := l.componentKubeconfig(metricsServerName)
	return cp.start(metricsServerName, cp.opts.metricsServerBinary,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(cp.ports.metricsServer),
		"--tls-cert-file="+l.metricsServerCert(),
		"--tls-private-key-file="+l.metricsServerKey(),
		// Both CAs given, so it need not read them from the
		// extension-apiserver-authentication ConfigMap.
		"--client-ca-file="+l.clientCACert(),
		"--requestheader-client-ca-file="+l.frontProxyCACert(),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		// kwok's kubelet API: 127.0.0.1 (the nodes' InternalIP), the port in
		// the node status, a self-signed certificate, and the path in the
		// node annotation metricsPathAnnotation.
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-use-node-status-port",
		"--kubelet-insecure-tls",
		"--metric-resolution="+cp.opts.metricsResolution.String(),
		// At most 90 % of the resolution; a scrape of 10,000 pods on a node
		// takes kwok seconds.
		"--kubelet-request-timeout="+(cp.opts.metricsResolution*8/10).String(),
	)
}

// ensureMetricsServerAccess applies the RBAC of metrics-server's upstream
// manifest (components.yaml): metrics-server reads nodes and pods and
// delegates authentication and authorization to kube-apiserver; and
// metrics.k8s.io is readable through the built-in view, edit and admin
// roles, so whoever may read pods in a namespace may read their metrics
// there (nodes' metrics need a cluster-wide binding, as nodes do).
func ensureMetricsServerAccess(ctx context.Context, client kubernetes.Interface) error {
	rbac := client.RbacV1()
	opts := applyOptions()
	user := rbacv1ac.Subject().WithKind(rbacv1.UserKind).WithAPIGroup(rbacv1.GroupName).WithName(metricsServerUser)
	roleRef := func(name string) *rbacv1ac.RoleRefApplyConfiguration {
		return rbacv1ac.RoleRef().WithAPIGroup(rbacv1.GroupName).WithKind("ClusterRole").WithName(name)
	}
	if _, err := rbac.ClusterRoles().Apply(ctx, rbacv1ac.ClusterRole("system:metrics-server").
		WithLabels(managedBy).
		WithRules(
			rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("nodes/metrics").WithVerbs("get"),
			rbacv1ac.PolicyRule().WithAPIGroups("").WithResources("pods", "nodes").WithVerbs("get", "list", "watch"),
		), opts); err != nil {
		return fmt.Errorf("cluster role system:metrics-server: %w", err)
	}
	if _, err := rbac.ClusterRoles().Apply(ctx, rbacv1ac.ClusterRole("system:aggregated-metrics-reader").
		WithLabels(managedBy).
		WithLabels(map[string]string{
			"rbac.authorization.k8s.io/aggregate-to-view":  "true",
			"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
			"rbac.authorization.k8s.io/aggregate-to-admin": "true",
		}).
		WithRules(rbacv1ac.PolicyRule().WithAPIGroups(metricsGroup).WithResources("pods", "nodes").WithVerbs("get", "list", "watch")),
		opts); err != nil {
		return fmt.Errorf("cluster role system:aggregated-metrics-reader: %w", err)
	}
	for name, role := range map[string]string{
		"system:metrics-server":                "system:metrics-server",
		"metrics-server:system:auth-delegator": "system:auth-delegator",
	} {
		if _, err := rbac.ClusterRoleBindings().Apply(ctx, rbacv1ac.ClusterRoleBinding(name).
			WithLabels(managedBy).WithRoleRef(roleRef(role)).WithSubjects(user), opts); err != nil {
			return fmt.Errorf("cluster role binding %s: %w", name, err)
		}
	}
	return nil
}

// registerMetricsAPI applies the APIService v1beta1.metrics.k8s.io and the
// Service it names, reaching metrics-server on 127.0.0.1:port.
//
// As for e2e/aggregated: with --enable-aggregator-routing kube-apiserver
// dials an address of the Service's EndpointSlices, and validation rejects
// loopback IPs in IPv4 slices but not in an FQDN slice, whose address
// "127.0.0.1" the aggregator dials verbatim (the Service has no selector, so
// no controller manages the slice). Re-applied at every start, since the port
// changes.
func registerMetricsAPI(ctx context.Context, cfg *rest.Config, port int, caBundle []byte) error {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = fqdnWarningFilter{}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	agg, err := aggregatorclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	opts := applyOptions()
	svc, err := client.CoreV1().Services(metricsServerNamespace).Apply(ctx,
		corev1ac.Service(metricsServerName, metricsServerNamespace).
			WithLabels(managedBy).
			WithSpec(corev1ac.ServiceSpec().
				WithType("ClusterIP").
				WithPorts(corev1ac.ServicePort().WithName("https").WithPort(443).WithProtocol("TCP"))),
		opts)
	if err != nil {
		return fmt.Errorf("service %s/%s: %w", metricsServerNamespace, metricsServerName, err)
	}
	if _, err := client.DiscoveryV1().EndpointSlices(metricsServerNamespace).Apply(ctx,
		discoveryv1ac.EndpointSlice(metricsServerName+"-loopback", metricsServerNamespace).
			WithLabels(managedBy).
			WithLabels(map[string]string{discoveryv1.LabelServiceName: metricsServerName, discoveryv1.LabelManagedBy: fieldManager}).
			WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("Service").WithName(svc.Name).WithUID(svc.UID)).
			WithAddressType(discoveryv1.AddressTypeFQDN).
			WithEndpoints(discoveryv1ac.Endpoint().
				WithAddresses("127.0.0.1").
				WithConditions(discoveryv1ac.EndpointConditions().WithReady(true))).
			WithPorts(discoveryv1ac.EndpointPort().WithName("https").WithPort(int32(port)).WithProtocol("TCP")),
		opts); err != nil {
		return fmt.Errorf("endpoint slice for %s: %w", metricsServerName, err)
	}
	// Priorities as in metrics-server's manifest.
	if _, err := agg.ApiregistrationV1().APIServices().Apply(ctx,
		apiregistrationv1ac.APIService(metricsVersion+"."+metricsGroup).
			WithLabels(managedBy).
			WithSpec(apiregistrationv1ac.APIServiceSpec().
				WithGroup(metricsGroup).
				WithVersion(metricsVersion).
				WithGroupPriorityMinimum(100).
				WithVersionPriority(100).
				WithCABundle(caBundle...).
				WithService(apiregistrationv1ac.ServiceReference().
					WithNamespace(metricsServerNamespace).WithName(metricsServerName).WithPort(443))),
		opts); err != nil {
		return fmt.Errorf("APIService %s.%s: %w", metricsVersion, metricsGroup, err)
	}
	return nil
}

// applyOptions take over every field, as a declarative re-apply should.
func applyOptions() metav1.ApplyOptions {
	return metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
}

// fqdnWarningFilter logs kube-apiserver's warnings except the one that
// registerMetricsAPI expects: FQDN EndpointSlices are deprecated.
type fqdnWarningFilter struct{}

func (fqdnWarningFilter) HandleWarningHeader(_ int, _ string, text string) {
	if !strings.Contains(text, "FQDN endpoints are deprecated") {
		slog.Warn("kube-apiserver warning", "warning", text)
	}
}

// warmKwokMetrics asks kwok for the resource metrics of every node that
// runs a Running pod of namespaces until they include each container of those
// pods. kwok fills the pod cache these metrics come from lazily, on the first
// request, and leaves out the pods it does not find yet: were metrics-server's
// first scrape that request, the pods' usage would come one scrape later.
// kwok's kubelet port also answers plain HTTP.
func warmKwokMetrics(ctx context.Context, client kubernetes.Interface, kwokPort int, namespaces []string) error {
	want := map[string][]string{} // node name → series that must be there
	for _, ns := range namespaces {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			for _, c := range p.Spec.Containers {
				want[p.Spec.NodeName] = append(want[p.Spec.NodeName],
					fmt.Sprintf("container_cpu_usage_seconds_total{container=%q,namespace=%q,pod=%q}", c.Name, ns, p.Name))
			}
		}
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	return poll(ctx, 100*time.Millisecond, "kwok's resource metrics", func(ctx context.Context) (bool, string, error) {
		for node, series := range want {
			url := "http://127.0.0.1:" + strconv.Itoa(kwokPort) + kwokMetricsPath(node)
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return false, "", err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return false, err.Error(), nil
			}
			body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return false, fmt.Sprintf("GET %s: %s %v", url, resp.Status, err), nil
			}
			for _, s := range series {
				if !bytes.Contains(body, []byte(s)) {
					return false, "kwok does not report " + s + " yet", nil
				}
			}
		}
		return true, "", nil
	})
}

// waitForMetrics waits until kube-apiserver serves metrics.k8s.io (it
// answers a list of node metrics, and aggregated discovery, what clients
// such as the console read, lists it) with the usage of every Running pod
// in namespaces and of every node those pods run on.
//
// Only those nodes: kwok's node usage is the sum of its pods', and
// metrics-server drops a node whose memory reads 0, so a node that runs no
// pod never has metrics. Without --seed no pod runs, and metrics.k8s.io
// serving is all there is to wait for.
func waitForMetrics(ctx context.Context, client kubernetes.Interface, metrics metricsclient.Interface, namespaces ...string) error {
	return poll(ctx, time.Second, "metrics.k8s.io", func(ctx context.Context) (bool, string, error) {
		var s metricsSnapshot
		for _, ns := range namespaces {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})
			if err != nil {
				return false, "", err
			}
			s.runningPods = append(s.runningPods, pods.Items...)
		}
		nodeMetrics, err := metrics.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "listing node metrics: " + err.Error(), nil
		}
		s.nodeMetrics = map[string]bool{}
		for _, m := range nodeMetrics.Items {
			s.nodeMetrics[m.Name] = true
		}
		s.podMetrics = map[string]bool{}
		for _, ns := range namespaces {
			podMetrics, err := metrics.MetricsV1beta1().PodMetricses(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, "listing pod metrics in " + ns + ": " + err.Error(), nil
			}
			for _, m := range podMetrics.Items {
				s.podMetrics[m.Namespace+"/"+m.Name] = true
			}
		}
		list, wait, err := aggregatedDiscovery(ctx, client)
		if wait != "" || err != nil {
			return false, wait, err
		}
		for _, g := range list.Items {
			s.discovered = s.discovered || g.Name == metricsGroup
		}
		ready, reason := s.ready()
		return ready, reason, nil
	})
}

// aggregatedDiscovery reads /apis as aggregated discovery, for a poll: a
// request that fails is a reason to wait (wait), a body that is no
// discovery list an error.
func aggregatedDiscovery(ctx context.Context, client kubernetes.Interface) (list apidiscoveryv2.APIGroupDiscoveryList, wait string, err error) {
	raw, err := client.Discovery().RESTClient().Get().AbsPath("/apis").SetHeader("Accept", discovery.AcceptV2).DoRaw(ctx)
	if err != nil {
		return list, "aggregated discovery: " + err.Error(), nil
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return list, "", fmt.Errorf("aggregated discovery: %w", err)
	}
	return list, "", nil
}

// metricsSnapshot is what one poll of waitForMetrics saw, metrics.k8s.io
// having answered.
type metricsSnapshot struct {
	runningPods []corev1.Pod    // of the namespaces waited for
	nodeMetrics map[string]bool // node names with usage
	podMetrics  map[string]bool // namespace/name of pods with usage
	discovered  bool            // aggregated discovery lists metrics.k8s.io
}

// ready says whether metrics.k8s.io serves what waitForMetrics waits for,
// and if not, what is missing.
func (s metricsSnapshot) ready() (bool, string) {
	for _, p := range s.runningPods {
		if !s.podMetrics[p.Namespace+"/"+p.Name] {
			return false, fmt.Sprintf("no metrics yet for pod %s/%s", p.Namespace, p.Name)
		}
		if !s.nodeMetrics[p.Spec.NodeName] {
			return false, fmt.Sprintf("no metrics yet for node %s, which runs pod %s/%s", p.Spec.NodeName, p.Namespace, p.Name)
		}
	}
	if !s.discovered {
		return false, "aggregated discovery does not list " + metricsGroup + " yet"
	}
	return true, ""
}
