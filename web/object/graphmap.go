package object

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/page"
)

// The relation map: a graph laid out in layers on the server and drawn as
// inline SVG, with the same graph as a nested list. Directed relations put
// their From above their To (an owner above what it owns, a Service above
// the Pods it selects), so owners and whatever selects or references the
// focus sit above it, and what it owns, selects or references below;
// objects of the same application sit beside it.

// The diagram's geometry, in SVG user units. A row holds at most
// nodesPerRow boxes, so the drawing is never wider than
// nodesPerRow*(nodeWidth+nodeGap)+2*mapPad; a layer shows at most
// nodesPerLayer boxes, the last one "+N more" when there are more.
const (
	nodeWidth     = 172
	nodeHeight    = 46
	nodeGap       = 16
	rowGap        = 14
	layerGap      = 56
	mapPad        = 16
	nodesPerRow   = 5
	nodesPerLayer = 10
	// nameChars is what fits on a box's line at the stylesheet's size.
	nameChars = 22
	// wideMap is the width past which the diagram keeps a minimum size
	// on a phone and scrolls rather than shrink its text away.
	wideMap = 720
)

// relationMap is the ?view=map page body for an object's graph (two hops),
// or, when g.Focus == -1, a namespace map.
func relationMap(u page.URLs, g *apiclient.Graph) *views.RelationMap {
	if g == nil {
		return nil
	}
	m := &views.RelationMap{Scan: scanSummary(g.Scan), Legend: healthLegend(), Relations: relationKeys(g)}
	if g.Focus == -1 {
		m.Namespace = namespaceMap(u, g)
		return m
	}
	if !validNode(g, g.Focus) {
		return m
	}
	m.Object = objectMap(u, g)
	return m
}

func healthLegend() []views.HealthBadge {
	out := slices.Clone(healthBadges)
	out[len(out)-1].Label = "Not read"
	return out
}

// relationKeys are the edge styles of the legend: those g draws.
func relationKeys(g *apiclient.Graph) []views.RelationKey {
	var out []views.RelationKey
	for _, k := range []views.RelationKey{
		{Relation: string(apiclient.Owns), Label: "owns"},
		{Relation: string(apiclient.Selects), Label: "selects"},
		{Relation: string(apiclient.References), Label: "references"},
		{Relation: string(apiclient.SharesApp), Label: "same application"},
	} {
		if slices.ContainsFunc(g.Links, func(l apiclient.Link) bool { return string(l.Relation) == k.Relation }) {
			out = append(out, k)
		}
	}
	return out
}

// placement is where the breadth-first walk from the focus put each node:
// its layer (0 is the focus's, negative above), the node and link it was
// reached through (parent -1 for the focus and for nodes not reached), and
// the order it was reached in.
type placement struct {
	layer  map[int]int
	parent map[int]int
	via    map[int]int // node → index of the link it was reached through
	order  map[int]int
}

// relationRank orders the relations a node can be placed through: an
// owner chain wins over a selector, a selector over a reference, and
// sharing an application comes last.
func relationRank(r apiclient.Relation) int {
	switch r {
	case apiclient.Owns:
		return 0
	case apiclient.Selects:
		return 1
	case apiclient.References:
		return 2
	case apiclient.SharesApp:
		return 4
	}
	return 3
}

// place walks the graph from root breadth first. A node is placed relative
// to the node it is first reached from, one layer below a From, one above
// a To, or beside it for shares-app; hop-2 nodes thus follow the same rule
// relative to their hop-1 node.
func place(g *apiclient.Graph, root int) placement {
	p := placement{layer: map[int]int{root: 0}, parent: map[int]int{root: -1}, via: map[int]int{root: -1}, order: map[int]int{root: 0}}
	byRank := indexes(len(g.Links))
	slices.SortStableFunc(byRank, func(a, b int) int {
		return cmp.Compare(relationRank(g.Links[a].Relation), relationRank(g.Links[b].Relation))
	})
	frontier := map[int]bool{root: true}
	for len(frontier) > 0 {
		next := map[int]bool{}
		for _, li := range byRank {
			l := g.Links[li]
			if !validNode(g, l.From) || !validNode(g, l.To) || l.From == l.To {
				continue
			}
			var at, other, step int
			switch {
			case frontier[l.From] && !placed(p, l.To):
				at, other, step = l.From, l.To, 1
			case frontier[l.To] && !placed(p, l.From):
				at, other, step = l.To, l.From, -1
			default:
				continue
			}
			if l.Relation == apiclient.SharesApp {
				step = 0
			}
			p.layer[other] = p.layer[at] + step
			p.parent[other], p.via[other], p.order[other] = at, li, len(p.order)
			next[other] = true
		}
		frontier = next
	}
	return p
}

func placed(p placement, n int) bool { _, ok := p.layer[n]; return ok }

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func objectMap(u page.URLs, g *apiclient.Graph) *views.ObjectMap {
	p := place(g, g.Focus)
	// A node no link reaches (the engine should send none) still shows,
	// beside the focus.
	for i := range g.Nodes {
		if !placed(p, i) {
			p.layer[i], p.parent[i], p.via[i], p.order[i] = 0, -1, -1, len(p.order)
		}
	}
	focus := g.Nodes[g.Focus]
	// Sharing an application is drawn only where it placed a node: the
	// links between the peers themselves would fill the layer with arcs.
	var edges []int
	for li, l := range g.Links {
		if l.Relation != apiclient.SharesApp || p.via[l.To] == li || p.via[l.From] == li {
			edges = append(edges, li)
		}
	}
	o := &views.ObjectMap{Focus: relatedObject(u, focus)}
	o.Diagram = layout(u, g, p.layer, g.Focus, edges, "#relation-list")
	o.Diagram.Label = fmt.Sprintf("Relation map of %s %s and %d related %s: owners, and objects that select or reference it, above; what it owns, selects or references below; the same application beside it. The list below holds the same graph.",
		kindOf(focus), focus.Name, len(g.Nodes)-1, plural(len(g.Nodes)-1, "object", "objects"))
	o.List = listTree(u, g, p, g.Focus)
	return o
}

// listTree is node n with the nodes placed through it nested under it,
// grouped by relation as n sees them. A link that placed nothing (a second
// path to a node) is listed once, as a leaf under the end reached first;
// shares-app links between peers are left out as in the diagram.
func listTree(u page.URLs, g *apiclient.Graph, p placement, n int) views.RelationListItem {
	item := views.RelationListItem{Object: relatedObject(u, g.Nodes[n])}
	type entry struct {
		views.RelationListItem
		rank  int
		label sideLabel
	}
	var entries []entry
	for li, l := range g.Links {
		if l.From != n && l.To != n || !validNode(g, l.From) || !validNode(g, l.To) || l.From == l.To {
			continue
		}
		other := l.To
		if other == n {
			other = l.From
		}
		var child views.RelationListItem
		switch {
		case p.via[other] == li && p.parent[other] == n:
			child = listTree(u, g, p, other)
		case p.via[n] == li:
			continue // the link from n's parent
		case l.Relation == apiclient.SharesApp:
			continue
		case p.order[other] < p.order[n]:
			continue // listed under other
		default:
			child = views.RelationListItem{Object: relatedObject(u, g.Nodes[other]), Repeat: true}
		}
		child.Why = l.Why
		label, rank := sideOf(l, n)
		entries = append(entries, entry{RelationListItem: child, rank: rank, label: label})
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.label.key, b.label.key), cmp.Compare(boolInt(a.Repeat), boolInt(b.Repeat)),
			compareObjects(a.Object, b.Object))
	})
	for _, e := range entries {
		if k := len(item.Groups); k == 0 || item.Groups[k-1].Relation != e.label.key {
			item.Groups = append(item.Groups, views.RelationListGroup{Relation: e.label.key, Label: e.label.label})
		}
		grp := &item.Groups[len(item.Groups)-1]
		grp.Items = append(grp.Items, e.RelationListItem)
	}
	return item
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// layout draws the nodes of layers (node → layer) and the links edges
// (indexes into g.Links). Within a layer the focus comes first, then nodes
// by kind and name; a layer of more than nodesPerLayer nodes shows
// nodesPerLayer-1 and a "+N more" box linking to moreHref, and edges to the
// hidden nodes go to that box.
func layout(u page.URLs, g *apiclient.Graph, layers map[int]int, focus int, edges []int, moreHref templ.SafeURL) views.MapDiagram {
	byLayer := map[int][]int{}
	for n, l := range layers {
		byLayer[l] = append(byLayer[l], n)
	}
	levels := slices.Sorted(maps.Keys(byLayer))
	// The boxes of each layer, as node indexes; -1 is a layer's "+N more".
	type box struct {
		node, more int
	}
	var rows [][]box
	rowLayer := []int{}
	boxOf := map[int][2]int{} // node → row, column
	widest := 1
	for _, lv := range levels {
		nodes := byLayer[lv]
		slices.SortFunc(nodes, func(a, b int) int {
			return cmp.Or(-cmp.Compare(boolInt(a == focus), boolInt(b == focus)), compareNodes(g, a, b))
		})
		var boxes []box
		if len(nodes) > nodesPerLayer {
			for _, n := range nodes[:nodesPerLayer-1] {
				boxes = append(boxes, box{node: n})
			}
			boxes = append(boxes, box{node: -1, more: len(nodes) - (nodesPerLayer - 1)})
		} else {
			for _, n := range nodes {
				boxes = append(boxes, box{node: n})
			}
		}
		for start := 0; start < len(boxes); start += nodesPerRow {
			row := boxes[start:min(start+nodesPerRow, len(boxes))]
			widest = max(widest, len(row))
			for c, b := range row {
				if b.node >= 0 {
					boxOf[b.node] = [2]int{len(rows), c}
				}
			}
			// Hidden nodes are drawn as their layer's "+N more".
			if last := row[len(row)-1]; last.node == -1 {
				for _, n := range nodes[nodesPerLayer-1:] {
					boxOf[n] = [2]int{len(rows), len(row) - 1}
				}
			}
			rows = append(rows, row)
			rowLayer = append(rowLayer, lv)
		}
	}
	d := views.MapDiagram{Width: 2*mapPad + widest*nodeWidth + (widest-1)*nodeGap}
	d.Wide = d.Width > wideMap
	// Rows are centred; a row after one of the same layer is closer.
	y := mapPad
	pos := make([][]views.MapNode, len(rows))
	for r, row := range rows {
		if r > 0 {
			if rowLayer[r] == rowLayer[r-1] {
				y += rowGap
			} else {
				y += layerGap
			}
		}
		rowWidth := len(row)*nodeWidth + (len(row)-1)*nodeGap
		x := (d.Width - rowWidth) / 2
		for _, b := range row {
			n := views.MapNode{X: x, Y: y, Width: nodeWidth, Height: nodeHeight}
			if b.node == -1 {
				n.More, n.MoreHref = b.more, moreHref
				n.Title = fmt.Sprintf("%d more objects in this layer: see the list", b.more)
			} else {
				obj := g.Nodes[b.node]
				n.Object = relatedObject(u, obj)
				n.Focus = b.node == focus
				n.KindText, n.NameText = truncate(n.Object.Kind, nameChars-4), truncate(obj.Name, nameChars)
				n.Title = nodeTitle(n.Object)
			}
			pos[r] = append(pos[r], n)
			x += nodeWidth + nodeGap
		}
		y += nodeHeight
	}
	d.Height = y + mapPad
	seen := map[[3]string]bool{}
	for _, li := range edges {
		l := g.Links[li]
		fb, okF := boxOf[l.From]
		tb, okT := boxOf[l.To]
		if !okF || !okT || fb == tb {
			continue
		}
		key := [3]string{fmt.Sprint(fb), fmt.Sprint(tb), string(l.Relation)}
		if seen[key] {
			continue
		}
		seen[key] = true
		from, to := pos[fb[0]][fb[1]], pos[tb[0]][tb[1]]
		d.Edges = append(d.Edges, views.MapEdge{
			Path:     edgePath(from, to),
			Relation: string(l.Relation),
			Title:    edgeTitle(from, to, l),
			Arrow:    l.Relation != apiclient.SharesApp,
		})
	}
	for _, row := range pos {
		d.Nodes = append(d.Nodes, row...)
	}
	return d
}

// edgePath runs from the side of from facing to, to the side of to facing
// from: bottom to top between layers, an arc over the row within one.
func edgePath(from, to views.MapNode) string {
	fx, tx := from.CenterX(), to.CenterX()
	switch {
	case from.Y < to.Y:
		y1, y2 := from.Y+from.Height, to.Y
		mid := (y1 + y2) / 2
		return pathC(fx, y1, fx, mid, tx, mid, tx, y2)
	case from.Y > to.Y:
		y1, y2 := from.Y, to.Y+to.Height
		mid := (y1 + y2) / 2
		return pathC(fx, y1, fx, mid, tx, mid, tx, y2)
	}
	lift := min(mapPad+from.Y, 12+abs(tx-fx)/8)
	top := from.Y - lift
	return pathC(fx, from.Y, fx, top, tx, top, tx, to.Y)
}

func pathC(x1, y1, c1x, c1y, c2x, c2y, x2, y2 int) string {
	i := strconv.Itoa
	return "M" + i(x1) + "," + i(y1) + " C" + i(c1x) + "," + i(c1y) + " " + i(c2x) + "," + i(c2y) + " " + i(x2) + "," + i(y2)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func nodeTitle(o views.RelatedObject) string {
	t := o.Kind + " " + o.Name
	if o.Namespace != "" {
		t += " in " + o.Namespace
	}
	t += ": " + o.Health.Label
	if o.Health.Title != "" {
		t += " (" + o.Health.Title + ")"
	}
	return t
}

func edgeTitle(from, to views.MapNode, l apiclient.Link) string {
	name := func(n views.MapNode) string {
		if n.More > 0 {
			return strconv.Itoa(n.More) + " more objects"
		}
		return n.Object.Kind + " " + n.Object.Name
	}
	verb := string(l.Relation)
	if l.Relation == apiclient.SharesApp {
		verb = "shares an application with"
	}
	t := name(from) + " " + verb + " " + name(to)
	if l.Why != "" {
		t += " (" + l.Why + ")"
	}
	return t
}

// truncate shortens s to n characters, marking the cut; the box's title
// holds the whole name.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// namespaceMap groups a namespace's objects by application and, within
// one, by owner root, each root with what it owns.
func namespaceMap(u page.URLs, g *apiclient.Graph) *views.NamespaceMap {
	nm := &views.NamespaceMap{}
	owners := map[int][]int{} // node → the nodes it owns
	owned := map[int]bool{}
	for _, l := range g.Links {
		if l.Relation != apiclient.Owns || !validNode(g, l.From) || !validNode(g, l.To) || l.From == l.To {
			continue
		}
		owners[l.From] = append(owners[l.From], l.To)
		owned[l.To] = true
	}
	for _, n := range g.Nodes {
		if n.Namespace != "" {
			nm.Namespace = n.Namespace
			break
		}
	}
	byObject := func(a, b int) int { return compareNodes(g, a, b) }
	var roots []int
	for i := range g.Nodes {
		if !owned[i] {
			roots = append(roots, i)
		}
	}
	slices.SortFunc(roots, byObject)
	// Each node goes under its first owner by kind and name; a cycle of
	// owners with no root starts its own tree.
	seen := map[int]bool{}
	type tree struct {
		root  int
		nodes []int
		depth map[int]int
	}
	parent := map[int]int{}
	grow := func(root int) tree {
		t := tree{root: root, depth: map[int]int{root: 0}}
		parent[root] = -1
		seen[root] = true
		queue := []int{root}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			t.nodes = append(t.nodes, n)
			kids := slices.Clone(owners[n])
			slices.SortFunc(kids, byObject)
			for _, k := range kids {
				if !seen[k] {
					seen[k] = true
					t.depth[k] = t.depth[n] + 1
					parent[k] = n
					queue = append(queue, k)
				}
			}
		}
		return t
	}
	var trees []tree
	for _, r := range roots {
		trees = append(trees, grow(r))
	}
	for i := range g.Nodes {
		if !seen[i] {
			trees = append(trees, grow(i))
		}
	}
	// A tree belongs to its root's application, or, when the root has no
	// label, to the first one found under it.
	apps := map[string][]tree{}
	for _, t := range trees {
		app := ""
		for _, n := range t.nodes {
			if app = g.Nodes[n].App; app != "" {
				break
			}
		}
		apps[app] = append(apps[app], t)
	}
	names := slices.Sorted(maps.Keys(apps))
	if len(names) > 0 && names[0] == "" {
		names = append(names[1:], "") // "No application" last
	}
	for i, app := range names {
		grp := views.AppGroup{App: app, Label: app, ID: "app-" + strconv.Itoa(i)}
		if app == "" {
			grp.Label = "No application"
		}
		layers := map[int]int{}
		for _, t := range apps[app] {
			grp.Count += len(t.nodes)
			maps.Copy(layers, t.depth)
			grp.Trees = append(grp.Trees, ownerTree(u, g, owners, parent, t.root))
		}
		var edges []int
		for li, l := range g.Links {
			_, f := layers[l.From]
			_, to := layers[l.To]
			if l.Relation == apiclient.Owns && f && to {
				edges = append(edges, li)
			}
		}
		grp.Diagram = layout(u, g, layers, -1, edges, templ.SafeURL("#"+grp.ID))
		grp.Diagram.Label = fmt.Sprintf("Owner trees of %s: %d %s, owners above what they own. The list below holds the same objects.",
			grp.Label, grp.Count, plural(grp.Count, "object", "objects"))
		nm.Apps = append(nm.Apps, grp)
	}
	return nm
}

// ownerTree is n with what it owns nested under it: the nodes its tree
// was grown through it (parent).
func ownerTree(u page.URLs, g *apiclient.Graph, owners map[int][]int, parent map[int]int, n int) views.RelationListItem {
	item := views.RelationListItem{Object: relatedObject(u, g.Nodes[n])}
	kids := slices.Clone(owners[n])
	slices.SortFunc(kids, func(a, b int) int { return compareNodes(g, a, b) })
	var items []views.RelationListItem
	for _, k := range slices.Compact(kids) {
		if p, ok := parent[k]; ok && p == n && k != n {
			items = append(items, ownerTree(u, g, owners, parent, k))
		}
	}
	if len(items) > 0 {
		item.Groups = []views.RelationListGroup{{Relation: "owns", Label: "Owns", Items: items}}
	}
	return item
}

func compareNodes(g *apiclient.Graph, a, b int) int {
	na, nb := g.Nodes[a], g.Nodes[b]
	return cmp.Or(cmp.Compare(kindOf(na), kindOf(nb)), cmp.Compare(na.Name, nb.Name), cmp.Compare(na.Namespace, nb.Namespace), cmp.Compare(a, b))
}
