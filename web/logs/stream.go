package logs

import (
	"context"
	"fmt"
	"io"

	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/web/page"
)

// stream streams a log over a WebSocket: one container straight through,
// or several merged by time, with pods that start during a follow joining.
func (h *Handler) stream(c echo.Context, client *apiclient.Client, t Target, lq Query) error {
	stream, err := h.env.Upgrade(c, false)
	if stream == nil {
		return err
	}
	stream.Finish(h.pipe(stream, client, t, lq))
	return nil
}

func (h *Handler) pipe(stream *page.Stream, client *apiclient.Client, t Target, lq Query) error {
	ctx := stream.Context
	send := func(batch []byte) error { return stream.Send(ctx, streaming.ChannelData, batch) }
	if !t.multi() {
		rc, err := h.openLog(ctx, client, t.Namespace, t.Pod, lq.upstream(lq.Container, true))
		if err != nil {
			return err
		}
		defer rc.Close()
		return pumpLines(rc, send)
	}
	m := newLogMerger(send, func(dst []byte, src string, line []byte) []byte {
		dst = append(dst, src...)
		dst = append(dst, '\t')
		return append(dst, line...)
	})
	m.notify = stream.Notify
	m.open = lq.Follow
	sources, started := h.mergeSources(client, t, lq)
	if len(sources) > maxSources {
		stream.Notify(fmt.Sprintf("%d containers match; following the first %d.", len(sources), maxSources))
		sources = sources[:maxSources]
	}
	if lq.Follow {
		go h.joinNewPods(ctx, client, t, lq, m, started, stream.Notify)
	}
	return m.Run(ctx, sources)
}

// mergeSources are the merge's upstream logs, and the set of containers
// they cover (so pods that start later join only once).
func (h *Handler) mergeSources(client *apiclient.Client, t Target, lq Query) ([]logSource, map[source]bool) {
	started := map[source]bool{}
	var out []logSource
	for _, s := range t.sources(lq.Container) {
		started[s] = true
		opts := lq.upstream(s.container, true)
		out = append(out, logSource{Name: s.String(), Open: func(ctx context.Context) (io.ReadCloser, error) {
			return h.openLog(ctx, client, t.Namespace, s.pod, opts)
		}})
	}
	return out, started
}

// joinNewPods watches the selected pods from the list the merge started
// with, and adds each container that starts to the merge, from its first
// line.
func (h *Handler) joinNewPods(ctx context.Context, client *apiclient.Client, t Target, lq Query, m *logMerger, started map[source]bool, notify func(string)) {
	rv := t.PodsVersion
	newPod := func(typ string, pod *corev1.Pod) {
		if typ != apiclient.WatchAdded && typ != apiclient.WatchModified {
			return
		}
		for _, s := range startedContainers(pod, lq.Container) {
			if started[s] || len(started) >= maxSources {
				continue
			}
			started[s] = true
			opts := apiclient.LogOptions{Container: s.container, Follow: true, Timestamps: true}
			src := logSource{Name: s.String(), Open: func(ctx context.Context) (io.ReadCloser, error) {
				return h.openLog(ctx, client, t.Namespace, s.pod, opts)
			}}
			if m.Join(ctx, src) {
				notify(s.String() + " joined the log.")
			}
		}
	}
	err := streaming.KeepWatching(ctx, page.Watches(), func(ctx context.Context, from string, emit func(apiclient.WatchEvent)) error {
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
