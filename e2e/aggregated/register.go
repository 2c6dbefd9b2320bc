package aggregated

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// frontProxyName is the CN of kube-apiserver's proxy client certificate, as
// devcluster passes it in --requestheader-allowed-names.
const frontProxyName = "front-proxy-client"

// registerTimeout bounds the wait for kube-apiserver to route to the server.
const registerTimeout = 2 * time.Minute

// Running is a registered aggregated API server.
type Running struct {
	// URL is where the server listens, https://127.0.0.1:PORT.
	URL string
	// CABundle is the PEM CA that signed the serving certificate.
	CABundle []byte

	srv     *http.Server
	served  chan error
	backing backing
}

// Register starts the server on a free loopback port and registers it with
// the dev control plane of dataDir as the APIService v1alpha1.ops.tabula.dev,
// acting as kubeconfigPath's current context (devcluster's is admin). It
// returns once kube-apiserver reports the APIService Available, serves a
// list of probes and lists the group in its aggregated discovery.
func Register(ctx context.Context, kubeconfigPath, dataDir string) (*Running, error) {
	log := slog.Default().With("component", "aggregated")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigPath)
	if err != nil {
		return nil, err
	}
	cfg.WarningHandler = warningLogger{log: log}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dataDir, "pki", "front-proxy-ca.crt")
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	frontProxyCA := x509.NewCertPool()
	if !frontProxyCA.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("front-proxy CA: no certificate in %s", caFile)
	}
	// The aggregator verifies the name <service>.<namespace>.svc.
	svcHost := serviceName + "." + serviceNamespace + ".svc"
	cert, err := newServingCert([]string{svcHost, svcHost + ".cluster.local", "localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Running{
		URL:      "https://" + ln.Addr().String(),
		CABundle: cert.caPEM,
		srv: &http.Server{
			Handler:           newServer(serverOptions{allowedNames: []string{frontProxyName}, log: log}),
			TLSConfig:         tlsConfig(cert, frontProxyCA),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		served:  make(chan error, 1),
		backing: backing{core: core, dyn: dyn, port: int32(ln.Addr().(*net.TCPAddr).Port)},
	}
	go func() { r.served <- r.srv.ServeTLS(ln, "", "") }()

	if err := r.backing.apply(ctx, cert.caPEM); err != nil {
		return nil, errors.Join(fmt.Errorf("registering the APIService: %w", err), r.Close())
	}
	if err := waitRouted(ctx, core, dyn, registerTimeout); err != nil {
		return nil, errors.Join(err, r.Close())
	}
	return r, nil
}

// warningLogger logs kube-apiserver's warnings, except the one Register
// expects: the FQDN EndpointSlice it applies is deprecated (see backing.apply).
type warningLogger struct{ log *slog.Logger }

func (w warningLogger) HandleWarningHeader(_ int, _ string, text string) {
	if strings.Contains(text, "FQDN endpoints are deprecated") {
		return
	}
	w.log.Warn("kube-apiserver warning", "warning", text)
}

// Close unregisters the API and stops the server.
func (r *Running) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errUnregister := r.backing.delete(ctx)
	errShutdown := r.srv.Shutdown(ctx)
	if err := <-r.served; !errors.Is(err, http.ErrServerClosed) {
		errShutdown = errors.Join(errShutdown, err)
	}
	return errors.Join(errUnregister, errShutdown)
}
