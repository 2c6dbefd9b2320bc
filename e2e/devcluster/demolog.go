package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// demoLog appends CRI-format lines ("<RFC3339Nano> stdout F <message>") to
// the file kwok serves as every container's log, so that `kubectl logs -f`
// on any pod shows a log that keeps growing.
type demoLog struct {
	path    string
	counter int
	rng     *rand.Rand
}

func newDemoLog(path string) *demoLog {
	return &demoLog{path: path, counter: 4700, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 42))}
}

// prefill writes n back-dated lines if the file is empty or missing.
func (d *demoLog) prefill(n int) error {
	if st, err := os.Stat(d.path); err == nil && st.Size() > 0 {
		return nil
	}
	f, err := os.OpenFile(d.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now().Add(-time.Duration(n) * time.Second)
	for i := range n {
		if _, err := f.WriteString(d.line(start.Add(time.Duration(i) * time.Second))); err != nil {
			return err
		}
	}
	return nil
}

// run appends one line every interval until ctx is done.
func (d *demoLog) run(ctx context.Context, interval time.Duration) error {
	f, err := os.OpenFile(d.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-ticker.C:
			if _, err := f.WriteString(d.line(now)); err != nil {
				return err
			}
		}
	}
}

var (
	demoRoutes = []string{
		"GET /api/orders", "GET /api/orders/{id}", "POST /api/orders", "GET /api/customers",
		"GET /healthz", "PUT /api/cart", "DELETE /api/cart/items/{id}", "GET /api/inventory",
		"POST /api/payments", "GET /metrics",
	}
	demoEvents = []string{
		`level=info msg="cache refreshed" entries=%d`,
		`level=debug msg="connection pool stats" open=%d idle=4`,
		`level=warn msg="slow query" table=orders rows=%d`,
		`level=info msg="background job finished" job=reindex processed=%d`,
		`level=error msg="upstream timeout, retrying" upstream=payments attempt=%d`,
	}
)

func (d *demoLog) line(t time.Time) string {
	d.counter++
	var msg string
	if d.rng.IntN(6) == 0 {
		msg = fmt.Sprintf(demoEvents[d.rng.IntN(len(demoEvents))], 1+d.rng.IntN(500))
	} else {
		status := 200
		switch r := d.rng.IntN(40); {
		case r == 0:
			status = 500
		case r < 3:
			status = 404
		case r < 5:
			status = 201
		}
		level := "info"
		if status >= 500 {
			level = "error"
		}
		msg = fmt.Sprintf(`level=%s msg="%s %d" duration=%dms request=%d`,
			level, demoRoutes[d.rng.IntN(len(demoRoutes))], status, 1+d.rng.IntN(250), d.counter)
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z") + " stdout F " + msg + "\n"
}
