package object

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// usageTimeout bounds the metrics request of an object page.
const usageTimeout = 2 * time.Second

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
