package views

import (
	"strconv"

	"github.com/a-h/templ"
)

// RelatedObject is one object of a relation graph: a link to its page, with
// its health.
type RelatedObject struct {
	Kind      string
	Name      string
	Namespace string
	// Href is empty for a kind discovery does not know: the name is text.
	Href   templ.SafeURL
	Health HealthBadge
}

// HealthBadge is an object's generic health (kstatus's).
type HealthBadge struct {
	// Health is the value as computed ("Current", "InProgress", …; "" when
	// the status was not read), for tests and tools.
	Health string
	Label  string
	// Class is one of the health-* classes of the stylesheet, never a value
	// taken from API data.
	Class string
	// Title is kstatus's one-line reason.
	Title string
}

// RelatedSection is the object page's Related section: the focus object's
// direct relations, grouped by relation as the focus sees them.
type RelatedSection struct {
	Groups []RelatedGroup
	Scan   ScanSummary
	// MapHref is the object's relation map (?view=map).
	MapHref templ.SafeURL
	// NamespaceMapHref is the map of the object's namespace, where the
	// rest of its application is.
	NamespaceMapHref templ.SafeURL
}

// RelatedGroup is the rows of one relation ("Owned by", "Selects", …).
type RelatedGroup struct {
	// Relation names the relation from the focus's side ("owned-by",
	// "selects", "same-app", …).
	Relation string
	Label    string
	Rows     []RelatedRow
	// More is how many rows the group's cap left out.
	More int
}

// RelatedRow is one link between the focus and another object.
type RelatedRow struct {
	Object RelatedObject
	// Why is the link's evidence ("spec.template.spec.volumes[0].secret.secretName").
	Why string
	// Via names the object between the focus and a farther owner
	// ("ReplicaSet web-5d9"); empty for a direct link.
	Via string
}

// ScanSummary is what a relation scan asked, cost and left out.
type ScanSummary struct {
	// Line is "12 kinds asked in 14 requests, 0.04 s".
	Line    string
	Skipped []SkippedKind
	// NoOpenAPI: the server serves no OpenAPI v3 schema at all.
	NoOpenAPI bool
	// NoSchema are the kinds whose schema could not be read (not listed
	// when NoOpenAPI says it of all of them).
	NoSchema []string
	// Truncated: the graph stopped at its node cap.
	Truncated bool
	// Notes say what the scan did not look at beyond kinds.
	Notes []string
	// Reused says how many kinds came from the user's lists of a moment
	// ago ("12 of them as listed up to 2 s ago"); RefreshHref lists them
	// all anew.
	Reused      string
	RefreshHref templ.SafeURL
}

// SkippedKind is a kind the scan did not ask, or got no answer from.
type SkippedKind struct {
	Kind string
	// Resource is the resource's name as kubectl spells it ("deployments.apps").
	Resource string
	Reason   string
}

// RelationMap is the ?view=map body: an object's relations (Object) or a
// namespace's applications (Namespace), drawn and listed.
type RelationMap struct {
	Object    *ObjectMap
	Namespace *NamespaceMap
	// Legend is every health a node can show.
	Legend []HealthBadge
	// Relations are the edge styles, for the legend.
	Relations []RelationKey
	Scan      ScanSummary
}

// RelationKey is one edge style of the legend.
type RelationKey struct {
	Relation string
	Label    string
}

// ObjectMap is an object's relations, two hops out: a diagram and the same
// graph as a nested list.
type ObjectMap struct {
	Focus RelatedObject
	// NamespaceMapHref is the map of the focus's namespace, where its
	// application's other objects are.
	NamespaceMapHref templ.SafeURL
	Diagram          MapDiagram
	// List is the focus, with its relations nested under it.
	List RelationListItem
}

// MapDiagram is a graph laid out on the server, drawn as inline SVG.
type MapDiagram struct {
	Width, Height int
	// Wide diagrams keep a minimum width on a narrow screen and scroll.
	Wide bool
	// Label is the diagram's accessible name, summarising it.
	Label string
	Edges []MapEdge
	Nodes []MapNode
}

// ViewBox is the diagram's SVG viewBox.
func (d MapDiagram) ViewBox() string {
	return "0 0 " + strconv.Itoa(d.Width) + " " + strconv.Itoa(d.Height)
}

// MapNode is one box of a diagram: an object, or the "+N more" of a layer.
type MapNode struct {
	X, Y, Width, Height int
	Object              RelatedObject
	// KindText and NameText are what fits in the box; Title says it all.
	KindText, NameText string
	Title              string
	Focus              bool
	// More, when positive, makes this the "+N more" box of a crowded
	// layer; it links to the list (MoreHref).
	More     int
	MoreHref templ.SafeURL
}

// KindLine is the box's first line: the kind, and the health where it
// was read (the box's outline shows it too, but not to everyone).
func (n MapNode) KindLine() string {
	if n.Object.Health.Health == "" {
		return n.KindText
	}
	return n.KindText + " · " + n.Object.Health.Label
}

// TextX is where the node's text starts.
func (n MapNode) TextX() int { return n.X + 10 }

// KindY and NameY are the baselines of the node's two lines.
func (n MapNode) KindY() int { return n.Y + 17 }

// NameY is the baseline of the node's name.
func (n MapNode) NameY() int { return n.Y + 35 }

// MoreY is the baseline of a "+N more" box's one line.
func (n MapNode) MoreY() int { return n.Y + n.Height/2 + 5 }

// CenterX is the middle of the box.
func (n MapNode) CenterX() int { return n.X + n.Width/2 }

// MapEdge is one drawn link.
type MapEdge struct {
	// Path is SVG path data, in the diagram's coordinates.
	Path string
	// Relation is the apiclient relation (owns, selects, references,
	// shares-app): it picks the edge's style.
	Relation string
	// Title says which objects the edge links, and why.
	Title string
	// Arrow: the relation has a direction (all but shares-app).
	Arrow bool
}

// RelationListItem is one object of a nested relation list, with the
// objects related to it grouped under it.
type RelationListItem struct {
	Object RelatedObject
	// Why is the evidence of the link from the item's parent.
	Why string
	// Repeat: the object is listed above, with its relations; this entry
	// shows one more link to it.
	Repeat bool
	Groups []RelationListGroup
}

// RelationListGroup is the items of one relation under a list item.
type RelationListGroup struct {
	Relation string
	Label    string
	Items    []RelationListItem
}

// NamespaceMap is a namespace's objects by application, each application's
// objects as owner trees (Deployment → ReplicaSet → Pod).
type NamespaceMap struct {
	Namespace string
	Apps      []AppGroup
}

// AppGroup is one application's objects; App "" is "No application".
type AppGroup struct {
	// App is the application as apiclient names it ("part-of=shop").
	App   string
	Label string
	// ID is the group's element id, unique on the page (the "+N more"
	// boxes of its diagram link to its list).
	ID      string
	Count   int
	Diagram MapDiagram
	// Trees are the owner roots, each with what it owns nested under it.
	Trees []RelationListItem
}
