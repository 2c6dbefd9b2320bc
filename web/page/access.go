package page

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Access answers what the requesting user may do. Its answers are hints:
// pages show what the server would refuse as disabled, with the reason,
// and the server still decides every request. web/access implements it.
type Access interface {
	// Can answers checks for the identity who (AccessKey; "" for one that
	// must not share answers) in client's context: one Decision per check,
	// in order.
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

type accessKeyKey struct{}

// AccessKey is who a request's access answers are kept for: the one place
// that decides which requests may share them. Two requests with the same
// key must act as the same user: it is the identity's key
// (apiclient.Clusters.IdentityKey), an HMAC of the exact credential, so a
// refreshed token never reads answers given to the old one.
func (e *Env) AccessKey(c echo.Context) string { return e.Clusters.IdentityKey(IdentityOf(c)) }

// withAccessKey carries the request's AccessKey in its context, for the
// builders that take a context.Context (the page frame, live sections).
func (e *Env) withAccessKey(c echo.Context) {
	req := c.Request()
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), accessKeyKey{}, e.AccessKey(c))))
}

// accessKeyOf is the AccessKey withAccessKey put in ctx; "" (share
// nothing) when none was.
func accessKeyOf(ctx context.Context) string {
	who, _ := ctx.Value(accessKeyKey{}).(string)
	return who
}

// Permits asks the checks a page needs in one batch, for the request's
// identity.
func (e *Env) Permits(ctx context.Context, client *apiclient.Client, checks []apiclient.AccessCheck) kube.Permits {
	if len(checks) == 0 {
		return kube.Permits{}
	}
	return kube.NewPermits(checks, e.access.Can(ctx, accessKeyOf(ctx), client, checks))
}
