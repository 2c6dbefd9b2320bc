package bulk

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Outcomes of an applied item.
const (
	outcomeDone      = "done"
	outcomeConflict  = "conflict"
	outcomeForbidden = "forbidden"
	outcomeFailed    = "failed"
	outcomeSkipped   = "skipped"
)

// Apply serves POST /c/{context}/bulk/apply: the action on each item the
// review passed, guarded by the resourceVersion it saw (a DELETE's
// precondition, a merge patch's metadata.resourceVersion, the Scale's), at
// most maxInFlight writes at once. The results page streams a row per item
// as its write finishes, then a summary; a failure is one row and never
// hides the others. The access reviews are asked again first: an item the
// user may not change gets no write, whatever the form says.
//
// The route streams: the page lasts as long as its writes, each bounded
// by the page deadline; the setup (discovery, access reviews) is bounded
// too.
func (h *Handler) Apply(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	reqCtx := c.Request().Context()
	setup, cancel := h.env.WithDeadline(reqCtx)
	defer cancel()
	rq, err := parse(setup, client, c, true)
	if err != nil {
		return err
	}
	perms := h.permissions(setup, client, rq)
	urls := page.URLsOf(reqCtx)
	summary := &views.BulkSummary{}
	p := views.BulkResultsPage{
		Layout:   h.env.WithBulk(h.env.ContextLayout(setup, client, rq.action.Summary, &rq.resource, rq.namespace)),
		Kind:     rq.resource.Kind,
		Resource: rq.resource.Name,
		ListHref: urls.Resource(rq.resource, rq.namespace, ""),
		Action:   rq.action,
		Total:    len(rq.items),
		Summary:  summary,
		Review:   urls.Path("/bulk"),
		Hidden:   rq.hidden(),
	}
	ctx, stop := context.WithCancel(reqCtx)
	defer stop()
	results := h.run(ctx, client, rq, perms)
	p.Results = func(yield func(views.BulkResult) bool) {
		// Drained whatever the page does: the writers never block on a
		// page that stopped reading.
		defer func() {
			stop()
			for range results {
			}
		}()
		for res := range results {
			it := rq.items[res.index]
			if res.sent {
				h.logWrite(c, rq, it, false, res.err)
			}
			r := resultView(res, it)
			r.Href = urls.Resource(rq.resource, it.namespace, it.name)
			if r.Outcome == outcomeDone && rq.action.Op == "delete" {
				r.Href = ""
			}
			count(summary, r)
			if !yield(r) {
				return
			}
		}
	}
	return h.env.Stream(c, http.StatusOK, views.BulkResults(p))
}

// applied is one item's write.
type applied struct {
	index     int
	sent      bool // a request went upstream
	forbidden string
	detail    string
	err       error
	// stale: a 422 that is a conflict in disguise (kube.StaleVersion).
	stale bool
}

// run writes each permitted item, at most maxInFlight at once, each with
// the page deadline, and sends every item's result as it is known (the
// forbidden ones first, unwritten). The channel closes after the last.
func (h *Handler) run(ctx context.Context, client *apiclient.Client, rq request, perms []permission) <-chan applied {
	out := make(chan applied, maxInFlight)
	at := time.Now()
	go func() {
		defer close(out)
		for i, p := range perms {
			if p.state == forbidden {
				out <- applied{index: i, forbidden: p.reason}
			}
		}
		var g errgroup.Group
		g.SetLimit(maxInFlight)
		for i, it := range rq.items {
			if perms[i].state == forbidden {
				continue
			}
			if ctx.Err() != nil {
				// The page went away: what was not sent is not sent.
				out <- applied{index: i, err: ctx.Err()}
				continue
			}
			g.Go(func() error {
				wctx, cancel := h.env.WithDeadline(ctx)
				defer cancel()
				detail, err := write(wctx, client, rq, it, it.rv, at, false)
				a := applied{index: i, sent: true, detail: detail, err: err}
				// A server that takes only JSON Patch answers a stale
				// version with a 422: a conflict all the same.
				a.stale = kube.StaleVersion(err, it.rv, func() (string, error) {
					rv, _, err := read(wctx, client, rq, it)
					return rv, err
				})
				out <- a
				return nil
			})
		}
		_ = g.Wait()
	}()
	return out
}

// resultView is what the results page shows of one item.
func resultView(a applied, it item) views.BulkResult {
	r := views.BulkResult{Namespace: it.namespace, Name: it.name, Key: it.key()}
	switch {
	case a.forbidden != "":
		r.Outcome, r.Detail = outcomeForbidden, a.forbidden+" Nothing was sent."
	case !a.sent:
		r.Outcome, r.Detail = outcomeSkipped, "Not sent: the request ended first."
	case a.err == nil:
		r.Outcome, r.Detail = outcomeDone, a.detail
	case apierrors.IsConflict(a.err) || a.stale:
		r.Outcome, r.Detail, r.Error = outcomeConflict, "It changed since the review; nothing was written to it.", bulkError(a.err)
	case apierrors.IsForbidden(a.err):
		r.Outcome, r.Error = outcomeForbidden, bulkError(a.err)
	case errors.Is(a.err, context.Canceled):
		r.Outcome, r.Detail = outcomeSkipped, "The request ended while it was being sent: check the object."
	default:
		r.Outcome, r.Error = outcomeFailed, bulkError(a.err)
	}
	return r
}

func count(s *views.BulkSummary, r views.BulkResult) {
	switch r.Outcome {
	case outcomeDone:
		s.Done++
	case outcomeConflict:
		s.Conflict++
		s.Conflicts = append(s.Conflicts, r.Key)
	case outcomeForbidden:
		s.Forbidden++
	case outcomeSkipped:
		s.Skipped++
	default:
		s.Failed++
	}
}
