package apiclient

import (
	"context"
	"net/http"
	"sync/atomic"
)

// RequestCount counts the upstream requests made with a context, so that a
// page which fans out can state what it cost, retries and negotiation
// included.
type RequestCount struct{ n atomic.Int64 }

type requestCountKey struct{}

// CountRequests returns a context under which every request any Client
// sends is counted in c (the innermost counter only).
func CountRequests(ctx context.Context, c *RequestCount) context.Context {
	return context.WithValue(ctx, requestCountKey{}, c)
}

// Load is how many requests were sent so far.
func (c *RequestCount) Load() int64 { return c.n.Load() }

// countingTransport adds one to the request context's counter, if any.
type countingTransport struct{ next http.RoundTripper }

func countRequests(next http.RoundTripper) http.RoundTripper { return countingTransport{next: next} }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if c, ok := req.Context().Value(requestCountKey{}).(*RequestCount); ok {
		c.n.Add(1)
	}
	return t.next.RoundTrip(req)
}
