package page

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
)

// UsageResource is where the server serves the usage of r's objects
// (pods.metrics.k8s.io for pods, nodes.metrics.k8s.io for nodes), when its
// discovery for this client's identity lists metrics.k8s.io. Discovery is
// cached, so asking costs no request, and a server without metrics-server
// gets none for usage.
func UsageResource(ctx context.Context, client *apiclient.Client, r apiclient.Resource) (apiclient.Resource, bool) {
	d, err := client.Discovery(ctx)
	if err != nil {
		return apiclient.Resource{}, false
	}
	return d.UsageResource(r)
}

// UsageDenied says whether the user may not make check, a UsageCheck.
// Usage is an extra on pages about something else, so a user the server
// would refuse gets no columns and no chart rather than a failing request
// on every page. The answer is one access review, kept briefly per
// identity; where the server cannot say, the request is made and the
// server decides.
func (e *Env) UsageDenied(ctx context.Context, client *apiclient.Client, check apiclient.AccessCheck) bool {
	return e.Permits(ctx, client, []apiclient.AccessCheck{check}).Denied(check) != ""
}
