package object

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-console/tabula/apiclient"
)

// A chart's history: the samples the page carries, sent back with each
// request for the chart (see usage.go), and bounded here because the
// browser sends them.

const (
	// maxSamples bounds a chart's history: an hour at metrics-server's
	// 60 s resolution, 15 minutes at 15 s.
	maxSamples = 60
	// maxSpan bounds the time a chart spans: maxSamples at the slowest
	// period the page asks at, with room for a page left in the background.
	maxSpan = 2 * time.Hour
	// maxHistory bounds the history parameter: maxSamples of the longest
	// samples fit well within it.
	maxHistory = 4 << 10
)

// sample is one point of a chart: when, CPU millicores, memory bytes.
type sample struct{ at, cpu, mem int64 }

// parseHistory reads "unix,cpu,mem;…", oldest first, as encodeHistory
// writes it.
func parseHistory(s string) ([]sample, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > maxHistory {
		return nil, fmt.Errorf("the usage history is longer than %d bytes", maxHistory)
	}
	parts := strings.Split(s, ";")
	if len(parts) > maxSamples {
		return nil, fmt.Errorf("the usage history has more than %d samples", maxSamples)
	}
	out := make([]sample, 0, len(parts))
	for _, p := range parts {
		f := strings.Split(p, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("malformed usage sample %q", p)
		}
		var v [3]int64
		for i := range f {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("malformed usage sample %q", p)
			}
			v[i] = n
		}
		if len(out) > 0 && v[0] <= out[len(out)-1].at {
			return nil, fmt.Errorf("usage samples out of order at %q", p)
		}
		out = append(out, sample{at: v[0], cpu: v[1], mem: v[2]})
	}
	return out, nil
}

func encodeHistory(h []sample) string {
	var b strings.Builder
	for i, s := range h {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%d,%d,%d", s.at, s.cpu, s.mem)
	}
	return b.String()
}

// addSample appends s, the current sample, to the history unless it
// already ends with it (or a later one): metrics-server serves the same
// sample until its next scrape. The oldest samples go past maxSamples.
func addSample(h []sample, s apiclient.UsageSample) []sample {
	if s.Timestamp.IsZero() {
		return h
	}
	at := s.Timestamp.Unix()
	// The history came from the browser: samples further than a chart's
	// span from the current one are dropped, so a forged one can neither
	// freeze the chart nor stretch its time axis. A slightly later one is
	// kept: a metrics-server replica may lag the one that served it.
	span := int64(maxSpan / time.Second)
	first := 0
	for first < len(h) && h[first].at < at-span {
		first++
	}
	h = h[first:]
	for len(h) > 0 && h[len(h)-1].at > at+span {
		h = h[:len(h)-1]
	}
	if len(h) > 0 && h[len(h)-1].at >= at {
		return h
	}
	h = append(h, sample{at: at, cpu: s.Usage.CPUMilli, mem: s.Usage.MemoryBytes})
	if len(h) > maxSamples {
		h = h[len(h)-maxSamples:]
	}
	return h
}
