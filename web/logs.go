package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
)

const (
	defaultTailLines = 500
	defaultKeepLines = 5000
	maxKeepLines     = 100000
	// maxLogSources bounds the containers one merged log follows, as
	// kubectl's --max-log-requests does.
	maxLogSources = 20
)

// logQuery is a log page's controls, parsed from its URL.
type logQuery struct {
	Container string
	Follow    bool
	// TailLines is nil for the whole log.
	TailLines  *int64
	Since      time.Duration
	SinceTime  time.Time // where a reconnecting page resumes
	Timestamps bool
	Previous   bool
	Wrap       bool
	Query      string
	Filter     bool
	Keep       int
	Download   bool
}

func parseLogQuery(q url.Values) (logQuery, error) {
	lq := logQuery{
		Container:  q.Get("container"),
		Follow:     q.Get("follow") == "1",
		Timestamps: q.Get("timestamps") == "1",
		Previous:   q.Get("previous") == "1",
		Wrap:       q.Get("wrap") == "1",
		Query:      q.Get("q"),
		Filter:     q.Get("filter") == "1",
		Keep:       defaultKeepLines,
		Download:   q.Get("download") == "1",
	}
	// A first visit follows the last 500 lines, as an operator expects; once
	// the form was submitted, an unchecked box means off. A reconnecting
	// page always says follow=0 or follow=1.
	if _, submitted := q["tailLines"]; !submitted && !q.Has("follow") {
		lq.Follow = true
	}
	tail := int64(defaultTailLines)
	lq.TailLines = &tail
	if v, ok := q["tailLines"]; ok {
		switch s := strings.TrimSpace(v[0]); s {
		case "", "all":
			lq.TailLines = nil
		default:
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 {
				return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Tail lines must be a whole number or \"all\", not %q.", s))
			}
			lq.TailLines = &n
		}
	}
	if s := strings.TrimSpace(q.Get("since")); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Since must be a duration such as 10m or 2h, not %q.", s))
		}
		lq.Since = d
	}
	if s := q.Get("sinceTime"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("sinceTime must be an RFC 3339 time, not %q.", s))
		}
		lq.SinceTime = t
	}
	if s := q.Get("max"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 || n > maxKeepLines {
			return lq, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Keep lines must be a number from 10 to %d.", maxKeepLines))
		}
		lq.Keep = n
	}
	return lq, nil
}

// upstream are the pods/log options for one container. Streams always ask
// for timestamps: merging orders by them and a reconnecting page resumes
// from them; the page hides them unless asked.
func (lq logQuery) upstream(container string, stream bool) apiclient.LogOptions {
	o := apiclient.LogOptions{
		Container:  container,
		Follow:     lq.Follow && stream,
		Previous:   lq.Previous,
		Timestamps: stream || lq.Timestamps,
		TailLines:  lq.TailLines,
	}
	switch {
	case !lq.SinceTime.IsZero():
		// The API takes whole seconds; the page drops what it has seen.
		// An absolute time, unlike sinceSeconds, does not depend on the
		// console's clock agreeing with the node's.
		since := lq.SinceTime.Truncate(time.Second)
		o.SinceTime, o.TailLines = &since, nil
	case lq.Since > 0:
		secs := int64(math.Ceil(lq.Since.Seconds()))
		o.SinceSeconds = &secs
	}
	return o
}

// logTarget is whose log a page shows: one pod, or the pods a selector picks.
type logTarget struct {
	Kind, Name string
	Namespace  string
	Pod        string
	Selector   string
	BackHref   string
	// Pods are the selected pods when the page was opened (multi-pod), as
	// of PodsVersion.
	Pods        []corev1.Pod
	PodsVersion string
	// Containers are what the container picker offers.
	Containers []string
	Default    string
}

func (t logTarget) multi() bool { return t.Pod == "" }

// logs serves …/pods/{name}/log and …/{workload}/{name}/log: the page, its
// WebSocket stream, and ?download=1.
func (s *Server) logs(c echo.Context, client *apiclient.Client, r apiclient.Resource, p apiPath) error {
	ctx := c.Request().Context()
	t := logTarget{Kind: r.Kind, Name: p.Name, Namespace: p.Namespace, BackHref: consolePath(client.ContextName(), r, p.Namespace, p.Name)}
	if r.Group == "" && r.Name == "pods" {
		pod, err := client.GetPod(ctx, p.Namespace, p.Name)
		if err != nil {
			return withAction(err, "get", r, p.Namespace, consolePath(client.ContextName(), r, p.Namespace, ""))
		}
		t.Pod = pod.Name
		t.Containers, t.Default = podContainers(pod)
	} else {
		if !r.Namespaced {
			return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s %s has no pods in a namespace to show logs for.", r.Kind, p.Name))
		}
		sel, err := client.PodSelector(ctx, r, p.Namespace, p.Name)
		if err != nil {
			return withAction(err, "get", r, p.Namespace, "")
		}
		t.Selector = sel
	}
	return s.serveLogs(c, client, t)
}

// selectorLogs serves /c/{context}/logs/{namespace}?labelSelector=…: the
// merged logs of any set of pods.
func (s *Server) selectorLogs(c echo.Context) error {
	client, err := s.client(c)
	if err != nil {
		return err
	}
	ns := pathParam(c, "namespace")
	sel := strings.TrimSpace(c.QueryParam("labelSelector"))
	if _, err := labels.Parse(sel); err != nil || sel == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "A label selector such as app=web is needed to pick the pods whose logs to show.")
	}
	pods, err := client.Resource(c.Request().Context(), "", "v1", "pods")
	if err != nil {
		return err
	}
	t := logTarget{Kind: "Pods", Name: sel, Namespace: ns, Selector: sel,
		BackHref: withQuery(consolePath(client.ContextName(), pods, ns, ""), url.Values{"labelSelector": {sel}})}
	return s.serveLogs(c, client, t)
}

func (s *Server) serveLogs(c echo.Context, client *apiclient.Client, t logTarget) error {
	lq, err := parseLogQuery(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if t.multi() {
		pods, rv, err := client.ListPods(ctx, t.Namespace, t.Selector)
		if err != nil {
			return err
		}
		t.Pods, t.PodsVersion = pods, rv
		for i := range pods {
			names, _ := podContainers(&pods[i])
			for _, n := range names {
				if !slices.Contains(t.Containers, n) {
					t.Containers = append(t.Containers, n)
				}
			}
		}
	} else if lq.Container == "" {
		lq.Container = t.Default
	}
	switch {
	case streaming.IsUpgrade(c.Request()):
		return s.streamLogs(c, client, t, lq)
	case lq.Download:
		return s.downloadLogs(c, client, t, lq)
	}
	return s.render(c, http.StatusOK, views.Logs(s.logPage(c, client, t, lq)))
}

func (s *Server) logPage(c echo.Context, client *apiclient.Client, t logTarget, lq logQuery) views.LogPage {
	action := c.Request().URL.Path
	page := views.LogPage{
		Layout:     s.contextLayout(c, client, t.Name+" · logs", nil, t.Namespace),
		Kind:       t.Kind,
		Name:       t.Name,
		Namespace:  t.Namespace,
		Selector:   t.Selector,
		Multi:      t.multi(),
		BackHref:   t.BackHref,
		Action:     action,
		Containers: t.Containers,
		Options: views.LogOptions{
			Container:  lq.Container,
			Follow:     lq.Follow,
			TailLines:  "all",
			Timestamps: lq.Timestamps,
			Previous:   lq.Previous,
			Wrap:       lq.Wrap,
			Query:      lq.Query,
			Filter:     lq.Filter,
			MaxLines:   lq.Keep,
		},
	}
	if lq.TailLines != nil {
		page.Options.TailLines = strconv.FormatInt(*lq.TailLines, 10)
	}
	if lq.Since > 0 {
		page.Options.Since = lq.Since.String()
	}
	download := url.Values{"download": {"1"}, "tailLines": {page.Options.TailLines}}
	if t.multi() && c.Param("namespace") != "" {
		page.Hidden = []views.HiddenField{{Name: "labelSelector", Value: t.Selector}}
		download.Set("labelSelector", t.Selector)
	}
	for k, on := range map[string]bool{"timestamps": lq.Timestamps, "previous": lq.Previous} {
		if on {
			download.Set(k, "1")
		}
	}
	if lq.Container != "" {
		download.Set("container", lq.Container)
	}
	if lq.Since > 0 {
		download.Set("since", page.Options.Since)
	}
	page.DownloadHref = withQuery(action, download)
	if t.multi() && len(t.Pods) == 0 {
		page.Notices = append(page.Notices, "No pods match "+t.Selector+" yet; pods that appear will join the log.")
	}
	if n := len(t.sources(lq)); t.multi() && n > maxLogSources {
		page.Notices = append(page.Notices, fmt.Sprintf("%d containers match; the log follows the first %d. Pick a container to narrow it.", n, maxLogSources))
	}
	return page
}

// podContainers lists a pod's containers, init containers first as they
// run first, and the one kubectl would pick by default.
func podContainers(pod *corev1.Pod) ([]string, string) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	def := pod.Annotations["kubectl.kubernetes.io/default-container"]
	if def == "" && len(pod.Spec.Containers) > 0 {
		def = pod.Spec.Containers[0].Name
	}
	return names, def
}

// podSource is pod/container, the prefix of a merged log's lines.
type podSource struct{ pod, container string }

func (p podSource) String() string { return p.pod + "/" + p.container }

// sources are the containers of a merged log that have a log to read.
func (t logTarget) sources(lq logQuery) []podSource {
	var out []podSource
	for i := range t.Pods {
		out = append(out, startedContainers(&t.Pods[i], lq.Container)...)
	}
	return out
}

// startedContainers are the containers of a pod that have run, so the API
// can serve their logs (a waiting container's log is an error).
func startedContainers(pod *corev1.Pod, only string) []podSource {
	var out []podSource
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if only != "" && cs.Name != only {
				continue
			}
			if cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil {
				out = append(out, podSource{pod.Name, cs.Name})
			}
		}
	}
	return out
}

// streamLogs streams a log over a WebSocket: one container straight
// through, or several merged by time, with pods that start during a follow
// joining the stream.
func (s *Server) streamLogs(c echo.Context, client *apiclient.Client, t logTarget, lq logQuery) error {
	conn, ctx, finish, err := s.upgrade(c)
	if err != nil {
		return nil
	}
	finish(s.pipeLogs(ctx, conn, client, t, lq))
	return nil
}

func (s *Server) pipeLogs(ctx context.Context, conn *streaming.Conn, client *apiclient.Client, t logTarget, lq logQuery) error {
	send := func(batch []byte) error { return conn.Send(ctx, streaming.ChannelData, batch) }
	if !t.multi() {
		rc, err := client.Logs(ctx, t.Namespace, t.Pod, lq.upstream(lq.Container, true))
		if err != nil {
			return err
		}
		defer rc.Close()
		return pumpLines(rc, send)
	}
	notify := func(msg string) {
		_ = conn.SendJSON(ctx, streaming.ChannelDiagnostics, map[string]string{"message": msg})
	}
	m := newLogMerger(send, func(dst []byte, src string, line []byte) []byte {
		dst = append(dst, src...)
		dst = append(dst, '\t')
		return append(dst, line...)
	})
	m.notify = notify
	m.open = lq.Follow
	sources, started := s.mergeSources(client, t, lq, true)
	if len(sources) > maxLogSources {
		notify(fmt.Sprintf("%d containers match; following the first %d.", len(sources), maxLogSources))
		sources = sources[:maxLogSources]
	}
	if lq.Follow {
		go s.joinNewPods(ctx, client, t, lq, m, started, notify)
	}
	return m.Run(ctx, sources)
}

func (s *Server) mergeSources(client *apiclient.Client, t logTarget, lq logQuery, stream bool) ([]logSource, map[podSource]bool) {
	started := map[podSource]bool{}
	var out []logSource
	for _, ps := range t.sources(lq) {
		started[ps] = true
		opts := lq.upstream(ps.container, stream)
		out = append(out, logSource{Name: ps.String(), Open: func(ctx context.Context) (io.ReadCloser, error) {
			return client.Logs(ctx, t.Namespace, ps.pod, opts)
		}})
	}
	return out, started
}

// joinNewPods watches the selected pods from the list the merge started
// with, and adds each container that starts to the merge, from its first
// line.
func (s *Server) joinNewPods(ctx context.Context, client *apiclient.Client, t logTarget, lq logQuery, m *logMerger, started map[podSource]bool, notify func(string)) {
	rv := t.PodsVersion
	newPod := func(typ string, pod *corev1.Pod) {
		if typ != "ADDED" && typ != "MODIFIED" {
			return
		}
		for _, ps := range startedContainers(pod, lq.Container) {
			if started[ps] || len(started) >= maxLogSources {
				continue
			}
			started[ps] = true
			opts := apiclient.LogOptions{Container: ps.container, Follow: true, Timestamps: true}
			src := logSource{Name: ps.String(), Open: func(ctx context.Context) (io.ReadCloser, error) {
				return client.Logs(ctx, t.Namespace, ps.pod, opts)
			}}
			if m.Join(ctx, src) {
				notify(ps.String() + " joined the log.")
			}
		}
	}
	err := s.keepWatching(ctx, func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
		if from == "" {
			// First from the list; after a 410 from now, which replays the
			// current pods as ADDED (the started set skips known ones).
			from, rv = rv, ""
		}
		return client.WatchPods(ctx, t.Namespace, t.Selector, from, func(typ string, pod *corev1.Pod) {
			newPod(typ, pod)
			emit(apiclient.WatchEvent{Type: typ, ResourceVersion: pod.ResourceVersion})
		})
	}, func(apiclient.WatchEvent) {})
	if err != nil {
		notify("New pods will not join: " + err.Error())
	}
}

// downloadLogs streams the log as a file. Nothing is buffered: a failure
// after the first bytes can only cut the file short.
func (s *Server) downloadLogs(c echo.Context, client *apiclient.Client, t logTarget, lq logQuery) error {
	ctx := c.Request().Context()
	name := t.Pod
	if t.multi() {
		name = strings.ToLower(t.Kind) + "-" + t.Name
	}
	if lq.Container != "" && !t.multi() {
		name += "-" + lq.Container
	}
	filename := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '"' || r < ' ' {
			return '_'
		}
		return r
	}, name) + ".log"
	if !t.multi() {
		rc, err := client.Logs(ctx, t.Namespace, t.Pod, lq.upstream(lq.Container, false))
		if err != nil {
			return err
		}
		defer rc.Close()
		s.startDownload(c, filename)
		_, err = io.Copy(c.Response(), rc)
		return s.endDownload(err)
	}
	sources, _ := s.mergeSources(client, t, lq, true)
	if len(sources) > maxLogSources {
		sources = sources[:maxLogSources]
	}
	w := c.Response()
	started := false
	m := newLogMerger(func(batch []byte) error {
		if !started {
			s.startDownload(c, filename)
			started = true
		}
		_, err := w.Write(batch)
		w.Flush()
		return err
	}, func(dst []byte, src string, line []byte) []byte {
		dst = append(dst, src...)
		dst = append(dst, ' ')
		if !lq.Timestamps {
			if sp := bytes.IndexByte(line, ' '); sp >= 0 {
				line = line[sp+1:]
			}
		}
		return append(dst, line...)
	})
	err := m.Run(ctx, sources)
	if !started && err == nil {
		s.startDownload(c, filename)
	}
	return s.endDownload(err)
}

func (s *Server) startDownload(c echo.Context, filename string) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/plain; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	c.Response().WriteHeader(http.StatusOK)
}

// endDownload logs a failure after the headers went out; the central
// mapper can no longer turn it into a page.
func (s *Server) endDownload(err error) error {
	if err != nil {
		s.log.Warn("log download cut short", "error", err)
	}
	return nil
}
