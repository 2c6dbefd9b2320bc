package page

import (
	"context"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

type themeKey struct{}

// themeCookie holds the user's light/dark choice, so pages render in it
// without a flash.
const themeCookie = "tabula-theme"

// Theme carries the theme cookie into the request context, where the
// layout builders read it.
func Theme(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if cookie, err := c.Cookie(themeCookie); err == nil {
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), themeKey{}, cookie.Value)))
		}
		return next(c)
	}
}

type warningsKey struct{}

// CollectWarnings gathers the API server's warnings during a page request,
// for the page frame to show them as kubectl prints them. Streams and
// downloads have no frame: their warnings go to the log.
func CollectWarnings(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if streaming.IsUpgrade(c.Request()) || Bool(c.QueryParams(), "download") {
			return next(c)
		}
		ctx, w := apiclient.WithWarnings(c.Request().Context())
		c.SetRequest(c.Request().WithContext(context.WithValue(ctx, warningsKey{}, w)))
		return next(c)
	}
}

// Layout is the frame of a page: the assets, the theme, the server's
// warnings so far and, inside u's context, the context switcher.
func (e *Env) Layout(ctx context.Context, u URLs, title string) views.Layout {
	contextName := u.ContextName()
	l := e.bareLayout(u, title)
	// The editor and terminal bundles are heavy: only pages that edit
	// link one (WithEditor), or that open a terminal (WithTerminal).
	l.Assets.Editor = ""
	l.Assets.Terminal, l.Assets.TerminalCSS = "", ""
	l.Theme, _ = ctx.Value(themeKey{}).(string)
	if w, ok := ctx.Value(warningsKey{}).(*apiclient.Warnings); ok {
		l.Warnings = w.List()
	}
	f := flashOf(ctx)
	l.Notice, l.ClearDraft = f.Message, f.ClearDraft
	l.Session = e.sessionBar(ctx, u)
	if contextName == "" {
		return l
	}
	if IsFleetSegment(contextName) {
		l.Context = views.ContextBar{Current: FleetLabel(contextName)}
	} else {
		current, err := e.Clusters.Context(contextName)
		if err != nil {
			return l
		}
		l.Context = views.ContextBar{Current: current.Name, Cluster: current.Cluster, Server: current.Server}
	}
	fleet := FleetOf(ctx)
	for _, c := range e.Clusters.Contexts() {
		l.Context.Options = append(l.Context.Options, views.ContextOption{
			Name:    c.Name,
			Cluster: c.Cluster,
			Href:    u.In(c.Name).Home(),
			Current: c.Name == contextName,
			InFleet: slices.Contains(fleet, c.Name) && contextName != apiclient.AllContexts,
		})
	}
	if len(l.Context.Options) > 1 {
		// Every context at once (the fleet's home), or a chosen set.
		l.Context.Options = append(l.Context.Options, views.ContextOption{
			Name: "All contexts", Cluster: apiclient.AllContexts, Href: u.In(apiclient.AllContexts).Home(),
			Current: contextName == apiclient.AllContexts, All: true,
		})
		l.Context.FleetAction = u.Console("/fleet")
	}
	return l
}

// FleetLabel names a fleet segment on its pages: "All contexts", or the
// chosen ones ("east, west").
func FleetLabel(segment string) string {
	if segment == apiclient.AllContexts {
		return "All contexts"
	}
	return strings.ReplaceAll(segment, ",", ", ")
}

// bareLayout is the frame without anything of the user's: the assets and
// the console's home.
func (e *Env) bareLayout(u URLs, title string) views.Layout {
	return views.Layout{Title: title, Assets: e.assets, Home: u.Console("/"), BasePath: u.Base()}
}

// ContextLayout is the frame of every page inside a context: the sidebar
// and jump box come from discovery. current marks the resource shown.
func (e *Env) ContextLayout(ctx context.Context, client *apiclient.Client, title string, current *apiclient.Resource, namespace string) views.Layout {
	u := URLsOf(ctx).In(client.ContextName())
	l := e.Layout(ctx, u, title)
	d, err := client.Discovery(ctx)
	if err != nil {
		// The page itself reports discovery failures; the frame goes without.
		return l
	}
	l.Nav = navGroups(u, d, current, namespace, e.Rules(ctx, client, namespace))
	l.Jump = views.JumpBox{
		Action:    u.Path("/jump"),
		Namespace: namespace,
		Names:     d.Names(),
	}
	return l
}

// StartContextLayout builds a ContextLayout (the sidebar's rules review and
// discovery may call the server) while the page fetches what it shows; the
// function it returns waits for it, with the warnings of every call since.
func (e *Env) StartContextLayout(ctx context.Context, client *apiclient.Client, title string, current *apiclient.Resource, namespace string) func() views.Layout {
	done := make(chan views.Layout, 1)
	go func() { done <- e.ContextLayout(ctx, client, title, current, namespace) }()
	return func() views.Layout {
		l := <-done
		if w, ok := ctx.Value(warningsKey{}).(*apiclient.Warnings); ok {
			l.Warnings = w.List()
		}
		return l
	}
}

// rulesProbe is the namespace whose rules stand for "all namespaces": a
// SelfSubjectRulesReview needs one, and any namespace's rules include every
// cluster-wide grant, which is all a list across namespaces can use. Its
// own RoleBindings can only make the sidebar dim less, never wrongly more.
const rulesProbe = "default"

// Rules is what the user may do in namespace ("" for all: rulesProbe's),
// from one SelfSubjectRulesReview kept briefly per user, as the sidebar
// reads it; nil when the server could not say.
func (e *Env) Rules(ctx context.Context, client *apiclient.Client, namespace string) *apiclient.Rules {
	if namespace == "" {
		namespace = rulesProbe
	}
	return e.access.Rules(ctx, client.IdentityKey(), client, namespace)
}

// navGroups is the sidebar: every listable resource, by group. A resource
// that rules (nil: unknown) say the user may not list in namespace is
// dimmed with the reason; incomplete rules dim nothing.
func navGroups(u URLs, d *apiclient.Discovery, current *apiclient.Resource, namespace string, rules *apiclient.Rules) []views.NavGroup {
	var out []views.NavGroup
	for _, g := range d.Groups {
		ng := views.NavGroup{Label: kube.GroupLabel(g.Name)}
		for _, r := range g.Resources {
			if !r.Can("list") {
				continue
			}
			isCurrent := current != nil && current.Group == r.Group && current.Name == r.Name
			ng.Open = ng.Open || isCurrent || (current == nil && g.Name == "")
			item := views.NavItem{
				Label:   r.Name,
				Href:    u.Resource(r, namespace, ""),
				Current: isCurrent,
			}
			if rules != nil && rules.Denies("list", r.Group, r.Name, "", "") {
				item.Denied = kube.ListDenied(r, namespace)
			}
			ng.Items = append(ng.Items, item)
		}
		if len(ng.Items) > 0 {
			out = append(out, ng)
		}
	}
	return out
}

// WithEditor links the code editor bundle into a page that edits.
func (e *Env) WithEditor(l views.Layout) views.Layout {
	l.Assets.Editor = e.assets.Editor
	return l
}

// WithBulk links the bulk actions' module (static/bulk.js) into a list
// page with checkboxes and the bulk results page: loaded async, so a
// streamed results page counts its rows as they arrive.
func (e *Env) WithBulk(l views.Layout) views.Layout {
	l.Assets.Bulk = e.assets.Bulk
	return l
}

// WithTerminal links the terminal bundle and its stylesheet into a page
// that opens a terminal.
func (e *Env) WithTerminal(l views.Layout) views.Layout {
	l.Assets.Terminal, l.Assets.TerminalCSS = e.assets.Terminal, e.assets.TerminalCSS
	return l
}

// sessionBar is the header's sign-in state: the signed-in user, or in
// kubeconfig mode whose identity every visitor borrows.
func (e *Env) sessionBar(ctx context.Context, u URLs) views.SessionBar {
	r, ok := requesterFrom(ctx)
	if !ok || r.Mode == ModeKubeconfig {
		contextName := u.ContextName()
		if contextName == "" {
			contextName = e.Clusters.Current()
		}
		return views.SessionBar{SharedIdentity: contextName, SharedFleet: IsFleetSegment(contextName)}
	}
	b := views.SessionBar{SessionCheck: u.Console(sessionCheckPath), SignIn: u.SignIn("")}
	if r.User != "" {
		b.User, b.Groups, b.SignOut = r.User, r.Groups, u.Console(signOutPath)
	}
	return b
}
