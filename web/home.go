package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/singleflight"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/streaming"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

func (s *Server) root(c echo.Context) error {
	return c.Redirect(http.StatusFound, string(page.URLsOf(c.Request().Context()).In(s.env.Clusters.Current()).Home()))
}

func (s *Server) contextRoot(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, string(page.URLsOf(c.Request().Context()).Home()))
}

// homeOrLive serves the home page, bounded by the page deadline, or a
// fleet home's live stream.
func (s *Server) homeOrLive(c echo.Context) error {
	if streaming.IsUpgrade(c.Request()) && page.FleetOf(c.Request().Context()) != nil {
		return s.fleet.Live(c)
	}
	return s.env.Bounded(s.home)(c)
}

// home lists what the server serves, by group; over several contexts it is
// the fleet's home (web/fleet).
func (s *Server) home(c echo.Context) error {
	if page.FleetOf(c.Request().Context()) != nil {
		return s.fleet.Home(c)
	}
	client, err := s.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	disco, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	p := views.HomePage{Layout: s.env.ContextLayout(ctx, client, "API resources", nil, ""), ChangesHref: page.URLsOf(ctx).In(client.ContextName()).Path("/changes")}
	p.Health = func() views.HomeHealth { return s.problems.Health(ctx, client, disco) }
	for gv := range disco.Failed {
		p.Unavailable = append(p.Unavailable, gv)
	}
	sort.Strings(p.Unavailable)
	for _, g := range disco.Groups {
		p.Groups = append(p.Groups, groupView(page.URLsOf(ctx), g))
	}
	// Streamed: the frame and the resources are painted while the health
	// is counted.
	return s.env.Stream(c, http.StatusOK, views.Home(p))
}

func groupView(u page.URLs, g apiclient.Group) views.APIGroup {
	display := kube.GroupLabel(g.Name)
	vg := views.APIGroup{
		Anchor:   groupAnchor(g.Name),
		Name:     display,
		Version:  g.PreferredVersion,
		Versions: g.Versions,
	}
	for _, r := range g.Resources {
		res := views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Href:       u.Resource(r, "", ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
			Search:     strings.ToLower(strings.Join(append([]string{r.Name, r.Kind, r.SingularName, display}, r.ShortNames...), " ")),
		}
		if r.Version != g.PreferredVersion {
			// Served only in another version: say which, as the link does.
			res.Group = display + "/" + r.Version
		}
		vg.Resources = append(vg.Resources, res)
	}
	return vg
}

// jump resolves a kubectl-style name to a list, keeping the namespace; a
// name of several kinds lists them, and anything else is searched for.
func (s *Server) jump(c echo.Context) error {
	client, err := s.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	d, err := client.Discovery(ctx)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.QueryParam("q"))
	ns := c.QueryParam("namespace")
	if ns != "" && !apiclient.ValidPathSegment(ns) {
		ns = ""
	}
	matches := d.Resolve(q)
	u := page.URLsOf(ctx)
	switch len(matches) {
	case 1:
		return c.Redirect(http.StatusSeeOther, string(u.Resource(matches[0], ns, "")))
	case 0:
		// Not a kind: the box searches for it, in the same namespace.
		v := url.Values{"q": {q}}
		if ns != "" {
			v.Set("namespace", ns)
		}
		return c.Redirect(http.StatusSeeOther, string(page.WithQuery(u.Path("/search"), v)))
	}
	p := views.JumpPage{
		Layout: s.env.ContextLayout(ctx, client, "Jump", nil, ns),
		Query:  q,
	}
	p.Layout.Jump.Query = q
	for _, r := range matches {
		p.Matches = append(p.Matches, views.APIResource{
			Name:       r.Name,
			Kind:       r.Kind,
			Group:      kube.GroupLabel(r.Group) + "/" + r.Version,
			Href:       u.Resource(r, ns, ""),
			Namespaced: r.Namespaced,
			ShortNames: r.ShortNames,
			Listable:   r.Can("list"),
		})
	}
	return s.env.Render(c, http.StatusOK, views.Jump(p))
}

func (s *Server) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// readyz reports whether the current context's API server answers. It is
// for probes, which are not signed in: it pings /version with the console's
// own credentials (any answer short of a 5xx will do, but a 401 where the
// console acts with that credential for its users: kubeconfig mode and
// OIDC impersonation, whose every page would fail), says only "ok" or
// "not ready", and logs why. It says nothing of any user's access, and no
// page relies on it. The answer is kept for readyTTL, and callers at once
// share one ping: an unauthenticated flood of /readyz makes no more API
// calls than a probe does.
func (s *Server) readyz(c echo.Context) error {
	if err := s.ready.check(c.Request().Context()); err != nil {
		return c.String(http.StatusServiceUnavailable, "not ready")
	}
	return c.String(http.StatusOK, "ok")
}

// readyTTL is how long a readiness answer is kept: well under a probe's
// period (10 s in deploy/), so a probe sees a fresh one.
const readyTTL = 2 * time.Second

// readiness keeps the last readiness answer briefly.
type readiness struct {
	ping   func(context.Context) error
	log    func(error)
	now    func() time.Time
	flight singleflight.Group

	mu  sync.Mutex // guards at and err
	at  time.Time
	err error
}

func (r *readiness) check(ctx context.Context) error {
	r.mu.Lock()
	if !r.at.IsZero() && r.now().Sub(r.at) < readyTTL {
		err := r.err
		r.mu.Unlock()
		return err
	}
	r.mu.Unlock()
	ch := r.flight.DoChan("ping", func() (_ any, err error) {
		// DoChan re-panics in a goroutine of its own, which would end the
		// process: a panicking ping is not ready, and is logged.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("readiness check panicked: %v", p)
				r.log(err)
			}
		}()
		// Shared by whoever asks meanwhile, so no one caller's going away
		// ends it; ping bounds it with its own deadline.
		err = r.ping(context.WithoutCancel(ctx))
		if err != nil {
			r.log(err)
		}
		r.mu.Lock()
		r.at, r.err = r.now(), err
		r.mu.Unlock()
		return nil, err
	})
	select {
	case res := <-ch:
		return res.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) ping(ctx context.Context) error {
	ctx, cancel := s.env.WithDeadline(ctx)
	defer cancel()
	// The console's own identity, for the probe alone: never a user's.
	client, err := s.env.Clusters.Client(s.env.Clusters.Current(), apiclient.Identity{})
	if err != nil {
		return err
	}
	return client.Ping(ctx, s.ownCredentialServes)
}
