package object

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// The presentation of a relation graph (apiclient.Graph): the object page's
// Related section here, the map in graphmap.go. Both are pure functions of
// the graph; the engine that finds it lives in apiclient.

// maxRelatedRows caps the rows of one relation group of the Related
// section; the map lists the rest.
const maxRelatedRows = 50

// maxAppRows caps the Same application group lower: an application is
// often the whole namespace, and its map is the namespace map.
const maxAppRows = 8

// A relation as one object of a link sees it: the link's own relation from
// its From side, its reverse from its To side. Their order is the order of
// the groups on the page: the owner chain first.
type side struct {
	relation apiclient.Relation
	incoming bool // the object is the link's To
}

type sideLabel struct {
	key, label string
}

var sides = []struct {
	side
	sideLabel
}{
	{side{apiclient.Owns, true}, sideLabel{"owned-by", "Owned by"}},
	{side{apiclient.Owns, false}, sideLabel{"owns", "Owns"}},
	{side{apiclient.Selects, true}, sideLabel{"selected-by", "Selected by"}},
	{side{apiclient.Selects, false}, sideLabel{"selects", "Selects"}},
	{side{apiclient.References, true}, sideLabel{"referenced-by", "Referenced by"}},
	{side{apiclient.References, false}, sideLabel{"references", "References"}},
	// Sharing an application is symmetric: one group, whichever side.
	{side{apiclient.SharesApp, false}, sideLabel{"same-app", "Same application"}},
}

// sideOf is how the object at index at sees link l, and the group's rank.
func sideOf(l apiclient.Link, at int) (sideLabel, int) {
	s := side{l.Relation, l.To == at && l.From != at}
	if l.Relation == apiclient.SharesApp {
		s.incoming = false
	}
	for i, c := range sides {
		if c.side == s {
			return c.sideLabel, i
		}
	}
	// A relation this console does not know yet: shown under its own name.
	name := string(l.Relation)
	if s.incoming {
		return sideLabel{name + "-by", name + " (by)"}, len(sides)
	}
	return sideLabel{name, name}, len(sides)
}

// relatedSection is the object page's Related section from the focus
// object's graph (hop-1 links only, and the owner chain up to its root).
func relatedSection(u page.URLs, g *apiclient.Graph) *views.RelatedSection {
	if g == nil {
		return nil
	}
	s := &views.RelatedSection{Scan: scanSummary(g.Scan)}
	if !validNode(g, g.Focus) {
		return s
	}
	focus := g.Nodes[g.Focus]
	if focus.Resource.Name != "" {
		s.MapHref = mapHref(u, focus)
	}
	type row struct {
		views.RelatedRow
		rank  int
		depth int // 0 for a link of the focus; n for an owner n links up
		label sideLabel
	}
	var rows []row
	for _, l := range g.Links {
		if l.From != g.Focus && l.To != g.Focus || l.From == l.To {
			continue
		}
		other := l.To
		if other == g.Focus {
			other = l.From
		}
		if !validNode(g, other) {
			continue
		}
		label, rank := sideOf(l, g.Focus)
		rows = append(rows, row{RelatedRow: views.RelatedRow{Object: relatedObject(u, g.Nodes[other]), Why: l.Why}, rank: rank, label: label})
	}
	// The owner chain beyond the direct owners, up to its root(s).
	for _, o := range ownerChain(g, g.Focus) {
		rows = append(rows, row{
			RelatedRow: views.RelatedRow{Object: relatedObject(u, g.Nodes[o.owner]), Why: o.why, Via: kindName(g.Nodes[o.owned])},
			rank:       0, depth: o.depth, label: sides[0].sideLabel,
		})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.label.key, b.label.key), cmp.Compare(a.depth, b.depth),
			compareObjects(a.Object, b.Object), cmp.Compare(a.Why, b.Why))
	})
	for _, r := range rows {
		if n := len(s.Groups); n == 0 || s.Groups[n-1].Relation != r.label.key {
			s.Groups = append(s.Groups, views.RelatedGroup{Relation: r.label.key, Label: r.label.label})
		}
		grp := &s.Groups[len(s.Groups)-1]
		limit := maxRelatedRows
		if grp.Relation == "same-app" {
			limit = maxAppRows
		}
		if len(grp.Rows) == limit {
			grp.More++
			continue
		}
		grp.Rows = append(grp.Rows, r.RelatedRow)
	}
	return s
}

// ownerLink is one owner past the focus's direct owners: owner owns owned,
// depth links above the focus.
type ownerLink struct {
	owner, owned, depth int
	why                 string
}

// ownerChain walks owns links up from the focus's direct owners, breadth
// first, each owner once (ownerReferences can form a cycle on a server that
// does not check them).
func ownerChain(g *apiclient.Graph, focus int) []ownerLink {
	seen := map[int]bool{focus: true}
	var level []int
	for _, l := range g.Links {
		if l.Relation == apiclient.Owns && l.To == focus && validNode(g, l.From) && !seen[l.From] {
			seen[l.From] = true
			level = append(level, l.From)
		}
	}
	var out []ownerLink
	for depth := 2; len(level) > 0; depth++ {
		var next []int
		for _, owned := range level {
			for _, l := range g.Links {
				if l.Relation != apiclient.Owns || l.To != owned || !validNode(g, l.From) || seen[l.From] {
					continue
				}
				seen[l.From] = true
				next = append(next, l.From)
				out = append(out, ownerLink{owner: l.From, owned: owned, depth: depth, why: l.Why})
			}
		}
		level = next
	}
	return out
}

func validNode(g *apiclient.Graph, i int) bool { return i >= 0 && i < len(g.Nodes) }

// mapHref is the object's relation map.
func mapHref(u page.URLs, n apiclient.Node) templ.SafeURL {
	return page.WithQuery(u.Resource(n.Resource, n.Namespace, n.Name), url.Values{"view": {"map"}})
}

// relatedObject links a node to its page; a kind discovery does not know
// has no page.
func relatedObject(u page.URLs, n apiclient.Node) views.RelatedObject {
	o := views.RelatedObject{Kind: kindOf(n), Name: n.Name, Namespace: n.Namespace, Health: healthBadge(n.Health, n.HealthMessage)}
	if n.Resource.Name != "" && n.Name != "" {
		o.Href = u.Resource(n.Resource, n.Namespace, n.Name)
	}
	return o
}

func kindOf(n apiclient.Node) string {
	if n.Resource.Kind != "" {
		return n.Resource.Kind
	}
	if n.Resource.Name != "" {
		return n.Resource.Name
	}
	return "Unknown kind"
}

func kindName(n apiclient.Node) string { return kindOf(n) + " " + n.Name }

func compareObjects(a, b views.RelatedObject) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Namespace, b.Namespace))
}

// healthBadges are the healths the stylesheet knows, in the legend's order.
var healthBadges = []views.HealthBadge{
	{Health: string(apiclient.HealthCurrent), Label: "Current", Class: "health-current"},
	{Health: string(apiclient.HealthInProgress), Label: "In progress", Class: "health-progress"},
	{Health: string(apiclient.HealthFailed), Label: "Failed", Class: "health-failed"},
	{Health: string(apiclient.HealthTerminating), Label: "Terminating", Class: "health-terminating"},
	{Health: string(apiclient.HealthUnknown), Label: "Unknown", Class: "health-unknown"},
	{Health: string(apiclient.HealthNotFound), Label: "Not found", Class: "health-notfound"},
	{Health: string(apiclient.HealthUnread), Label: "—", Class: "health-unread"},
}

// healthBadge shows a health; one the console does not know is shown as
// it is, styled as Unknown, so API data never names a class.
func healthBadge(h apiclient.Health, message string) views.HealthBadge {
	for _, b := range healthBadges {
		if b.Health == string(h) {
			b.Title = message
			if h == apiclient.HealthUnread && message == "" {
				b.Title = "Status not read"
			}
			return b
		}
	}
	return views.HealthBadge{Health: string(h), Label: string(h), Class: "health-unknown", Title: message}
}

// scanSummary says what a scan asked and cost, and what it left out.
func scanSummary(s apiclient.Scan) views.ScanSummary {
	out := views.ScanSummary{
		Line: fmt.Sprintf("%d %s asked in %d %s, %s s.",
			len(s.Asked), plural(len(s.Asked), "kind", "kinds"), s.Requests, plural(s.Requests, "request", "requests"),
			strconv.FormatFloat(s.Elapsed.Seconds(), 'f', 2, 64)),
		NoOpenAPI: s.NoOpenAPI,
		Truncated: s.Truncated,
		Notes:     s.Notes,
	}
	if s.Reused > 0 {
		out.Reused = fmt.Sprintf("%d of them as you listed them up to %.1f s ago.", s.Reused, max(s.ReusedAge, 100*time.Millisecond).Seconds())
	}
	for _, k := range s.Skipped {
		out.Skipped = append(out.Skipped, views.SkippedKind{Kind: cmp.Or(k.Resource.Kind, k.Resource.Name), Resource: kube.ResourceName(k.Resource), Reason: k.Reason})
	}
	if !s.NoOpenAPI {
		for _, r := range s.NoSchema {
			out.NoSchema = append(out.NoSchema, cmp.Or(r.Kind, kube.ResourceName(r)))
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
