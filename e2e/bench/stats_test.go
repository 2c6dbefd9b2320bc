package main

import (
	"math"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"p50 of odd", ms(1, 2, 3, 4, 5), 0.5, 3 * time.Millisecond},
		{"p50 of even is the lower middle", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p99 of 10 is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.99, 10 * time.Millisecond},
		{"p100", ms(1, 2, 3), 1, 3 * time.Millisecond},
		{"p0 is the min", ms(1, 2, 3), 0, 1 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(%v, %v) = %v, want %v", tc.name, tc.sorted, tc.p, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil) = %v, want NaN", got)
	}
	xs := []float64{5, 1, 3}
	if got := median(xs); got != 3 {
		t.Errorf("median(5,1,3) = %v, want 3", got)
	}
	if xs[0] != 5 {
		t.Errorf("median reordered its input: %v", xs)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median(4,1,3,2) = %v, want 2.5", got)
	}
}

func TestMetricSum(t *testing.T) {
	s := series{
		`tabula_upstream_watches`:                      3,
		`tabula_upstream_watches_total`:                100,
		`tabula_websockets_open{kind="list"}`:          4,
		`tabula_websockets_open{kind="log"}`:           1,
		`tabula_http_requests_total{route="/metrics"}`: 9,
	}
	if v, ok := metricSum(s, "tabula_upstream_watches"); !ok || v != 3 {
		t.Errorf("watches = %v, %v; want 3, true", v, ok)
	}
	if v, ok := metricSum(s, "tabula_websockets_open"); !ok || v != 5 {
		t.Errorf("websockets = %v, %v; want 5, true", v, ok)
	}
	if _, ok := metricSum(s, "tabula_missing"); ok {
		t.Error("a missing metric was found")
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 20; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := summarize(ds)
	if s.p50 != 10*time.Millisecond || s.p95 != 19*time.Millisecond || s.mean != 10500*time.Microsecond {
		t.Errorf("summarize = %+v", s)
	}
	if ds[0] != 20*time.Millisecond {
		t.Error("summarize sorted its input")
	}
	if s := summarize(nil); s != (stats{}) {
		t.Errorf("summarize(nil) = %+v", s)
	}
}

func TestPositiveInts(t *testing.T) {
	if got, err := positiveInts(" 1, 4,,16 "); err != nil || len(got) != 3 || got[0] != 1 || got[1] != 4 || got[2] != 16 {
		t.Errorf("positiveInts = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "-1", "x", "1,two"} {
		if _, err := positiveInts(bad); err == nil {
			t.Errorf("positiveInts(%q) accepted", bad)
		}
	}
	if got, err := positiveInts(""); err != nil || len(got) != 0 {
		t.Errorf("positiveInts(\"\") = %v, %v", got, err)
	}
}

func TestParseSeries(t *testing.T) {
	s := parseSeries([]byte("# HELP x\n# TYPE x counter\n" +
		`tabula_http_request_duration_seconds_sum{route="/c/:ctx/api/:v/pods"} 1.5` + "\n" +
		"go_memstats_heap_inuse_bytes 4.2e+06\nbroken\n"))
	if len(s) != 2 || s[`tabula_http_request_duration_seconds_sum{route="/c/:ctx/api/:v/pods"}`] != 1.5 || s["go_memstats_heap_inuse_bytes"] != 4.2e6 {
		t.Errorf("parseSeries = %v", s)
	}
}

func TestRowsOf(t *testing.T) {
	page := []byte(`<table><thead><tr><th>Name</th></tr></thead><tbody><tr data-key="a"><td>a</td></tr>` + "\n" + `<tr data-key="b"><td>b</td></tr></tbody></table>`)
	if n := rowsOf(listKind{console: true}, page); n != 2 {
		t.Errorf("page rows = %d, want 2", n)
	}
	table := []byte(`{"kind":"Table","rows":[{"cells":["a"]},{"cells":["b"]},{"cells":["c"]}]}`)
	if n := rowsOf(listKind{}, table); n != 3 {
		t.Errorf("Table rows = %d, want 3", n)
	}
}
