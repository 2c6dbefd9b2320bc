package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
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
func (c *Client) ListTable(ctx context.Context, r Resource, opts ListOptions) (*Table, error) {
	if err := checkNames(opts.Namespace); err != nil {
		return nil, err
	}
	req := func(accept string) *rest.Request {
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
	return c.negotiateTable(ctx, req, opts.Wide)
}

// GetTable fetches one object as a one-row Table, for its printer columns.
func (c *Client) GetTable(ctx context.Context, r Resource, namespace, name string) (*Table, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	return c.negotiateTable(ctx, func(accept string) *rest.Request {
		return c.rest.Get().AbsPath(r.PathSegments(namespace, name)...).SetHeader("Accept", accept).
			Param("includeObject", string(IncludeNone)).MaxRetries(0)
	}, true)
}

func (c *Client) negotiateTable(ctx context.Context, req func(accept string) *rest.Request, wide bool) (*Table, error) {
	decode := func(body []byte) (*Table, error) { return c.decodeTable(body, wide) }
	t, err := fetch(ctx, c.pools, req(acceptTable), decode)
	if apierrors.IsNotAcceptable(err) {
		// Some servers refuse as=Table outright; ask again without it.
		t, err = fetch(ctx, c.pools, req(acceptNoTable), decode)
		if apierrors.IsNotAcceptable(err) {
			t, err = fetch(ctx, c.pools, req(MediaTypeJSON), decode)
		}
	}
	return t, err
}

// fetch streams the response into a pooled buffer and decodes it there, so
// list pages do not allocate their bodies afresh. Error statuses come back
// as the server's Status (client-go decodes them for Stream too).
func fetch[T any](ctx context.Context, pools *decodePools, r *rest.Request, decode func([]byte) (T, error)) (T, error) {
	var zero T
	rc, err := r.Stream(ctx)
	if err != nil {
		return zero, err
	}
	defer rc.Close()
	buf := pools.body()
	defer pools.releaseBody(buf)
	_, err = buf.ReadFrom(rc)
	if err == nil {
		var v T
		if v, err = decode(buf.Bytes()); err == nil {
			return v, nil
		}
	}
	if ctx.Err() != nil {
		// A body cut short by the deadline is the deadline's doing, not a
		// malformed answer: the page says the server was too slow (504).
		return zero, fmt.Errorf("reading response: %w", context.Cause(ctx))
	}
	return zero, &BadResponseError{Err: err}
}

func setParam(r *rest.Request, name, value string) {
	if value != "" {
		r.Param(name, value)
	}
}

// wireList is every list shape a server may answer with (Table, metadata
// list, plain list), so the body is parsed once whatever came back.
type wireList struct {
	Kind              string                         `json:"kind"`
	APIVersion        string                         `json:"apiVersion"`
	Metadata          metav1.ListMeta                `json:"metadata"`
	ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
	Rows              []wireRow                      `json:"rows"`
	Items             []json.RawMessage              `json:"items"`
}

type wireRow struct {
	Cells      []any                      `json:"cells"`
	Conditions []metav1.TableRowCondition `json:"conditions"`
	Object     json.RawMessage            `json:"object"`
}

func (c *Client) decodeTable(body []byte, wide bool) (*Table, error) {
	if t, ok, err := decodeTableFast(&c.pools.parsers, body, wide); ok || err != nil {
		return t, err
	}
	var in wireList
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("decoding response: %w", err)
	}
	if in.Kind == "Table" {
		return fromServerTable(&in)
	}
	return fromList(&in)
}

func fromServerTable(in *wireList) (*Table, error) {
	out := &Table{
		Served:             TableV1,
		ResourceVersion:    in.Metadata.ResourceVersion,
		Continue:           in.Metadata.Continue,
		RemainingItemCount: in.Metadata.RemainingItemCount,
		Columns:            make([]Column, len(in.ColumnDefinitions)),
		Rows:               make([]Row, len(in.Rows)),
	}
	if in.APIVersion == "meta.k8s.io/v1beta1" {
		out.Served = TableV1Beta1
	}
	for i, c := range in.ColumnDefinitions {
		out.Columns[i] = Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: c.Priority}
	}
	for i, r := range in.Rows {
		out.Rows[i] = Row{Cells: r.Cells, Conditions: r.Conditions}
		if len(r.Object) > 0 && string(r.Object) != "null" {
			meta, err := decodeMeta(r.Object)
			if err != nil {
				return nil, fmt.Errorf("decoding row %d object: %w", i, err)
			}
			out.Rows[i].Object = meta
		}
	}
	return out, nil
}

func decodeMeta(raw []byte) (*ObjectMeta, error) {
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	m := obj.Metadata
	return &ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, CreationTimestamp: m.CreationTimestamp.Time, Labels: m.Labels}, nil
}

// genericColumns are what kubectl shows for a server without Tables.
var genericColumns = []Column{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the object"},
	{Name: "Namespace", Type: "string", Description: "Namespace of the object"},
	{Name: "Age", Type: "date", Description: "Time since the object was created"},
}

func fromList(in *wireList) (*Table, error) {
	out := &Table{
		Served:             JSONFallback,
		Columns:            slices.Clone(genericColumns),
		ResourceVersion:    in.Metadata.ResourceVersion,
		Continue:           in.Metadata.Continue,
		RemainingItemCount: in.Metadata.RemainingItemCount,
		Rows:               make([]Row, len(in.Items)),
	}
	if in.Kind == "PartialObjectMetadataList" {
		out.Served = MetadataList
	}
	for i, raw := range in.Items {
		meta, err := decodeMeta(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding %s item %d: %w", in.Kind, i, err)
		}
		var age any
		if !meta.CreationTimestamp.IsZero() {
			age = meta.CreationTimestamp.UTC().Format(time.RFC3339)
		}
		out.Rows[i] = Row{Cells: []any{meta.Name, meta.Namespace, age}, Object: meta}
	}
	return out, nil
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
