package web

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// hostCheck answers only requests addressed to a name the console is known
// by. Without it, DNS rebinding lets a page on another site reach a console
// on localhost or a private network as same-origin, and read everything its
// credentials can (the Origin check of WebSockets cannot tell either).
// Always allowed: IP addresses, localhost, and in-cluster Service names;
// anything else must be listed with --allowed-hosts.
func hostCheck(allowed []string) echo.MiddlewareFunc {
	names := make([]string, 0, len(allowed))
	for _, h := range allowed {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			names = append(names, h)
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !hostAllowed(c.Request().Host, names) {
				return echo.NewHTTPError(http.StatusMisdirectedRequest, fmt.Sprintf(
					"This console does not answer to the host %q. If that is how you reach it, start it with --allowed-hosts=%s (or TABULA_ALLOWED_HOSTS).",
					c.Request().Host, hostOnly(c.Request().Host)))
			}
			return next(c)
		}
	}
}

func hostAllowed(host string, names []string) bool {
	h := strings.ToLower(hostOnly(host))
	switch {
	case h == "":
		return false
	case net.ParseIP(h) != nil:
		return true
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return true
	case strings.HasSuffix(h, ".svc") || strings.HasSuffix(h, ".svc.cluster.local"):
		return true
	}
	return slices.Contains(names, h)
}

// hostOnly strips the port and IPv6 brackets from a Host header.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}
