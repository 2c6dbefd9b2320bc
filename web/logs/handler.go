// Package logs serves container logs: the page, its WebSocket stream and
// downloads, for one pod or merged across the pods a workload or selector
// picks.
package logs

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Handler serves log pages, streams and downloads.
type Handler struct {
	env *page.Env
}

// New builds the logs feature.
func New(env *page.Env) *Handler { return &Handler{env: env} }

// Object serves …/pods/{name}/log and …/{workload}/{name}/log: the page,
// its WebSocket stream, and ?download=1.
func (h *Handler) Object(c echo.Context, t page.Target) error {
	client, r, p := t.Client, t.Resource, t.Path
	tg := Target{Kind: r.Kind, Name: p.Name, Namespace: p.Namespace, BackHref: t.URLs.Resource(r, p.Namespace, p.Name)}
	err := h.setup(c, func(ctx context.Context) error {
		if r.Group == "" && r.Name == "pods" {
			pod, err := client.GetPod(ctx, p.Namespace, p.Name)
			if err != nil {
				return page.WithAction(err, "get", r, p.Namespace, t.URLs.Resource(r, p.Namespace, ""))
			}
			tg.Pod = pod.Name
			tg.Containers, tg.Default = kube.ContainerNames(kube.PodContainers(pod)), kube.DefaultContainer(pod)
			return nil
		}
		if !r.Namespaced {
			return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%s %s has no pods in a namespace to show logs for.", r.Kind, p.Name))
		}
		sel, err := client.PodSelector(ctx, r, p.Namespace, p.Name)
		if err != nil {
			return page.WithAction(err, "get", r, p.Namespace, "")
		}
		tg.Selector = sel
		return nil
	})
	if err != nil {
		return err
	}
	return h.serve(c, client, tg)
}

// Selector serves /c/{context}/logs/{namespace}?labelSelector=…: the merged
// logs of any set of pods.
func (h *Handler) Selector(c echo.Context) error {
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ns := page.PathParam(c, "namespace")
	if problem := kube.NamespaceProblem(ns); problem != "" {
		return echo.NewHTTPError(http.StatusBadRequest, problem+".")
	}
	sel := strings.TrimSpace(c.QueryParam("labelSelector"))
	if _, err := labels.Parse(sel); err != nil || sel == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "A label selector such as app=web is needed to pick the pods whose logs to show.")
	}
	var pods apiclient.Resource
	if err := h.setup(c, func(ctx context.Context) (err error) {
		pods, err = client.Resource(ctx, "", "v1", "pods")
		return err
	}); err != nil {
		return err
	}
	tg := Target{Kind: "Pods", Name: sel, Namespace: ns, Selector: sel, BySelector: true,
		BackHref: page.WithQuery(page.URLsOf(c.Request().Context()).Resource(pods, ns, ""), url.Values{"labelSelector": {sel}})}
	return h.serve(c, client, tg)
}

// setup runs the calls before a page or stream under the page deadline:
// only the stream itself may outlast it.
func (h *Handler) setup(c echo.Context, fn func(context.Context) error) error {
	ctx, cancel := h.env.WithDeadline(c.Request().Context())
	defer cancel()
	return fn(ctx)
}

func (h *Handler) serve(c echo.Context, client *apiclient.Client, tg Target) error {
	lq, err := ParseQuery(c.QueryParams())
	if err != nil {
		return err
	}
	if tg.multi() {
		err := h.setup(c, func(ctx context.Context) error {
			pods, rv, more, err := client.ListPods(ctx, tg.Namespace, tg.Selector, maxPods)
			if err != nil {
				return err
			}
			tg.addPods(pods)
			tg.PodsVersion, tg.MorePods = rv, more
			return nil
		})
		if err != nil {
			return err
		}
	} else if lq.Container == "" {
		lq.Container = tg.Default
	}
	switch {
	case streaming.IsUpgrade(c.Request()):
		return h.stream(c, client, tg, lq)
	case lq.Download:
		return h.download(c, client, tg, lq)
	}
	ctx, cancel := h.env.WithDeadline(c.Request().Context())
	defer cancel()
	// The form posts back to the page itself.
	p := Model(ctx, page.RequestPath(c), tg, lq)
	p.Layout = h.env.ContextLayout(ctx, client, tg.Name+" · logs", nil, tg.Namespace)
	return h.env.Render(c, http.StatusOK, views.Logs(p))
}

// Model builds a log page; the stream fills it in the browser.
func Model(_ context.Context, action templ.SafeURL, t Target, lq Query) views.LogPage {
	p := views.LogPage{
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
			Query:      lq.Search,
			Filter:     lq.Filter,
			MaxLines:   lq.Keep,
		},
	}
	if lq.TailLines != nil {
		p.Options.TailLines = strconv.FormatInt(*lq.TailLines, 10)
	}
	if lq.Since > 0 {
		p.Options.Since = lq.Since.String()
	}
	download := url.Values{"download": {"1"}, "tailLines": {p.Options.TailLines}}
	if t.BySelector {
		p.Hidden = []views.HiddenField{{Name: "labelSelector", Value: t.Selector}}
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
		download.Set("since", p.Options.Since)
	}
	p.DownloadHref = page.WithQuery(action, download)
	if t.multi() && t.PodCount == 0 {
		p.Notices = append(p.Notices, "No pods match "+t.Selector+" yet; pods that appear will join the log.")
	}
	if t.MorePods {
		p.Notices = append(p.Notices, fmt.Sprintf("More than %d pods match; the log reads the containers of the first %d.", maxPods, maxPods))
	}
	if n := len(t.sources(lq.Container)); t.multi() && n > maxSources {
		p.Notices = append(p.Notices, fmt.Sprintf("%d containers match; the log follows the first %d. Pick a container to narrow it.", n, maxSources))
	}
	return p
}

// openLog opens one upstream log stream in one of the console's stream
// slots, given back when the stream is closed.
func (h *Handler) openLog(ctx context.Context, client *apiclient.Client, namespace, pod string, opts apiclient.LogOptions) (io.ReadCloser, error) {
	release, err := h.env.AcquireStream(client.IdentityKey())
	if err != nil {
		return nil, err
	}
	// The first byte is bounded as a page is; the body is a stream and is
	// not. Cancelling ctx ends the stream, so the deadline only cancels a
	// call that has not answered yet.
	ctx, cancel := context.WithCancel(ctx)
	late := time.AfterFunc(h.env.Timeout, cancel)
	rc, err := client.Logs(ctx, namespace, pod, opts)
	if !late.Stop() {
		if err == nil {
			rc.Close()
		}
		err = fmt.Errorf("opening the log of %s: %w", pod, context.DeadlineExceeded)
	}
	if err != nil {
		cancel()
		release()
		return nil, err
	}
	return &slotReader{ReadCloser: rc, release: func() { cancel(); release() }}, nil
}

type slotReader struct {
	io.ReadCloser
	release func()
}

func (r *slotReader) Close() error {
	defer r.release()
	return r.ReadCloser.Close()
}
