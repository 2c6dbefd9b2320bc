package apiclient

import (
	"context"
)

// TableStream is one page of a list being read: its head (the server's
// columns and list metadata) is known when OpenTable returns, its rows are
// decoded one at a time as the caller asks for them, so a page can be
// rendered while the rest of the body is still arriving, and no page holds
// its whole body or all its rows at once.
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

	rows []Row
	next int
	row  *Row
	err  error
}

// OpenTable starts reading one page of r as a server-side Table, with the
// same negotiation and fallbacks as ListTable.
func (c *Client) OpenTable(ctx context.Context, r Resource, opts ListOptions) (*TableStream, error) {
	t, err := c.ListTable(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	s := &TableStream{Head: *t, rows: t.Rows}
	s.Head.Rows = nil
	return s, nil
}

// Next decodes the next row; false at the end of the page or on an error,
// which Err then reports.
func (s *TableStream) Next() bool {
	if s.err != nil || s.next >= len(s.rows) {
		s.row = nil
		return false
	}
	s.row = &s.rows[s.next]
	s.next++
	return true
}

// Row is the row Next decoded. It and everything it refers to are valid
// only until the next call to Next or Close: a caller that keeps a row
// keeps a Clone of it.
func (s *TableStream) Row() *Row { return s.row }

// Err is the error that ended the rows early, if any: a malformed body, a
// connection cut short, or the context's deadline.
func (s *TableStream) Err() error { return s.err }

// Close releases the response and the decoder's memory. It is safe to call
// more than once, and after Close, Next is false.
func (s *TableStream) Close() {
	s.rows, s.row, s.next = nil, nil, 0
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
	return out
}
