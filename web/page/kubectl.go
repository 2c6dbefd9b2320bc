package page

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Kubectl starts the kubectl command of a page about r: the context, when
// the console serves several (so the command says which), and r's name.
func (e *Env) Kubectl(ctx context.Context, client *apiclient.Client, r apiclient.Resource) kube.KubectlGet {
	d, err := client.Discovery(ctx)
	if err != nil {
		d = nil
	}
	k := kube.KubectlGet{Resource: kube.KubectlResource(d, r), Namespaced: r.Namespaced}
	if len(e.Clusters.Contexts()) > 1 {
		k.Context = client.ContextName()
	}
	return k
}
