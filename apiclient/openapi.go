package apiclient

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrNoOpenAPI: the server does not serve an OpenAPI v3 schema for the group version (or kind).
var ErrNoOpenAPI = errors.New("no OpenAPI v3 schema")

// Bounds on what KindSchema reads and returns.
const (
	// maxOpenAPIIndex bounds GET /openapi/v3: kube-apiserver's is about
	// 10 KiB, and grows by one line per group version.
	maxOpenAPIIndex = 4 << 20
	// maxOpenAPIDocument bounds one group version's document: the largest
	// of kube-apiserver (api/v1) is about 1.6 MiB; CRDs with big inline
	// schemas reach a few MiB.
	maxOpenAPIDocument = 32 << 20
	// maxKindSchema bounds the trimmed schema sent to the browser.
	maxKindSchema = 8 << 20
)

// openAPIRefPrefix starts every reference kube-openapi emits in a v3 document.
const openAPIRefPrefix = "#/components/schemas/"

// KindSchema returns the OpenAPI v3 schema of r's kind, trimmed for an editor, as JSON:
//
//	{"root":"<schema name>","schemas":{"<name>":<node>,...}}
//
// where <node> is a subset of JSON Schema: {"type":"object|array|string|integer|number|boolean", "format":"...",
// "description":"...", "properties":{"field":<node>}, "items":<node>, "additionalProperties":<node>|true,
// "required":[...], "enum":[...], "$ref":"<schema name>", "x-kubernetes-int-or-string":true, "x-kubernetes-preserve-unknown-fields":true,
// "x-kubernetes-embedded-resource": true, "nullable": true}
//
// Refs ("#/components/schemas/X", also when wrapped as {"allOf":[{"$ref":...}], "description":...} as kube-apiserver emits
// them) become {"$ref":"X", "description": <the wrapper's description if any>}; only schemas reachable from the root are
// kept (cycle-safe: CRD JSONSchemaProps are recursive); other keywords are dropped. Descriptions are kept whole.
//
// Values that may be an integer or a string carry
// "x-kubernetes-int-or-string" and no type, however the server spells them
// (CRDs: the extension with anyOf; built-in types such as IntOrString:
// oneOf integer/string and format int-or-string). Other oneOf/anyOf
// alternatives (resource.Quantity: string or number) leave the node
// without a type: any value goes.
//
// The index (GET /openapi/v3) is fetched as the client's identity on
// every call: it is small, and it is the authorization check. The group
// version's document it points to is addressed by a URL with ?hash=,
// immutable, so the trimmed answer is cached per context, document URL
// and kind, shared by every user of the Clusters, and concurrent fetches
// of one document are shared. A document URL without a hash is fetched
// every time.
//
// Errors wrapping ErrNoOpenAPI mean "no help for this kind", not a failure:
// /openapi/v3 answers 404 (no OpenAPI v3), 403 (the identity may not read
// it; the error also wraps the server's Status, so apierrors.IsForbidden
// tells it apart, worth a log line), 405, 406 or 501; the index does not
// list the group version; no schema in the document names the kind in
// x-kubernetes-group-version-kind; or the index, the document or the
// trimmed schema is malformed or too large. Any other error (401, 5xx,
// the network, ctx) is a real failure. The returned slice may be shared:
// do not modify it.
func (c *Client) KindSchema(ctx context.Context, r Resource) ([]byte, error) {
	gvk := r.GroupVersion().WithKind(r.Kind)
	if r.Kind == "" || r.Version == "" {
		return nil, fmt.Errorf("%w: resource %q has no kind or version", ErrNoOpenAPI, r.Name)
	}
	docURL, err := c.openAPIDocumentURL(ctx, r.GroupVersion())
	if err != nil {
		return nil, err
	}
	return c.kindSchemaAt(ctx, docURL, gvk)
}

// kindSchemaAt is KindSchema's answer from the document at docURL, which
// the index has just given the client's identity.
func (c *Client) kindSchemaAt(ctx context.Context, docURL string, gvk schema.GroupVersionKind) ([]byte, error) {
	key := kindSchemaKey{context: c.context, url: docURL, gvk: gvk}
	// (kube-apiserver redirects a stale hash to the current document; the
	// answer then cached under the stale URL is never asked for again.)
	cacheable := hasHash(docURL)
	if cacheable {
		if e, ok := c.schemas.get(key); ok {
			return e.schema, e.err
		}
	}
	// The fetch is shared only among callers of one identity: its failure
	// (another user's token expiring, say) must not become theirs.
	doc, err := c.schemas.document(ctx, c.context+"\x00"+c.idKey+"\x00"+docURL, func(ctx context.Context) (*openAPIDocument, error) {
		return c.fetchOpenAPIDocument(ctx, docURL)
	})
	if err != nil {
		return nil, err
	}
	// Every error from here on comes from the document's content, which the
	// hash pins: it is cached too.
	out, err := doc.kindSchema(gvk)
	if cacheable {
		c.schemas.add(key, out, err)
	}
	return out, err
}

// openAPIGroupVersionPath names a group version in the /openapi/v3 index:
// "api/v1" for the core group, "apis/<group>/<version>" otherwise.
func openAPIGroupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// openAPIIndexPath is where the index of OpenAPI v3 documents is served.
const openAPIIndexPath = "/openapi/v3"

// openAPIDocumentURL fetches the index and returns the server-relative URL
// of gv's document.
func (c *Client) openAPIDocumentURL(ctx context.Context, gv schema.GroupVersion) (string, error) {
	index, err := c.openAPIIndex(ctx)
	if err != nil {
		return "", err
	}
	return documentURL(index, gv)
}

// openAPIIndex fetches the index: each group version's name ("apis/apps/v1")
// to the URL its document names.
func (c *Client) openAPIIndex(ctx context.Context) (map[string]string, error) {
	body, err := c.readOpenAPI(ctx, openAPIIndexPath, maxOpenAPIIndex)
	if err != nil {
		return nil, err
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil || index.Paths == nil {
		return nil, fmt.Errorf("%w: %s is not an OpenAPI v3 index", ErrNoOpenAPI, openAPIIndexPath)
	}
	urls := make(map[string]string, len(index.Paths))
	for name, entry := range index.Paths {
		urls[name] = entry.ServerRelativeURL
	}
	return urls, nil
}

// documentURL is the server-relative URL of gv's document in index.
func documentURL(index map[string]string, gv schema.GroupVersion) (string, error) {
	name := openAPIGroupVersionPath(gv)
	docURL := index[name]
	if docURL == "" {
		return "", fmt.Errorf("%w: %s does not list %s", ErrNoOpenAPI, openAPIIndexPath, name)
	}
	// The URL goes to the same server, through the client's base path (a
	// proxy prefix), and only below the index.
	u, err := url.Parse(docURL)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, openAPIIndexPath+"/") || path.Clean(u.Path) != u.Path {
		return "", fmt.Errorf("%w: %s gives %s the URL %q, not one below it", ErrNoOpenAPI, openAPIIndexPath, name, docURL)
	}
	return docURL, nil
}

// hasHash says a document URL names its content, as kube-apiserver's do.
func hasHash(docURL string) bool {
	u, err := url.Parse(docURL)
	return err == nil && u.Query().Get("hash") != ""
}

// readOpenAPI GETs the server-relative uri as JSON, reading at most limit
// bytes. The statuses of a server without (access to) OpenAPI v3 become
// errors wrapping both ErrNoOpenAPI and the server's Status.
func (c *Client) readOpenAPI(ctx context.Context, uri string, limit int64) ([]byte, error) {
	p, _, _ := strings.Cut(uri, "?")
	body, err := readBounded(ctx, c.rest.Get().RequestURI(uri).SetHeader("Accept", MediaTypeJSON), limit)
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return body, nil
	case errors.Is(err, errAnswerTooLarge):
		return nil, fmt.Errorf("%w: GET %s: %w", ErrNoOpenAPI, p, err)
	case errors.As(err, &status):
		switch status.Status().Code {
		case http.StatusNotFound, http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusNotImplemented:
			return nil, fmt.Errorf("%w: GET %s: %w", ErrNoOpenAPI, p, err)
		}
	}
	return nil, fmt.Errorf("GET %s: %w", p, err)
}

// openAPIDocument is one group version's document as fetched: its schemas
// by name, still encoded, or why it has none (err wraps ErrNoOpenAPI).
type openAPIDocument struct {
	schemas map[string]json.RawMessage
	err     error
}

// fetchOpenAPIDocument GETs a group version's document. An error is the
// request's; what is wrong with a document that did arrive is in its err,
// which is as immutable as the document.
func (c *Client) fetchOpenAPIDocument(ctx context.Context, docURL string) (*openAPIDocument, error) {
	body, err := c.readOpenAPI(ctx, docURL, maxOpenAPIDocument)
	if errors.Is(err, errAnswerTooLarge) {
		return &openAPIDocument{err: err}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		p, _, _ := strings.Cut(docURL, "?")
		return &openAPIDocument{err: fmt.Errorf("%w: %s is not an OpenAPI v3 document: %v", ErrNoOpenAPI, p, err)}, nil
	}
	return &openAPIDocument{schemas: doc.Components.Schemas}, nil
}

// gvkExtension lists the kinds a top-level schema is the schema of.
const gvkExtension = "x-kubernetes-group-version-kind"

// kindName finds the schema naming gvk in its x-kubernetes-group-version-kind,
// the first by name if several do.
func (d *openAPIDocument) kindName(gvk schema.GroupVersionKind) (string, bool) {
	var found []string
	for name, raw := range d.schemas {
		if !bytes.Contains(raw, []byte(gvkExtension)) {
			continue
		}
		var s struct {
			GVK []struct{ Group, Version, Kind string } `json:"x-kubernetes-group-version-kind"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		for _, k := range s.GVK {
			if k.Group == gvk.Group && k.Version == gvk.Version && k.Kind == gvk.Kind {
				found = append(found, name)
				break
			}
		}
	}
	if len(found) == 0 {
		return "", false
	}
	return slices.Min(found), true
}

// kindSchema is KindSchema's answer from the document.
func (d *openAPIDocument) kindSchema(gvk schema.GroupVersionKind) ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	root, ok := d.kindName(gvk)
	if !ok {
		return nil, fmt.Errorf("%w: no schema of the server's document is the one of %s", ErrNoOpenAPI, gvk)
	}
	schemas, err := trimSchemas(d.schemas, root)
	if err != nil {
		return nil, fmt.Errorf("%w: the schema of %s: %v", ErrNoOpenAPI, gvk, err)
	}
	out, err := json.Marshal(struct {
		Root    string         `json:"root"`
		Schemas map[string]any `json:"schemas"`
	}{root, schemas})
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the schema of %s: %v", ErrNoOpenAPI, gvk, err)
	}
	if len(out) > maxKindSchema {
		return nil, fmt.Errorf("%w: the schema of %s is %d bytes, over %d MiB", ErrNoOpenAPI, gvk, len(out), maxKindSchema>>20)
	}
	return out, nil
}

// trimSchemas trims root and every schema reachable from it by reference.
// Each schema is decoded and trimmed once, however many references and
// cycles lead to it.
func trimSchemas(raw map[string]json.RawMessage, root string) (map[string]any, error) {
	t := &trimmer{raw: raw, out: map[string]any{}}
	t.reach(root)
	for len(t.queue) > 0 {
		name := t.queue[0]
		t.queue = t.queue[1:]
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		dec.UseNumber() // enum values stay as written
		var n map[string]any
		if err := dec.Decode(&n); err != nil {
			return nil, fmt.Errorf("schema %q: %w", name, err)
		}
		t.out[name] = t.node(n)
	}
	return t.out, nil
}

// trimmer walks the reachable schemas breadth first.
type trimmer struct {
	raw   map[string]json.RawMessage
	out   map[string]any // trimmed, or nil while queued
	queue []string
}

// reach queues the named schema unless it is already trimmed or queued,
// and reports whether the document has it.
func (t *trimmer) reach(name string) bool {
	if _, ok := t.raw[name]; !ok {
		return false
	}
	if _, seen := t.out[name]; !seen {
		t.out[name] = nil
		t.queue = append(t.queue, name)
	}
	return true
}

// markers are the boolean keywords kept when true.
var markers = []string{"nullable", "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"}

// node trims one schema node; the references it holds are queued.
func (t *trimmer) node(n map[string]any) map[string]any {
	out := map[string]any{}
	if name, ok := refOf(n); ok && t.reach(name) {
		out["$ref"] = name
	}
	if s, ok := n["description"].(string); ok && s != "" {
		out["description"] = s
	}
	typ, nullable := typeOf(n["type"])
	if typ != "" {
		out["type"] = typ
	}
	if nullable {
		out["nullable"] = true
	}
	if s, ok := n["format"].(string); ok && s != "" {
		out["format"] = s
	}
	if props, ok := n["properties"].(map[string]any); ok {
		trimmed := make(map[string]any, len(props))
		for field, p := range props {
			if m, ok := p.(map[string]any); ok {
				trimmed[field] = t.node(m)
			}
		}
		out["properties"] = trimmed
	}
	if items, ok := n["items"].(map[string]any); ok {
		out["items"] = t.node(items)
	}
	switch ap := n["additionalProperties"].(type) {
	case bool:
		if ap {
			out["additionalProperties"] = true
		}
	case map[string]any:
		out["additionalProperties"] = t.node(ap)
	}
	if req, ok := n["required"].([]any); ok {
		var names []string
		for _, r := range req {
			if s, ok := r.(string); ok {
				names = append(names, s)
			}
		}
		if len(names) > 0 {
			out["required"] = names
		}
	}
	if enum, ok := n["enum"].([]any); ok && len(enum) > 0 {
		out["enum"] = enum
	}
	for _, k := range markers {
		if n[k] == true {
			out[k] = true
		}
	}
	if n["format"] == "int-or-string" || alternatives(n["oneOf"]) == "integer|string" || alternatives(n["anyOf"]) == "integer|string" {
		// An IntOrString, whether spelt as a CRD does (the extension and
		// anyOf) or as built-in types are (oneOf, and format int-or-string
		// with type string in OpenAPI v2 style): no type, or the editor would
		// reject one of the two.
		out["x-kubernetes-int-or-string"] = true
		delete(out, "type")
	}
	return out
}

// refOf returns the schema name a node refers to: {"$ref": ...}, or the
// wrapper kube-openapi emits to give a reference siblings:
// {"allOf":[{"$ref": ...}], "description": ..., "default": ...}.
func refOf(n map[string]any) (string, bool) {
	ref, ok := n["$ref"].(string)
	if !ok {
		all, _ := n["allOf"].([]any)
		if len(all) != 1 {
			return "", false
		}
		inner, _ := all[0].(map[string]any)
		if ref, ok = inner["$ref"].(string); !ok {
			return "", false
		}
	}
	name, ok := strings.CutPrefix(ref, openAPIRefPrefix)
	if !ok || name == "" {
		return "", false
	}
	// A JSON pointer token: ~1 is "/", ~0 is "~".
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(name), true
}

// typeOf reads a type: a string, or an array of one type and maybe "null"
// (JSON Schema style), which is a nullable type.
func typeOf(v any) (typ string, nullable bool) {
	switch v := v.(type) {
	case string:
		return v, false
	case []any:
		for _, e := range v {
			switch s, _ := e.(string); s {
			case "null":
				nullable = true
			case "":
			default:
				if typ != "" {
					return "", nullable // several types: no type
				}
				typ = s
			}
		}
	}
	return typ, nullable
}

// alternatives returns the sorted types of oneOf/anyOf alternatives that
// are each only a type, joined by "|"; "" if any is more than that.
func alternatives(v any) string {
	alts, _ := v.([]any)
	var types []string
	for _, a := range alts {
		m, _ := a.(map[string]any)
		typ, _ := m["type"].(string)
		if len(m) != 1 || typ == "" {
			return ""
		}
		types = append(types, typ)
	}
	slices.Sort(types)
	return strings.Join(types, "|")
}

// Bounds of the kind schema cache, shared by every user of the Clusters.
// Scans across kinds (relations, Problems) ask for every kind's schema: the
// entries must outnumber the kinds of a large cluster (hundreds of CRDs),
// or each scan reads them all again. A trimmed kind schema is a few KiB,
// so the byte bound is the one that holds.
const (
	kindSchemaCacheEntries = 2048
	kindSchemaCacheBytes   = 64 << 20
	// openAPIFetchTimeout bounds one document fetch, which callers share.
	openAPIFetchTimeout = 30 * time.Second
)

// kindSchemaCache keeps KindSchema's answers for documents addressed by
// hash, least recently used first out, and shares concurrent fetches of one
// document by one identity. Sharing answers across users is safe: the hash
// URL identifies the content, and every caller has just fetched the index
// as itself.
// A nil *kindSchemaCache caches nothing and shares nothing.
type kindSchemaCache struct {
	maxEntries, maxBytes int

	mu      sync.Mutex // guards entries, lru and size
	entries map[kindSchemaKey]*list.Element
	lru     *list.List // of *kindSchemaEntry, the most recently used first
	size    int        // bytes held by the entries' schemas

	flights singleflight.Group // document fetches, by context, identity and URL
	waiting atomic.Int32       // callers waiting on a flight (tests watch it)
}

// kindSchemaKey is one kind in one document of one context.
type kindSchemaKey struct {
	context, url string
	gvk          schema.GroupVersionKind
}

// kindSchemaEntry is a cached answer: the schema, or an error wrapping
// ErrNoOpenAPI.
type kindSchemaEntry struct {
	key    kindSchemaKey
	schema []byte
	err    error
	// links is the schema's analysis (KindLinks), once analysed.
	links    *KindLinks
	linksErr error
	analysed bool
}

func newKindSchemaCache() *kindSchemaCache {
	return &kindSchemaCache{
		maxEntries: kindSchemaCacheEntries,
		maxBytes:   kindSchemaCacheBytes,
		entries:    map[kindSchemaKey]*list.Element{},
		lru:        list.New(),
	}
}

func (sc *kindSchemaCache) get(key kindSchemaKey) (*kindSchemaEntry, bool) {
	if sc == nil {
		return nil, false
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	el, ok := sc.entries[key]
	if !ok {
		return nil, false
	}
	sc.lru.MoveToFront(el)
	return el.Value.(*kindSchemaEntry), true
}

func (sc *kindSchemaCache) add(key kindSchemaKey, schema []byte, err error) {
	if sc == nil || len(schema) > sc.maxBytes {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if el, ok := sc.entries[key]; ok {
		// A concurrent caller trimmed the same kind: same content.
		sc.lru.MoveToFront(el)
		return
	}
	sc.entries[key] = sc.lru.PushFront(&kindSchemaEntry{key: key, schema: schema, err: err})
	sc.size += len(schema)
	for sc.lru.Len() > sc.maxEntries || sc.size > sc.maxBytes {
		e := sc.lru.Remove(sc.lru.Back()).(*kindSchemaEntry)
		delete(sc.entries, e.key)
		sc.size -= len(e.schema)
	}
}

// document fetches a document, sharing the fetch with concurrent callers
// of the same key. The fetch outlives a caller that leaves (others may
// wait on it), within openAPIFetchTimeout.
func (sc *kindSchemaCache) document(ctx context.Context, key string, fetch func(context.Context) (*openAPIDocument, error)) (*openAPIDocument, error) {
	if sc == nil {
		return fetch(ctx)
	}
	ch := sc.flights.DoChan(key, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), openAPIFetchTimeout)
		defer cancel()
		return fetch(fctx)
	})
	sc.waiting.Add(1)
	defer sc.waiting.Add(-1)
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*openAPIDocument), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
