package edit

import (
	"context"

	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// staleVersion is kube.StaleVersion.
func staleVersion(err error, loaded string, current func() (string, error)) bool {
	return kube.StaleVersion(err, loaded, current)
}

// objectVersion reads the target object's current resourceVersion, for
// staleVersion.
func objectVersion(ctx context.Context, t page.Target) func() (string, error) {
	return func() (string, error) {
		obj, err := t.Client.GetObject(ctx, t.Resource, t.Path.Namespace, t.Path.Name)
		if err != nil {
			return "", err
		}
		return obj.GetResourceVersion(), nil
	}
}
