package main

import (
	"os"
	"path/filepath"
)

// layout names every file devcluster keeps in its data directory.
type layout struct{ root string }

func (l layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.root}, elem...)...)
}

func (l layout) etcdDir() string           { return l.path("etcd") }
func (l layout) servingCertDir() string    { return l.path("pki", "serving") }
func (l layout) servingCert() string       { return l.path("pki", "serving", "apiserver.crt") }
func (l layout) serviceAccountKey() string { return l.path("pki", "sa.key") }
func (l layout) clientCACert() string      { return l.path("pki", "client-ca.crt") }
func (l layout) clientCAKey() string       { return l.path("pki", "client-ca.key") }
func (l layout) frontProxyCACert() string  { return l.path("pki", "front-proxy-ca.crt") }
func (l layout) frontProxyCAKey() string   { return l.path("pki", "front-proxy-ca.key") }
func (l layout) frontProxyCert() string    { return l.path("pki", "front-proxy-client.crt") }
func (l layout) frontProxyKey() string     { return l.path("pki", "front-proxy-client.key") }
func (l layout) servingCACert() string     { return l.path("pki", "serving-ca.crt") }
func (l layout) servingCAKey() string      { return l.path("pki", "serving-ca.key") }
func (l layout) metricsServerCert() string { return l.path("pki", "metrics-server.crt") }
func (l layout) metricsServerKey() string  { return l.path("pki", "metrics-server.key") }
func (l layout) tokenFile() string         { return l.path("tokens.csv") }
func (l layout) kwokConfig() string        { return l.path("kwok", "kwok.yaml") }
func (l layout) demoLog() string           { return l.path("demo.log") }
func (l layout) benchLog() string          { return l.path("logbench.log") }
func (l layout) logDir() string            { return l.path("logs") }
func (l layout) execDir() string           { return l.path("exec") }
func (l layout) sharedExecDir() string     { return l.path("exec", sharedExecDirName) }

// podExecDir is the work directory of exec sessions in one pod.
func (l layout) podExecDir(namespace, pod string) string {
	return l.path("exec", namespace, pod)
}
func (l layout) logFile(name string) string {
	return l.path("logs", name+".log")
}
func (l layout) componentKubeconfig(name string) string {
	return l.path("components", name+".kubeconfig")
}
func (l layout) impersonatorKubeconfig() string {
	return l.path(impersonatorName + ".kubeconfig")
}

// ensure creates the directories of the layout.
func (l layout) ensure() error {
	for _, dir := range []string{
		l.root, l.path("pki"), l.servingCertDir(), l.path("kwok"), l.logDir(), l.path("components"),
	} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}
