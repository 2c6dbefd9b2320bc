package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// A body cut short because the page's deadline came is the deadline's
// doing: the page must say the server was too slow (504), not that it
// answered nonsense (500). The deadline here arrives while the (empty)
// body is decoded, which is where the race of a real deadline lands.
func TestFetchReportsTheDeadlineNotABadBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
	}))
	t.Cleanup(srv.Close)
	rc, err := rest.UnversionedRESTClientFor(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{NegotiatedSerializer: scheme.Codecs.WithoutConversion()}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	decode := func(body []byte) (*Table, error) {
		cancel(context.DeadlineExceeded)
		return (&Client{pools: newDecodePools()}).decodeTable(body, false)
	}
	_, err = fetch(ctx, newDecodePools(), rc.Get().AbsPath("/api/v1/pods"), decode)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("fetch = %v, want the deadline", err)
	}

	// Without a deadline, an empty body is a bad answer, said as such.
	_, err = fetch(context.Background(), newDecodePools(), rc.Get().AbsPath("/api/v1/pods"), func(b []byte) (*Table, error) { return (&Client{pools: newDecodePools()}).decodeTable(b, false) })
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("fetch of an empty body = %v, want a decoding error", err)
	}
}
