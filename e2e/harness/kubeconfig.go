package harness

import (
	"cmp"
	"errors"
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// KubeconfigContext is one context to copy into a merged kubeconfig, with its
// cluster and user.
type KubeconfigContext struct {
	// Kubeconfig is the file it comes from, Context its name there.
	Kubeconfig string
	Context    string
	// As is its name in the merged kubeconfig, and its user's (default
	// Context): two dev control planes both call their first user "admin".
	As string
	// Cluster is its cluster's name in the merged kubeconfig (default the
	// name in Kubeconfig): two dev control planes both call theirs
	// "tabula-dev".
	Cluster string
}

// WriteMergedKubeconfig writes to path a kubeconfig with the given contexts,
// each with its cluster and user; the first is the current context. Relative
// file references (a CA or token file) are made absolute, so the copy works
// from anywhere. Two contexts may share a cluster only if they take it from
// the same file under the same name, and no two may end up with the same
// name: a merged kubeconfig never silently points a context at another
// cluster or credentials.
func WriteMergedKubeconfig(path string, contexts ...KubeconfigContext) error {
	if len(contexts) == 0 {
		return errors.New("no contexts to merge")
	}
	merged := clientcmdapi.NewConfig()
	clusterFrom := map[string]string{}
	loaded := map[string]*clientcmdapi.Config{}
	for _, want := range contexts {
		src, ok := loaded[want.Kubeconfig]
		if !ok {
			var err error
			if src, err = clientcmd.LoadFromFile(want.Kubeconfig); err != nil {
				return err
			}
			if err := clientcmd.ResolveLocalPaths(src); err != nil {
				return fmt.Errorf("%s: %w", want.Kubeconfig, err)
			}
			loaded[want.Kubeconfig] = src
		}
		kctx, ok := src.Contexts[want.Context]
		if !ok {
			return fmt.Errorf("%s has no context %q", want.Kubeconfig, want.Context)
		}
		cluster, ok := src.Clusters[kctx.Cluster]
		if !ok {
			return fmt.Errorf("%s: context %q names cluster %q, which it lacks", want.Kubeconfig, want.Context, kctx.Cluster)
		}
		user, ok := src.AuthInfos[kctx.AuthInfo]
		if !ok {
			return fmt.Errorf("%s: context %q names user %q, which it lacks", want.Kubeconfig, want.Context, kctx.AuthInfo)
		}
		name := cmp.Or(want.As, want.Context)
		clusterName := cmp.Or(want.Cluster, kctx.Cluster)
		if _, dup := merged.Contexts[name]; dup {
			return fmt.Errorf("two contexts named %q", name)
		}
		if _, dup := merged.AuthInfos[name]; dup {
			return fmt.Errorf("two users named %q", name)
		}
		origin := want.Kubeconfig + "\x00" + kctx.Cluster
		if prev, dup := clusterFrom[clusterName]; dup && prev != origin {
			return fmt.Errorf("two clusters named %q: name one of them with Cluster", clusterName)
		}
		clusterFrom[clusterName] = origin

		merged.Clusters[clusterName] = cluster.DeepCopy()
		merged.AuthInfos[name] = user.DeepCopy()
		c := kctx.DeepCopy()
		c.Cluster, c.AuthInfo = clusterName, name
		merged.Contexts[name] = c
	}
	merged.CurrentContext = cmp.Or(contexts[0].As, contexts[0].Context)
	return clientcmd.WriteToFile(*merged, path)
}
