// Package bulk serves bulk actions on the rows a list page checked:
// delete, restart, scale, and adding or removing a label or an
// annotation. Nothing runs before a review (review.go) has shown every
// object with what will happen to it, whether the user may do it (batched
// access reviews) and what the server's dry run said; the apply (apply.go)
// then writes each object the review passed, only if it is still the
// version reviewed, at most maxInFlight at a time, and streams a result
// per object. form.go reads and bounds what the forms send; action.go is
// what each action sends; access.go asks who may.
package bulk

import (
	"github.com/tabula-console/tabula/web/page"
)

// maxInFlight bounds the requests one review or apply has in flight
// upstream: a bulk action must not crowd out the user's other calls in
// the server's priority and fairness share.
const maxInFlight = 8

// Handler serves the review and the apply.
type Handler struct {
	env *page.Env
}

// New builds the bulk feature.
func New(env *page.Env) *Handler { return &Handler{env: env} }
