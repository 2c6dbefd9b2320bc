package page

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
)

// UsageDenied says whether the user may not make check, a UsageCheck.
// Usage is an extra on pages about something else, so a user the server
// would refuse gets no columns and no chart rather than a failing request
// on every page. The answer is one access review, kept briefly per
// identity; where the server cannot say, the request is made and the
// server decides.
func (e *Env) UsageDenied(ctx context.Context, client *apiclient.Client, check apiclient.AccessCheck) bool {
	return e.Permits(ctx, client, []apiclient.AccessCheck{check}).Denied(check) != ""
}
