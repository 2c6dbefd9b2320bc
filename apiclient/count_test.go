package apiclient_test

import (
	"context"
	"testing"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// Every request sent under a counting context is counted, the 406 of a
// server without Tables included, and only under that context.
func TestCountRequests(t *testing.T) {
	fake := apitest.NewServerWith(t, apitest.Options{Table: apitest.TableNotAcceptable}, apitest.CoreV1())
	seedPods(fake)
	c := clientFor(t, fake)
	if _, err := c.Discovery(context.Background()); err != nil { // not counted
		t.Fatal(err)
	}
	var outer, inner apiclient.RequestCount
	ctx := apiclient.CountRequests(context.Background(), &outer)
	if _, err := c.ListTable(ctx, podsRes, apiclient.ListOptions{Namespace: "demo"}); err != nil {
		t.Fatal(err)
	}
	if got := outer.Load(); got != 2 {
		t.Errorf("a list negotiated past a 406 counted %d requests, want 2", got)
	}
	if _, err := c.ListTable(apiclient.CountRequests(ctx, &inner), podsRes, apiclient.ListOptions{Namespace: "demo"}); err != nil {
		t.Fatal(err)
	}
	if outer.Load() != 2 || inner.Load() != 2 {
		t.Errorf("nested counters: outer %d (want 2), inner %d (want 2)", outer.Load(), inner.Load())
	}
}
