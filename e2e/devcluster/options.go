package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// options are the supervisor's command-line settings.
type options struct {
	dataDir             string
	kubeconfigOut       string
	kwokBinary          string
	metricsServerBinary string
	nodes               int
	pods                int
	crds                int
	seed                bool
	port                int
	logInterval         time.Duration
	logBenchMB          int
	readyTimeout        time.Duration
	// metricsResolution is metrics-server's --metric-resolution.
	metricsResolution time.Duration

	// OIDC issuer kube-apiserver trusts; empty = none.
	oidcIssuerURL string
	oidcCAFile    string
	oidcClientID  string
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("devcluster", flag.ContinueOnError)
	fs.StringVar(&o.dataDir, "data-dir", "./.devcluster", "directory for etcd data, certificates, tokens, configs and logs (kept across restarts)")
	fs.StringVar(&o.kubeconfigOut, "kubeconfig-out", "", "where to write the kubeconfig (default <data-dir>/kubeconfig)")
	fs.StringVar(&o.kwokBinary, "kwok-binary", "", "path of the kwok binary (default: 'kwok' next to this executable)")
	fs.StringVar(&o.metricsServerBinary, "metrics-server-binary", "", "path of the metrics-server binary (default: 'metrics-server' next to this executable)")
	fs.IntVar(&o.nodes, "nodes", 2, "number of kwok fake nodes (kwok-node-0..N-1)")
	fs.IntVar(&o.pods, "pods", 0, "number of extra bare pods to create in namespace 'bulk'")
	fs.IntVar(&o.crds, "crds", 0, "number of bench CustomResourceDefinitions (kinds Probe000…, group "+probeGroup+") to create, with 3 objects each in namespace '"+probeNamespace+"'")
	fs.BoolVar(&o.seed, "seed", false, "create demo content (namespaces demo and team-a, workloads, Lighthouse CRD and instances)")
	fs.IntVar(&o.port, "port", 0, "kube-apiserver secure port on 127.0.0.1 (0 = pick a free port)")
	fs.DurationVar(&o.logInterval, "log-interval", time.Second, "how often a line is appended to the demo container log")
	fs.IntVar(&o.logBenchMB, "log-bench-mb", 0, "serve a fixed log of this many MiB as the log of pod logbench/big (created with its namespace); 0 = off")
	fs.DurationVar(&o.metricsResolution, "metrics-resolution", 0, "how often metrics-server scrapes kwok's resource metrics, at least 10s (default 10s, or 1m with --pods over 1000: kwok then spends seconds of CPU on each scrape)")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 5*time.Minute, "give up if the cluster is not ready within this time")
	fs.StringVar(&o.oidcIssuerURL, "oidc-issuer-url", "", "https URL of an OIDC issuer kube-apiserver trusts (username from claim email, groups from claim groups prefixed 'oidc:'); empty = no OIDC")
	fs.StringVar(&o.oidcCAFile, "oidc-ca-file", "", "PEM file of the CA that signed the OIDC issuer's serving certificate (default: the system roots)")
	fs.StringVar(&o.oidcClientID, "oidc-client-id", "", "the OIDC client ID ID tokens must be issued to (required with --oidc-issuer-url)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\nRuns a development Kubernetes control plane with kwok fake nodes.\n\nFlags:\n", filepath.Base(os.Args[0]))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if o.nodes < 1 {
		return nil, errors.New("--nodes must be at least 1")
	}
	if o.pods < 0 {
		return nil, errors.New("--pods must not be negative")
	}
	if o.crds < 0 {
		return nil, errors.New("--crds must not be negative")
	}
	if o.logBenchMB < 0 {
		return nil, errors.New("--log-bench-mb must not be negative")
	}
	if o.logInterval <= 0 {
		return nil, errors.New("--log-interval must be positive")
	}
	switch {
	case o.metricsResolution == 0 && o.pods > 1000:
		o.metricsResolution = time.Minute
	case o.metricsResolution == 0:
		o.metricsResolution = minMetricsResolution
	case o.metricsResolution < minMetricsResolution:
		return nil, fmt.Errorf("--metrics-resolution must be at least %s (metrics-server's minimum)", minMetricsResolution)
	}
	if o.oidcIssuerURL != "" {
		// kube-apiserver only accepts an https issuer; fail here rather
		// than in its log.
		if !strings.HasPrefix(o.oidcIssuerURL, "https://") {
			return nil, errors.New("--oidc-issuer-url must be an https URL")
		}
		if o.oidcClientID == "" {
			return nil, errors.New("--oidc-client-id is required with --oidc-issuer-url")
		}
	} else if o.oidcCAFile != "" || o.oidcClientID != "" {
		return nil, errors.New("--oidc-ca-file and --oidc-client-id need --oidc-issuer-url")
	}

	dataDir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return nil, err
	}
	o.dataDir = dataDir
	if o.kubeconfigOut == "" {
		o.kubeconfigOut = filepath.Join(o.dataDir, "kubeconfig")
	}
	if o.kubeconfigOut, err = filepath.Abs(o.kubeconfigOut); err != nil {
		return nil, err
	}
	if o.oidcCAFile != "" {
		if o.oidcCAFile, err = filepath.Abs(o.oidcCAFile); err != nil {
			return nil, err
		}
	}
	for _, b := range []struct {
		path *string
		name string
	}{{&o.kwokBinary, "kwok"}, {&o.metricsServerBinary, "metrics-server"}} {
		if *b.path != "" {
			continue
		}
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("locating own executable: %w", err)
		}
		*b.path = filepath.Join(filepath.Dir(exe), b.name)
	}
	return o, nil
}
