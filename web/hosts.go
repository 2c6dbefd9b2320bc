package web

import (
	"net"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/web/page"
)

// hostPolicy answers only requests addressed to a name the console is
// known by. Without it, DNS rebinding lets a page on another site reach a
// console on localhost or a private network as same-origin, and read
// everything its credentials can (the Origin check of WebSockets cannot
// tell either). Always allowed: IP addresses and localhost. In-cluster
// Service names (*.svc, *.svc.cluster.local) only in a cluster: on a laptop
// a name under .local is answered by anyone on the LAN (mDNS). Anything
// else must be listed with --allowed-hosts.
type hostPolicy struct {
	names     []string
	inCluster bool
}

func newHostPolicy(allowed []string, inCluster bool) hostPolicy {
	p := hostPolicy{inCluster: inCluster}
	for _, h := range allowed {
		if h = normalHost(h); h != "" {
			p.names = append(p.names, h)
		}
	}
	return p
}

func (p hostPolicy) check(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !p.allows(c.Request().Host) {
			return page.Misdirected(c.Request().Host)
		}
		return next(c)
	}
}

func (p hostPolicy) allows(host string) bool {
	h := normalHost(host)
	switch {
	case h == "":
		return false
	case net.ParseIP(h) != nil:
		return true
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return true
	case p.inCluster && (strings.HasSuffix(h, ".svc") || strings.HasSuffix(h, ".svc.cluster.local")):
		return true
	}
	return slices.Contains(p.names, h)
}

// normalHost is a host name as compared: lower case, without port, IPv6
// brackets or the root's trailing dot.
func normalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(hostOnly(strings.TrimSpace(host))), ".")
}

// hostOnly strips the port and IPv6 brackets from a Host header.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}
