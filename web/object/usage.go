package object

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// The usage of pods, nodes and workloads, from metrics.k8s.io.
//
// Pod and node pages chart their recent usage while they are open. The
// history lives in the page, never on the server: the chart element
// carries its samples (data-usage-history, at most maxSamples), and
// static/live/usage.js sends them back to …/{name}/usage once per
// metrics-server period. That endpoint reads the current sample with the
// requester's own client, adds it unless metrics-server still serves the
// sample it already has (same timestamp), and renders the chart again,
// history included, for the script to swap in. No cache can answer one
// user with another's samples, the server keeps nothing per page, and a
// forged history only changes its sender's own chart.

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
	// usageTimeout bounds the metrics request of an object page.
	usageTimeout = 2 * time.Second
	// The chart asks again once per sample window (metrics-server's
	// resolution), within these bounds.
	minEvery, maxEvery, defaultEvery = 10 * time.Second, time.Minute, 15 * time.Second
)

// UsageInput is what metrics.k8s.io said about the object.
type UsageInput struct {
	// Sample is a pod's or node's current sample; nil when metrics-server
	// has none yet (a pod it has not scraped).
	Sample *apiclient.UsageSample
	// Workload marks a workload's sum: Total over Pods pods, the ones its
	// Selector matches.
	Workload bool
	Pods     int
	Total    apiclient.Usage
	Selector string
}

// podsResource is core v1 pods, whose usage a workload sums.
var podsResource = apiclient.Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}

// pendingUsage is an object page's metrics request: a pod's or node's
// sample runs alongside the page's other requests; a workload's list needs
// the object's selector, so it runs once the object is read.
type pendingUsage struct {
	done   chan *UsageInput // nil: nothing asked yet
	cancel context.CancelFunc
}

// startUsage begins a pod's or node's usage request when the server serves
// metrics.k8s.io for it and would let the user read it; workloads wait for
// their object.
func startUsage(ctx context.Context, env *page.Env, t page.Target) *pendingUsage {
	p := &pendingUsage{cancel: func() {}}
	m, ok := t.Client.UsageResource(ctx, t.Resource)
	if !ok {
		return p
	}
	ctx, p.cancel = context.WithTimeout(ctx, usageTimeout)
	p.done = make(chan *UsageInput, 1)
	go func() {
		if env.UsageDenied(ctx, t.Client, kube.UsageCheck(m, "get", t.Path.Namespace, t.Path.Name)) {
			p.done <- nil
			return
		}
		s, err := t.Client.GetUsage(ctx, m, t.Path.Namespace, t.Path.Name)
		switch {
		case err == nil:
			p.done <- &UsageInput{Sample: &s}
		case page.StatusOf(err) == http.StatusNotFound:
			// Not scraped yet: the chart waits for the first sample.
			p.done <- &UsageInput{}
		default:
			// Forbidden, unavailable, too slow: the page goes without.
			p.done <- nil
		}
	}()
	return p
}

// stop gives the request up, for a page that failed.
func (p *pendingUsage) stop() {
	p.cancel()
	if p.done != nil {
		<-p.done
	}
}

// wait returns the object's usage: a pod's or node's from the request
// started, a workload's from one list of its pods' samples (obj is the
// workload; nil when the page failed).
func (p *pendingUsage) wait(ctx context.Context, env *page.Env, client *apiclient.Client, obj *unstructured.Unstructured) *UsageInput {
	defer p.cancel()
	if p.done != nil {
		return <-p.done
	}
	if obj == nil {
		return nil
	}
	sel, ok, err := apiclient.WorkloadSelector(obj)
	if !ok || err != nil {
		return nil
	}
	m, ok := client.UsageResource(ctx, podsResource)
	if !ok || env.UsageDenied(ctx, client, kube.UsageCheck(m, "list", obj.GetNamespace(), "")) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, usageTimeout)
	defer cancel()
	samples, err := client.ListUsage(ctx, m, obj.GetNamespace(), sel.String())
	if err != nil {
		return nil
	}
	in := &UsageInput{Workload: true, Pods: len(samples), Selector: sel.String()}
	for _, s := range samples {
		in.Total = in.Total.Add(s.Usage)
	}
	return in
}

// Usage serves …/pods/{name}/usage and …/nodes/{name}/usage: the chart of
// the object page with the current sample added to the history the page
// sent (?history=). 404 where the server serves no metrics.k8s.io, or has
// no sample of the object; 400 for a history this console did not write.
func (h *Handler) Usage(c echo.Context, t page.Target) error {
	ctx := c.Request().Context()
	if t.Path.Name == "" {
		return echo.NewHTTPError(http.StatusNotFound, "Usage is served for one pod or node.")
	}
	m, ok := t.Client.UsageResource(ctx, t.Resource)
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no usage of %s: its discovery lists no metrics.k8s.io for them.", t.Resource.Name))
	}
	history, err := parseHistory(c.QueryParam("history"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	s, err := t.Client.GetUsage(ctx, m, t.Path.Namespace, t.Path.Name)
	if err != nil {
		return err
	}
	base := t.URLs.Resource(t.Resource, t.Path.Namespace, t.Path.Name)
	chart := usageChart(base, t.Resource.Kind, t.Path.Name, addSample(history, s), s.Window)
	return h.env.Render(c, http.StatusOK, views.UsageChartView(chart))
}

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

// usageSection is the usage part of an object page; nil without usage.
func usageSection(ctx context.Context, in Input) *views.UsageSection {
	u := in.Usage
	if u == nil || in.View != viewOverview {
		return nil
	}
	if u.Workload {
		sec := &views.UsageSection{
			Title:  "Usage",
			Fields: []views.Field{{Name: "CPU", Value: kube.FormatCPU(u.Total.CPUMilli)}, {Name: "Memory", Value: kube.FormatMemory(u.Total.MemoryBytes)}},
			Note:   fmt.Sprintf("The sum over %d pods with a sample that match %s, as kubectl top pod -l %s shows them.", u.Pods, u.Selector, u.Selector),
		}
		if u.Pods == 1 {
			sec.Note = fmt.Sprintf("The one pod with a sample that matches %s.", u.Selector)
		}
		if u.Pods == 0 {
			sec.Note = "No pod matching " + u.Selector + " has a sample yet."
		}
		return sec
	}
	var h []sample
	window := time.Duration(0)
	if u.Sample != nil {
		h, window = addSample(nil, *u.Sample), u.Sample.Window
	}
	base := in.URLs.Resource(in.Resource, in.Namespace, in.Name)
	chart := usageChart(base, in.Resource.Kind, in.Name, h, window)
	return &views.UsageSection{Title: "Usage", Chart: &chart, Fields: reserved(in.Resource, in.Object)}
}

// reserved is what a pod asks for (its containers' requests and limits,
// summed) or what a node offers (allocatable), beside its usage.
func reserved(r apiclient.Resource, obj *unstructured.Unstructured) []views.Field {
	if obj == nil {
		return nil
	}
	var out []views.Field
	add := func(name string, q map[string]int64) {
		if v, ok := q["cpu"]; ok {
			out = append(out, views.Field{Name: "CPU " + name, Value: kube.FormatCPU(v)})
		}
		if v, ok := q["memory"]; ok {
			out = append(out, views.Field{Name: "Memory " + name, Value: kube.FormatMemory(v)})
		}
	}
	if r.Name == "nodes" {
		m, _, _ := unstructured.NestedStringMap(obj.Object, "status", "allocatable")
		add("allocatable", quantities(m))
		return out
	}
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "containers")
	requests, limits := map[string]int64{}, map[string]int64{}
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		req, _, _ := unstructured.NestedStringMap(cm, "resources", "requests")
		lim, _, _ := unstructured.NestedStringMap(cm, "resources", "limits")
		for k, v := range quantities(req) {
			requests[k] += v
		}
		for k, v := range quantities(lim) {
			limits[k] += v
		}
	}
	add("requested", requests)
	add("limit", limits)
	return out
}

// quantities reads the cpu (as millicores) and memory (as bytes) of a
// resource list; values that do not parse are left out.
func quantities(m map[string]string) map[string]int64 {
	out := map[string]int64{}
	if q, err := resource.ParseQuantity(m["cpu"]); err == nil && m["cpu"] != "" {
		out["cpu"] = q.MilliValue()
	}
	if q, err := resource.ParseQuantity(m["memory"]); err == nil && m["memory"] != "" {
		out["memory"] = q.Value()
	}
	return out
}
