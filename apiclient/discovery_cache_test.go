package apiclient

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDiscoveryCacheTTLAndForcedRefresh(t *testing.T) {
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	dc := newDiscoveryCache(time.Minute)
	dc.now = func() time.Time { return now }
	fetches := 0
	fetch := func(context.Context) (*Discovery, error) {
		fetches++
		return &Discovery{Groups: []Group{{Name: "v" + string(rune('0'+fetches))}}}, nil
	}
	ctx := context.Background()
	load := func(force bool) string {
		t.Helper()
		d, err := dc.load(ctx, "dev", force, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return d.Groups[0].Name
	}

	if got := load(false); got != "v1" || fetches != 1 {
		t.Fatalf("first load = %s after %d fetches", got, fetches)
	}
	now = now.Add(2 * time.Second)
	if got := load(false); got != "v1" {
		t.Errorf("within the TTL: %s, want the cached v1", got)
	}
	if got := load(true); got != "v1" || fetches != 1 {
		t.Errorf("forced refresh within %s refetched (%s, %d fetches)", minRefreshInterval, got, fetches)
	}
	now = now.Add(minRefreshInterval)
	if got := load(true); got != "v2" {
		t.Errorf("forced refresh after %s = %s, want a fresh v2", minRefreshInterval, got)
	}
	now = now.Add(time.Minute + time.Second)
	if got := load(false); got != "v3" {
		t.Errorf("after the TTL = %s, want a fresh v3", got)
	}
	// A failed fetch is returned, and the last good answer stays cached.
	failing := func(context.Context) (*Discovery, error) { return nil, errors.New("boom") }
	now = now.Add(time.Minute + time.Second)
	if _, err := dc.load(ctx, "dev", false, failing); err == nil {
		t.Error("a failed fetch was hidden")
	}
	if e, ok := dc.get("dev"); !ok || e.discovery.Groups[0].Name != "v3" {
		t.Error("a failed fetch dropped the cached discovery")
	}
}
