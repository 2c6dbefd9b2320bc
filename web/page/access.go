package page

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Access answers what the requesting user may do. Its answers are hints:
// pages show what the server would refuse as disabled, with the reason,
// and the server still decides every request. web/access implements it.
type Access interface {
	// Can answers checks for the identity who in client's context: one
	// Decision per check, in order. who is the client's IdentityKey, an
	// HMAC of the exact credential: requests may share answers only when
	// they act as the same user, and a refreshed token never reads answers
	// given to the old one ("" shares nothing).
	Can(ctx context.Context, who string, client *apiclient.Client, checks []apiclient.AccessCheck) []apiclient.Decision
	// Rules is what who may do in namespace, or nil when the server could
	// not say.
	Rules(ctx context.Context, who string, client *apiclient.Client, namespace string) *apiclient.Rules
}

// noAccess knows nothing: every action is offered and the server decides.
type noAccess struct{}

func (noAccess) Can(_ context.Context, _ string, _ *apiclient.Client, checks []apiclient.AccessCheck) []apiclient.Decision {
	return make([]apiclient.Decision, len(checks))
}

func (noAccess) Rules(context.Context, string, *apiclient.Client, string) *apiclient.Rules {
	return nil
}

// Permits asks the checks a page needs in one batch, for the request's
// identity.
func (e *Env) Permits(ctx context.Context, client *apiclient.Client, checks []apiclient.AccessCheck) kube.Permits {
	if len(checks) == 0 {
		return kube.Permits{}
	}
	return kube.NewPermits(checks, e.access.Can(ctx, client.IdentityKey(), client, checks))
}
