package apiclient

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
)

// DefaultServiceAccountDir is where a pod finds its service account's
// credentials.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// inClusterConfig is rest.InClusterConfig reading the service account's
// files from dir rather than from the fixed path, so a test (or a sidecar
// that projects the token elsewhere) can point it at other files. Like
// client-go it keeps BearerTokenFile, so the transport re-reads the token
// every minute and a rotated token is picked up without a restart.
func inClusterConfig(dir string) (*rest.Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, rest.ErrNotInCluster
	}
	if dir == "" {
		dir = DefaultServiceAccountDir
	}
	tokenFile := filepath.Join(dir, "token")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("reading the service account token: %w", err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	var tlsConfig rest.TLSClientConfig
	if _, err := certutil.NewPool(caFile); err != nil {
		// client-go logs this and trusts the system roots instead; a console
		// that silently trusted any public CA for its API server would be
		// worse than one that does not start.
		return nil, fmt.Errorf("reading the cluster's CA certificate: %w", err)
	}
	tlsConfig.CAFile = caFile
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: tlsConfig,
		BearerToken:     string(token),
		BearerTokenFile: tokenFile,
	}, nil
}

// loadInCluster tries the in-cluster configuration. Outside a pod
// (KUBERNETES_SERVICE_HOST unset) and without an explicit
// ServiceAccountDir it reports ok=false, and the caller goes on to the
// kubeconfig; in a pod, unreadable credentials are the error to report.
func loadInCluster(opts LoadOptions) (*rest.Config, bool, error) {
	cfg, err := inClusterConfig(opts.ServiceAccountDir)
	switch {
	case err == nil:
		return cfg, true, nil
	case errors.Is(err, rest.ErrNotInCluster) && opts.ServiceAccountDir == "":
		return nil, false, nil
	case errors.Is(err, rest.ErrNotInCluster):
		return nil, false, fmt.Errorf("in-cluster configuration from %s: %w (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT name the API server)", opts.ServiceAccountDir, err)
	default:
		return nil, false, fmt.Errorf("in-cluster configuration: %w", err)
	}
}
