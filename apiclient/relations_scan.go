package apiclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// RelateOptions say how far Relate looks, and at what cost.
type RelateOptions struct {
	// Hops is how far from the focus the graph reaches: 1 for the focus's
	// own relations (the object page), 2 for theirs too (the map). The
	// focus's owners are followed up to the root whatever Hops says. Its
	// application's peers are found at one hop only: on a map of two they
	// would crowd out what is connected (the namespace map groups them).
	Hops int
	// Budget bounds the scan; zero fields take DefaultRelateBudget's.
	Budget RelateBudget
	// ScaleSelector is the focus's scale subresource selector
	// (status.selector of its scale), which declares what it selects when
	// its schema does not.
	ScaleSelector string
	// Fresh lists every kind anew, reusing none of the user's lists of a
	// moment ago.
	Fresh bool
}

// orDefaults fills b's zero fields from DefaultRelateBudget.
func (b RelateBudget) orDefaults() RelateBudget {
	d := DefaultRelateBudget()
	b.MaxKinds = cmp.Or(b.MaxKinds, d.MaxKinds)
	b.Concurrency = cmp.Or(b.Concurrency, d.Concurrency)
	b.PerRequest = cmp.Or(b.PerRequest, d.PerRequest)
	b.Total = cmp.Or(b.Total, d.Total)
	b.PageSize = cmp.Or(b.PageSize, d.PageSize)
	b.MaxObjects = cmp.Or(b.MaxObjects, d.MaxObjects)
	b.MaxNodes = cmp.Or(b.MaxNodes, d.MaxNodes)
	b.MaxNamespaceNodes = cmp.Or(b.MaxNamespaceNodes, d.MaxNamespaceNodes)
	b.MaxGets = cmp.Or(b.MaxGets, d.MaxGets)
	b.EmptyFor = cmp.Or(b.EmptyFor, d.EmptyFor)
	b.ReuseFor = cmp.Or(b.ReuseFor, d.ReuseFor)
	return b
}

// maxOwnerChain bounds how far up ownerReferences are followed: real
// chains are two or three long (Deployment → ReplicaSet → Pod).
const maxOwnerChain = 8

// Relate finds how focus (an object of r) is connected to other objects,
// from the conventions alone: ownerReferences, label selectors and
// references declared in the kinds' OpenAPI v3 schemas, and the
// recommended app.kubernetes.io labels. Everything is read with c's
// identity, so the graph holds only what that identity may read.
//
// For a namespaced focus it lists the namespace's kinds (decoded an item
// at a time and kept as small records; metadata alone for kinds whose
// schema declares no links and no status) within opts.Budget: kinds found
// related to this kind before go first, kinds found empty in the namespace
// a moment ago are skipped, the same user's lists of a moment ago are
// reused unless opts.Fresh, and every kind left out is in Scan.Skipped
// with why. Objects it did not list (owners up
// the chain, cluster-scoped references) are read one by one, up to
// Budget.MaxGets. For a cluster-scoped focus nothing is listed: its own
// owners, references and selections are followed, and Scan.Notes says
// that what points at it was not looked for.
//
// The only error is ctx's: a scan that ran out of time or budget returns
// what it found.
func (c *Client) Relate(ctx context.Context, d *Discovery, r Resource, focus *unstructured.Unstructured, opts RelateOptions) (*Graph, error) {
	start := time.Now()
	s, ctx, done := c.newScan(ctx, d, opts, focus.GetNamespace())
	defer done()
	s.readIndex(ctx)
	fr := newRecord(r, focus, s.kindLinks(ctx, r))
	if opts.ScaleSelector != "" && !hasSelector(fr) {
		if sel, err := labels.Parse(opts.ScaleSelector); err == nil && !sel.Empty() {
			fr.targets = append(fr.targets, FieldTarget{Link: &FieldLink{Selector: true, KindHints: []string{"Pod"}}, Path: "scale: status.selector", Selector: sel})
		}
	}
	learned := learnKey{context: c.context, id: c.idKey, group: r.Group, kind: r.Kind}
	if r.Namespaced {
		s.list(ctx, s.candidates(c.relations.related(learned, start)))
	} else {
		s.scan.Notes = append(s.scan.Notes, "Objects that own, select or reference a cluster-scoped object are not looked for: that would mean listing every namespace.")
	}
	s.idx.put(fr)
	s.idx.finish(d)
	b := &graphBuilder{s: s, nodes: map[objKey]int{}, links: map[linkID]bool{}, g: &Graph{Focus: 0}}
	b.build(ctx, fr, max(opts.Hops, 1))
	c.relations.learn(learned, b.relatedKinds(), start)
	g := b.g
	g.Scan = s.report(start)
	return g, s.parent.Err()
}

// NamespaceGraph lists the namespace's kinds as Relate does (opts.Hops and
// ScaleSelector do not apply) and returns every object read (up to
// Budget.MaxNamespaceNodes) with the ownerReferences among them, for a map grouped
// by owner roots and applications. Focus is -1. The only error is ctx's.
func (c *Client) NamespaceGraph(ctx context.Context, d *Discovery, namespace string, opts RelateOptions) (*Graph, error) {
	start := time.Now()
	s, ctx, done := c.newScan(ctx, d, opts, namespace)
	defer done()
	s.readIndex(ctx)
	s.list(ctx, s.candidates(nil))
	s.idx.finish(d)
	s.b.MaxNodes = s.b.MaxNamespaceNodes
	b := &graphBuilder{s: s, nodes: map[objKey]int{}, links: map[linkID]bool{}, g: &Graph{Focus: -1}}
	for _, rec := range s.idx.all {
		b.node(rec, 0)
	}
	for _, rec := range s.idx.all {
		from, ok := b.nodes[rec.key()]
		for _, child := range s.idx.children[rec.uid] {
			if to, kept := b.nodes[child.key()]; ok && kept {
				b.link(from, to, Owns, ownerWhy(child, rec.uid))
			}
		}
	}
	b.g.Scan = s.report(start)
	return b.g, s.parent.Err()
}

// scan is one relation scan's state.
type scan struct {
	c         *Client
	d         *Discovery
	b         RelateBudget
	namespace string
	count     RequestCount
	// parent is the caller's context: the scan's own deadline is not an
	// error, the request going away is.
	parent context.Context

	fresh     bool
	mu        sync.Mutex
	idx       *index
	scan      Scan
	noOpenAPI bool
}

func (c *Client) newScan(ctx context.Context, d *Discovery, opts RelateOptions, namespace string) (*scan, context.Context, func()) {
	s := &scan{c: c, d: d, b: opts.Budget.orDefaults(), fresh: opts.Fresh, namespace: namespace, idx: newIndex(), parent: ctx}
	ctx = CountRequests(ctx, &s.count)
	// The kinds a scan lists are its choice, not the user's: their
	// deprecation warnings (v1 Endpoints) are not the page's to show.
	ctx, _ = WithWarnings(ctx)
	ctx, cancel := context.WithTimeout(ctx, s.b.Total)
	return s, ctx, cancel
}

func (s *scan) report(start time.Time) Scan {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.scan
	out.Requests = int(s.count.Load())
	out.NoOpenAPI = s.noOpenAPI
	out.Elapsed = time.Since(start)
	return out
}

func (s *scan) skip(r Resource, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scan.Skipped = append(s.scan.Skipped, Skipped{Resource: r, Reason: reason})
}

// readIndex reads the OpenAPI v3 index once for the scan: every kind's
// schema is found through it, and a server without one has no schemas.
func (s *scan) readIndex(ctx context.Context) {
	if _, err := s.c.linksIndex(ctx); errors.Is(err, ErrNoOpenAPI) {
		s.noOpenAPI = true
	}
}

// kindLinks is r's links, or nil (noted in NoSchema) when its schema
// cannot be read.
func (s *scan) kindLinks(ctx context.Context, r Resource) *KindLinks {
	if s.noOpenAPI {
		return nil
	}
	links, err := s.c.KindLinks(ctx, r)
	if err != nil {
		s.mu.Lock()
		s.scan.NoSchema = append(s.scan.NoSchema, r)
		s.mu.Unlock()
		return nil
	}
	return links
}

// candidates are the namespaced kinds a scan may list, learned ones
// first, less those found empty a moment ago (skipped, with when).
func (s *scan) candidates(learned map[string]bool) []Resource {
	now := time.Now()
	watches := s.serverWatches()
	var first, rest []Resource
	for _, g := range s.d.Groups {
		for _, r := range g.Resources {
			if !r.Namespaced || !r.Can("list") || IsEventsResource(r) {
				continue
			}
			if watches && !r.Can("watch") {
				// On a server that watches what it stores, a kind it cannot
				// watch is computed (metrics.k8s.io's usage): nothing owns,
				// selects or names it.
				s.skip(r, "not stored objects: the server cannot watch them")
				continue
			}
			k := emptyKey{context: s.c.context, id: s.c.idKey, namespace: s.namespace, resource: resourceKey(r)}
			if at, ok := s.c.relations.emptySince(k, s.b.EmptyFor, now); ok {
				s.skip(r, fmt.Sprintf("none here %s ago", now.Sub(at).Round(time.Second)))
				continue
			}
			if learned[resourceKey(r)] {
				first = append(first, r)
			} else {
				rest = append(rest, r)
			}
		}
	}
	out := append(first, rest...)
	if len(out) > s.b.MaxKinds {
		for _, r := range out[s.b.MaxKinds:] {
			s.skip(r, fmt.Sprintf("over the scan's budget of %d kinds", s.b.MaxKinds))
		}
		out = out[:s.b.MaxKinds]
	}
	return out
}

// serverWatches says some kind of the server can be watched: a server
// copying the conventions may serve no watch at all.
func (s *scan) serverWatches() bool {
	for _, g := range s.d.Groups {
		for _, r := range g.Resources {
			if r.Can("watch") {
				return true
			}
		}
	}
	return false
}

// IsEventsResource says r holds events (core or events.k8s.io): they are
// about objects, so fan-outs over a namespace's objects leave them out.
func IsEventsResource(r Resource) bool {
	return r.Name == "events" && (r.Group == "" || r.Group == "events.k8s.io")
}

// list lists kinds in the scan's namespace, Concurrency at a time, each
// within PerRequest, reusing the user's lists of a moment ago unless the
// scan is fresh.
func (s *scan) list(ctx context.Context, kinds []Resource) {
	s.mu.Lock()
	s.scan.Asked = append(s.scan.Asked, kinds...)
	s.mu.Unlock()
	sem := make(chan struct{}, s.b.Concurrency)
	var wg sync.WaitGroup
	for _, r := range kinds {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			s.skip(r, fmt.Sprintf("not asked: the scan's %s ran out", s.b.Total))
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			s.listKind(ctx, r)
		})
	}
	wg.Wait()
}

func (s *scan) listKind(ctx context.Context, r Resource) {
	k := emptyKey{context: s.c.context, id: s.c.idKey, namespace: s.namespace, resource: resourceKey(r)}
	if !s.fresh {
		if l, ok := s.c.relations.list(k, s.b.ReuseFor, time.Now()); ok {
			s.keep(r, l, time.Since(l.at))
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.b.PerRequest)
	defer cancel()
	links := s.kindLinks(ctx, r)
	l := &cachedList{at: time.Now()}
	n, err := s.c.listRecords(ctx, r, s.namespace, "", s.b.PageSize, s.b.MaxObjects, links, func(rec *record) {
		l.records = append(l.records, rec)
	})
	if err == nil || errors.Is(err, ErrListCut) {
		l.complete = err == nil
		s.c.relations.setEmpty(k, n == 0, s.b.EmptyFor, time.Now())
		s.c.relations.keepList(k, l, s.b.ReuseFor, time.Now())
		s.keep(r, l, -1)
	}
	if err != nil {
		s.skip(r, listFailure(err, n, s.b))
	}
}

// listFailure says why a kind's list gave no (complete) answer.
func listFailure(err error, n int, b RelateBudget) string {
	return ListFailure(err, n, b.PerRequest, "the scan")
}

// ListFailure says, for a page that names the kinds it could not read,
// why a kind's list gave no whole answer: cut after read objects, refused,
// not answered within limit, or not answered because the page (the
// reader, named by reader: "the scan") ended first.
func ListFailure(err error, read int, limit time.Duration, reader string) string {
	switch {
	case errors.Is(err, ErrListCut):
		return fmt.Sprintf("read only its first %d objects", read)
	case apierrors.IsForbidden(err):
		return "forbidden: you may not list it here"
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err):
		if read > 0 {
			return fmt.Sprintf("no whole answer within %s (%d objects read)", limit, read)
		}
		return fmt.Sprintf("no answer within %s", limit)
	case errors.Is(err, context.Canceled):
		return "not answered: " + reader + " ended"
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return "failed: " + msg
}

// keep adds a kind's list to the scan's index; age is how old a reused
// list is (negative: listed by this scan).
func (s *scan) keep(r Resource, l *cachedList, age time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range l.records {
		s.idx.add(rec)
	}
	s.idx.listed[resourceKey(r)] = l.complete
	if age >= 0 {
		s.scan.Reused++
		s.scan.ReusedAge = max(s.scan.ReusedAge, age)
	}
}

// index holds a scan's records, looked up by key, UID and owner.
type index struct {
	byKey      map[objKey]*record
	byUID      map[types.UID]*record
	listed     map[string]bool // resourceKey → listed completely (false: partly)
	all        []*record
	children   map[types.UID][]*record
	byResource map[string][]*record
	// referrers and selectors invert the records' targets: who names an
	// object, and which selectors select objects of a resource.
	referrers map[objKey][]referrer
	selectors map[string][]selection
}

type referrer struct {
	rec  *record
	path string
}

type selection struct {
	rec    *record
	target *FieldTarget
}

func newIndex() *index {
	return &index{byKey: map[objKey]*record{}, byUID: map[types.UID]*record{}, listed: map[string]bool{}}
}

// put adds rec, in place of the record of the same object if there is one
// (the focus, read afresh, replaces its listed self). Records are shared
// between scans, so the old one is replaced, never changed.
func (x *index) put(rec *record) {
	old, ok := x.byKey[rec.key()]
	if !ok {
		x.add(rec)
		return
	}
	x.byKey[rec.key()] = rec
	if old.uid != "" {
		delete(x.byUID, old.uid)
	}
	if rec.uid != "" {
		x.byUID[rec.uid] = rec
	}
	x.all[slices.Index(x.all, old)] = rec
}

func (x *index) add(rec *record) {
	if _, ok := x.byKey[rec.key()]; ok {
		return
	}
	x.byKey[rec.key()] = rec
	if rec.uid != "" {
		x.byUID[rec.uid] = rec
	}
	x.all = append(x.all, rec)
}

// finish sorts the records, so graphs do not depend on which list answered
// first, and builds the lookups.
func (x *index) finish(d *Discovery) {
	slices.SortFunc(x.all, func(a, b *record) int {
		return cmp.Or(cmp.Compare(a.res.Group, b.res.Group), cmp.Compare(a.res.Name, b.res.Name),
			cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
	})
	x.children = map[types.UID][]*record{}
	x.byResource = map[string][]*record{}
	x.referrers = map[objKey][]referrer{}
	x.selectors = map[string][]selection{}
	for _, rec := range x.all {
		x.index(d, rec)
	}
}

// index adds rec to the lookups.
func (x *index) index(d *Discovery, rec *record) {
	for _, o := range rec.owners {
		x.children[o.UID] = append(x.children[o.UID], rec)
	}
	x.byResource[resourceKey(rec.res)] = append(x.byResource[resourceKey(rec.res)], rec)
	for i := range rec.targets {
		t := &rec.targets[i]
		res, ok := ResolveTarget(d, rec.res, *t)
		if !ok {
			continue
		}
		if t.Selector != nil {
			x.selectors[resourceKey(res)] = append(x.selectors[resourceKey(res)], selection{rec: rec, target: t})
			continue
		}
		x.referrers[targetKey(res, rec, *t)] = append(x.referrers[targetKey(res, rec, *t)], referrer{rec: rec, path: t.Path})
	}
}

// targetKey is the object a reference of rec names: in rec's namespace
// unless it says otherwise, and in none for a cluster-scoped kind.
func targetKey(res Resource, rec *record, t FieldTarget) objKey {
	return keyOf(res, cmp.Or(t.Namespace, rec.namespace), t.Name)
}

func hasSelector(rec *record) bool {
	return slices.ContainsFunc(rec.targets, func(t FieldTarget) bool { return t.Selector != nil })
}

// graphBuilder turns a scan's index into a Graph.
type graphBuilder struct {
	s     *scan
	g     *Graph
	nodes map[objKey]int
	links map[linkID]bool
	gets  int
	// appOnly are the nodes only the focus's application brought in; their
	// own relations are not followed.
	appOnly map[int]bool
	hops    int
}

type linkID struct {
	from, to int
	relation Relation
	why      string
}

// queued is a node still to expand.
type queued struct {
	node int
	rec  *record
	hop  int
}

func (b *graphBuilder) build(ctx context.Context, focus *record, hops int) {
	b.appOnly = map[int]bool{}
	b.hops = hops
	b.node(focus, 0)
	queue := []queued{{node: 0, rec: focus, hop: 0}}
	b.ownerChain(ctx, 0, focus, 0)
	// The owners up the chain are expanded as any node at their hop.
	queue = b.queueNew(queue, 1)
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if q.hop >= hops {
			continue
		}
		before := len(b.g.Nodes)
		b.expand(ctx, q.node, q.rec, q.hop)
		queue = b.queueNew(queue, before)
	}
}

// queueNew queues the nodes from index from on that have a record to
// expand.
func (b *graphBuilder) queueNew(queue []queued, from int) []queued {
	for i := from; i < len(b.g.Nodes); i++ {
		n := b.g.Nodes[i]
		if n.Resource.Name == "" || b.appOnly[i] {
			continue
		}
		if rec, ok := b.s.idx.byKey[keyOf(n.Resource, n.Namespace, n.Name)]; ok {
			queue = append(queue, queued{node: i, rec: rec, hop: n.Hop})
		}
	}
	return queue
}

// relatedKinds are the resource keys of the focus's direct relations.
func (b *graphBuilder) relatedKinds() []string {
	related := map[string]bool{}
	for _, l := range b.g.Links {
		other := l.To
		if l.To == 0 {
			other = l.From
		}
		if (l.From == 0 || l.To == 0) && other != 0 && b.g.Nodes[other].Resource.Name != "" {
			related[resourceKey(b.g.Nodes[other].Resource)] = true
		}
	}
	return slices.Collect(maps.Keys(related))
}

// node adds rec's node (or finds it), at hop; -1 when the graph is full.
func (b *graphBuilder) node(rec *record, hop int) int {
	if i, ok := b.nodes[rec.key()]; ok {
		b.g.Nodes[i].Hop = min(b.g.Nodes[i].Hop, hop)
		return i
	}
	return b.add(rec.key(), Node{Resource: rec.res, Namespace: rec.namespace, Name: rec.name, UID: rec.uid, Health: rec.health, HealthMessage: rec.message, Hop: hop, App: rec.app})
}

func (b *graphBuilder) add(k objKey, n Node) int {
	if len(b.g.Nodes) >= b.s.b.MaxNodes {
		b.s.mu.Lock()
		b.s.scan.Truncated = true
		b.s.mu.Unlock()
		return -1
	}
	b.nodes[k] = len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, n)
	return len(b.g.Nodes) - 1
}

// phantom is a node for an object the scan knows only by a name pointing
// at it: not found, not readable, or not read.
func (b *graphBuilder) phantom(r Resource, namespace, name string, health Health, msg string, hop int) int {
	k := keyOf(r, namespace, name)
	if r.Name == "" {
		k = objKey{group: r.Group, resource: "kind:" + r.Kind, namespace: namespace, name: name}
	}
	if i, ok := b.nodes[k]; ok {
		return i
	}
	return b.add(k, Node{Resource: r, Namespace: namespace, Name: name, Health: health, HealthMessage: msg, Hop: hop})
}

func (b *graphBuilder) link(from, to int, rel Relation, why string) {
	if from < 0 || to < 0 || from == to {
		return
	}
	id := linkID{from: from, to: to, relation: rel, why: why}
	if b.links[id] {
		return
	}
	b.links[id] = true
	b.g.Links = append(b.g.Links, Link{From: from, To: to, Relation: rel, Why: why})
}

// ownerWhy says which ownerReference of child names owner.
func ownerWhy(child *record, owner types.UID) string {
	for _, o := range child.owners {
		if o.UID == owner && o.Controller != nil && *o.Controller {
			return "ownerReferences (controller)"
		}
	}
	return "ownerReferences"
}

// ownerChain adds rec's owners and theirs, up to the root, reading the
// ones the scan did not list.
func (b *graphBuilder) ownerChain(ctx context.Context, i int, rec *record, depth int) {
	if depth >= maxOwnerChain || i < 0 {
		return
	}
	for _, ref := range rec.owners {
		owner := b.s.idx.byUID[ref.UID]
		if owner == nil {
			owner = b.fetchOwner(ctx, rec, ref.APIVersion, ref.Kind, ref.Name, ref.UID, depth+1)
			if owner == nil {
				continue
			}
		}
		j := b.node(owner, depth+1)
		b.link(j, i, Owns, ownerWhy(rec, owner.uid))
		b.ownerChain(ctx, j, owner, depth+1)
	}
}

// fetchOwner reads an owner the lists did not cover; when it cannot, the
// owner is a phantom node linked to child, and fetchOwner returns nil.
func (b *graphBuilder) fetchOwner(ctx context.Context, child *record, apiVersion, kind, name string, uid types.UID, hop int) *record {
	i := b.nodes[child.key()]
	gv, _ := schema.ParseGroupVersion(apiVersion)
	r, ok := b.s.d.ForKind(apiVersion, kind)
	if !ok {
		j := b.phantom(Resource{Group: gv.Group, Version: gv.Version, Kind: kind}, child.namespace, name, HealthUnknown, "The server does not serve this kind.", hop)
		b.link(j, i, Owns, ownerWhy(child, uid))
		return nil
	}
	rec, health, msg := b.get(ctx, r, child.namespace, name)
	if rec == nil || rec.uid != uid {
		if rec != nil {
			health, msg = HealthNotFound, "An object of this name exists, but with another UID: the owner was deleted."
		}
		j := b.phantom(r, nsFor(r, child.namespace), name, health, msg, hop)
		b.link(j, i, Owns, ownerWhy(child, uid))
		return nil
	}
	return rec
}

func nsFor(r Resource, namespace string) string {
	if !r.Namespaced {
		return ""
	}
	return namespace
}

// get reads one object the lists did not cover, within the budget of
// reads, and indexes it; when it cannot, it says what the node's health is.
func (b *graphBuilder) get(ctx context.Context, r Resource, namespace, name string) (*record, Health, string) {
	k := keyOf(r, namespace, name)
	if rec, ok := b.s.idx.byKey[k]; ok {
		return rec, "", ""
	}
	if b.s.idx.listed[resourceKey(r)] && nsFor(r, namespace) == b.s.namespace && r.Namespaced {
		return nil, HealthNotFound, fmt.Sprintf("No %s of this name in %s.", r.Kind, namespace)
	}
	if b.gets >= b.s.b.MaxGets {
		return nil, HealthUnread, fmt.Sprintf("Not read: the scan reads at most %d objects one by one.", b.s.b.MaxGets)
	}
	if ctx.Err() != nil {
		return nil, HealthUnread, "Not read: the scan ran out of time."
	}
	b.gets++
	obj, err := b.s.c.GetObject(ctx, r, nsFor(r, namespace), name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, HealthNotFound, "Not found (or not readable by you)."
	case apierrors.IsForbidden(err):
		return nil, HealthUnknown, "Forbidden: you may not read it."
	case err != nil:
		return nil, HealthUnknown, "Could not be read: " + err.Error()
	}
	rec := newRecord(r, obj, nil)
	b.s.idx.add(rec)
	b.s.idx.index(b.s.d, rec)
	return rec, "", ""
}

// expand adds the relations of the node i (whose record is rec) at hop:
// its owners, owned objects and what it selects and references; for the
// focus also what selects and references it, and its application. Only the
// focus reads objects the lists did not cover.
func (b *graphBuilder) expand(ctx context.Context, i int, rec *record, hop int) {
	idx := b.s.idx
	focus := hop == 0
	if !focus {
		for _, o := range rec.owners {
			if owner := idx.byUID[o.UID]; owner != nil {
				b.link(b.node(owner, hop+1), i, Owns, ownerWhy(rec, o.UID))
			}
		}
	}
	if rec.uid != "" {
		for _, child := range idx.children[rec.uid] {
			b.link(i, b.node(child, hop+1), Owns, ownerWhy(child, rec.uid))
		}
	}
	for ti := range rec.targets {
		t := rec.targets[ti]
		res, ok := ResolveTarget(b.s.d, rec.res, t)
		if t.Selector != nil {
			if ok {
				b.selected(ctx, i, rec, res, t, hop, focus)
			}
			continue
		}
		b.referenced(ctx, i, rec, res, ok, t, hop, focus)
	}
	if !focus {
		// What points at a neighbour is not followed: a ConfigMap or a
		// Node every pod names would bring in the whole namespace.
		return
	}
	for _, ref := range idx.referrers[rec.key()] {
		b.link(b.node(ref.rec, hop+1), i, References, ref.path)
	}
	for _, sel := range idx.selectors[resourceKey(rec.res)] {
		if sel.rec != rec && (!rec.res.Namespaced || sel.rec.namespace == rec.namespace) && sel.target.Selector.Matches(labels.Set(rec.labels)) {
			b.link(b.node(sel.rec, hop+1), i, Selects, sel.target.Path)
		}
	}
	if b.hops == 1 && rec.app != "" {
		// Its peers are the application's roots: what they own is one
		// more hop away, through them.
		why := "app.kubernetes.io/" + rec.app
		for _, o := range idx.all {
			if o != rec && o.app == rec.app && o.namespace == rec.namespace && len(o.owners) == 0 {
				before := len(b.g.Nodes)
				j := b.node(o, hop+1)
				if j >= before {
					b.appOnly[j] = true
				}
				b.link(i, j, SharesApp, why)
			}
		}
	}
}

// selected links rec to the objects of res its selector t matches. For the
// focus, a kind the scan did not list is listed with the selector.
func (b *graphBuilder) selected(ctx context.Context, i int, rec *record, res Resource, t FieldTarget, hop int, focus bool) {
	idx := b.s.idx
	ns := nsFor(res, rec.namespace)
	if _, listed := idx.listed[resourceKey(res)]; !listed || ns != b.s.namespace {
		if !focus || ctx.Err() != nil {
			return
		}
		lctx, cancel := context.WithTimeout(ctx, b.s.b.PerRequest)
		_, err := b.s.c.listRecords(lctx, res, ns, t.Selector.String(), b.s.b.PageSize, b.s.b.PageSize, nil, func(r *record) {
			if _, ok := idx.byKey[r.key()]; !ok {
				idx.add(r)
				idx.index(b.s.d, r)
			}
		})
		cancel()
		if err != nil && !errors.Is(err, ErrListCut) {
			b.s.skip(res, "selected by "+t.Path+": "+listFailure(err, 0, b.s.b))
		}
	}
	for _, o := range idx.byResource[resourceKey(res)] {
		if o != rec && nsFor(res, o.namespace) == ns && t.Selector.Matches(labels.Set(o.labels)) {
			b.link(i, b.node(o, hop+1), Selects, t.Path)
		}
	}
}

// referenced links rec to the object its reference t names.
func (b *graphBuilder) referenced(ctx context.Context, i int, rec *record, res Resource, resolved bool, t FieldTarget, hop int, focus bool) {
	if !resolved {
		if t.Kind == "" {
			// A name whose kind only the field's name suggested, and
			// discovery does not know: not a reference after all.
			return
		}
		b.link(i, b.phantom(Resource{Group: t.Group, Version: t.Version, Kind: t.Kind}, t.Namespace, t.Name, HealthUnknown, "The server does not serve this kind.", hop+1), References, t.Path)
		return
	}
	k := targetKey(res, rec, t)
	target, ok := b.s.idx.byKey[k]
	if !ok && !focus {
		return
	}
	if !ok {
		var health Health
		var msg string
		if target, health, msg = b.get(ctx, res, k.namespace, t.Name); target == nil {
			b.link(i, b.phantom(res, k.namespace, t.Name, health, msg, hop+1), References, t.Path)
			return
		}
	}
	b.link(i, b.node(target, hop+1), References, t.Path)
}
