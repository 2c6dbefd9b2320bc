package auth

import (
	"fmt"
	"testing"
	"time"
)

// Rotating through more addresses than the limiter remembers never refuses
// a new address and never pools clients: the memory stays bounded, the
// clients forgotten first are those seen longest ago, and a client the
// limit holds back stays held back while it keeps trying.
func TestLimiterFullOfClientsForgetsTheLeastRecentlySeen(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := newLimiter(func() time.Time { return now })
	for i := range maxClients - 1 {
		if ok, _ := l.allow(fmt.Sprint("old-", i)); !ok {
			t.Fatalf("new address %d refused", i)
		}
	}
	now = now.Add(time.Second)
	for range loginBurst {
		l.allow("flooder")
	}
	if ok, _ := l.allow("flooder"); ok {
		t.Fatal("the flooder was not held back")
	}
	for i := range maxClients {
		if ok, _ := l.allow(fmt.Sprint("rotating-", i)); !ok {
			t.Fatalf("rotating address %d refused: a full limiter must admit new clients", i)
		}
		if i%1000 == 0 {
			if ok, _ := l.allow("flooder"); ok {
				t.Fatalf("the flooder got a fresh budget after %d new addresses", i)
			}
		}
	}
	if n := l.size(); n > maxClients {
		t.Errorf("%d clients remembered, want at most %d", n, maxClients)
	}
	if _, ok := l.clients["old-0"]; ok {
		t.Error("the least recently seen client was kept over newer ones")
	}
	// A client whose burst has come back is as good as unknown: forgotten.
	now = now.Add(refilled)
	l.allow("late")
	if n := l.size(); n != 1 {
		t.Errorf("%d clients remembered once every other burst came back, want 1", n)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":             "203.0.113.7",
		"::ffff:203.0.113.7":      "203.0.113.7",
		"2001:db8:1:2:3:4:5:6":    "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1":    "2001:db8:1:2::/64",
		"not an address (a test)": "not an address (a test)",
	} {
		if got := clientKey(in); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", in, got, want)
		}
	}
}
