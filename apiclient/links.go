package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FieldLink is a field of a kind's schema that connects its objects to others.
// It is found from the API conventions alone: no kind is known in advance.
type FieldLink struct {
	// Path locates the field in the schema: property names, "[]" for array
	// items, "{}" for map values.
	Path []string
	// Selector: a label selector, either metav1.LabelSelector (by $ref to
	// io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector, or structurally: an
	// object whose properties include matchLabels and/or matchExpressions, as
	// CRDs inline it) or, MapSelector, a map of strings named "selector" or
	// "<x>Selector" (Service.spec.selector, Pod.spec.nodeSelector).
	Selector    bool
	MapSelector bool
	// NameField: a reference that is a string field named "<foo>Name"
	// (serviceAccountName, nodeName, claimName, secretName, ...). Otherwise a
	// reference is an object with a string "name" property.
	NameField bool
	// KindHints are the kinds the field's name implies, most specific first,
	// then those its schema type's name implies: "imagePullSecrets" →
	// ImagePullSecret, PullSecret, Secret, ...; "configMapKeyRef" → ConfigMap;
	// a selector's: "selector"/"podSelector" → Pod, "namespaceSelector" →
	// Namespace. They are candidates, not facts: "commonName" hints Common,
	// which no server serves, and ResolveTarget then finds nothing.
	KindHints []string
}

// KindLinks are the FieldLinks of one kind. A KindLinks may be shared by
// every user of a Clusters: do not modify it.
type KindLinks struct {
	Links []FieldLink
	// MetadataOnly: the kind declares no links and no status, and its root
	// keeps no unknown fields, so an object's metadata is all a relation
	// scan reads of it (a ConfigMap, a Secret: never its data).
	MetadataOnly bool
	// Conditions: its status declares conditions (status.conditions), the
	// conventions' vocabulary of health.
	Conditions bool
	// Workload: its spec holds a template of the objects it makes
	// (spec.template, spec.jobTemplate): Deployments, Jobs, CronJobs, and
	// CRDs built the same way.
	Workload bool
}

// Bounds of the schema analysis and of Targets.
const (
	// maxLinkDepth bounds the schema path walked (CRD JSONSchemaProps are
	// recursive, and a hostile schema may nest without end).
	maxLinkDepth = 24
	// maxLinkVisits bounds the schema nodes visited: a schema reaching one
	// type through many paths expands exponentially. A Pod visits about a
	// thousand.
	maxLinkVisits = 1 << 18
	// maxKindLinks bounds the links of one kind; past it the rest are
	// dropped (no real kind comes near).
	maxKindLinks = 512
	// maxTargets bounds the targets of one object, and maxItemsWalked the
	// items of each array or map Targets walks.
	maxTargets     = 256
	maxItemsWalked = 256
	// linksIndexTTL is how long a Client reuses the OpenAPI index for
	// KindLinks. A Client serves one request, but a long stream may keep one.
	linksIndexTTL = 30 * time.Second
)

// labelSelectorSchema is the schema name of metav1.LabelSelector.
const labelSelectorSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"

// KindLinks reads r's schema (KindSchema) and finds its links. Its errors
// are KindSchema's: one wrapping ErrNoOpenAPI means the kind has no schema
// to read, so its links are not known.
//
// The analysis is cached with the schema it comes from (same key, same
// sharing: per context, document URL with ?hash= and kind; a URL without a
// hash is read and analysed every time). The index naming the document is
// fetched as the client's identity once per Client within linksIndexTTL, so
// that a scan asking for many kinds costs one index request, and a cached
// call none.
func (c *Client) KindLinks(ctx context.Context, r Resource) (*KindLinks, error) {
	gvk := r.GroupVersion().WithKind(r.Kind)
	if r.Kind == "" || r.Version == "" {
		return nil, fmt.Errorf("%w: resource %q has no kind or version", ErrNoOpenAPI, r.Name)
	}
	index, err := c.linksIndex(ctx)
	if err != nil {
		return nil, err
	}
	docURL, err := documentURL(index, r.GroupVersion())
	if err != nil {
		return nil, err
	}
	key := kindSchemaKey{context: c.context, url: docURL, gvk: gvk}
	cacheable := hasHash(docURL)
	if cacheable {
		if l, err, ok := c.schemas.links(key); ok {
			return l, err
		}
	}
	raw, err := c.kindSchemaAt(ctx, docURL, gvk)
	if err != nil {
		return nil, err
	}
	links, err := linksOf(raw)
	if err != nil {
		err = fmt.Errorf("%w: the links of %s: %w", ErrNoOpenAPI, gvk, err)
		links = nil
	}
	if cacheable {
		c.schemas.setLinks(key, links, err)
	}
	return links, err
}

// linksIndex is the OpenAPI index, fetched as the client's identity and
// kept by the Client for linksIndexTTL. A failure is not kept.
func (c *Client) linksIndex(ctx context.Context) (map[string]string, error) {
	c.indexMu.Lock()
	defer c.indexMu.Unlock()
	if c.index != nil && time.Since(c.indexAt) < linksIndexTTL {
		return c.index, nil
	}
	index, err := c.openAPIIndex(ctx)
	if err != nil {
		return nil, err
	}
	c.index, c.indexAt = index, time.Now()
	return index, nil
}

// links is the analysis cached beside key's schema: the links, or the
// error of the schema or of its analysis. ok is false until both the
// schema and its analysis are cached.
func (sc *kindSchemaCache) links(key kindSchemaKey) (l *KindLinks, err error, ok bool) {
	if sc == nil {
		return nil, nil, false
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	el, found := sc.entries[key]
	if !found {
		return nil, nil, false
	}
	e := el.Value.(*kindSchemaEntry)
	switch {
	case e.err != nil:
		sc.lru.MoveToFront(el)
		return nil, e.err, true
	case e.analysed:
		sc.lru.MoveToFront(el)
		return e.links, e.linksErr, true
	}
	return nil, nil, false
}

// setLinks caches the analysis of key's schema, if the schema is still
// cached. (The links are small beside the schema: not counted in size.)
func (sc *kindSchemaCache) setLinks(key kindSchemaKey, l *KindLinks, err error) {
	if sc == nil {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if el, ok := sc.entries[key]; ok {
		e := el.Value.(*kindSchemaEntry)
		if !e.analysed {
			e.links, e.linksErr, e.analysed = l, err, true
		}
	}
}

// linkNode is the part of a trimmed schema node (KindSchema's format) that
// links are found from.
type linkNode struct {
	Type                 string               `json:"type"`
	Ref                  string               `json:"$ref"`
	Properties           map[string]*linkNode `json:"properties"`
	Items                *linkNode            `json:"items"`
	AdditionalProperties additionalNode       `json:"additionalProperties"`
	PreserveUnknown      bool                 `json:"x-kubernetes-preserve-unknown-fields"`
}

// additionalNode is additionalProperties: a schema, or true (any value:
// nothing to find in it).
type additionalNode struct{ node *linkNode }

func (a *additionalNode) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	a.node = new(linkNode)
	return json.Unmarshal(b, a.node)
}

var errSchemaTooLarge = errors.New("the schema is too large to analyse")

// linksOf is the pure analysis of KindSchema's JSON: it walks the kind's
// schema from the root, depth first in property order, and returns the
// fields that are label selectors or references.
//
//   - metadata (at any depth) is skipped: ownerReferences are found apart,
//     and a template's labels are the pods'.
//   - A selector is kept only outside arrays, maps and templates (a
//     property named "template" or "<x>Template"): a pod template's
//     selectors are its pods', and affinity terms, topology spread
//     constraints and network policy peers are entries of arrays, which
//     select for another purpose than "these objects belong together".
//   - References are kept everywhere: a pod template's secretName is the
//     workload's as much as its pods'.
func linksOf(raw []byte) (*KindLinks, error) {
	var doc struct {
		Root    string               `json:"root"`
		Schemas map[string]*linkNode `json:"schemas"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding the schema: %w", err)
	}
	root := doc.Schemas[doc.Root]
	if root == nil {
		return nil, fmt.Errorf("the schema has no root %q", doc.Root)
	}
	w := &linkWalker{schemas: doc.Schemas, onPath: map[string]bool{doc.Root: true}}
	for _, name := range slices.Sorted(maps.Keys(root.Properties)) {
		if name == "metadata" {
			continue
		}
		if err := w.visit(name, root.Properties[name], walkState{template: isTemplate(name)}); err != nil {
			return nil, err
		}
	}
	_, status := root.Properties["status"]
	statusNode, specNode := resolve(doc.Schemas, root.Properties["status"]), resolve(doc.Schemas, root.Properties["spec"])
	workload := false
	if specNode != nil {
		for name := range specNode.Properties {
			workload = workload || name == "template" || name == "jobTemplate"
		}
	}
	return &KindLinks{
		Links:        w.links,
		MetadataOnly: len(w.links) == 0 && !status && !root.PreserveUnknown && root.AdditionalProperties.node == nil,
		Conditions:   statusNode != nil && statusNode.Properties["conditions"] != nil,
		Workload:     workload,
	}, nil
}

// resolve is the node n names: itself, or the schema its $ref names.
func resolve(schemas map[string]*linkNode, n *linkNode) *linkNode {
	if n != nil && n.Ref != "" {
		return schemas[n.Ref]
	}
	return n
}

// linkWalker walks a schema, keeping the path and the references on it.
type linkWalker struct {
	schemas map[string]*linkNode
	onPath  map[string]bool
	path    []string
	visits  int
	links   []FieldLink
}

// walkState is what the path so far says about the node.
type walkState struct {
	collection bool // below an array's items or a map's values
	template   bool // below a template
	items      bool // the node is the items of the array named by the field
}

// visit classifies the value of the property name (whose path is w.path
// plus name, or, for items and map values, w.path) and walks into it.
func (w *linkWalker) visit(name string, n *linkNode, st walkState) error {
	if n == nil {
		return nil
	}
	w.visits++
	if w.visits > maxLinkVisits {
		return errSchemaTooLarge
	}
	if len(w.path) >= maxLinkDepth || len(w.links) >= maxKindLinks {
		return nil
	}
	if !st.items {
		w.path = append(w.path, name)
		defer func() { w.path = w.path[:len(w.path)-1] }()
	}
	t, typeName := n, ""
	if n.Ref != "" {
		if w.onPath[n.Ref] {
			return nil // a cycle: what is below was seen above
		}
		t, typeName = w.schemas[n.Ref], n.Ref
		if t == nil {
			return nil
		}
		w.onPath[n.Ref] = true
		defer delete(w.onPath, n.Ref)
	}
	switch {
	case isLabelSelector(typeName, t):
		if !st.collection && !st.template {
			w.add(FieldLink{Selector: true, KindHints: selectorHints(name)})
		}
		return nil
	case isMapSelector(name, t):
		if !st.collection && !st.template {
			w.add(FieldLink{Selector: true, MapSelector: true, KindHints: selectorHints(name)})
		}
		return nil
	case t.Type == "string":
		if isNameField(name) && !st.items {
			w.add(FieldLink{NameField: true, KindHints: fieldHints(name, false)})
		}
		return nil
	case isReference(name, typeName, t):
		w.add(FieldLink{KindHints: appendHints(fieldHints(name, st.items), typeHints(typeName)...)})
		return nil
	}
	if t.Items != nil {
		w.path = append(w.path, "[]")
		err := w.visit(name, t.Items, walkState{collection: true, template: st.template, items: true})
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	if ap := t.AdditionalProperties.node; ap != nil {
		w.path = append(w.path, "{}")
		err := w.visit(name, ap, walkState{collection: true, template: st.template, items: true})
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	for _, p := range slices.Sorted(maps.Keys(t.Properties)) {
		if p == "metadata" {
			continue
		}
		if err := w.visit(p, t.Properties[p], walkState{collection: st.collection, template: st.template || isTemplate(p)}); err != nil {
			return err
		}
	}
	return nil
}

func (w *linkWalker) add(l FieldLink) {
	l.Path = slices.Clone(w.path)
	w.links = append(w.links, l)
}

// isTemplate says a property holds a template of other objects (a pod
// template, a CronJob's jobTemplate, a claim template), whose selectors
// are those objects' own.
func isTemplate(name string) bool {
	return name == "template" || hasCamelSuffix(name, "Template")
}

// isLabelSelector says t is a metav1.LabelSelector, by name or by shape.
func isLabelSelector(typeName string, t *linkNode) bool {
	if typeName == labelSelectorSchema {
		return true
	}
	if t.Type != "" && t.Type != "object" {
		return false
	}
	_, labels := t.Properties["matchLabels"]
	_, exprs := t.Properties["matchExpressions"]
	return labels || exprs
}

// isMapSelector says the field is a map of strings named as a selector.
func isMapSelector(name string, t *linkNode) bool {
	if name != "selector" && !hasCamelSuffix(name, "Selector") {
		return false
	}
	ap := t.AdditionalProperties.node
	return t.Type == "object" && len(t.Properties) == 0 && ap != nil && ap.Type == "string"
}

// isNameField says a string field refers by name: "<foo>Name".
func isNameField(name string) bool {
	return name != "generateName" && hasCamelSuffix(name, "Name")
}

// referenceTypeSuffixes end the names of the types that refer to an object
// by a "name" property: ObjectReference and its kin, SecretReference,
// ServiceReference, SecretKeySelector, ConfigMapEnvSource,
// ConfigMapVolumeSource, SecretProjection, ...
var referenceTypeSuffixes = []string{"Reference", "KeySelector", "EnvSource", "VolumeSource", "Projection"}

// refFieldSuffixes end the names of reference fields, as the conventions
// ask ("fooRef", "fooRefs"), or as older APIs spell them.
var refFieldSuffixes = []string{"Ref", "Refs", "Reference", "References"}

// isReference says t is an object naming another object: it has a string
// "name", and its field or its type is named as a reference.
func isReference(field, typeName string, t *linkNode) bool {
	if t.Type != "" && t.Type != "object" {
		return false
	}
	name := t.Properties["name"]
	if name == nil || name.Type != "string" {
		return false
	}
	if slices.ContainsFunc(refFieldSuffixes, func(s string) bool { return hasCamelSuffix(field, s) }) {
		return true
	}
	short := shortTypeName(typeName)
	return short != "" && slices.ContainsFunc(referenceTypeSuffixes, func(s string) bool { return strings.HasSuffix(short, s) })
}

// hasCamelSuffix says name is "<x>Suffix" with x not empty.
func hasCamelSuffix(name, suffix string) bool {
	return len(name) > len(suffix) && strings.HasSuffix(name, suffix)
}

// shortTypeName is a schema name's last dotted part:
// "io.k8s.api.core.v1.SecretKeySelector" → "SecretKeySelector".
func shortTypeName(typeName string) string {
	return typeName[strings.LastIndexByte(typeName, '.')+1:]
}

// nameAliases are the well-known reference names that do not follow
// "fooName → Foo".
var nameAliases = map[string]string{
	"claimName":  "PersistentVolumeClaim",
	"volumeName": "PersistentVolume",
}

// fieldSuffixes are stripped from a reference's field name before its
// words are read, longest first.
var fieldSuffixes = []string{"References", "Reference", "KeyRef", "Refs", "Ref", "Name"}

// fieldHints are the kinds a reference's field name implies: every
// camel-case suffix of its words, longest first, then each word from the
// right. items says the field is an array of references, whose last word
// is plural: "imagePullSecrets" → ImagePullSecret, PullSecret, Secret,
// Pull, Image.
func fieldHints(name string, items bool) []string {
	var hints []string
	if alias, ok := nameAliases[name]; ok {
		hints = append(hints, alias)
	}
	base := name
	for _, s := range fieldSuffixes {
		if hasCamelSuffix(base, s) {
			base = strings.TrimSuffix(base, s)
			break
		}
	}
	words := camelWords(base)
	if items && len(words) > 0 && !slices.ContainsFunc(refFieldSuffixes, func(s string) bool { return hasCamelSuffix(name, s) }) {
		words[len(words)-1] = singular(words[len(words)-1])
	}
	return appendHints(hints, wordHints(words)...)
}

// wordHints are words' camel-case suffixes, longest first, then each word
// from the right, capitalised.
func wordHints(words []string) []string {
	var hints []string
	for i := range words {
		hints = appendHints(hints, strings.Join(words[i:], ""))
	}
	for i := len(words) - 1; i >= 0; i-- {
		hints = appendHints(hints, words[i])
	}
	return hints
}

// selectorHints are the kinds a selector's field name says it selects:
// "podSelector" → Pod, "namespaceSelector" → Namespace; Pod for a bare
// "selector" or "labelSelector", as a workload's or a Service's selects
// pods.
func selectorHints(name string) []string {
	base := strings.TrimSuffix(name, "Selector")
	if base == "selector" || base == "label" {
		base = ""
	}
	if hints := wordHints(camelWords(base)); len(hints) > 0 {
		return hints
	}
	return []string{"Pod"}
}

// typeHints is the kind a reference type's name implies:
// SecretKeySelector, SecretEnvSource, SecretProjection and SecretReference
// → Secret. The generic ObjectReference, LocalObjectReference, ... imply
// none.
func typeHints(typeName string) []string {
	short := shortTypeName(typeName)
	for _, s := range []string{"KeySelector", "VolumeSource", "EnvSource", "Projection", "Reference"} {
		if hasCamelSuffix(short, s) {
			short = strings.TrimSuffix(short, s)
			break
		}
	}
	if short == "" || short == shortTypeName(typeName) || strings.HasSuffix(short, "Object") {
		return nil
	}
	return []string{short}
}

// appendHints appends the hints not already in (case-insensitively), each
// with an upper-case first letter.
func appendHints(hints []string, more ...string) []string {
	for _, h := range more {
		if h == "" {
			continue
		}
		r, size := utf8.DecodeRuneInString(h)
		h = string(unicode.ToUpper(r)) + h[size:]
		if !slices.ContainsFunc(hints, func(x string) bool { return strings.EqualFold(x, h) }) {
			hints = append(hints, h)
		}
	}
	return hints
}

// camelWords splits a camel-case name into words, keeping acronyms whole:
// "caBundleSecret" → ca, Bundle, Secret; "oidcCASecret" → oidc, CA, Secret.
func camelWords(s string) []string {
	var words []string
	start := 0
	runes := []rune(s)
	for i := 1; i < len(runes); i++ {
		upper, prevUpper := unicode.IsUpper(runes[i]), unicode.IsUpper(runes[i-1])
		nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
		if upper && (!prevUpper || nextLower) {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	if start < len(runes) {
		words = append(words, string(runes[start:]))
	}
	return words
}

// singular is an English plural's singular, as field names spell them:
// Secrets → Secret, Classes → Class, Policies → Policy.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// FieldTarget is one value of a FieldLink in an object.
type FieldTarget struct {
	Link *FieldLink
	// Path is the concrete field, as kubectl explains it:
	// "spec.template.spec.volumes[2].secret.secretName"; a map value is
	// "spec.things['key']".
	Path string
	// Reference: what the object says. Name always; the rest only when the
	// reference object carries it (kind; group from apiGroup, group or
	// apiVersion; version from apiVersion; resource; namespace). A Version
	// says the group was given, even when it is the core group's "".
	Name, Namespace, Kind, Group, Version, ResourceName string
	// Selector (Link.Selector): the parsed selector, never empty.
	Selector labels.Selector
}

// Targets evaluates the links against an object's content
// (unstructured.Unstructured.Object): the references it names and the
// selectors it holds, in link order, at most maxTargets, walking at most
// maxItemsWalked items of each array or map.
//
// A name or namespace that is not a valid path segment is skipped: the
// conventions warn that reference values end up in URLs, and a name of
// ".." or with a "/" would address another path. An empty selector is
// skipped too: a LabelSelector without requirements selects everything,
// which relates nothing useful; so is a selector that does not parse.
func (k *KindLinks) Targets(obj map[string]any) []FieldTarget {
	if k == nil {
		return nil
	}
	var out []FieldTarget
	path := make([]byte, 0, 128)
	for i := range k.Links {
		if len(out) >= maxTargets {
			break
		}
		out = k.Links[i].collect(k.Links[i].Path, obj, path, out)
	}
	return out
}

// collect appends the targets of l found by following rest from v, whose
// concrete path is path.
func (l *FieldLink) collect(rest []string, v any, path []byte, out []FieldTarget) []FieldTarget {
	if len(rest) == 0 {
		if t, ok := l.target(v); ok {
			t.Path = string(path)
			out = append(out, t)
		}
		return out
	}
	switch seg := rest[0]; seg {
	case "[]":
		items, _ := v.([]any)
		for i, item := range items {
			if i == maxItemsWalked || len(out) >= maxTargets {
				break
			}
			p := append(path, '[')
			p = strconv.AppendInt(p, int64(i), 10)
			p = append(p, ']')
			out = l.collect(rest[1:], item, p, out)
		}
	case "{}":
		m, _ := v.(map[string]any)
		for i, key := range slices.Sorted(maps.Keys(m)) {
			if i == maxItemsWalked || len(out) >= maxTargets {
				break
			}
			p := append(path, "['"...)
			p = append(p, key...)
			p = append(p, "']"...)
			out = l.collect(rest[1:], m[key], p, out)
		}
	default:
		m, _ := v.(map[string]any)
		next, ok := m[seg]
		if !ok || next == nil {
			return out
		}
		p := path
		if len(p) > 0 {
			p = append(p, '.')
		}
		p = append(p, seg...)
		out = l.collect(rest[1:], next, p, out)
	}
	return out
}

// target reads one value of l.
func (l *FieldLink) target(v any) (FieldTarget, bool) {
	t := FieldTarget{Link: l}
	switch {
	case l.MapSelector:
		m, _ := v.(map[string]any)
		set := make(labels.Set, len(m))
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return t, false
			}
			set[k] = s
		}
		sel, err := labels.ValidatedSelectorFromSet(set)
		if err != nil || sel.Empty() {
			return t, false
		}
		t.Selector = sel
	case l.Selector:
		sel, ok := labelSelectorOf(v)
		if !ok {
			return t, false
		}
		t.Selector = sel
	case l.NameField:
		t.Name, _ = v.(string)
	default:
		m, _ := v.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		t.Name, t.Namespace, t.Kind, t.ResourceName = str("name"), str("namespace"), str("kind"), str("resource")
		if gv, err := schema.ParseGroupVersion(str("apiVersion")); err == nil && gv.Version != "" {
			t.Group, t.Version = gv.Group, gv.Version
		}
		for _, k := range []string{"apiGroup", "group"} {
			if g := str(k); g != "" {
				t.Group = g
			}
		}
	}
	if l.Selector {
		return t, true
	}
	if !validSegment(t.Name) || (t.Namespace != "" && !validSegment(t.Namespace)) {
		return t, false
	}
	return t, true
}

// validSegment is the check the conventions ask before a reference value
// is used in a URL (path.IsValidPathSegmentName, whose home is now
// content.IsPathSegmentName), and not empty.
func validSegment(s string) bool {
	return s != "" && len(content.IsPathSegmentName(s)) == 0
}

// labelSelectorOf parses an unstructured metav1.LabelSelector; an empty or
// invalid one is not a selector here.
func labelSelectorOf(v any) (labels.Selector, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	var ls metav1.LabelSelector
	if ml, ok := m["matchLabels"].(map[string]any); ok {
		ls.MatchLabels = make(map[string]string, len(ml))
		for k, v := range ml {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			ls.MatchLabels[k] = s
		}
	}
	exprs, _ := m["matchExpressions"].([]any)
	for _, e := range exprs {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		key, _ := em["key"].(string)
		op, _ := em["operator"].(string)
		req := metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op)}
		values, _ := em["values"].([]any)
		for _, v := range values {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			req.Values = append(req.Values, s)
		}
		ls.MatchExpressions = append(ls.MatchExpressions, req)
	}
	if len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0 {
		// Selects everything: it relates nothing useful.
		return nil, false
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil || sel.Empty() {
		return nil, false
	}
	return sel, true
}

// ResolveTarget finds the served resource a target names, for an object
// of resource from. For a selector target, it is the resource selected.
//
//   - A reference's explicit kind or resource decides: in its group when
//     the reference gives one (a Version means apiVersion gave it, even the
//     core group's ""), else by the preference below. If it does not
//     resolve, nothing does: a guess would be another kind.
//   - Otherwise each of the link's KindHints in turn, case-insensitively
//     against discovery's kinds, preferring from's group, then the core
//     group, then a group from's group is a subdomain of (the closest:
//     s3.aws.upbound.io's ProviderConfig is in aws.upbound.io), then a
//     single match elsewhere. A hint served by several other groups is
//     ambiguous, and nothing resolves; a hint served nowhere passes to the
//     next.
func ResolveTarget(d *Discovery, from Resource, t FieldTarget) (Resource, bool) {
	if d == nil || t.Link == nil {
		return Resource{}, false
	}
	if !t.Link.Selector {
		groupGiven := t.Group != "" || t.Version != ""
		var match func(Resource) bool
		switch {
		case t.Kind != "":
			match = func(r Resource) bool { return r.Kind == t.Kind }
		case t.ResourceName != "":
			match = func(r Resource) bool { return r.Name == t.ResourceName }
		}
		if match != nil {
			if groupGiven {
				return findInGroup(d, t.Group, match)
			}
			r, ok, _ := preferredResource(d, from.Group, match)
			return r, ok
		}
	}
	for _, h := range t.Link.KindHints {
		r, ok, ambiguous := preferredResource(d, from.Group, func(r Resource) bool { return strings.EqualFold(r.Kind, h) })
		if ok || ambiguous {
			return r, ok
		}
	}
	return Resource{}, false
}

// findInGroup is the first resource of group that matches.
func findInGroup(d *Discovery, group string, match func(Resource) bool) (Resource, bool) {
	for _, g := range d.Groups {
		if g.Name != group {
			continue
		}
		for _, r := range g.Resources {
			if match(r) {
				return r, true
			}
		}
	}
	return Resource{}, false
}

// preferredResource is the matching resource of fromGroup, else of the
// core group, else of the closest group fromGroup is a subdomain of, else
// the only group's; ambiguous says several other groups match.
func preferredResource(d *Discovery, fromGroup string, match func(Resource) bool) (r Resource, ok, ambiguous bool) {
	var found []Resource // one per group
	for _, g := range d.Groups {
		for _, res := range g.Resources {
			if match(res) {
				found = append(found, res)
				break
			}
		}
	}
	for _, group := range []string{fromGroup, ""} {
		if i := slices.IndexFunc(found, func(r Resource) bool { return r.Group == group }); i >= 0 {
			return found[i], true, false
		}
	}
	parent := -1
	for i, r := range found {
		if strings.HasSuffix(fromGroup, "."+r.Group) && (parent < 0 || len(r.Group) > len(found[parent].Group)) {
			parent = i
		}
	}
	switch {
	case parent >= 0:
		return found[parent], true, false
	case len(found) == 1:
		return found[0], true, false
	}
	return Resource{}, false, len(found) > 1
}
