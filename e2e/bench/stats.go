package main

import (
	"math"
	"slices"
	"strings"
	"time"
)

// percentile is the nearest-rank percentile of sorted (ascending): the
// smallest value with at least p (0..1] of the samples at or below it. It is
// 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// median is the middle value of xs, or the mean of the two middle values
// when there is an even number; NaN for none. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// metricSum adds up every series of the metric name (all label sets); ok is
// false when the console does not export it.
func metricSum(s series, name string) (sum float64, ok bool) {
	for k, v := range s {
		base, _, _ := strings.Cut(k, "{")
		if base == name {
			sum += v
			ok = true
		}
	}
	return sum, ok
}

// stats summarises durations.
type stats struct {
	p50, p95, mean time.Duration
}

// summarize is the nearest-rank p50 and p95 and the mean of ds; zero for none.
func summarize(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return stats{p50: percentile(s, 0.50), p95: percentile(s, 0.95), mean: sum / time.Duration(len(s))}
}

// durations are the samples' times.
func durations(samples []sample) []time.Duration {
	out := make([]time.Duration, len(samples))
	for i, s := range samples {
		out[i] = s.d
	}
	return out
}
