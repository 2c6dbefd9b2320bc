package page

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// Sign-in modes: how a request's identity toward the API server is chosen.
const (
	// ModeKubeconfig acts as the kubeconfig context's own user, for every
	// visitor: one person's console on their own machine.
	ModeKubeconfig = "kubeconfig"
	// ModeOIDC acts as the user signed in with the OIDC provider, by
	// passing their ID token on or by impersonating them.
	ModeOIDC = "oidc"
	// ModeToken acts with a bearer token the user pasted.
	ModeToken = "token"
)

// Requester is who one request acts for. The sign-in middleware (web/auth)
// sets it before any feature runs; every upstream call and log line of the
// request takes its identity from here.
type Requester struct {
	// Mode is one of the Mode* constants.
	Mode string
	// Identity is what the request presents to the API server.
	Identity apiclient.Identity
	// User and Groups name the signed-in user for pages and logs; User is
	// empty in kubeconfig mode.
	User   string
	Groups []string
	// Ends is closed when the session ends (logout, expiry of the token it
	// carries, idle or absolute timeout). Streams opened by the request end
	// with it, so no stream outlives the credential it was opened with. Nil
	// never closes.
	Ends <-chan struct{}
}

type requesterKey struct{}

// SetRequester records who the request acts for, in its context; only
// web/auth calls it.
func SetRequester(c echo.Context, r Requester) {
	req := c.Request()
	c.SetRequest(req.WithContext(context.WithValue(req.Context(), requesterKey{}, r)))
}

// requesterFrom is the Requester SetRequester put in ctx, if any.
func requesterFrom(ctx context.Context) (Requester, bool) {
	r, ok := ctx.Value(requesterKey{}).(Requester)
	return r, ok
}

// RequesterOf is who the request acts for. A request the sign-in
// middleware did not see acts in kubeconfig mode.
func RequesterOf(c echo.Context) Requester {
	if r, ok := requesterFrom(c.Request().Context()); ok {
		return r
	}
	return Requester{Mode: ModeKubeconfig}
}

// identityOf is who the request acts as upstream.
func identityOf(c echo.Context) apiclient.Identity { return RequesterOf(c).Identity }
