package apiclient

import (
	"context"
	"io"
)

// TableStream is one page of a list being read: its head (the server's
// columns and list metadata) is known when OpenTable returns, its rows are
// decoded one at a time from the response as the caller asks for them, so a
// page can be rendered while the rest of the body is still arriving, and no
// page holds its whole body or all its rows at once.
//
//	s, err := client.OpenTable(ctx, r, opts)
//	if err != nil { … }
//	defer s.Close()
//	for s.Next() { use(s.Row()) }
//	if err := s.Err(); err != nil { … }
type TableStream struct {
	// Head is the page without its rows: Served, Columns, ResourceVersion,
	// Continue and RemainingItemCount. Rows is nil.
	Head Table

	ctx   context.Context
	body  io.ReadCloser
	pools *decodePools
	d     *tableDecoder // nil once closed
	row   *Row
	err   error
	read  int64 // bytes of the body decoded, once closed
}

// OpenTable starts reading one page of r as a server-side Table, with the
// same negotiation and fallbacks as ListTable. Errors before the rows (a
// Status, a malformed head) come from OpenTable, later ones from Err.
func (c *Client) OpenTable(ctx context.Context, r Resource, opts ListOptions) (*TableStream, error) {
	if err := checkNames(opts.Namespace); err != nil {
		return nil, err
	}
	return c.openTable(ctx, c.listRequest(r, opts), opts.Wide, opts.IncludeObject == IncludeFullObject)
}

// newTableStream reads body's head; the stream owns body from here.
func newTableStream(ctx context.Context, body io.ReadCloser, limit int64, wide bool, pools *decodePools) (*TableStream, error) {
	s := &TableStream{ctx: ctx, body: body, pools: pools, d: newTableDecoder(body, limit, wide, pools.rowMemory())}
	if err := s.d.open(); err != nil {
		s.err = s.d.fail(ctx, err)
		s.Close()
		return nil, s.err
	}
	s.Head = s.d.head
	return s, nil
}

// Next decodes the next row; false at the end of the page or on an error,
// which Err then reports.
func (s *TableStream) Next() bool {
	s.row = nil
	if s.d == nil {
		return false
	}
	ok, err := s.d.next()
	if err != nil {
		s.err = s.d.fail(s.ctx, err)
	}
	if !ok || err != nil {
		s.Close() // the body is read: release it now, not at the caller's defer
		return false
	}
	s.row = &s.d.row
	return true
}

// Row is the row Next decoded. It and everything it refers to are valid
// only until the next call to Next or Close: a caller that keeps a row
// keeps a Clone of it.
func (s *TableStream) Row() *Row { return s.row }

// Err is the error that ended the rows early, if any: a malformed body, a
// connection cut short, or the context's deadline.
func (s *TableStream) Err() error { return s.err }

// BytesRead is how many bytes of the response body were decoded so far (as
// the transport delivered them, after any content coding): what a page of
// the list cost to read.
func (s *TableStream) BytesRead() int64 {
	if s.d == nil {
		return s.read
	}
	return s.d.input.read
}

// Close releases the response and the decoder's memory. It is safe to call
// more than once, and after Close, Next is false.
func (s *TableStream) Close() {
	d := s.d
	if d == nil {
		return
	}
	s.d, s.row, s.read = nil, nil, d.input.read
	if !d.ended && s.err == nil {
		// Stopped early: a short rest is read so that the connection can
		// serve the next request; a long one is cheaper to cut.
		_, _ = io.CopyN(io.Discard, s.body, maxDrain)
	}
	_ = s.body.Close()
	s.pools.releaseRowMemory(d.mem)
}

// collect reads every row, kept, into one Table.
func (s *TableStream) collect() (*Table, error) {
	defer s.Close()
	t := s.Head
	for s.Next() {
		t.Rows = append(t.Rows, s.Row().Clone())
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Clone is a deep copy of the row, safe to keep after Next.
func (r *Row) Clone() Row {
	out := Row{Cells: append([]any(nil), r.Cells...), Conditions: append(r.Conditions[:0:0], r.Conditions...)}
	if r.Object != nil {
		meta := *r.Object
		if r.Object.Labels != nil {
			meta.Labels = make(map[string]string, len(r.Object.Labels))
			for k, v := range r.Object.Labels {
				meta.Labels[k] = v
			}
		}
		out.Object = &meta
	}
	if r.Raw != nil {
		out.Raw = append([]byte(nil), r.Raw...)
	}
	return out
}
