package main

import (
	"encoding/json"
	"math"
	"testing"
)

// A load laid out by hand: the breakdown puts each millisecond of the
// main thread's time to the paint where it belongs, and the parts add up.
func TestAnalyzeTraceAttributesEveryMillisecond(t *testing.T) {
	const url = "http://127.0.0.1:1/c/admin/"
	ev := func(js string) traceEvent {
		var e traceEvent
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	events := []traceEvent{
		// Another page's navigation, in another process: ignored.
		ev(`{"name":"navigationStart","ph":"R","ts":900000,"pid":2,"tid":1,"args":{"data":{"documentLoaderURL":"about:blank","isLoadingMainFrame":true}}}`),
		ev(`{"name":"navigationStart","ph":"R","ts":1000000,"pid":1,"tid":1,"args":{"data":{"documentLoaderURL":"http://127.0.0.1:1/c/admin/","isLoadingMainFrame":true}}}`),
		// The HTML itself, whose last byte came at 40 ms (the load's
		// responseEnd) though the trace's request ends later: waited for
		// as the HTML, not as another request.
		ev(`{"name":"ResourceSendRequest","ph":"I","ts":1001000,"pid":5,"tid":3,"args":{"data":{"requestId":"1","url":"http://127.0.0.1:1/c/admin/"}}}`),
		ev(`{"name":"ResourceFinish","ph":"I","ts":1100000,"pid":5,"tid":3,"args":{"data":{"requestId":"1"}}}`),
		// The page loaded before, parsed and rendered before the
		// navigation, and the empty document's rendering before the page
		// is parsed: not the page's.
		ev(`{"name":"ParseHTML","ph":"X","ts":990000,"dur":1000,"pid":1,"tid":1,"args":{"beginData":{"url":"http://127.0.0.1:1/healthz"}}}`),
		ev(`{"name":"LocalFrameView::BeginLifecycleUpdates","ph":"X","ts":995000,"dur":0,"pid":1,"tid":1}`),
		ev(`{"name":"ParseHTML","ph":"X","ts":1001000,"dur":100,"tdur":100,"tts":5000,"pid":1,"tid":1,"args":{"beginData":{"url":""}}}`),
		ev(`{"name":"LocalFrameView::BeginLifecycleUpdates","ph":"X","ts":1002000,"dur":0,"pid":1,"tid":1}`),
		// Parsing, with a script inside, in a task; the page's rendering
		// begins inside it (at 52.5 ms), and Blink says so again later.
		ev(`{"name":"RunTask","ph":"X","ts":1050000,"dur":5000,"tdur":2000,"tts":6000,"pid":1,"tid":1}`),
		// The parse as a begin/end pair: its document is on the begin.
		ev(`{"name":"ParseHTML","ph":"B","ts":1050500,"tts":6100,"pid":1,"tid":1,"args":{"beginData":{"url":"http://127.0.0.1:1/c/admin/"}}}`),
		ev(`{"name":"ParseHTML","ph":"E","ts":1053500,"tts":7900,"pid":1,"tid":1,"args":{"endData":{"endLine":9}}}`),
		ev(`{"name":"EvaluateScript","ph":"X","ts":1051000,"dur":1000,"pid":1,"tid":1}`),
		ev(`{"name":"LocalFrameView::BeginLifecycleUpdates","ph":"X","ts":1052500,"dur":0,"pid":1,"tid":1}`),
		ev(`{"name":"LocalFrameView::BeginLifecycleUpdates","ph":"X","ts":1089000,"dur":0,"pid":1,"tid":1}`),
		// Work of another thread: ignored.
		ev(`{"name":"Paint","ph":"X","ts":1060000,"dur":9000,"pid":1,"tid":7}`),
		// The stylesheet, render-blocking, in flight from 52 to 80 ms.
		ev(`{"name":"ResourceSendRequest","ph":"I","ts":1052000,"pid":1,"tid":1,"args":{"data":{"requestId":"9","url":"http://127.0.0.1:1/static/app.css","renderBlocking":"blocking"}}}`),
		ev(`{"name":"ResourceFinish","ph":"I","ts":1080000,"pid":5,"tid":3,"args":{"data":{"requestId":"9"}}}`),
		// A module, not blocking, in flight from 53 to 85 ms.
		ev(`{"name":"ResourceSendRequest","ph":"I","ts":1053000,"pid":1,"tid":1,"args":{"data":{"requestId":"10","url":"http://127.0.0.1:1/static/app.js","renderBlocking":"non_blocking"}}}`),
		ev(`{"name":"ResourceFinish","ph":"I","ts":1085000,"pid":5,"tid":3,"args":{"data":{"requestId":"10"}}}`),
		// The frame: style, layout, paint, commit (begin/end pairs too).
		ev(`{"name":"RunTask","ph":"X","ts":1090000,"dur":4000,"tdur":4000,"tts":9000,"pid":1,"tid":1}`),
		ev(`{"name":"UpdateLayoutTree","ph":"B","ts":1090000,"pid":1,"tid":1}`),
		ev(`{"name":"UpdateLayoutTree","ph":"E","ts":1091000,"pid":1,"tid":1}`),
		ev(`{"name":"Layout","ph":"X","ts":1091000,"dur":1000,"pid":1,"tid":1}`),
		ev(`{"name":"Paint","ph":"X","ts":1092000,"dur":1000,"pid":1,"tid":1}`),
		ev(`{"name":"Commit","ph":"X","ts":1093000,"dur":500,"pid":1,"tid":1}`),
		// The frame's tiles, drawn on a worker thread until after the
		// paint (counted to 120 ms), and another process's (ignored).
		ev(`{"name":"RasterTask","ph":"X","ts":1100000,"dur":6000,"tdur":6000,"tts":100,"pid":1,"tid":9}`),
		// A raster task on the main thread is its own work, not raster.
		ev(`{"name":"RasterTask","ph":"X","ts":1095000,"dur":500,"tdur":500,"tts":9500,"pid":1,"tid":1}`),
		ev(`{"name":"RasterTask","ph":"X","ts":1117000,"dur":8000,"tdur":4000,"tts":300,"pid":1,"tid":9}`),
		ev(`{"name":"RasterTask","ph":"X","ts":1100000,"dur":5000,"pid":3,"tid":9}`),
		ev(`{"name":"firstContentfulPaint","ph":"R","ts":1119000,"pid":1,"tid":1}`),
		// A task across the paint: its part before it counts, with that
		// share of its CPU time.
		ev(`{"name":"RunTask","ph":"X","ts":1118000,"dur":4000,"tdur":2000,"tts":9600,"pid":1,"tid":1}`),
		// After the paint: outside the window.
		ev(`{"name":"ParseHTML","ph":"X","ts":1130000,"dur":5000,"pid":1,"tid":1}`),
	}
	b, err := analyzeTrace(events, url, 120, 40, 119)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		phaseParse: 2.1, phaseScript: 1, phaseOther: 5, phaseStyle: 1, phaseLayout: 1, phasePaint: 1.5,
		idleServer: 39.9, idleBlocking: 25, idleLoading: 5, idleOther: 15, idleFrame: 23.5,
	}
	sum := 0.0
	for k, v := range want {
		got := b.busy[k] + b.idle[k]
		if math.Abs(got-v) > 1e-9 {
			t.Errorf("%s = %.3f ms, want %.3f", k, got, v)
		}
		sum += got
	}
	if sum != 120 {
		t.Errorf("the parts add up to %.3f ms, want the paint's 120", sum)
	}
	if b.renderingReady != 52.5 {
		t.Errorf("rendering unblocked at %.1f ms, want 52.5 (the first time once the page is parsed)", b.renderingReady)
	}
	if math.Abs(b.mainCPU-7.6) > 1e-9 || b.rasterCPU != 7.5 {
		t.Errorf("CPU: main thread %.3f ms, raster %.3f ms; want 7.6 (the empty document's 0.1, the parse task's 2, the frame's 4, the main thread's raster 0.5, half of the last task's 2 before the paint) and 7.5 (6, and half of 3 before the paint)", b.mainCPU, b.rasterCPU)
	}
	if b.raster != 9 {
		t.Errorf("raster %.3f ms, want 9 (6, and 3 of 8 before the paint)", b.raster)
	}
	if b.frames != 1 || b.parseEnd != 53.5 || b.lastFrame != 93.5 || b.traceFCP != 119 {
		t.Errorf("frames %d, parse end %.1f, last frame %.1f, trace FCP %.1f; want 1, 53.5, 93.5, 119", b.frames, b.parseEnd, b.lastFrame, b.traceFCP)
	}
	if len(b.blocking) != 1 || b.blocking[0].url != "http://127.0.0.1:1/static/app.css" {
		t.Errorf("render-blocking requests %+v, want the stylesheet alone", b.blocking)
	}
}

// A trace without the page's navigation is an error, not a breakdown of
// another page.
func TestAnalyzeTraceWantsTheNavigation(t *testing.T) {
	if _, err := analyzeTrace(nil, "http://x/", 100, 10, 90); err == nil {
		t.Error("no error for a trace without the navigation")
	}
	if _, err := analyzeTrace(nil, "http://x/", math.NaN(), 10, 90); err == nil {
		t.Error("no error for a load without a paint")
	}
}

// A trace without the threads' CPU clock leaves their CPU time unknown,
// not 0.
func TestAnalyzeTraceWithoutThreadTimesSaysUnknown(t *testing.T) {
	const url = "http://127.0.0.1:1/"
	var events []traceEvent
	for _, js := range []string{
		`{"name":"navigationStart","ph":"R","ts":1000000,"pid":1,"tid":1,"args":{"data":{"documentLoaderURL":"http://127.0.0.1:1/","isLoadingMainFrame":true}}}`,
		`{"name":"RunTask","ph":"X","ts":1010000,"dur":5000,"pid":1,"tid":1}`,
		`{"name":"RasterTask","ph":"X","ts":1016000,"dur":2000,"pid":1,"tid":9}`,
		`{"name":"firstContentfulPaint","ph":"R","ts":1019000,"pid":1,"tid":1}`,
	} {
		var e traceEvent
		if err := json.Unmarshal([]byte(js), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	b, err := analyzeTrace(events, url, 20, 5, 19)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(b.mainCPU) || !math.IsNaN(b.rasterCPU) || b.raster != 2 {
		t.Errorf("main thread CPU %v, raster CPU %v (want both unknown), raster %v ms (want 2)", b.mainCPU, b.rasterCPU, b.raster)
	}
}
