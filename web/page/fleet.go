package page

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// Fleet URLs run a page over several contexts: /c/_all/… over every context
// the console offers, /c/a,b/… over a chosen set, each cluster with its
// own credentials.

// Bounds of a chosen set: a URL names at most maxFleetContexts contexts, in
// at most maxFleetSegment bytes.
const (
	maxFleetContexts = 64
	maxFleetSegment  = 4096
)

// fleetKey carries a fleet request's contexts.
type fleetKey struct{}

// FleetOf is the contexts a fleet request runs over, in the order its URL
// names them (every offered context, sorted, for _all); nil for a request
// about one context.
func FleetOf(ctx context.Context) []string {
	names, _ := ctx.Value(fleetKey{}).([]string)
	return names
}

// IsFleetSegment says whether a /c/{context} segment names several
// contexts.
func IsFleetSegment(segment string) bool {
	return segment == apiclient.AllContexts || strings.Contains(segment, ",")
}

// FleetContexts parses a fleet segment: a 400 for a list that is too long,
// has an empty name or one twice; a 404 for a context the console does not
// offer.
func (e *Env) FleetContexts(segment string) ([]string, error) {
	if segment == apiclient.AllContexts {
		var names []string
		for _, c := range e.Clusters.Contexts() {
			names = append(names, c.Name)
		}
		return names, nil
	}
	if len(segment) > maxFleetSegment {
		return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The list of contexts is %d bytes long; it may be %d at most.", len(segment), maxFleetSegment))
	}
	names := strings.Split(segment, ",")
	if len(names) > maxFleetContexts {
		return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The URL names %d contexts; a page runs over %d at most (or all of them: /c/%s/).", len(names), maxFleetContexts, apiclient.AllContexts))
	}
	for i, name := range names {
		switch {
		case name == "":
			return nil, echo.NewHTTPError(http.StatusBadRequest, "The list of contexts has an empty name: separate names with one comma.")
		case slices.Contains(names[:i], name):
			return nil, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The list of contexts names %q twice.", truncateName(name)))
		}
		if _, err := e.Clusters.Context(name); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func truncateName(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// RequireFleet admits a request under /c/{context} whose segment names one
// context (as RequireContext) or, for the routes fleet says serve several,
// a set of contexts; any other route refuses a set with a 400 that says
// which pages run over several.
func (e *Env) RequireFleet(fleet func(routePath string) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		one := e.RequireContext(next)
		return func(c echo.Context) error {
			segment := PathParam(c, "context")
			if !IsFleetSegment(segment) {
				return one(c)
			}
			names, err := e.FleetContexts(segment)
			if err != nil {
				return err
			}
			if !fleet(c.Path()) {
				return echo.NewHTTPError(http.StatusBadRequest, "This page shows one cluster at a time: open it in one context. The home page, lists, search and Problems run over several.")
			}
			req := c.Request()
			ctx := context.WithValue(req.Context(), contextNameKey{}, segment)
			c.SetRequest(req.WithContext(context.WithValue(ctx, fleetKey{}, names)))
			return next(c)
		}
	}
}

// FleetClients builds each context's client as this request's identity. A
// context that may not take part (a signed-in token meant for other
// clusters, a token that would cross the network in the clear) is left
// out with the reason; no credential goes to a cluster it was not meant
// for.
func (e *Env) FleetClients(c echo.Context, names []string) (clients []*apiclient.Client, left map[string]error, err error) {
	id := identityOf(c)
	if e.mode != ModeKubeconfig && id.BearerToken == "" && id.Impersonate.UserName == "" {
		return nil, nil, echo.NewHTTPError(http.StatusUnauthorized, "Sign in to use this console.")
	}
	left = map[string]error{}
	for _, name := range names {
		client, err := e.Clusters.Client(name, id)
		if err != nil {
			left[name] = err
			continue
		}
		clients = append(clients, client)
	}
	return clients, left, nil
}
