package page

import (
	"context"
	"strconv"
	"strings"

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

// UsageCheck is the access check behind reading usage: verb (get or list)
// on m, the metrics resource, in namespace (and name, for get).
func UsageCheck(m apiclient.Resource, verb, namespace, name string) apiclient.AccessCheck {
	return apiclient.AccessCheck{Verb: verb, Group: m.Group, Resource: m.Name, Namespace: namespace, Name: name}
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

// FormatCPU prints millicores as kubectl top does ("12m"), and from one
// core on in cores, as Kubernetes quantities write them ("1.5", "12").
func FormatCPU(milli int64) string {
	if milli < 1000 {
		return strconv.FormatInt(milli, 10) + "m"
	}
	prec := 2
	if milli >= 10000 {
		prec = 1
	}
	return trimZeros(strconv.FormatFloat(float64(milli)/1000, 'f', prec, 64))
}

// FormatMemory prints bytes in Mi as kubectl top does ("64Mi"), below one
// Mi in Ki, and from 10 Gi on in Gi with one decimal.
func FormatMemory(bytes int64) string {
	const ki, mi, gi = 1 << 10, 1 << 20, 1 << 30
	switch {
	case bytes < mi:
		return strconv.FormatInt((bytes+ki-1)/ki, 10) + "Ki"
	case bytes < 10*gi:
		return strconv.FormatInt((bytes+mi/2)/mi, 10) + "Mi"
	}
	return trimZeros(strconv.FormatFloat(float64(bytes)/gi, 'f', 1, 64)) + "Gi"
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
