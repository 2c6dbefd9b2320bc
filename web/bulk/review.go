package bulk

import (
	"context"
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

// Review states of an item.
const (
	stateReady     = "ready"
	stateForbidden = "forbidden"
	stateFailed    = "failed"
)

// Review serves POST /c/{context}/bulk: every selected object with what the
// action will do to it, whether the user may (access reviews), and the
// server's dry run of it (dryRun=All, guarded by the resourceVersion read
// just before). Objects the user may not change get no request beyond the
// read; the apply form carries only those that passed, each with the
// version reviewed.
func (h *Handler) Review(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	rq, err := parse(ctx, client, c, false)
	if err != nil {
		return err
	}
	urls := page.URLsOf(ctx)
	reviewed := h.review(ctx, client, rq, urls)
	items := make([]views.BulkReviewItem, len(reviewed))
	for i, r := range reviewed {
		items[i] = r.view
		if r.dryRun {
			h.logWrite(c, rq, rq.items[i], true, r.err)
		}
	}
	p := views.BulkReviewPage{
		Layout:   h.env.ContextLayout(ctx, client, "Review: "+rq.action.Summary, &rq.resource, rq.namespace),
		Kind:     rq.resource.Kind,
		Resource: rq.resource.Name,
		ListHref: urls.Resource(rq.resource, rq.namespace, ""),
		Action:   rq.action,
		Items:    items,
		Apply:    urls.Path("/bulk/apply"),
		Review:   urls.Path("/bulk"),
		Hidden:   rq.hidden(),
	}
	unknowns := 0
	for _, it := range items {
		switch it.State {
		case stateReady:
			p.Ready++
		case stateForbidden:
			p.Forbidden++
		default:
			p.Failed++
		}
		if it.Permission == unknown {
			unknowns++
		}
	}
	if unknowns > 0 {
		p.Notices = append(p.Notices, "The server could not say whether you may change some objects (it may serve no access reviews); their dry runs are the answer.")
	}
	return h.env.Render(c, http.StatusOK, views.BulkReview(p))
}

// reviewed is one item's review: its row, and whether a dry run was sent
// and how it failed, for the write log.
type reviewed struct {
	view   views.BulkReviewItem
	dryRun bool
	err    error
}

// review asks the permissions, then reads and dry-runs each permitted item,
// at most maxInFlight at once. An item's failure is its own row; it never
// stops the others.
func (h *Handler) review(ctx context.Context, client *apiclient.Client, rq request, urls page.URLs) []reviewed {
	perms := h.permissions(ctx, client, rq)
	out := make([]reviewed, len(rq.items))
	at := time.Now()
	var g errgroup.Group
	g.SetLimit(maxInFlight)
	for i, it := range rq.items {
		out[i].view = views.BulkReviewItem{
			Namespace: it.namespace, Name: it.name, Key: it.key(),
			Href:       urls.Resource(rq.resource, it.namespace, it.name),
			Permission: perms[i].state, Reason: perms[i].reason,
		}
		if perms[i].state == forbidden {
			out[i].view.State, out[i].view.Change = stateForbidden, "Nothing: you may not"
			continue
		}
		g.Go(func() error {
			reviewItem(ctx, client, rq, it, at, &out[i])
			return nil
		})
	}
	_ = g.Wait() // each item keeps its own error
	return out
}

// reviewItem reads one item and dry-runs the action on it. A refusal of
// either marks it forbidden with the server's reason.
func reviewItem(ctx context.Context, client *apiclient.Client, rq request, it item, at time.Time, out *reviewed) {
	v := &out.view
	failed := func(err error) {
		v.State, v.Error = stateFailed, bulkError(err)
		if apierrors.IsForbidden(err) {
			v.State, v.Permission, v.Reason = stateForbidden, forbidden, v.Error.Message
		}
	}
	rv, change, err := read(ctx, client, rq, it)
	if err != nil {
		v.Change = "Nothing: it could not be read"
		failed(err)
		return
	}
	v.ResourceVersion, v.Change = rv, change
	_, err = write(ctx, client, rq, it, rv, at, true)
	out.dryRun, out.err = true, err
	if err != nil {
		failed(err)
		return
	}
	v.State, v.DryRun = stateReady, "accepted"
}

// bulkError is an upstream failure as one row shows it: the one error
// mapper's code, reason and message (the metav1.Status's).
func bulkError(err error) *views.BulkError {
	p := page.Classify(err)
	return &views.BulkError{Code: p.Code, Reason: p.Reason, Message: p.Message}
}

// logWrite records a write sent for one item (page.Env.LogWrite): who,
// the verb and object, dry run or not, and the answer's code.
func (h *Handler) logWrite(c echo.Context, rq request, it item, dryRun bool, err error) {
	verb, name := "patch", it.name
	switch rq.action.Op {
	case kube.BulkDelete:
		verb = "delete"
	case kube.BulkScale:
		name += "/scale"
	}
	h.env.LogWrite(c, verb, rq.resource, it.namespace, name, dryRun, err)
}
