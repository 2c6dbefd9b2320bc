package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// The recommended labels that tie the objects of one application together.
const (
	labelPartOf   = "app.kubernetes.io/part-of"
	labelInstance = "app.kubernetes.io/instance"
)

// objKey names an object by where it is served.
type objKey struct {
	group, resource, namespace, name string
}

func keyOf(r Resource, namespace, name string) objKey {
	if !r.Namespaced {
		namespace = ""
	}
	return objKey{group: r.Group, resource: r.Name, namespace: namespace, name: name}
}

// resourceKey names a resource across versions: "apps/deployments".
func resourceKey(r Resource) string { return r.Group + "/" + r.Name }

// record is what a relation scan keeps of one object: enough to relate it
// and to draw it, never its spec or data (a Secret's values never reach
// it: only the fields its schema types as links are read).
type record struct {
	res       Resource
	namespace string
	name      string
	uid       types.UID
	labels    map[string]string
	owners    []metav1.OwnerReference
	health    Health
	message   string
	app       string
	targets   []FieldTarget
}

// newRecord keeps what relations need of obj, whose kind's links are links
// (nil: unknown).
func newRecord(r Resource, obj *unstructured.Unstructured, links *KindLinks) *record {
	rec := &record{
		res:       r,
		namespace: obj.GetNamespace(),
		name:      obj.GetName(),
		uid:       obj.GetUID(),
		labels:    obj.GetLabels(),
		owners:    obj.GetOwnerReferences(),
		app:       appOf(obj.GetLabels()),
	}
	rec.health, rec.message = HealthOf(obj)
	if links != nil {
		rec.targets = links.Targets(obj.Object)
	}
	return rec
}

func (rec *record) key() objKey { return keyOf(rec.res, rec.namespace, rec.name) }

// appOf names the application an object's recommended labels put it in.
func appOf(l map[string]string) string {
	if v := l[labelPartOf]; v != "" {
		return "part-of=" + v
	}
	if v := l[labelInstance]; v != "" {
		return "instance=" + v
	}
	return ""
}

// listPage is one page of a list, decoded an item at a time: only the
// current item and the records already kept are in memory, never the page.
type listPage struct {
	cont, version string
	items         int
}

// errPageTooLarge: one page's body passed maxAnswerBytes.
var errPageTooLarge = errors.New("a list page over the size bound")

// readListPage streams a list body, handing each item to each as it is
// decoded (integers as int64, as unstructured expects) without what omit
// names, and the list's metadata to meta (when not nil) as soon as it is
// read: before the items, as kube-apiserver writes a list.
//
// It reads with jsontext (the lexer under encoding/json/v2) and builds each
// item itself: an omitted field is skipped in the buffer, never built, and
// numbers become int64 or float64 as they are read.
func readListPage(body io.Reader, meta func(listPage), omit omission, each func(*unstructured.Unstructured) error) (listPage, error) {
	var page listPage
	lr := &io.LimitedReader{R: body, N: maxAnswerBytes + 1}
	dec := jsontext.NewDecoder(lr, jsonOptions...)
	tooLarge := func(err error) error {
		if lr.N <= 0 {
			return errPageTooLarge
		}
		return err
	}
	if err := expectKind(dec, '{'); err != nil {
		return page, tooLarge(err)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return page, tooLarge(err)
		}
		switch tok.String() {
		case "metadata":
			v, err := readValue(dec, nil)
			if err != nil {
				return page, tooLarge(err)
			}
			lm, _ := v.(map[string]any)
			page.cont, _ = lm["continue"].(string)
			page.version, _ = lm["resourceVersion"].(string)
			if meta != nil {
				meta(page)
			}
		case "items":
			if dec.PeekKind() != '[' {
				// "items": null is an empty list.
				if err := dec.SkipValue(); err != nil {
					return page, tooLarge(err)
				}
				continue
			}
			if _, err := dec.ReadToken(); err != nil {
				return page, tooLarge(err)
			}
			for dec.PeekKind() != ']' {
				v, err := readValue(dec, omit)
				if err != nil {
					return page, tooLarge(err)
				}
				m, ok := v.(map[string]any)
				if !ok {
					return page, fmt.Errorf("a list item is %T, not an object", v)
				}
				page.items++
				if err := each(&unstructured.Unstructured{Object: m}); err != nil {
					return page, err
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return page, tooLarge(err)
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return page, tooLarge(err)
			}
		}
	}
	return page, nil
}

// expectKind reads the next token and checks it opens what k says.
func expectKind(dec *jsontext.Decoder, k jsontext.Kind) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != k {
		return fmt.Errorf("not a list: %v where %q was expected", tok.Kind(), k)
	}
	return nil
}

// omission names fields a reader does not need, as a tree: a key mapped to
// nil is left out with all below it, one mapped to an omission is read but
// for what that names.
type omission map[string]omission

// omissionOf is the omission of dotted paths ("spec",
// "metadata.managedFields").
func omissionOf(paths []string) omission {
	if len(paths) == 0 {
		return nil
	}
	root := omission{}
	for _, p := range paths {
		node := root
		parts := strings.Split(p, ".")
		for i, part := range parts {
			if i == len(parts)-1 {
				node[part] = nil
				break
			}
			next, ok := node[part]
			if !ok || next == nil {
				next = omission{}
				node[part] = next
			}
			node = next
		}
	}
	return root
}

// readValue reads the next value as encoding/json reads into any, but with
// integers as int64 (as unstructured has them) and without what omit names
// of an object.
func readValue(dec *jsontext.Decoder, omit omission) (any, error) {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			below, listed := omit[name]
			if listed && below == nil {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
			v, err := readValue(dec, below)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for dec.PeekKind() != ']' {
			v, err := readValue(dec, nil)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.ReadToken()
		return a, err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case '0':
		return numberOf(json.Number(tok.String()))
	case 't', 'f':
		return tok.Bool(), nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected %v", tok.Kind())
}

// intsAsInt64 turns the json.Numbers of a decoded value into int64 where
// they are integers and float64 otherwise, as k8s.io/apimachinery's JSON
// decoding (and so unstructured) has them.
func intsAsInt64(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if n, ok := x.(json.Number); ok {
				num, err := numberOf(n)
				if err != nil {
					return err
				}
				v[k] = num
				continue
			}
			if err := intsAsInt64(x); err != nil {
				return err
			}
		}
	case []any:
		for i, x := range v {
			if n, ok := x.(json.Number); ok {
				num, err := numberOf(n)
				if err != nil {
					return err
				}
				v[i] = num
				continue
			}
			if err := intsAsInt64(x); err != nil {
				return err
			}
		}
	}
	return nil
}

func numberOf(n json.Number) (any, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	return n.Float64()
}

// listRecords lists r in namespace (all of it for a cluster-scoped r), page
// by page, keeping a record of each item. It stops after maxObjects items
// (whole pages), saying so with ErrListCut. sel, when set, is a label
// selector the server applies.
//
// A kind whose links say its metadata is all that matters is listed as
// PartialObjectMetadataList: the server sends no spec, data or status (a
// server without it answers the full list, read the same way).
func (c *Client) listRecords(ctx context.Context, r Resource, namespace, sel string, pageSize, maxObjects int, links *KindLinks, keep func(*record)) (int, error) {
	accept := MediaTypeJSON
	if links != nil && links.MetadataOnly {
		accept = MediaTypePartialObjectMetadataList + ", " + MediaTypeJSON
	}
	// Relations never read who wrote a field: managedFields, often most
	// of an object, are skipped.
	q := ListQuery{LabelSelector: sel, PageSize: pageSize, MaxObjects: maxObjects, Omit: []string{"metadata.managedFields"}}
	res, err := c.eachItem(ctx, r, namespace, accept, q, func(obj *unstructured.Unstructured) error {
		keep(newRecord(r, obj, links))
		return nil
	})
	return res.Objects, err
}

// ListQuery selects and bounds a paged list read item by item.
type ListQuery struct {
	LabelSelector, FieldSelector string
	// Omit names fields the reader does not need ("spec",
	// "metadata.managedFields"): the objects it is handed lack them, and
	// reading is faster by as much as they weigh.
	Omit []string
	// PageSize objects are asked for a request; MaxObjects are read at
	// most (whole pages), then the read stops with ErrListCut.
	PageSize, MaxObjects int
}

// ListRead is what a paged list read: how many objects, and the version of
// the snapshot they came from (its first page's), to watch from.
type ListRead struct {
	Objects         int
	ResourceVersion string
}

// eachItem lists r in namespace ("" for all of it) as q selects, q.PageSize
// objects a request, following continue tokens and handing each item to
// each as it is decoded: only the one item is in memory, never a page. It
// stops after q.MaxObjects objects (whole pages) with ErrListCut, and at
// each's first error, which it returns as it is.
func (c *Client) eachItem(ctx context.Context, r Resource, namespace, accept string, q ListQuery, each func(*unstructured.Unstructured) error) (ListRead, error) {
	var read ListRead
	request := func(ctx context.Context, cont string) (io.ReadCloser, error) {
		req := c.get(r, namespace, "", accept).Param("limit", strconv.Itoa(q.PageSize))
		setParam(req, "labelSelector", q.LabelSelector)
		setParam(req, "fieldSelector", q.FieldSelector)
		setParam(req, "continue", cont)
		return req.Stream(ctx)
	}
	omit := omissionOf(q.Omit)
	// The next page is asked for as soon as this one's continue token is
	// read (a list's metadata comes before its items), so the server
	// prepares it while this one is decoded. Its body waits unread, bounded
	// by the connection's flow control, until this one is done; one that
	// is not wanted after all is closed.
	type answer struct {
		body io.ReadCloser
		err  error
	}
	var next chan answer
	defer func() {
		if next != nil {
			if a := <-next; a.body != nil {
				a.body.Close()
			}
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // runs first: a request still under way ends at once
	body, err := request(ctx, "")
	for {
		if err != nil {
			return read, err
		}
		var stopped error
		var page listPage
		page, err = readListPage(body, func(p listPage) {
			if p.cont != "" && read.Objects+q.PageSize < q.MaxObjects {
				next = make(chan answer, 1)
				go func(ch chan<- answer) {
					body, err := request(ctx, p.cont)
					ch <- answer{body, err}
				}(next)
			}
		}, omit, func(obj *unstructured.Unstructured) error {
			stopped = each(obj)
			return stopped
		})
		body.Close()
		read.Objects += page.items
		if read.ResourceVersion == "" {
			read.ResourceVersion = page.version
		}
		switch {
		case stopped != nil:
			return read, stopped
		case err != nil:
			return read, &BadResponseError{Err: fmt.Errorf("decoding the %s list: %w", r.Name, err)}
		case page.cont == "":
			return read, nil
		case read.Objects >= q.MaxObjects:
			return read, ErrListCut
		case next == nil:
			// Not asked ahead (the page's metadata came last, or the cut
			// was near): ask now.
			body, err = request(ctx, page.cont)
		default:
			a := <-next
			next = nil
			body, err = a.body, a.err
		}
	}
}

// ErrListCut: a list had more objects than its reader reads of one kind.
var ErrListCut = errors.New("more objects than are read of one kind")

// EachMetadata lists r in namespace ("" for all of it) as
// PartialObjectMetadataList, pageSize objects a request, handing each
// object's metadata to each as it is decoded: only the one object is in
// memory, never a page. It stops after maxObjects objects (whole pages)
// with ErrListCut, and at each's first error, which it returns. read is
// how many objects were read. A server that ignores the metadata form
// sends whole objects, read the same way.
func (c *Client) EachMetadata(ctx context.Context, r Resource, namespace string, pageSize, maxObjects int, each func(*unstructured.Unstructured) error) (read int, err error) {
	res, err := c.eachItem(ctx, r, namespace, MediaTypePartialObjectMetadataList+", "+MediaTypeJSON, ListQuery{PageSize: pageSize, MaxObjects: maxObjects}, each)
	return res.Objects, err
}

// EachObject lists r in namespace ("" for all of it) as whole objects, as q
// selects and bounds, handing each to each as it is decoded (as
// EachMetadata does). Its ListRead says where to watch from.
func (c *Client) EachObject(ctx context.Context, r Resource, namespace string, q ListQuery, each func(*unstructured.Unstructured) error) (ListRead, error) {
	return c.eachItem(ctx, r, namespace, MediaTypeJSON, q, each)
}
