package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
)

// controlPlane starts and stops the child processes of one devcluster.
type controlPlane struct {
	opts   *options
	layout layout
	ports  ports
	self   string // this executable, re-executed for each component

	// fail cancels the supervisor's context when a child exits unexpectedly.
	fail context.CancelCauseFunc

	mu       sync.Mutex
	children []*child
}

func (cp *controlPlane) server() string {
	return "https://127.0.0.1:" + strconv.Itoa(cp.ports.apiserver)
}

func (cp *controlPlane) start(name, path string, args ...string) error {
	return cp.startEnv(name, nil, path, args...)
}

// startEnv starts a component with env as its whole environment (nil: the
// supervisor's).
func (cp *controlPlane) startEnv(name string, env []string, path string, args ...string) error {
	c, err := startChild(name, cp.layout.logFile(name), env, path, args...)
	if err != nil {
		return err
	}
	cp.mu.Lock()
	cp.children = append(cp.children, c)
	cp.mu.Unlock()
	go func() {
		<-c.done
		if !c.expectedExit() {
			err := c.exitError()
			slog.Error("component exited unexpectedly", "component", name, "err", err)
			cp.fail(err)
		}
	}()
	return nil
}

// stop stops the components: first kwok, scheduler and controller-manager
// together, then kube-apiserver (which then closes etcd).
func (cp *controlPlane) stop() {
	cp.mu.Lock()
	children := cp.children
	cp.children = nil
	cp.mu.Unlock()
	if len(children) == 0 {
		return
	}
	for _, c := range children {
		c.mu.Lock()
		c.stopping = true
		c.mu.Unlock()
	}
	// children[0] is kube-apiserver: it is always started first.
	apiserver, others := children[0], children[1:]
	var wg sync.WaitGroup
	for _, c := range others {
		wg.Go(func() { c.stop(10 * time.Second) })
	}
	wg.Wait()
	apiserver.stop(30 * time.Second)
}

func (cp *controlPlane) startAPIServer() error {
	l := cp.layout
	args := []string{
		componentAPIServer,
		"--etcd-data-dir=" + l.etcdDir(),
		"--etcd-client-port=" + strconv.Itoa(cp.ports.etcdClient),
		"--etcd-peer-port=" + strconv.Itoa(cp.ports.etcdPeer),
		"--",
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(cp.ports.etcdClient),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(cp.ports.apiserver),
		"--cert-dir=" + l.servingCertDir(),
		"--token-auth-file=" + l.tokenFile(),
		"--client-ca-file=" + l.clientCACert(),
		"--authorization-mode=Node,RBAC",
		"--service-account-key-file=" + l.serviceAccountKey(),
		"--service-account-signing-key-file=" + l.serviceAccountKey(),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		// PodTemplates skip the watch cache, so their watches go to etcd,
		// where a compaction makes an old resourceVersion answer 410 Gone:
		// the one way tests can force a watch to expire.
		"--watch-cache-sizes=podtemplates#0",
		// Aggregation layer, so that an APIService can be registered.
		"--requestheader-client-ca-file=" + l.frontProxyCACert(),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + l.frontProxyCert(),
		"--proxy-client-key-file=" + l.frontProxyKey(),
		"--enable-aggregator-routing=true",
		// kwok serves the kubelet API (logs, exec, ...) on 127.0.0.1 with a
		// self-signed certificate; without --kubelet-certificate-authority
		// kube-apiserver does not verify it.
		"--kubelet-preferred-address-types=InternalIP,Hostname",
		"--profiling=false",
		// Open watches (a console's live pages) end within a second of
		// SIGTERM: without it kube-apiserver waits for their connections
		// up to --request-timeout (60 s), and a test that stops a cluster
		// under a live page waits as long.
		"--shutdown-watch-termination-grace-period=1s",
	}
	if o := cp.opts; o.oidcIssuerURL != "" {
		// The user is the email claim as is ("-": no prefix) and groups are
		// prefixed, so RBAC binds "oidc:tabula:viewers" and the console's
		// impersonation mode (--oidc-groups-prefix=oidc:) derives the same
		// groups. The issuer need not be up yet: kube-apiserver retries.
		args = append(args,
			"--oidc-issuer-url="+o.oidcIssuerURL,
			"--oidc-client-id="+o.oidcClientID,
			"--oidc-username-claim=email",
			"--oidc-username-prefix=-",
			"--oidc-groups-claim=groups",
			"--oidc-groups-prefix="+oidcGroupsPrefix,
		)
		if o.oidcCAFile != "" {
			args = append(args, "--oidc-ca-file="+o.oidcCAFile)
		}
	}
	return cp.start(componentAPIServer, cp.self, args...)
}

func (cp *controlPlane) startControllerManager() error {
	l := cp.layout
	kubeconfig := l.componentKubeconfig(componentControllerManager)
	return cp.start(componentControllerManager, cp.self,
		componentControllerManager,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--service-account-private-key-file="+l.serviceAccountKey(),
		"--root-ca-file="+l.servingCert(),
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(cp.ports.controllerManager),
		"--controllers=*,-nodeipam,-cloud-node-lifecycle",
		"--use-service-account-credentials=false",
		"--kube-api-qps=300",
		"--kube-api-burst=600",
		"--concurrent-gc-syncs=50",
		"--profiling=false",
	)
}

func (cp *controlPlane) startScheduler() error {
	kubeconfig := cp.layout.componentKubeconfig(componentScheduler)
	return cp.start(componentScheduler, cp.self,
		componentScheduler,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(cp.ports.scheduler),
		"--kube-api-qps=500",
		"--kube-api-burst=1000",
		"--profiling=false",
	)
}

func (cp *controlPlane) startKwok() error {
	if _, err := os.Stat(cp.opts.kwokBinary); err != nil {
		return fmt.Errorf("kwok binary (set --kwok-binary): %w", err)
	}
	port := strconv.Itoa(cp.ports.kwok)
	// Exec'd processes inherit kwok's environment: keep it small.
	return cp.startEnv("kwok", kwokEnv(), cp.opts.kwokBinary,
		"--kubeconfig="+cp.layout.componentKubeconfig("kwok"),
		"--manage-all-nodes=true",
		// The kubelet API for logs: nodes advertise 127.0.0.1:<port>.
		"--server-address=127.0.0.1:"+port,
		"--node-ip=127.0.0.1",
		"--node-port="+port,
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.0/16",
		"--config="+cp.layout.kwokConfig(),
		// Per-pod Exec objects come from the API (see execcontroller.go);
		// the shared ClusterExec, logs and attach from --config.
		"--enable-crds=Exec",
	)
}
