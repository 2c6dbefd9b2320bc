package kube

import (
	"testing"
	"time"
)

func TestParseHumanDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"45s": 45 * time.Second, "5m3s": 5*time.Minute + 3*time.Second, "3h": 3 * time.Hour,
		"12d": 12 * 24 * time.Hour, "2y51d": (2*365 + 51) * 24 * time.Hour, "0s": 0,
	} {
		if got, ok := parseHumanDuration(in); !ok || got != want {
			t.Errorf("parseHumanDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "5", "abc", "5x", "m5"} {
		if _, ok := parseHumanDuration(bad); ok {
			t.Errorf("parseHumanDuration(%q) accepted", bad)
		}
	}
}
