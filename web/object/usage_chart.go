package object

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// The chart asks again once per sample window (metrics-server's
// resolution), within these bounds.
const minEvery, maxEvery, defaultEvery = 10 * time.Second, time.Minute, 15 * time.Second

// The sparklines' drawing box, in SVG user units.
const sparkW, sparkH, sparkPad = 240, 48, 3

// usageChart is the chart of a history; window is metrics-server's, which
// sets how often the page asks again.
func usageChart(base templ.SafeURL, kind, name string, h []sample, window time.Duration) views.UsageChart {
	every := window
	if every <= 0 {
		every = defaultEvery
	}
	every = min(max(every, minEvery), maxEvery)
	c := views.UsageChart{
		Src:     base + "/usage",
		History: encodeHistory(h),
		Every:   strconv.FormatInt(every.Milliseconds(), 10),
		Samples: len(h),
	}
	subject := strings.ToLower(kind) + " " + name
	c.CPU = sparkline("CPU", subject, h, func(s sample) int64 { return s.cpu }, 10, kube.FormatCPU)
	c.Memory = sparkline("Memory", subject, h, func(s sample) int64 { return s.mem }, 1<<20, kube.FormatMemory)
	switch n := len(h); {
	case n == 0:
		c.Note = "Waiting for metrics-server's first sample of this " + strings.ToLower(kind) + "."
	case n == 1:
		c.Note = "1 sample; more arrive while this page is open."
	default:
		c.Note = fmt.Sprintf("%d samples over the last %s, while this page was open.", n, duration.HumanDuration(time.Duration(h[n-1].at-h[0].at)*time.Second))
	}
	if n := len(h); n > 0 {
		at := time.Unix(h[n-1].at, 0).UTC()
		c.Updated, c.UpdatedText = at.Format(time.RFC3339), at.Format("15:04:05 UTC")
	}
	return c
}

// sparkline draws one series: x by time across the history's span, y from
// zero to a little above its peak (at least floor, so an idle pod's line
// stays flat rather than magnifying noise).
func sparkline(label, subject string, h []sample, value func(sample) int64, floor int64, format func(int64) string) views.Sparkline {
	sp := views.Sparkline{Label: label, Latest: "—", Width: strconv.Itoa(sparkW), Height: strconv.Itoa(sparkH)}
	if len(h) == 0 {
		sp.Description = label + " of " + subject + ": no sample yet"
		return sp
	}
	peak := int64(0)
	for _, s := range h {
		peak = max(peak, value(s))
	}
	top := float64(max(peak, floor)) * 1.15
	first, span := h[0].at, h[len(h)-1].at-h[0].at
	x := func(s sample) float64 {
		if span == 0 {
			return sparkW - sparkPad
		}
		return sparkPad + float64(s.at-first)/float64(span)*(sparkW-2*sparkPad)
	}
	y := func(s sample) float64 { return sparkH - sparkPad - float64(value(s))/top*(sparkH-2*sparkPad) }
	var line strings.Builder
	for i, s := range h {
		if i > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(ftoa(x(s)) + "," + ftoa(y(s)))
	}
	last := h[len(h)-1]
	sp.Points = line.String()
	base := ftoa(sparkH - sparkPad)
	sp.Area = ftoa(x(h[0])) + "," + base + " " + sp.Points + " " + ftoa(x(last)) + "," + base
	sp.DotX, sp.DotY = ftoa(x(last)), ftoa(y(last))
	sp.Latest, sp.Peak = format(value(last)), format(peak)
	sp.Description = fmt.Sprintf("%s of %s: now %s, peak %s", label, subject, sp.Latest, sp.Peak)
	return sp
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
