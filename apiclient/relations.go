package apiclient

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Relation is how one object is connected to another, from the first
// object's side: "A owns B" is RelationOwns on the link from A to B.
type Relation string

// The relations Relate finds, each from a convention every kind can follow.
const (
	// Owns: B's metadata.ownerReferences names A's UID.
	Owns Relation = "owns"
	// Selects: a label selector in A's schema (a metav1.LabelSelector, a
	// map-valued "selector", or the scale subresource's selector) matches B.
	Selects Relation = "selects"
	// References: a field of A typed as a reference (ObjectReference and its
	// kin, a "fooRef" object with a name, a "fooName" string) names B.
	References Relation = "references"
	// SharesApp: A and B carry the same app.kubernetes.io/part-of or
	// app.kubernetes.io/instance label.
	SharesApp Relation = "shares-app"
)

// Health is an object's generic status, as kstatus computes it for any kind
// that follows the conditions and observedGeneration conventions.
type Health string

// The healths a node can have: kstatus's, and two of Tabula's own.
const (
	HealthCurrent     Health = "Current"
	HealthInProgress  Health = "InProgress"
	HealthFailed      Health = "Failed"
	HealthTerminating Health = "Terminating"
	HealthUnknown     Health = "Unknown"
	// HealthNotFound: a reference names an object the server does not have
	// (or, as the API answers 404 to both, one the user may not read).
	HealthNotFound Health = "NotFound"
	// HealthUnread: the object was seen only through a reference or its
	// metadata; its status was not read.
	HealthUnread Health = ""
)

// Node is one object of a Graph.
type Node struct {
	// Resource is where the object is served; for a reference to a kind
	// discovery does not know, only Group, Version (if given) and Kind are
	// set, and the node cannot be linked.
	Resource  Resource
	Namespace string
	Name      string
	UID       types.UID
	Health    Health
	// HealthMessage is kstatus's one-line reason ("Ready: False: ...").
	HealthMessage string
	// Hop is the node's distance from the focus (0 for the focus).
	Hop int
	// App is the application the object belongs to by the recommended
	// labels: "part-of=shop" (app.kubernetes.io/part-of), else
	// "instance=web-1" (app.kubernetes.io/instance); empty for none.
	App string
}

// Link is one relation between two nodes of a Graph, with why it holds.
type Link struct {
	From, To int // indexes into Graph.Nodes
	Relation Relation
	// Why is the evidence, in the object's own terms:
	// "ownerReferences (controller)", "spec.selector", "spec.volumes[0].secret.secretName",
	// "app.kubernetes.io/part-of=shop".
	Why string
}

// Skipped is a kind the scan did not ask, or asked without an answer, and why.
type Skipped struct {
	Resource Resource
	Reason   string
}

// Graph is an object's relations, or a namespace's, as found for one
// identity. Nothing in it was read with another identity's rights.
type Graph struct {
	// Focus is the object the graph was built for (index into Nodes); -1 for a namespace graph.
	Focus int
	Nodes []Node
	Links []Link
	// Scan is what the graph cost and what it left out.
	Scan Scan
}

// Scan reports a relation scan's budget and use.
type Scan struct {
	// Requests is the number of upstream requests the scan made.
	Requests int
	// Asked are the kinds listed, in the order they were asked.
	Asked []Resource
	// Skipped are the kinds not listed (budget, access, known empty) or
	// listed without an answer (error, deadline), with why.
	Skipped []Skipped
	// NoSchema are the kinds whose OpenAPI v3 schema could not be read:
	// their selectors and references are not known. All of them when the
	// server serves no OpenAPI v3 (NoOpenAPI).
	NoSchema  []Resource
	NoOpenAPI bool
	// Notes say what the scan could not look at, and why, beyond kinds
	// ("objects that point at a cluster-scoped object are not looked for").
	Notes []string
	// Truncated says the graph stopped at its node cap.
	Truncated bool
	Elapsed   time.Duration
	// Reused is how many of the kinds asked were answered by the same
	// user's lists of a moment ago (within Budget.ReuseFor), the oldest
	// of them listed ReusedAge ago.
	Reused    int
	ReusedAge time.Duration
}

// RelateBudget bounds a relation scan. Zero fields take DefaultRelateBudget's.
type RelateBudget struct {
	// MaxKinds is how many kinds one scan lists, at most.
	MaxKinds int
	// Concurrency is how many lists run at once.
	Concurrency int
	// PerRequest bounds each upstream request.
	PerRequest time.Duration
	// Total bounds the whole scan: kinds not answered by then are skipped.
	Total time.Duration
	// PageSize is the list page size; MaxObjects how many objects of one
	// kind are read, at most (whole pages).
	PageSize   int
	MaxObjects int
	// MaxNodes caps an object's graph, MaxNamespaceNodes a namespace's.
	MaxNodes          int
	MaxNamespaceNodes int
	// MaxGets caps the GETs of referenced objects the lists did not cover
	// (cluster-scoped kinds, or kinds over budget).
	MaxGets int
	// EmptyFor is how long a kind found empty in a namespace is skipped
	// for the same identity.
	EmptyFor time.Duration
	// ReuseFor is how long one identity's list of a kind in a namespace
	// answers that identity's next scans (an object page, then its map).
	ReuseFor time.Duration
}

// DefaultRelateBudget is the budget of an object page's Related section and
// map: 64 kinds, 8 at a time, 3 s each, 5 s in all, 500 objects a page, 2,000
// objects a kind, 80 nodes (400 for a namespace), 16 GETs; a kind found
// empty is skipped for 30 s, and a list answers the same user's scans for
// 3 s.
func DefaultRelateBudget() RelateBudget {
	return RelateBudget{
		MaxKinds:          64,
		Concurrency:       8,
		PerRequest:        3 * time.Second,
		Total:             5 * time.Second,
		PageSize:          500,
		MaxObjects:        2000,
		MaxNodes:          80,
		MaxNamespaceNodes: 400,
		MaxGets:           16,
		EmptyFor:          30 * time.Second,
		ReuseFor:          3 * time.Second,
	}
}
