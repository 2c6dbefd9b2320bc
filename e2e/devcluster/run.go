package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	kwokclient "sigs.k8s.io/kwok/pkg/client/clientset/versioned"
)

// readyLine is the only thing devcluster ever prints on stdout.
type readyLine struct {
	Ready      bool   `json:"ready"`
	Kubeconfig string `json:"kubeconfig"`
	Server     string `json:"server"`
	DataDir    string `json:"dataDir"`
	// Etcd is the embedded etcd's client URL, for tests that compact it.
	Etcd string `json:"etcd"`
	// ImpersonatorKubeconfig acts as the ServiceAccount
	// tabula-system/tabula-impersonator, which may only impersonate.
	ImpersonatorKubeconfig string `json:"impersonatorKubeconfig"`
	// ExecDir holds the work directories of exec sessions:
	// <namespace>/<pod> for the pods of the demo namespaces, _shared for
	// any other.
	ExecDir string `json:"execDir"`
}

// run brings the cluster up, announces it and keeps it running until ctx is
// cancelled (SIGINT/SIGTERM) or a component fails.
func run(ctx context.Context, opts *options) error {
	started := time.Now()
	l := layout{root: opts.dataDir}
	if err := l.ensure(); err != nil {
		return err
	}
	if err := ensurePKI(l); err != nil {
		return fmt.Errorf("preparing certificates: %w", err)
	}
	tokens, err := ensureTokens(l.tokenFile())
	if err != nil {
		return fmt.Errorf("preparing tokens: %w", err)
	}
	p, err := pickPorts(opts.port)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	benchLog := ""
	if opts.logBenchMB > 0 {
		benchLog = l.benchLog()
		t := time.Now()
		reused, err := ensureBenchLog(benchLog, opts.logBenchMB)
		if err != nil {
			return fmt.Errorf("writing bench log: %w", err)
		}
		slog.Info("bench log ready", "path", benchLog, "mib", opts.logBenchMB, "reused", reused,
			"after", time.Since(t).Round(time.Millisecond))
	}
	execAs, why := chooseExecUser(opts.dataDir)
	if why != "" {
		slog.Warn("exec'd processes run as root", "because", why)
	}
	if err := prepareExecDirs(l, execAs); err != nil {
		return fmt.Errorf("preparing exec directories: %w", err)
	}
	if err := writeKwokConfig(l.kwokConfig(), l.demoLog(), benchLog,
		fallbackClusterExec(l, execAs), demoAttach(l.demoLog())); err != nil {
		return err
	}
	demo := newDemoLog(l.demoLog())
	if err := demo.prefill(40); err != nil {
		return fmt.Errorf("writing demo log: %w", err)
	}

	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	cp := &controlPlane{opts: opts, layout: l, ports: p, self: self, fail: fail}
	defer cp.stop()

	go func() {
		if err := demo.run(ctx, opts.logInterval); err != nil {
			slog.Error("demo log writer stopped", "err", err)
		}
	}()

	if err := bringUp(ctx, opts, cp, tokens, execAs); err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		if ctx.Err() != nil {
			slog.Info("interrupted during start-up")
			return nil
		}
		return err
	}

	line, err := json.Marshal(readyLine{
		Ready:                  true,
		Kubeconfig:             opts.kubeconfigOut,
		Server:                 cp.server(),
		DataDir:                opts.dataDir,
		Etcd:                   "http://127.0.0.1:" + strconv.Itoa(cp.ports.etcdClient),
		ImpersonatorKubeconfig: l.impersonatorKubeconfig(),
		ExecDir:                l.execDir(),
	})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(os.Stdout, string(line)); err != nil {
		return err
	}
	slog.Info("devcluster is ready", "after", time.Since(started).Round(time.Millisecond),
		"server", cp.server(), "kubeconfig", opts.kubeconfigOut)

	<-ctx.Done()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	slog.Info("shutting down")
	return nil
}

// bringUp starts the components in order and applies the cluster content.
// What must run as long as the cluster does runs until runCtx ends.
func bringUp(runCtx context.Context, opts *options, cp *controlPlane, tokens map[string]string, execAs execUser) error {
	ctx, cancel := context.WithTimeout(runCtx, opts.readyTimeout)
	defer cancel()
	l := cp.layout

	t := time.Now()
	if err := cp.startAPIServer(); err != nil {
		return err
	}
	caData, err := waitForAPIServer(ctx, l.servingCert(), cp.server(), tokens[supervisorUser])
	if err != nil {
		return fmt.Errorf("waiting for kube-apiserver: %w", err)
	}
	slog.Info("kube-apiserver is ready", "after", time.Since(t).Round(time.Millisecond))

	if err := writeKubeconfig(opts.kubeconfigOut, cp.server(), caData, tokens, "admin", "editor", "viewer", "outsider"); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	for name, userName := range map[string]string{
		componentControllerManager: controllerManagerUser,
		componentScheduler:         schedulerUser,
		"kwok":                     kwokUser,
		metricsServerName:          metricsServerUser,
	} {
		if err := writeKubeconfig(l.componentKubeconfig(name), cp.server(), caData, tokens, userName); err != nil {
			return err
		}
	}

	cfg := restConfigFor(cp.server(), caData, tokens[supervisorUser])
	cfg.QPS, cfg.Burst = 500, 1000
	typedCfg := *cfg
	typedCfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(&typedCfg)
	if err != nil {
		return err
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	kwok, err := kwokclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// Before kwok, which watches Exec objects from its start.
	if err := installExecCRD(ctx, ext); err != nil {
		return err
	}

	for _, start := range []func() error{cp.startControllerManager, cp.startScheduler, cp.startKwok} {
		if err := start(); err != nil {
			return err
		}
	}

	t = time.Now()
	if err := ensureNodes(ctx, client, opts.nodes, podsPerNode(opts), cp.ports.kwok); err != nil {
		return err
	}
	if err := ensureAccess(ctx, client); err != nil {
		return fmt.Errorf("creating namespaces and role bindings: %w", err)
	}
	execs, err := startExecController(runCtx, client, kwok, l, execAs, demoNamespaces)
	if err != nil {
		return fmt.Errorf("starting the exec controller: %w", err)
	}
	token, err := impersonatorToken(ctx, client)
	if err != nil {
		return err
	}
	if err := writeKubeconfig(l.impersonatorKubeconfig(), cp.server(), caData, map[string]string{impersonatorName: token}, impersonatorName); err != nil {
		return fmt.Errorf("writing the impersonator kubeconfig: %w", err)
	}
	if opts.seed {
		if err := seed(ctx, cfg); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
		slog.Info("seed applied", "after", time.Since(t).Round(time.Millisecond))
	}
	if opts.logBenchMB > 0 {
		if err := ensureLogBenchPod(ctx, client); err != nil {
			return fmt.Errorf("creating the log bench pod: %w", err)
		}
	}
	// Before the bulk pods, whose becoming Running is the long wait.
	if opts.crds > 0 {
		t := time.Now()
		if err := ensureProbes(ctx, cfg, client, ext, opts.crds); err != nil {
			return fmt.Errorf("creating probe CRDs: %w", err)
		}
		slog.Info("probe CRDs served", "crds", opts.crds, "objects", opts.crds*probesPerKind, "after", time.Since(t).Round(time.Millisecond))
	}
	if opts.pods > 0 {
		t := time.Now()
		if err := createBulkPods(ctx, client, opts.pods); err != nil {
			return fmt.Errorf("creating bulk pods: %w", err)
		}
		slog.Info("bulk pods created", "pods", opts.pods, "after", time.Since(t).Round(time.Millisecond))
	}

	if err := waitForNodes(ctx, client, opts.nodes); err != nil {
		return fmt.Errorf("waiting for nodes: %w", err)
	}
	if opts.seed {
		if err := waitForDeployments(ctx, client, demoNamespaces...); err != nil {
			return fmt.Errorf("waiting for demo deployments: %w", err)
		}
	}
	// Once the demo pods run: metrics-server scrapes at once and then every
	// --metrics-resolution, and serves a pod's usage from its second sample.
	if opts.seed {
		if err := warmKwokMetrics(ctx, client, cp.ports.kwok, demoNamespaces); err != nil {
			return fmt.Errorf("waiting for kwok's resource metrics: %w", err)
		}
	}
	if err := startMetrics(ctx, cp, cfg, client); err != nil {
		return err
	}
	if err := execs.syncAll(ctx, cfg, client); err != nil {
		return fmt.Errorf("exec into demo pods: %w", err)
	}
	if err := waitForMetricsServed(ctx, cfg, client); err != nil {
		return err
	}
	if opts.logBenchMB > 0 {
		if err := waitForRunningPods(ctx, client, logBenchNamespace, 1); err != nil {
			return fmt.Errorf("waiting for the log bench pod: %w", err)
		}
	}
	if opts.pods > 0 {
		t := time.Now()
		if err := waitForRunningPods(ctx, client, bulkNamespace, opts.pods); err != nil {
			return fmt.Errorf("waiting for bulk pods: %w", err)
		}
		slog.Info("bulk pods running", "pods", opts.pods, "after", time.Since(t).Round(time.Millisecond))
	}
	return nil
}

// startMetrics grants metrics-server its access, starts it and registers
// metrics.k8s.io with the aggregator.
func startMetrics(ctx context.Context, cp *controlPlane, cfg *rest.Config, client kubernetes.Interface) error {
	if err := ensureMetricsServerAccess(ctx, client); err != nil {
		return fmt.Errorf("metrics-server access: %w", err)
	}
	if err := cp.startMetricsServer(); err != nil {
		return err
	}
	caBundle, err := os.ReadFile(cp.layout.servingCACert())
	if err != nil {
		return err
	}
	if err := registerMetricsAPI(ctx, cfg, cp.ports.metricsServer, caBundle); err != nil {
		return fmt.Errorf("registering metrics.k8s.io: %w", err)
	}
	return nil
}

// waitForMetricsServed waits until metrics.k8s.io serves, with the usage
// of every Running pod of the demo namespaces (with --seed) and of their
// nodes.
func waitForMetricsServed(ctx context.Context, cfg *rest.Config, client kubernetes.Interface) error {
	t := time.Now()
	metrics, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := waitForMetrics(ctx, client, metrics, demoNamespaces...); err != nil {
		return fmt.Errorf("waiting for metrics: %w", err)
	}
	slog.Info("metrics.k8s.io serves usage", "after", time.Since(t).Round(time.Millisecond))
	return nil
}

// podsPerNode is the pod capacity of each fake node: 1000, or more when
// --pods asks for more pods than the nodes would hold.
func podsPerNode(opts *options) int {
	need := (opts.pods+200)/opts.nodes + 100
	return max(1000, need)
}
