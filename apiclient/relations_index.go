package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

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
// decoded (integers as int64, as unstructured expects).
func readListPage(body io.Reader, each func(*unstructured.Unstructured) error) (listPage, error) {
	var page listPage
	lr := &io.LimitedReader{R: body, N: maxAnswerBytes + 1}
	dec := json.NewDecoder(lr)
	// Numbers stay as text until intsAsInt64 makes them what unstructured
	// expects: decoding each item once, not into bytes and then again.
	dec.UseNumber()
	tooLarge := func(err error) error {
		if lr.N <= 0 {
			return errPageTooLarge
		}
		return err
	}
	if err := expectDelim(dec, '{'); err != nil {
		return page, tooLarge(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return page, tooLarge(err)
		}
		key, _ := tok.(string)
		switch key {
		case "metadata":
			var meta struct {
				Continue        string `json:"continue"`
				ResourceVersion string `json:"resourceVersion"`
			}
			if err := dec.Decode(&meta); err != nil {
				return page, tooLarge(err)
			}
			page.cont, page.version = meta.Continue, meta.ResourceVersion
		case "items":
			if err := expectDelim(dec, '['); err != nil {
				// "items": null is an empty list.
				continue
			}
			for dec.More() {
				var m map[string]any
				if err := dec.Decode(&m); err != nil {
					return page, tooLarge(err)
				}
				if err := intsAsInt64(m); err != nil {
					return page, err
				}
				page.items++
				if err := each(&unstructured.Unstructured{Object: m}); err != nil {
					return page, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return page, tooLarge(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return page, tooLarge(err)
			}
		}
	}
	return page, nil
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

// expectDelim reads the next token and checks it is d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("not a list: %v where %q was expected", tok, d)
	}
	return nil
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
	res, err := c.eachItem(ctx, r, namespace, accept, ListQuery{LabelSelector: sel, PageSize: pageSize, MaxObjects: maxObjects}, func(obj *unstructured.Unstructured) error {
		keep(newRecord(r, obj, links))
		return nil
	})
	return res.Objects, err
}

// ListQuery selects and bounds a paged list read item by item.
type ListQuery struct {
	LabelSelector, FieldSelector string
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
	cont := ""
	for {
		req := c.get(r, namespace, "", accept).Param("limit", strconv.Itoa(q.PageSize))
		setParam(req, "labelSelector", q.LabelSelector)
		setParam(req, "fieldSelector", q.FieldSelector)
		setParam(req, "continue", cont)
		rc, err := req.Stream(ctx)
		if err != nil {
			return read, err
		}
		var stopped error
		page, err := readListPage(rc, func(obj *unstructured.Unstructured) error {
			stopped = each(obj)
			return stopped
		})
		rc.Close()
		read.Objects += page.items
		if read.ResourceVersion == "" {
			read.ResourceVersion = page.version
		}
		switch {
		case stopped != nil:
			return read, stopped
		case err != nil:
			return read, &BadResponseError{Err: fmt.Errorf("decoding the %s list: %w", r.Name, err)}
		}
		if cont = page.cont; cont == "" {
			return read, nil
		}
		if read.Objects >= q.MaxObjects {
			return read, ErrListCut
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
