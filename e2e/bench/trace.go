package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Chromium performance trace of one page load, and where its time to
// the first paint went.
//
// The trace is what DevTools' Performance panel records (CDP Tracing with
// the devtools.timeline categories). Its events on the renderer's main
// thread, between the navigation's start and the paint, are attributed
// by their self time to what they are (parsing, style, layout, script,
// paint); the main thread's idle time is attributed to what it waited for:
// the server's first byte, a render-blocking resource still in flight, the
// frame on its way to the screen after the main thread finished it, other
// requests in flight (module scripts), or nothing known.

// traceCategories are the categories recorded: the DevTools timeline, the
// navigation and paint marks, the network's, script and the main thread's
// tasks and frames.
var traceCategories = []string{
	"devtools.timeline", "blink", "loading", "v8.execute", "v8",
	"blink.user_timing", "toplevel", "rail", "netlog",
	"disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.frame",
}

// traceEvent is one event of the Trace Event Format.
type traceEvent struct {
	Name string  `json:"name"`
	Cat  string  `json:"cat"`
	Ph   string  `json:"ph"`
	TS   float64 `json:"ts"`  // µs
	Dur  float64 `json:"dur"` // µs, for ph "X"
	// TDur is the thread's CPU time in the event (µs, ph "X"), where
	// Dur is the wall time: the rest the thread waited, for a core or
	// for another process.
	TDur float64 `json:"tdur"`
	// TTS is the thread's CPU clock at the event (µs): a begin/end
	// pair's CPU time is the difference.
	TTS  float64 `json:"tts"`
	PID  int     `json:"pid"`
	TID  int     `json:"tid"`
	Args struct {
		Name string `json:"name"` // thread_name metadata
		Data struct {
			DocumentLoaderURL  string `json:"documentLoaderURL"`
			IsLoadingMainFrame bool   `json:"isLoadingMainFrame"`
			URL                string `json:"url"`
			RequestID          string `json:"requestId"`
			RenderBlocking     string `json:"renderBlocking"`
			MimeType           string `json:"mimeType"`
		} `json:"data"`
		BeginData struct {
			URL string `json:"url"` // ParseHTML's document
		} `json:"beginData"`
	} `json:"args"`
}

// parseTrace reads a trace as Chromium writes it: {"traceEvents": […]}, or
// a bare array.
func parseTrace(b []byte) ([]traceEvent, error) {
	var wrapped struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &wrapped); err == nil && wrapped.TraceEvents != nil {
		return wrapped.TraceEvents, nil
	}
	var bare []traceEvent
	if err := json.Unmarshal(b, &bare); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	return bare, nil
}

// Phases of main-thread work, in the order reported.
const (
	phaseParse  = "parse HTML"
	phaseStyle  = "style"
	phaseLayout = "layout"
	phaseScript = "script"
	phasePaint  = "paint, commit"
	phaseGC     = "GC"
	phaseCommit = "navigation commit, document setup"
	phaseOther  = "other tasks"
)

var busyPhases = []string{phaseCommit, phaseParse, phaseStyle, phaseLayout, phaseScript, phasePaint, phaseGC, phaseOther}

// What the main thread waited for while idle, in the order attributed.
const (
	idleServer   = "waiting for the HTML"
	idleBlocking = "waiting for render-blocking resources"
	idleFrame    = "frame to screen"
	idleLoading  = "waiting for other requests (modules)"
	idleOther    = "idle, nothing in flight"
)

var idleKinds = []string{idleServer, idleBlocking, idleFrame, idleLoading, idleOther}

// notWork are main-thread slices that span idle time: they mark that the
// thread is awake between tasks, not that it works.
var notWork = map[string]bool{
	"ThreadController active":  true,
	"ThreadController::Active": true,
}

// phaseOf classifies a main-thread event by name; "" for an event that
// only wraps others (a task) or is not known.
func phaseOf(name string) string {
	switch name {
	case "DocumentLoader::CommitNavigation", "DocumentLoader::DocumentLoader", "Frame::Detach", "Document::shutdown",
		"LocalWindowProxy::Initialize", "Document::Document", "RenderFrameImpl::Initialize":
		return phaseCommit
	case "ParseHTML", "HTMLDocumentParser::PumpTokenizer", "HTMLDocumentParser::ProcessTokenizedChunkFromBackgroundParser":
		return phaseParse
	case "UpdateLayoutTree", "RecalculateStyles", "ParseAuthorStyleSheet", "Document::updateStyle", "StyleEngine::UpdateActiveStyle":
		return phaseStyle
	case "Layout", "UpdateLayout", "LocalFrameView::layout":
		return phaseLayout
	case "EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule", "v8.run", "v8.callFunction",
		"FunctionCall", "v8.produceModuleCache", "v8.produceCache", "V8.ScriptCompiler", "v8.parseOnBackground",
		"ModuleScript::Create", "TimerFire", "FireAnimationFrame", "EventDispatch":
		return phaseScript
	case "Paint", "PrePaint", "Layerize", "Commit", "UpdateLayer", "UpdateLayerTree", "CompositeLayers",
		"PaintImage", "PaintArtifactCompositor::Update", "LocalFrameView::RunPaintLifecyclePhase", "ProxyMain::BeginMainFrame::commit":
		return phasePaint
	case "MinorGC", "MajorGC", "V8.GCScavenger", "V8.GCFinalizeMC", "V8.GCIncrementalMarking", "BlinkGC.AtomicPhase",
		"V8.GC_MC_BACKGROUND_MARKING", "ThreadState::performIdleLazySweep", "BlinkGC.CompleteSweep":
		return phaseGC
	}
	return ""
}

// interval is a span of trace time, in µs.
type interval struct{ from, to float64 }

// request is a resource the page asked for, as the trace saw it.
type request struct {
	url            string
	renderBlocking string
	sent, finished float64 // µs; finished is +Inf if it never finished
}

// paintBreakdown is where one load's time to its first paint went, in ms
// from the navigation's start; busy and idle together make up paint.
type paintBreakdown struct {
	paint float64
	busy  map[string]float64
	idle  map[string]float64
	// parseEnd is when the main thread last parsed HTML before the paint,
	// lastFrame when it finished the frame painted (its last commit before
	// the paint); NaN when the trace has none.
	parseEnd, lastFrame float64
	// frames is how many frames the main thread produced before the paint.
	frames int
	// renderingReady is when Blink first began the page's lifecycle
	// updates once its own HTML was being parsed (rendering was blocked
	// until then, e.g. by a render-blocking stylesheet); NaN if the trace
	// does not say.
	renderingReady float64
	// blocking are the render-blocking requests, sent before the paint.
	blocking []request
	// traceFCP is the first contentful paint as the trace marks it, to
	// check that its clock and the page's agree (NaN when absent).
	traceFCP float64
	// raster is the renderer's raster work off its main thread before
	// the paint (ms): tiles drawn on worker threads after a frame is
	// committed, which the main thread does not wait for, so it is not
	// among its parts; the floor's one cell costs next to none.
	raster float64
	// mainCPU is the CPU time of the main thread's tasks before the
	// paint (ms), and rasterCPU that of the raster (the rest of their
	// wall time, the threads waited: for a core, or for another
	// process); NaN where the trace lacks the threads' CPU clock.
	mainCPU, rasterCPU float64
}

// analyzeTrace attributes the time from url's navigation start to paintMs
// (the page's own figure, ms from navigation start), given htmlEndMs, when
// the HTML's last byte came (Navigation Timing's responseEnd), and fcpMs,
// its first contentful paint.
func analyzeTrace(events []traceEvent, url string, paintMs, htmlEndMs, fcpMs float64) (paintBreakdown, error) {
	b := paintBreakdown{busy: map[string]float64{}, idle: map[string]float64{}, parseEnd: math.NaN(), lastFrame: math.NaN(), traceFCP: math.NaN(), renderingReady: math.NaN()}
	if math.IsNaN(paintMs) {
		return b, fmt.Errorf("no paint reported for %s", url)
	}
	// The navigation: the last main-frame navigationStart of the URL.
	var nav *traceEvent
	for i := range events {
		e := &events[i]
		if e.Name == "navigationStart" && e.Args.Data.IsLoadingMainFrame && sameURL(e.Args.Data.DocumentLoaderURL, url) {
			nav = e
		}
	}
	var pid, tid int
	var t0 float64
	if nav != nil {
		pid, tid, t0 = nav.PID, nav.TID, nav.TS
	} else {
		// A renderer started for the load may miss its first events:
		// find it by the page's own requests, and its start by its first
		// contentful paint, which the page reported too.
		var ok bool
		if pid, tid, t0, ok = rendererOf(events, url, fcpMs); !ok {
			return b, fmt.Errorf("no navigationStart of %s in the trace, nor its renderer", url)
		}
	}
	window := interval{t0, t0 + paintMs*1000}
	b.paint = paintMs

	// Main-thread slices, from complete events and begin/end pairs.
	type slice struct {
		interval
		name string
		cpu  float64 // µs of the thread's CPU time
		// timed: the trace gave the thread's CPU clock (tts); without
		// it, cpu is unknown, not 0.
		timed bool
		url   string // ParseHTML's document
	}
	var slices_ []slice
	type opened struct {
		ts, tts float64
		url     string // a ParseHTML's document, from its begin event
	}
	open := map[string][]opened{}
	reqs := map[string]*request{}
	var frameEnds []float64
	for _, e := range events {
		switch {
		case e.Name == "ResourceSendRequest" && e.Args.Data.RequestID != "" && strings.HasPrefix(e.Args.Data.URL, "http"):
			// Not chrome:// (the browser's own UI loads beside the page).
			reqs[e.Args.Data.RequestID] = &request{url: e.Args.Data.URL, renderBlocking: e.Args.Data.RenderBlocking, sent: e.TS, finished: math.Inf(1)}
		case e.Name == "firstContentfulPaint" && e.PID == pid && e.TS >= t0:
			if math.IsNaN(b.traceFCP) {
				b.traceFCP = (e.TS - t0) / 1000
			}
		case e.Name == "RasterTask" && e.Ph == "X" && e.PID == pid && e.TID != tid:
			if from, to := math.Max(e.TS, window.from), math.Min(e.TS+e.Dur, window.to); to > from {
				b.raster += (to - from) / 1000
				if e.TTS == 0 {
					b.rasterCPU = math.NaN() // unknown, and stays so
				}
				b.rasterCPU += e.TDur * (to - from) / e.Dur / 1000
			}
		}
		if e.PID != pid || e.TID != tid || notWork[e.Name] {
			continue
		}
		switch e.Ph {
		case "X":
			slices_ = append(slices_, slice{interval{e.TS, e.TS + e.Dur}, e.Name, e.TDur, e.TTS != 0, e.Args.BeginData.URL})
		case "B":
			open[e.Name] = append(open[e.Name], opened{e.TS, e.TTS, e.Args.BeginData.URL})
		case "E":
			if s := open[e.Name]; len(s) > 0 {
				begin := s[len(s)-1]
				slices_ = append(slices_, slice{interval{begin.ts, e.TS}, e.Name, e.TTS - begin.tts, e.TTS != 0 && begin.tts != 0, begin.url})
				open[e.Name] = s[:len(s)-1]
			}
		}
	}
	for _, e := range events {
		if e.Name == "ResourceFinish" {
			if r := reqs[e.Args.Data.RequestID]; r != nil {
				r.finished = e.TS
			}
		}
	}

	// Self time: each slice's span less its children's, attributed to
	// the innermost classified slice; a slice nested in a classified one
	// counts as its parent's phase if it has none of its own.
	slices.SortFunc(slices_, func(a, c slice) int {
		if a.from != c.from {
			return cmpFloat(a.from, c.from)
		}
		return cmpFloat(c.to, a.to) // the longer (outer) first
	})
	type frame struct {
		slice
		phase string
		last  float64 // where the uncounted part of the span begins
	}
	var stack []frame
	var busy []interval // top-level slices, for the idle time
	parsing := false    // the page's own HTML is being parsed
	add := func(phase string, from, to float64) {
		if from, to = math.Max(from, window.from), math.Min(to, window.to); to > from {
			b.busy[orOther(phase)] += (to - from) / 1000
		}
	}
	pop := func() {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		add(f.phase, f.last, f.to)
		if len(stack) > 0 {
			stack[len(stack)-1].last = math.Max(stack[len(stack)-1].last, f.to)
		}
	}
	for _, s := range slices_ {
		for len(stack) > 0 && stack[len(stack)-1].to <= s.from {
			pop()
		}
		phase := phaseOf(s.name)
		if len(stack) > 0 {
			parent := &stack[len(stack)-1]
			add(parent.phase, parent.last, s.from)
			parent.last = s.from
			if phase == "" {
				phase = parent.phase
			}
			if s.to > parent.to { // malformed nesting: clip
				s.to = parent.to
			}
		} else {
			busy = append(busy, s.interval)
			if from, to := math.Max(s.from, window.from), math.Min(s.to, window.to); to > from {
				if !s.timed {
					b.mainCPU = math.NaN() // and stays so
				}
				b.mainCPU += s.cpu * (to - from) / (s.to - s.from) / 1000
			}
		}
		if s.from < window.to {
			// Blink calls it again at each stage of the load: the first
			// once the page is being parsed is when its rendering began
			// (earlier ones are the empty document's before the commit).
			if s.name == "LocalFrameView::BeginLifecycleUpdates" && parsing && math.IsNaN(b.renderingReady) {
				b.renderingReady = (s.from - t0) / 1000
			}
			if s.name == "ParseHTML" {
				// Not the page loaded before, nor the empty document
				// the frame holds until the page commits.
				parsing = parsing || sameURL(s.url, url)
				b.parseEnd = math.Max(nanZero(b.parseEnd), math.Min(s.to, window.to))
			}
			if (s.name == "Commit" || s.name == "Paint") && s.to <= window.to {
				frameEnds = append(frameEnds, s.to)
			}
		}
		stack = append(stack, frame{slice: s, phase: phase, last: s.from})
	}
	for len(stack) > 0 {
		pop()
	}
	if !math.IsNaN(b.parseEnd) {
		b.parseEnd = (b.parseEnd - t0) / 1000
	}
	lastFrame := math.Inf(1)
	if len(frameEnds) > 0 {
		lastFrame = slices.Max(frameEnds)
		b.lastFrame = (lastFrame - t0) / 1000
	}
	for _, s := range slices_ {
		if s.name == "Paint" && s.from >= window.from && s.to <= window.to {
			b.frames++
		}
	}

	// Idle time: the window less the top-level slices, each idle stretch
	// attributed in order: before the last byte of the HTML, while a
	// render-blocking request was in flight, after the main thread's last
	// frame (on its way to the screen), else nothing known.
	var blockingSpans, otherSpans []interval
	for _, r := range reqs {
		switch {
		case r.sent >= window.to, sameURL(r.url, url): // the HTML is waited for first
		case r.renderBlocking == "blocking":
			b.blocking = append(b.blocking, *r)
			blockingSpans = append(blockingSpans, interval{r.sent, r.finished})
		default:
			otherSpans = append(otherSpans, interval{r.sent, r.finished})
		}
	}
	slices.SortFunc(b.blocking, func(x, y request) int { return cmpFloat(x.sent, y.sent) })
	serverEnd := t0 + htmlEndMs*1000
	for _, gap := range complement(window, busy) {
		for _, part := range split(gap, serverEnd) {
			switch {
			case part.to <= serverEnd:
				b.idle[idleServer] += (part.to - part.from) / 1000
				continue
			}
			// Within part, the covered stretches wait on blocking requests.
			covered := intersectUnion(part, blockingSpans)
			for _, c := range covered {
				b.idle[idleBlocking] += (c.to - c.from) / 1000
			}
			for _, rest := range complement(part, covered) {
				for _, p := range split(rest, lastFrame) {
					if p.from >= lastFrame {
						b.idle[idleFrame] += (p.to - p.from) / 1000
						continue
					}
					loading := intersectUnion(p, otherSpans)
					for _, l := range loading {
						b.idle[idleLoading] += (l.to - l.from) / 1000
					}
					for _, q := range complement(p, loading) {
						b.idle[idleOther] += (q.to - q.from) / 1000
					}
				}
			}
		}
	}
	return b, nil
}

// sameURL compares URLs as a browser may report them (a trailing slash
// added to a bare origin).
func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// orOther is phase, or phaseOther for work of no known phase.
func orOther(phase string) string {
	if phase == "" {
		return phaseOther
	}
	return phase
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func nanZero(x float64) float64 {
	if math.IsNaN(x) {
		return math.Inf(-1)
	}
	return x
}

// complement is w less the union of spans, as sorted intervals.
func complement(w interval, spans []interval) []interval {
	u := union(spans)
	var out []interval
	at := w.from
	for _, s := range u {
		if s.to <= at {
			continue
		}
		if s.from >= w.to {
			break
		}
		if s.from > at {
			out = append(out, interval{at, s.from})
		}
		at = math.Max(at, s.to)
	}
	if at < w.to {
		out = append(out, interval{at, w.to})
	}
	return out
}

// union merges spans into sorted, disjoint intervals.
func union(spans []interval) []interval {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b interval) int { return cmpFloat(a.from, b.from) })
	var out []interval
	for _, x := range s {
		if x.to <= x.from {
			continue
		}
		if n := len(out); n > 0 && x.from <= out[n-1].to {
			out[n-1].to = math.Max(out[n-1].to, x.to)
			continue
		}
		out = append(out, x)
	}
	return out
}

// intersectUnion is the part of w that spans cover.
func intersectUnion(w interval, spans []interval) []interval {
	var out []interval
	for _, s := range union(spans) {
		from, to := math.Max(s.from, w.from), math.Min(s.to, w.to)
		if to > from {
			out = append(out, interval{from, to})
		}
	}
	return out
}

// split cuts w at t, when t falls inside it.
func split(w interval, t float64) []interval {
	if t <= w.from || t >= w.to {
		return []interval{w}
	}
	return []interval{{w.from, t}, {t, w.to}}
}

// rendererOf finds the renderer main thread that loaded url, by the
// subresources it asked for (request IDs "<pid>.<n>"), and the trace time
// of its navigation start from its first contentful paint.
func rendererOf(events []traceEvent, url string, fcpMs float64) (pid, tid int, t0 float64, ok bool) {
	origin := url
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			origin = url[:i+3+j]
		}
	}
	for _, e := range events {
		if e.Name == "ResourceSendRequest" && strings.HasPrefix(e.Args.Data.URL, origin+"/") && strings.Contains(e.Args.Data.RequestID, ".") {
			pid, ok = e.PID, true
			break
		}
	}
	if !ok || math.IsNaN(fcpMs) {
		return 0, 0, 0, false
	}
	tid = -1
	for _, e := range events {
		if e.PID == pid && e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			tid = e.TID
		}
	}
	for _, e := range events {
		if e.PID == pid && e.Name == "firstContentfulPaint" {
			return pid, tid, e.TS - fcpMs*1000, tid >= 0
		}
	}
	return 0, 0, 0, false
}
