package problems

import (
	"cmp"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
)

// objectKey names an object of a kind.
type objectKey struct{ group, resource, namespace, name string }

func keyOf(r apiclient.Resource, namespace, name string) objectKey {
	return objectKey{r.Group, r.Name, namespace, name}
}

// board is the state of a Problems page: the verdicts that are problems
// now or will be, and the Warning events, each bounded. Lists and watches
// feed it concurrently; a report reads it at an instant. It never holds an
// object, only what a row shows.
type board struct {
	after time.Duration
	// limit bounds the verdicts tracked, warningLimit the events.
	limit, warningLimit int

	mu       sync.Mutex
	verdicts map[objectKey]verdict
	// lost counts problems not tracked because the board was full; the
	// report says the page is incomplete while any were.
	lost     int
	warnings map[string]apiclient.EventAbout // by the Event object's uid
	lostWarn int
}

func newBoard(after time.Duration, limit, warningLimit int) *board {
	return &board{after: after, limit: limit, warningLimit: warningLimit,
		verdicts: make(map[objectKey]verdict), warnings: make(map[string]apiclient.EventAbout)}
}

// observe judges obj, an object of r, at now and keeps the verdict if it is
// or will be a problem, forgetting an earlier one otherwise.
func (b *board) observe(r apiclient.Resource, obj *unstructured.Unstructured, now time.Time) {
	v := judge(r, obj, now, b.after)
	k := keyOf(r, obj.GetNamespace(), obj.GetName())
	b.mu.Lock()
	defer b.mu.Unlock()
	if v.problem == nil || (!v.until.IsZero() && !now.Before(v.until)) {
		delete(b.verdicts, k)
		return
	}
	if _, ok := b.verdicts[k]; !ok && len(b.verdicts) >= b.limit {
		b.lost++
		return
	}
	v.problem.Message = truncate(v.problem.Message, maxMessage)
	b.verdicts[k] = v
}

// forget drops the verdict of a deleted object.
func (b *board) forget(r apiclient.Resource, namespace, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.verdicts, keyOf(r, namespace, name))
}

// forgetKind drops every verdict of r, before r is listed anew.
func (b *board) forgetKind(r apiclient.Resource) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.verdicts {
		if k.group == r.Group && k.resource == r.Name {
			delete(b.verdicts, k)
		}
	}
}

// observeEvent keeps obj, an item of the events resource r, if it is a
// Warning; a malformed event is dropped (false).
func (b *board) observeEvent(r apiclient.Resource, obj *unstructured.Unstructured) bool {
	e, err := apiclient.EventOf(r, obj)
	if err != nil {
		return false
	}
	uid := string(obj.GetUID())
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.Type != corev1.EventTypeWarning {
		delete(b.warnings, uid)
		return true
	}
	if _, ok := b.warnings[uid]; !ok && len(b.warnings) >= b.warningLimit {
		b.lostWarn++
		return true
	}
	e.Message = truncate(e.Message, maxMessage)
	b.warnings[uid] = e
	return true
}

// forgetEvents drops every event, before the events are listed anew.
func (b *board) forgetEvents() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.warnings)
}

func (b *board) forgetEvent(uid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.warnings, uid)
}

// maxMessage bounds a message kept: events and conditions may carry
// kilobytes (a stack trace), and a row shows a line.
const maxMessage = 512

// WarningGroup is the Warning events about one object with one reason.
type WarningGroup struct {
	Regarding corev1.ObjectReference
	Reason    string
	// Message is the newest event's.
	Message string
	// Count sums the events' counts; Events is how many Event objects.
	Count, Events int
	First, Last   time.Time
}

// Report is the board at an instant.
type Report struct {
	// Problems are each category's problems, newest first, at most shown.
	Problems [categories][]Problem
	// Counts are each category's problems (and warning groups), shown or
	// not.
	Counts [categories]int
	// Warnings are the Warning event groups, last seen first, at most
	// shown.
	Warnings []WarningGroup
	// Lost says problems or events were not tracked: the board was full.
	Lost, LostWarnings int
	// Limit is how many problems the board keeps.
	Limit int
}

// report is the board at now, with at most shown rows a section.
func (b *board) report(now time.Time, shown int) Report {
	b.mu.Lock()
	var rep Report
	for _, v := range b.verdicts {
		if v.at(now) {
			p := *v.problem
			rep.Problems[p.Category] = append(rep.Problems[p.Category], p)
		}
	}
	type groupKey struct {
		uid, kind, namespace, name, reason string
	}
	groups := map[groupKey]*WarningGroup{}
	for _, e := range b.warnings {
		k := groupKey{string(e.Regarding.UID), e.Regarding.Kind, e.Regarding.Namespace, e.Regarding.Name, e.Reason}
		g := groups[k]
		if g == nil {
			g = &WarningGroup{Regarding: e.Regarding, Reason: e.Reason, First: e.FirstSeen}
			groups[k] = g
		}
		g.Count += int(e.Count)
		g.Events++
		if !e.FirstSeen.IsZero() && (g.First.IsZero() || e.FirstSeen.Before(g.First)) {
			g.First = e.FirstSeen
		}
		if !e.LastSeen.Before(g.Last) {
			g.Last, g.Message = e.LastSeen, e.Message
		}
	}
	rep.Lost, rep.LostWarnings, rep.Limit = b.lost, b.lostWarn, b.limit
	b.mu.Unlock()

	for c := range rep.Problems {
		rep.Counts[c] = len(rep.Problems[c])
		slices.SortFunc(rep.Problems[c], func(x, y Problem) int {
			return cmp.Or(y.Since.Compare(x.Since), cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Resource.Name, y.Resource.Name), cmp.Compare(x.Name, y.Name))
		})
		rep.Problems[c] = rep.Problems[c][:min(len(rep.Problems[c]), shown)]
	}
	for _, g := range groups {
		rep.Warnings = append(rep.Warnings, *g)
	}
	rep.Counts[Warnings] = len(rep.Warnings)
	slices.SortFunc(rep.Warnings, func(x, y WarningGroup) int {
		return cmp.Or(y.Last.Compare(x.Last), cmp.Compare(x.Regarding.Namespace, y.Regarding.Namespace), cmp.Compare(x.Regarding.Name, y.Regarding.Name), cmp.Compare(x.Reason, y.Reason))
	})
	rep.Warnings = rep.Warnings[:min(len(rep.Warnings), shown)]
	return rep
}

// nextChange is the first instant after now at which a tracked verdict
// starts or stops showing (zero: none will).
func (b *board) nextChange(now time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	var next time.Time
	for _, v := range b.verdicts {
		for _, t := range []time.Time{v.from, v.until} {
			if t.After(now) && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	return next
}

// kindsWithProblems are the kinds (group and resource name) with a tracked
// verdict: the live page watches them first.
func (b *board) kindsWithProblems() map[[2]string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[[2]string]bool{}
	for k := range b.verdicts {
		out[[2]string{k.group, k.resource}] = true
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut at a rune boundary.
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
