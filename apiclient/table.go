package apiclient

import (
	"context"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// Representation is what the server actually served for a list.
type Representation string

// The representations a list can come back in, best first.
const (
	TableV1      Representation = "Table v1"
	TableV1Beta1 Representation = "Table v1beta1"
	// MetadataList is a PartialObjectMetadataList: names and metadata only.
	MetadataList Representation = "Metadata fallback"
	JSONFallback Representation = "JSON fallback"
)

// IncludeObject is the Table includeObject policy: how much of each object
// comes with its row. Metadata costs about ten times the bytes of None.
type IncludeObject string

// The includeObject policies kube-apiserver understands.
const (
	IncludeNone     IncludeObject = "None"
	IncludeMetadata IncludeObject = "Metadata"
	// IncludeFullObject sends each row's whole object, which the row then
	// keeps as JSON (Row.Raw): what custom columns are evaluated on. It
	// costs many times Metadata's bytes; pages asking for it are short.
	IncludeFullObject IncludeObject = "Object"
)

// Table media types. A list asks for them in kubectl's order, then for the
// metadata list before plain JSON, so servers without Tables can still
// answer cheaply.
const (
	mediaTableV1      = "application/json;as=Table;v=v1;g=meta.k8s.io"
	mediaTableV1Beta1 = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
)

var (
	acceptTable   = mediaTableV1 + "," + mediaTableV1Beta1 + "," + MediaTypePartialObjectMetadataList + "," + MediaTypeJSON
	acceptNoTable = MediaTypePartialObjectMetadataList + "," + MediaTypeJSON
	// acceptTableObjects asks for rows with whole objects: Tables, else the
	// plain list, never the metadata list.
	acceptTableObjects = mediaTableV1 + "," + mediaTableV1Beta1 + "," + MediaTypeJSON
)

// ListOptions select and page a list.
type ListOptions struct {
	// Namespace restricts a namespaced resource; "" lists all namespaces.
	Namespace     string
	LabelSelector string
	FieldSelector string
	Limit         int64
	Continue      string
	IncludeObject IncludeObject
	// Wide keeps the cells of priority > 0 columns; without it they are
	// left nil, as a page that hides them never reads them.
	Wide bool
}

// Column is a Table column as the server defined it.
type Column struct {
	Name        string
	Type        string // string, integer, number, boolean, date
	Format      string // "name" marks the column that names the object
	Description string
	Priority    int32
}

// ObjectMeta is the part of a row's object a page needs to link it.
type ObjectMeta struct {
	Name              string
	Namespace         string
	UID               types.UID
	CreationTimestamp time.Time
	Labels            map[string]string
}

// Row is one Table row. Cells hold the server's JSON values: string,
// float64, bool or nil.
type Row struct {
	Cells      []any
	Conditions []metav1.TableRowCondition
	// Object is set when the server included object metadata.
	Object *ObjectMeta
	// Raw is the row's whole object as JSON, kept only when the list asked
	// for IncludeFullObject (nil otherwise).
	Raw []byte
}

// Table is a page of a list in the server's own columns.
type Table struct {
	Served             Representation
	Columns            []Column
	Rows               []Row
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// ListTable fetches one page of r as a server-side Table, falling back to
// v1beta1, then to a metadata or plain list rendered as Name/Namespace/Age.
// It is OpenTable with every row kept.
func (c *Client) ListTable(ctx context.Context, r Resource, opts ListOptions) (*Table, error) {
	s, err := c.OpenTable(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	return s.collect()
}

// GetTable fetches one object as a one-row Table, for its printer columns.
func (c *Client) GetTable(ctx context.Context, r Resource, namespace, name string) (*Table, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	s, err := c.openTable(ctx, func(accept string) *rest.Request {
		return c.rest.Get().AbsPath(r.PathSegments(namespace, name)...).SetHeader("Accept", accept).
			Param("includeObject", string(IncludeNone)).MaxRetries(0)
	}, true, false)
	if err != nil {
		return nil, err
	}
	return s.collect()
}

// listRequest is the request for a page of r, in a given Accept.
func (c *Client) listRequest(r Resource, opts ListOptions) func(accept string) *rest.Request {
	return func(accept string) *rest.Request {
		q := c.rest.Get().AbsPath(r.PathSegments(opts.Namespace, "")...).SetHeader("Accept", accept).
			// A console page must answer; client-go would otherwise sleep
			// through up to ten Retry-After delays. The error page shows it.
			MaxRetries(0)
		setParam(q, "labelSelector", opts.LabelSelector)
		setParam(q, "fieldSelector", opts.FieldSelector)
		setParam(q, "continue", opts.Continue)
		if opts.Limit > 0 {
			q.Param("limit", strconv.FormatInt(opts.Limit, 10))
		}
		if opts.IncludeObject != "" {
			q.Param("includeObject", string(opts.IncludeObject))
		}
		return q
	}
}

// openTable asks for a Table, then, refused (406), for a list without it.
// With objects, each row keeps its whole object (Row.Raw).
func (c *Client) openTable(ctx context.Context, req func(accept string) *rest.Request, wide, objects bool) (*TableStream, error) {
	accepts := []string{acceptTable, acceptNoTable, MediaTypeJSON}
	if objects {
		// Whole objects: a metadata list would leave them out.
		accepts = []string{acceptTableObjects, MediaTypeJSON}
	}
	var s *TableStream
	var err error
	for _, accept := range accepts {
		// Some servers refuse as=Table outright; ask again without it.
		if s, err = c.streamTable(ctx, req(accept), wide, objects); !apierrors.IsNotAcceptable(err) {
			break
		}
	}
	return s, err
}

// streamTable sends the request and reads the answer's head. Error
// statuses come back as the server's Status (client-go decodes them for
// Stream too).
func (c *Client) streamTable(ctx context.Context, r *rest.Request, wide, objects bool) (*TableStream, error) {
	body, err := r.Stream(ctx)
	if err != nil {
		return nil, err
	}
	s, err := newTableStream(ctx, body, maxListBytes, wide, c.pools)
	if err == nil {
		// Rows are decoded by Next, never while the head is read.
		s.d.objects = objects
	}
	return s, err
}

func setParam(r *rest.Request, name, value string) {
	if value != "" {
		r.Param(name, value)
	}
}

// genericColumns are what kubectl shows for a server without Tables.
var genericColumns = []Column{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the object"},
	{Name: "Namespace", Type: "string", Description: "Namespace of the object"},
	{Name: "Age", Type: "date", Description: "Time since the object was created"},
}

// IsExpired reports whether err means a continue token is too old (410).
func IsExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) ||
		apierrors.ReasonForError(err) == metav1.StatusReasonExpired ||
		statusCode(err) == http.StatusGone
}

func statusCode(err error) int {
	if s, ok := err.(apierrors.APIStatus); ok {
		return int(s.Status().Code)
	}
	return 0
}
