package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// WatchOptions select what a watch sees.
type WatchOptions struct {
	// Namespace restricts a namespaced resource; "" watches all namespaces.
	Namespace     string
	LabelSelector string
	FieldSelector string
	// ResourceVersion resumes after that version (a list's, or the last
	// event's). "" starts with an ADDED event for every current object.
	ResourceVersion string
	// IncludeObject is what a WatchTable row carries of its object: ""
	// is IncludeMetadata; IncludeFullObject keeps it whole (Row.Raw).
	IncludeObject IncludeObject
}

// Watch event types.
const (
	WatchAdded    = "ADDED"
	WatchModified = "MODIFIED"
	WatchDeleted  = "DELETED"
	WatchBookmark = "BOOKMARK"
)

// WatchEvent is one event of a watch.
type WatchEvent struct {
	Type string // ADDED, MODIFIED, DELETED, BOOKMARK
	// ResourceVersion is the object's (or the bookmark's): resume from it.
	ResourceVersion string
	UID             string
	Name, Namespace string
	// Table is a one-row Table for ADDED, MODIFIED and DELETED from
	// WatchTable (nil for BOOKMARK and from WatchMeta), with the cells of
	// every column, wide or not. Its Columns are the stream's, shared by
	// every event: do not modify them.
	Table *Table
	// Change is the latest write the object's metadata.managedFields
	// records, from WatchMeta (nil without managedFields, and from
	// WatchTable), for an editor to say "changed by kubectl-edit 20 s ago".
	Change *FieldsChange
	// Object is the whole object, from WatchObjects (nil for BOOKMARK and
	// from the other watches).
	Object *unstructured.Unstructured
}

// FieldsChange is one entry of an object's managedFields: who wrote (the
// field manager: "kubectl-edit", "tabula", a controller), how (Update or
// Apply), through which subresource ("" for the object itself) and when
// (to the second).
type FieldsChange struct {
	Manager, Operation, Subresource string
	Time                            time.Time
}

// managedFieldsEntry is the part of a managedFields entry FieldsChange keeps.
type managedFieldsEntry struct {
	Manager     string       `json:"manager"`
	Operation   string       `json:"operation"`
	Subresource string       `json:"subresource"`
	Time        *metav1.Time `json:"time"`
}

// latestChange is the entry with the latest time (the last of equals: the
// times have seconds only), nil for none.
func latestChange(entries []managedFieldsEntry) *FieldsChange {
	var latest *FieldsChange
	for _, e := range entries {
		var at time.Time
		if e.Time != nil {
			at = e.Time.Time
		}
		if latest == nil || !at.Before(latest.Time) {
			latest = &FieldsChange{Manager: e.Manager, Operation: e.Operation, Subresource: e.Subresource, Time: at}
		}
	}
	return latest
}

// MediaTypePartialObjectMetadata asks for an object's metadata only; a
// watch asks for it, not for ...List.
const MediaTypePartialObjectMetadata = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"

// The Accept headers of WatchTable, in the order a 406 walks them, and of
// WatchMeta. A server without Tables answers the metadata cheaply.
var (
	watchTableAccepts = []string{
		mediaTableV1 + "," + mediaTableV1Beta1 + "," + MediaTypePartialObjectMetadata + "," + MediaTypeJSON,
		MediaTypePartialObjectMetadata + "," + MediaTypeJSON,
		MediaTypeJSON,
	}
	watchMetaAccepts = []string{MediaTypePartialObjectMetadata + "," + MediaTypeJSON, MediaTypeJSON}
)

// WatchTable watches r as Table rows (includeObject=Metadata, bookmarks
// allowed), falling back like ListTable: Table v1, v1beta1, then metadata or
// plain objects as generic Name/Namespace/Age rows; a 406 retries without
// as=Table. It calls emit for each event until ctx ends (it returns
// ctx.Err()), the server ends the stream or the connection drops (nil: resume
// from the last ResourceVersion), or the server sends an ERROR event (its
// *apierrors.StatusError; IsExpired holds for a 410: relist). Errors before
// the stream starts are the server's Status too.
func (c *Client) WatchTable(ctx context.Context, r Resource, opts WatchOptions, emit func(WatchEvent)) error {
	var columns []Column // from the stream's first Table; later ones have none
	return c.watch(ctx, r, opts, watchTableAccepts, func(typ string, raw []byte) error {
		t, err := c.decodeWatchObject(raw, opts.IncludeObject == IncludeFullObject)
		if err != nil {
			return err
		}
		if len(t.Columns) > 0 {
			columns = t.Columns
		} else {
			t.Columns = columns
		}
		ev := WatchEvent{Type: typ, ResourceVersion: t.ResourceVersion}
		if ev.ResourceVersion == "" {
			ev.ResourceVersion = rowResourceVersion(raw)
		}
		if typ == WatchBookmark {
			emit(ev)
			return nil
		}
		if len(t.Rows) != 1 {
			return fmt.Errorf("decoding %s watch event: %d rows, want 1", typ, len(t.Rows))
		}
		if meta := t.Rows[0].Object; meta != nil {
			ev.UID, ev.Name, ev.Namespace = string(meta.UID), meta.Name, meta.Namespace
		} else {
			ev.Name = nameCell(t) // the server left out the object
		}
		ev.Table = t
		emit(ev)
		return nil
	})
}

// WatchMeta watches r's objects as PartialObjectMetadata (plain objects on
// servers without it), for pages that only need to know that something
// changed, and who changed it last (Change). Events carry no Table. It ends
// as WatchTable does.
func (c *Client) WatchMeta(ctx context.Context, r Resource, opts WatchOptions, emit func(WatchEvent)) error {
	return c.watch(ctx, r, opts, watchMetaAccepts, func(typ string, raw []byte) error {
		var obj struct {
			Metadata struct {
				Name, Namespace, UID, ResourceVersion string
				ManagedFields                         []managedFieldsEntry `json:"managedFields"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("decoding %s watch event: %w", typ, err)
		}
		m := obj.Metadata
		emit(WatchEvent{Type: typ, ResourceVersion: m.ResourceVersion, UID: m.UID, Name: m.Name, Namespace: m.Namespace,
			Change: latestChange(m.ManagedFields)})
		return nil
	})
}

// WatchObjects watches r's whole objects, for pages that judge an object
// by its status (Problems). It ends as WatchTable does.
func (c *Client) WatchObjects(ctx context.Context, r Resource, opts WatchOptions, emit func(WatchEvent)) error {
	return c.watch(ctx, r, opts, []string{MediaTypeJSON}, func(typ string, raw []byte) error {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("decoding %s watch event: %w", typ, err)
		}
		if err := intsAsInt64(m); err != nil {
			return fmt.Errorf("decoding %s watch event: %w", typ, err)
		}
		obj := &unstructured.Unstructured{Object: m}
		ev := WatchEvent{Type: typ, ResourceVersion: obj.GetResourceVersion(), UID: string(obj.GetUID()), Name: obj.GetName(), Namespace: obj.GetNamespace()}
		if typ != WatchBookmark {
			ev.Object = obj
		}
		emit(ev)
		return nil
	})
}

// watch streams a watch of r, asking with each Accept of accepts in turn
// while the server answers 406, and hands each event's object to handle.
func (c *Client) watch(ctx context.Context, r Resource, opts WatchOptions, accepts []string, handle func(typ string, raw []byte) error) error {
	if err := checkNames(opts.Namespace); err != nil {
		return err
	}
	include := opts.IncludeObject
	if include == "" {
		include = IncludeMetadata
	}
	return c.stream(ctx, func(accept string) *rest.Request {
		req := c.rest.Get().AbsPath(r.PathSegments(opts.Namespace, "")...).SetHeader("Accept", accept).MaxRetries(0).
			Param("watch", "true").Param("allowWatchBookmarks", "true").Param("includeObject", string(include))
		setParam(req, "labelSelector", opts.LabelSelector)
		setParam(req, "fieldSelector", opts.FieldSelector)
		setParam(req, "resourceVersion", opts.ResourceVersion)
		return req
	}, accepts, handle)
}

// wireEvent is a watch event as it goes on the wire (metav1.WatchEvent).
type wireEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// stream runs a watch request and decodes its events one by one as they
// arrive, never holding more than one.
func (c *Client) stream(ctx context.Context, build func(accept string) *rest.Request, accepts []string, handle func(typ string, raw []byte) error) error {
	var body io.ReadCloser
	var err error
	for _, accept := range accepts {
		body, err = build(accept).Stream(ctx)
		if !apierrors.IsNotAcceptable(err) {
			break
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var ev wireEvent
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// As client-go's StreamWatcher: an end, even mid-event, is the
			// stream closing, and the caller resumes; anything else is not.
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || utilnet.IsProbableEOF(err) {
				return nil
			}
			return fmt.Errorf("reading the watch stream: %w", err)
		}
		switch ev.Type {
		case WatchAdded, WatchModified, WatchDeleted, WatchBookmark:
			if err := handle(ev.Type, ev.Object); err != nil {
				return err
			}
		case "ERROR":
			return watchError(ev.Object)
		default:
			return fmt.Errorf("watch stream: unknown event type %q", ev.Type)
		}
	}
}

// watchError is the Status of an ERROR event as the error client-go would
// return for it, so apierrors' predicates (and IsExpired) work.
func watchError(raw []byte) error {
	var st metav1.Status
	if err := json.Unmarshal(raw, &st); err != nil || st.Kind != "Status" {
		return fmt.Errorf("watch stream: ERROR event without a Status: %s", raw)
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// decodeWatchObject decodes one watch event's object into a Table: a
// server-side Table as it is, any other object as the generic row ListTable
// makes of a list item.
// With objects, the row keeps its whole object (Row.Raw).
func (c *Client) decodeWatchObject(raw []byte, objects bool) (*Table, error) {
	s, err := newTableStream(context.Background(), io.NopCloser(bytes.NewReader(raw)), maxListBytes, true, c.pools)
	if err != nil {
		return nil, fmt.Errorf("watch event: %w", err)
	}
	s.d.objects = objects
	if s.Head.Served == TableV1 || s.Head.Served == TableV1Beta1 {
		t, err := s.collect()
		if err != nil {
			return nil, fmt.Errorf("watch event: %w", err)
		}
		return t, nil
	}
	// Any other object is read as the one item of a list of its kind (a
	// PartialObjectMetadataList is served as MetadataList).
	kind, rv := s.d.kind, s.Head.ResourceVersion
	s.Close()
	mem := c.pools.rowMemory()
	defer c.pools.releaseRowMemory(mem)
	d := newTableDecoder(bytes.NewReader(raw), maxListBytes, true, mem)
	d.objects = objects
	d.kind = kind + "List"
	d.finishHead()
	if err := d.itemRow(); err != nil {
		return nil, fmt.Errorf("watch event: %w", d.fail(context.Background(), err))
	}
	t := d.head
	t.ResourceVersion = rv
	t.Rows = []Row{d.row.Clone()}
	return &t, nil
}

// rowResourceVersion is the resourceVersion of a Table event's row object,
// for servers that leave the Table's own empty.
func rowResourceVersion(raw []byte) string {
	var t struct {
		Rows []struct {
			Object struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		} `json:"rows"`
	}
	if json.Unmarshal(raw, &t) != nil || len(t.Rows) == 0 {
		return ""
	}
	return t.Rows[0].Object.Metadata.ResourceVersion
}

// nameCell is the first row's cell of the column that names the object.
func nameCell(t *Table) string {
	for i, col := range t.Columns {
		if col.Format == "name" && i < len(t.Rows[0].Cells) {
			s, _ := t.Rows[0].Cells[i].(string)
			return s
		}
	}
	return ""
}
