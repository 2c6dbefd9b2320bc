package main

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const clusterName = "tabula-dev"

// writeKubeconfig writes a kubeconfig with one cluster and, for every user
// name given, a user with its bearer token and a context of the same name.
// The first user is the current context.
func writeKubeconfig(path, server string, caData []byte, tokens map[string]string, userNames ...string) error {
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = server
	cluster.CertificateAuthorityData = caData
	cfg.Clusters[clusterName] = cluster
	for _, name := range userNames {
		token, ok := tokens[name]
		if !ok {
			return fmt.Errorf("no token for user %q", name)
		}
		auth := clientcmdapi.NewAuthInfo()
		auth.Token = token
		cfg.AuthInfos[name] = auth
		ctx := clientcmdapi.NewContext()
		ctx.Cluster = clusterName
		ctx.AuthInfo = name
		cfg.Contexts[name] = ctx
	}
	cfg.CurrentContext = userNames[0]
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*cfg, path)
}

// restConfigFor returns a client configuration for one user.
func restConfigFor(server string, caData []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caData},
		UserAgent:       "devcluster",
	}
}
