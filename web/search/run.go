package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Budget bounds one search. Every kind costs its access review (when the
// rules could not decide) and one list request per page; nothing else.
type Budget struct {
	// Concurrency is how many kinds are listed at once.
	Concurrency int
	// PerKind bounds one kind: its review and all its pages.
	PerKind time.Duration
	// Total bounds the whole search; kinds not started by then are
	// reported as timed out.
	Total time.Duration
	// PageSize is the limit of each list request.
	PageSize int64
	// MaxObjects is how many objects of one kind are read before the kind
	// is cut and reported as too many for the budget.
	MaxObjects int64
	// Shown is how many matches of a kind the page shows when the search
	// asks several kinds; ShownOne when it asks one.
	Shown, ShownOne int
}

// DefaultBudget is the budget of the console's searches: 8 kinds at a time
// (the access reviews' own cap, well inside a user's share of the
// server's priority and fairness), 500 objects a page, as a list page
// asks, and 50,000 objects per kind, which is 100 pages.
func DefaultBudget() Budget {
	return Budget{Concurrency: 8, PerKind: 10 * time.Second, Total: 20 * time.Second, PageSize: 500, MaxObjects: 50_000, Shown: 20, ShownOne: 500}
}

// match is an object found: what its row shows.
type match struct {
	Name, Namespace string
	Created         time.Time
	Status          string
}

// outcome is one kind's search: its matches, its cost, and why it was cut
// short, if it was.
type outcome struct {
	Kind Kind
	// Matches counts every object that matched; Rows keeps the first.
	Matches      int
	Rows         []match
	StatusColumn string
	Scanned      int64
	Requests     int64 // lists, negotiation included
	Reviews      int64
	Bytes        int64
	Skip         *Skip
	// overhead marks the search's own cost, not a kind's.
	overhead bool
}

// searcher runs a plan's kinds through the fan-out.
type searcher struct {
	client *apiclient.Client
	// permits answers access checks: one SelfSubjectAccessReview each,
	// kept briefly per user.
	permits func(context.Context, apiclient.AccessCheck) kube.Permits
	query   Query
	budget  Budget
	shown   int
	// now is the page's time, for a status column of dates.
	now time.Time
}

// run lists kinds, Concurrency at a time, and sends each outcome on out as
// it finishes, then closes out. Kinds not started by ctx's end are sent as
// timed out without a request. The caller must read out to the end.
func (s *searcher) run(ctx context.Context, kinds []Kind, out chan<- outcome) {
	defer close(out)
	if slices.ContainsFunc(kinds, func(k Kind) bool { return k.Check != nil }) {
		var reviews apiclient.RequestCount
		kinds = s.reviewOnce(apiclient.CountRequests(ctx, &reviews), kinds)
		out <- outcome{Reviews: reviews.Load(), overhead: true}
	}
	jobs := make(chan Kind)
	var wg sync.WaitGroup
	for range min(s.budget.Concurrency, len(kinds)) {
		wg.Go(func() {
			for k := range jobs {
				out <- s.kind(ctx, k)
			}
		})
	}
	for _, k := range kinds {
		if ctx.Err() != nil {
			out <- outcome{Kind: k, Skip: s.notStarted(ctx, k)}
			continue
		}
		select {
		case jobs <- k:
		case <-ctx.Done():
			out <- outcome{Kind: k, Skip: s.notStarted(ctx, k)}
		}
	}
	close(jobs)
	wg.Wait()
}

// reviewOnce asks once whether the user may list every kind in every
// namespace: RBAC grants list on */* cluster-wide to nobody else, so a yes
// spares each kind its own review (an admin's search across namespaces
// asks one review, not one per kind). Anything but a known yes leaves the
// kinds' reviews as they are.
func (s *searcher) reviewOnce(ctx context.Context, kinds []Kind) []Kind {
	all := apiclient.AccessCheck{Verb: "list", Group: "*", Resource: "*"}
	if !s.permits(ctx, all).Allowed(all) {
		return kinds
	}
	out := slices.Clone(kinds)
	for i := range out {
		out[i].Check = nil
	}
	return out
}

func (s *searcher) notStarted(ctx context.Context, k Kind) *Skip {
	detail := "not started: the search was stopped"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		detail = fmt.Sprintf("not started within the search's %s", seconds(s.budget.Total))
	}
	return &Skip{Kind: k, Reason: TimedOut, Detail: detail}
}

// kind searches one kind: its access review if it needs one, then its
// pages, the name filter applied to each row as it is decoded.
func (s *searcher) kind(ctx context.Context, k Kind) (o outcome) {
	o.Kind = k
	var lists, reviews apiclient.RequestCount
	defer func() { o.Requests, o.Reviews = lists.Load(), reviews.Load() }()
	if ctx.Err() != nil {
		o.Skip = s.notStarted(ctx, k)
		return o
	}
	kctx, cancel := context.WithTimeout(ctx, s.budget.PerKind)
	defer cancel()
	if k.Check != nil {
		if why := s.permits(apiclient.CountRequests(kctx, &reviews), *k.Check).Denied(*k.Check); why != "" {
			o.Skip = &Skip{Kind: k, Reason: Forbidden, Detail: why}
			return o
		}
	}
	lctx := apiclient.CountRequests(kctx, &lists)
	if k.Twin != nil && s.sameObjects(lctx, k) {
		o.Skip = &Skip{Kind: k, Reason: SameObjects, Detail: "the same objects as " + kube.ResourceName(*k.Twin) + " (their UIDs), searched there"}
		return o
	}
	opts := apiclient.ListOptions{
		Namespace:     k.Namespace,
		LabelSelector: s.query.LabelSelector,
		FieldSelector: s.query.FieldSelector,
		Limit:         s.budget.PageSize,
		IncludeObject: apiclient.IncludeMetadata,
	}
	status := -1
	for page := 0; ; page++ {
		stream, err := s.client.OpenTable(lctx, k.Resource, opts)
		if err != nil {
			o.Skip = s.classify(ctx, kctx, k, err, opts)
			return o
		}
		if page == 0 {
			status = statusColumn(stream.Head.Columns)
			if status >= 0 {
				o.StatusColumn = stream.Head.Columns[status].Name
			}
		}
		s.scan(stream, status, &o)
		o.Bytes += stream.BytesRead()
		if err := stream.Err(); err != nil {
			o.Skip = s.classify(ctx, kctx, k, err, opts)
			return o
		}
		opts.Continue = stream.Head.Continue
		if opts.Continue == "" {
			return o
		}
		if o.Scanned >= s.budget.MaxObjects {
			detail := fmt.Sprintf("read the first %s objects, the budget for one kind", count(o.Scanned))
			if n := stream.Head.RemainingItemCount; n != nil && *n > 0 {
				detail += fmt.Sprintf("; about %s more", count(*n))
			}
			o.Skip = &Skip{Kind: k, Reason: TooMany, Detail: detail}
			return o
		}
	}
}

// sameObjects says whether k and its twin serve the same objects, by
// Kubernetes' own identity: the first object of each, in k's scope, has
// one UID. Two requests of one object each, against listing every object
// twice; any doubt (an error, no objects) searches k.
func (s *searcher) sameObjects(ctx context.Context, k Kind) bool {
	first := func(r apiclient.Resource) types.UID {
		stream, err := s.client.OpenTable(ctx, r, apiclient.ListOptions{Namespace: k.Namespace, Limit: 1, IncludeObject: apiclient.IncludeMetadata})
		if err != nil {
			return ""
		}
		defer stream.Close()
		if !stream.Next() || stream.Row().Object == nil {
			return ""
		}
		return types.UID(strings.Clone(string(stream.Row().Object.UID)))
	}
	uid := first(k.Resource)
	return uid != "" && uid == first(*k.Twin)
}

// scan reads a page's rows, keeping what the page shows of the matches.
func (s *searcher) scan(stream *apiclient.TableStream, status int, o *outcome) {
	defer stream.Close()
	nameCol := nameColumn(stream.Head.Columns)
	for stream.Next() {
		row := stream.Row()
		o.Scanned++
		m := match{}
		if row.Object != nil {
			m.Name, m.Namespace, m.Created = row.Object.Name, row.Object.Namespace, row.Object.CreationTimestamp
		} else if nameCol >= 0 && nameCol < len(row.Cells) {
			m.Name, _ = row.Cells[nameCol].(string)
		}
		if m.Name == "" || !s.query.Matches(m.Name) {
			continue
		}
		o.Matches++
		if len(o.Rows) >= s.shown {
			continue
		}
		if status >= 0 && status < len(row.Cells) {
			// As the list writes it: text, a number (a ReplicaSet's Ready), an age.
			m.Status = kube.FormatCell(row.Cells[status], stream.Head.Columns[status].Type, s.now).Text
		}
		// Copied out of the decoder's memory, which the next row reuses.
		m.Name, m.Namespace, m.Status = strings.Clone(m.Name), strings.Clone(m.Namespace), strings.Clone(m.Status)
		o.Rows = append(o.Rows, m)
	}
}

// classify says why a kind's list failed. The deadlines come first: a
// request cut by one fails with whatever the transport saw.
func (s *searcher) classify(searchCtx, kindCtx context.Context, k Kind, err error, opts apiclient.ListOptions) *Skip {
	skip := &Skip{Kind: k, Reason: Failed, Detail: message(err)}
	switch {
	case searchCtx.Err() != nil && errors.Is(searchCtx.Err(), context.DeadlineExceeded):
		skip.Reason, skip.Detail = TimedOut, fmt.Sprintf("the search's %s ran out", seconds(s.budget.Total))
	case searchCtx.Err() != nil:
		skip.Reason, skip.Detail = TimedOut, "the search was stopped"
	case kindCtx.Err() != nil:
		skip.Reason, skip.Detail = TimedOut, fmt.Sprintf("took longer than %s, the budget for one kind", seconds(s.budget.PerKind))
	case apierrors.IsForbidden(err):
		skip.Reason = Forbidden
	case opts.Continue != "" && apiclient.IsExpired(err):
		skip.Reason = Expired
	case opts.FieldSelector != "" && apierrors.IsBadRequest(err):
		skip.Reason = FieldRefused
	}
	return skip
}

// message is what the server said, without client-go's wrapping where it
// kept the server's Status.
func message(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

// statusColumn is the index of the column a row's status is read from:
// the first shown one called Status, else Phase, else Ready; -1 if none.
func statusColumn(columns []apiclient.Column) int {
	for _, want := range []string{"status", "phase", "ready"} {
		for i, c := range columns {
			if c.Priority == 0 && strings.EqualFold(c.Name, want) {
				return i
			}
		}
	}
	return -1
}

// nameColumn is the column naming the object, for rows without metadata.
func nameColumn(columns []apiclient.Column) int {
	for i, c := range columns {
		if c.Format == "name" {
			return i
		}
	}
	return -1
}

func seconds(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }
