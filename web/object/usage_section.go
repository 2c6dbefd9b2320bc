package object

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

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
