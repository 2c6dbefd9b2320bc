// Package exec serves terminals to containers: exec (a command, by default
// the best shell the image has), attach (the container's own process) and
// debug containers, in the browser over the Kubernetes channel framing.
package exec

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/csrf"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// Config tunes terminals. Zero fields take the defaults.
type Config struct {
	// IdleTimeout ends a session that received no keystroke for this long
	// (DefaultIdleTimeout); negative: never.
	IdleTimeout time.Duration
	// MaxPerUser caps one identity's open terminals (DefaultMaxPerUser).
	MaxPerUser int
	// Now is the clock of page tokens (time.Now).
	Now func() time.Time
	// StartWait bounds how long a session waits for its container to
	// start (DefaultStartWait), StartPoll how often it looks
	// (DefaultStartPoll).
	StartWait, StartPoll time.Duration
}

// Defaults of Config.
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxPerUser  = 8
	// A debug container just added may still be pulling its image.
	DefaultStartWait = 2 * time.Minute
	DefaultStartPoll = time.Second
)

// Handler serves the terminal pages and their sessions.
type Handler struct {
	env   *page.Env
	log   *slog.Logger
	idle  time.Duration
	now   func() time.Time
	slots *slots
	// startWait and startPoll are Config.StartWait and StartPoll.
	startWait, startPoll time.Duration
}

// New builds the terminal feature.
func New(env *page.Env, cfg Config) *Handler {
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxPerUser <= 0 {
		cfg.MaxPerUser = DefaultMaxPerUser
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StartWait <= 0 {
		cfg.StartWait = DefaultStartWait
	}
	if cfg.StartPoll <= 0 {
		cfg.StartPoll = DefaultStartPoll
	}
	return &Handler{env: env, log: env.Log, idle: cfg.IdleTimeout, now: cfg.Now, slots: newSlots(cfg.MaxPerUser),
		startWait: cfg.StartWait, startPoll: cfg.StartPoll}
}

// Exec serves …/pods/{name}/exec (the page, and its session over
// WebSocket) and, for a workload, …/{workload}/{name}/exec: its pods to pick
// from.
func (h *Handler) Exec(c echo.Context, t page.Target) error {
	if !kube.IsPods(t.Resource) {
		return h.pickPod(c, t)
	}
	if !apiclient.SupportsExec(t.Resource) {
		return notServed(t.Resource, "exec")
	}
	return h.terminal(c, t, false)
}

// notServed refuses a subresource the server does not list for pods, as
// for any other subresource it lacks.
func notServed(pods apiclient.Resource, sub string) error {
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The server serves no %q subresource for %s.", sub, pods.Name))
}

// Attach serves …/pods/{name}/attach: a terminal joined to the container's
// own process.
func (h *Handler) Attach(c echo.Context, t page.Target) error {
	if !kube.IsPods(t.Resource) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Only pods can be attached to; %s %s is a %s.", t.Resource.Kind, t.Path.Name, t.Resource.Kind))
	}
	if !apiclient.SupportsAttach(t.Resource) {
		return notServed(t.Resource, "attach")
	}
	return h.terminal(c, t, true)
}

// target is what one terminal opens, resolved from the request.
type target struct {
	pod        *corev1.Pod
	containers []kube.Container
	container  kube.Container
	attach     bool
	// command runs (exec); typed is the command field as the user wrote
	// it, "" for the default shell.
	command []string
	typed   string
	shell   bool
	scope   tokenScope
}

func (h *Handler) resolve(ctx context.Context, c echo.Context, t page.Target, attach bool) (target, error) {
	client, p := t.Client, t.Path
	pod, err := client.GetPod(ctx, p.Namespace, p.Name)
	if err != nil {
		return target{}, page.WithAction(err, "get", t.Resource, p.Namespace, t.URLs.Resource(t.Resource, p.Namespace, ""))
	}
	tg := target{pod: pod, attach: attach}
	var def string
	tg.containers, def = terminalContainers(pod)
	if tg.container, err = pickContainer(tg.containers, def, c.QueryParam("container")); err != nil {
		return target{}, err
	}
	if !attach {
		tg.typed = strings.TrimSpace(c.QueryParam("command"))
		if tg.command, err = parseCommand(tg.typed); err != nil {
			return target{}, err
		}
		if tg.command == nil {
			tg.shell = true
			tg.command = shellCommand
			if isWindows(pod, h.nodeOS(ctx, client, pod)) {
				tg.command = windowsCommand
			}
		}
	}
	tg.scope = scopeOf(c, t, tg.container.Name, attach)
	return tg, nil
}

// scopeOf is what a terminal's token opens.
func scopeOf(c echo.Context, t page.Target, container string, attach bool) tokenScope {
	sub := "exec"
	if attach {
		sub = "attach"
	}
	return tokenScope{User: page.Who(c), Context: t.Client.ContextName(), Namespace: t.Path.Namespace, Pod: t.Path.Name, Container: container, Subresource: sub}
}

// nodeOS is the OS label of the pod's node, when the pod's spec does not
// say and the user may read the node; "" otherwise.
func (h *Handler) nodeOS(ctx context.Context, client *apiclient.Client, pod *corev1.Pod) string {
	if pod.Spec.OS != nil || pod.Spec.NodeSelector[osLabel] != "" || pod.Spec.NodeName == "" {
		return ""
	}
	nodes, err := client.Resource(ctx, "", "v1", "nodes")
	if err != nil {
		return ""
	}
	node, err := client.GetObject(ctx, nodes, "", pod.Spec.NodeName)
	if err != nil {
		return ""
	}
	return node.GetLabels()[osLabel]
}

func (h *Handler) terminal(c echo.Context, t page.Target, attach bool) error {
	upgrade := streaming.IsUpgrade(c.Request())
	if upgrade {
		// Before any upstream call: the socket must come from the page.
		// The page's socket URL always names the container.
		scope := scopeOf(c, t, c.QueryParam("container"), attach)
		if !checkToken(csrf.Secret(c.Request().Context()), scope, offeredToken(c.Request()), h.now()) {
			return echo.NewHTTPError(http.StatusForbidden, "This terminal was not opened from its own page, or the page is too old: reload it.")
		}
	}
	if upgrade {
		return h.serveSession(c, t, attach)
	}
	setupCtx, cancel := h.env.WithDeadline(c.Request().Context())
	defer cancel()
	tg, err := h.resolve(setupCtx, c, t, attach)
	if err != nil {
		return err
	}
	ctx := setupCtx
	client := t.Client
	permits := h.env.Permits(ctx, client, []apiclient.AccessCheck{kube.TerminalCheck(tg.scope.Subresource, tg.pod.Namespace, tg.pod.Name), kube.DebugCheck(tg.pod.Namespace, tg.pod.Name)})
	m := Model(ctx, ModelInput{
		URLs:     t.URLs,
		Pods:     t.Resource,
		Target:   tg,
		Token:    issueToken(csrf.Secret(ctx), tg.scope, h.now()),
		Permits:  permits,
		CanDebug: kube.CanDebug(t.Resource),
	})
	m.Layout = h.env.WithTerminal(h.env.ContextLayout(ctx, client, tg.pod.Name+" · "+tg.scope.Subresource, &t.Resource, tg.pod.Namespace))
	status := http.StatusOK
	if m.Denied != "" {
		// The page says why, and opens nothing.
		status = http.StatusForbidden
	}
	return h.env.Render(c, status, views.Terminal(m))
}

// ModelInput is what a terminal page is built from.
type ModelInput struct {
	URLs     page.URLs
	Pods     apiclient.Resource
	Target   target
	Token    string
	Permits  kube.Permits
	CanDebug bool
}

// Model builds a terminal page.
func Model(ctx context.Context, in ModelInput) views.TerminalPage {
	tg := in.Target
	pod := tg.pod
	podHref := in.URLs.Resource(in.Pods, pod.Namespace, pod.Name)
	sub := tg.scope.Subresource
	p := views.TerminalPage{
		Pod:            pod.Name,
		Namespace:      pod.Namespace,
		PodHref:        podHref,
		LogsHref:       page.WithQuery(podHref+"/log", url.Values{"container": {tg.container.Name}}),
		Attach:         tg.attach,
		Container:      tg.container.Name,
		Command:        tg.typed,
		DefaultCommand: strings.Join(tg.command, " "),
		Action:         podHref + templ.SafeURL("/"+sub),
		Token:          in.Token,
	}
	if tg.shell {
		p.DefaultCommand = "a shell: bash, else sh"
		if slices.Equal(tg.command, windowsCommand) {
			p.DefaultCommand = "cmd (a Windows pod)"
		}
	}
	for _, c := range tg.containers {
		label := c.Kind
		if !c.Running {
			label = strings.TrimSpace(label + " not running")
		}
		p.Containers = append(p.Containers, views.TerminalContainer{Name: c.Name, Label: label})
	}
	q := url.Values{"container": {tg.container.Name}}
	if tg.typed != "" {
		q.Set("command", tg.typed)
	}
	p.Socket = page.WithQuery(p.Action, q)
	switch {
	case !tg.attach && tg.container.Attachable:
		p.SwitchHref, p.SwitchLabel = page.WithQuery(podHref+"/attach", url.Values{"container": {tg.container.Name}}), "Attach to its process"
	case tg.attach:
		p.SwitchHref, p.SwitchLabel = page.WithQuery(podHref+"/exec", url.Values{"container": {tg.container.Name}}), "Run a shell instead"
	}
	if !tg.container.Running {
		p.Notice = fmt.Sprintf("Container %s is not running yet: the terminal waits for it to start.", tg.container.Name)
	}
	if tg.attach && !tg.container.Attachable {
		p.Notice = fmt.Sprintf("Container %s does not take input with a terminal (its spec lacks stdin and tty): you will see its output only.", tg.container.Name)
	}
	p.Denied = in.Permits.Denied(kube.TerminalCheck(sub, pod.Namespace, pod.Name))
	if in.CanDebug && in.Permits.Denied(kube.DebugCheck(pod.Namespace, pod.Name)) == "" {
		p.DebugHref = in.URLs.Action(in.Pods, pod.Namespace, pod.Name, "debug")
	}
	return p
}
