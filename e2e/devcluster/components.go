package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/component-base/cli"
	apiserverapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanagerapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	schedulerapp "k8s.io/kubernetes/cmd/kube-scheduler/app"

	_ "time/tzdata" // CronJob time zones, as in the upstream binaries
)

// Hidden first arguments that make this binary run one control-plane
// component instead of the supervisor. Each component needs a process of its
// own: Kubernetes components apply process-global logging configuration.
const (
	componentAPIServer         = "apiserver"
	componentControllerManager = "controller-manager"
	componentScheduler         = "scheduler"
)

// lookupComponent returns the entry point of a hidden component subcommand.
func lookupComponent(name string) (func(args []string) int, bool) {
	switch name {
	case componentAPIServer:
		return runAPIServer, true
	case componentControllerManager:
		return func(args []string) int {
			cmd := controllermanagerapp.NewControllerManagerCommand()
			cmd.SetArgs(args)
			return cli.Run(cmd)
		}, true
	case componentScheduler:
		return func(args []string) int {
			cmd := schedulerapp.NewSchedulerCommand()
			cmd.SetArgs(args)
			return cli.Run(cmd)
		}, true
	}
	return nil, false
}

// runAPIServer starts an embedded etcd and then kube-apiserver. Its own flags
// (etcd settings) come first, then "--", then the kube-apiserver flags.
// kube-apiserver handles SIGINT/SIGTERM itself; once it has returned, etcd is
// closed cleanly.
func runAPIServer(args []string) int {
	fs := flag.NewFlagSet(componentAPIServer, flag.ContinueOnError)
	dataDir := fs.String("etcd-data-dir", "", "etcd data directory")
	clientPort := fs.Int("etcd-client-port", 0, "etcd client port on 127.0.0.1")
	peerPort := fs.Int("etcd-peer-port", 0, "etcd peer port on 127.0.0.1")
	if err := fs.Parse(args); err != nil {
		return 2
	}

	etcd, err := startEtcd(*dataDir, *clientPort, *peerPort)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting etcd:", err)
		return 1
	}

	cmd := apiserverapp.NewAPIServerCommand()
	cmd.SetArgs(fs.Args())
	code := cli.Run(cmd)

	etcd.Close()
	fmt.Fprintln(os.Stderr, "devcluster: kube-apiserver returned, etcd closed")
	return code
}

func startEtcd(dataDir string, clientPort, peerPort int) (*embed.Etcd, error) {
	clientURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(clientPort)}
	peerURL := url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}

	cfg := embed.NewConfig()
	cfg.Name = "devcluster"
	cfg.Dir = dataDir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	cfg.LogLevel = "warn"
	// A throw-away development cluster: skipping fsync makes bulk writes
	// (thousands of pods) much faster. Data survives process restarts; it is
	// only at risk if the machine itself crashes.
	cfg.UnsafeNoFsync = true

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, context.DeadlineExceeded
	}
}
