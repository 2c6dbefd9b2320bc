package auth

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// Sign-in attempts per client address: a burst, then one every few seconds.
const (
	loginBurst  = 20
	loginEvery  = 3 * time.Second
	maxClients  = 10000
	clientIdle  = 10 * time.Minute
	ipv6Network = 64 // an IPv6 client is its /64: it has them all
)

// limiter bounds sign-in attempts per client address, in a bounded map.
type limiter struct {
	now func() time.Time

	mu      sync.Mutex
	clients map[string]*client
}

type client struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, clients: map[string]*client{}}
}

// allow takes one attempt for key, or says how long until one is left.
func (l *limiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	cl, ok := l.clients[key]
	if !ok {
		if len(l.clients) >= maxClients {
			l.evict(now)
		}
		cl = &client{lim: rate.NewLimiter(rate.Every(loginEvery), loginBurst)}
		l.clients[key] = cl
	}
	cl.seen = now
	r := cl.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// evict drops clients idle long enough to have their whole burst back,
// and if none is, any one.
func (l *limiter) evict(now time.Time) {
	for k, cl := range l.clients {
		if now.Sub(cl.seen) > clientIdle {
			delete(l.clients, k)
		}
	}
	for k := range l.clients {
		if len(l.clients) < maxClients {
			return
		}
		delete(l.clients, k)
	}
}

// Limit rate-limits sign-in attempts per client address: 429 with
// Retry-After past the limit. The address is the connection's peer, or
// what echo's IPExtractor says when the server trusts a proxy.
func (h *Handler) Limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ok, wait := h.limit.allow(clientKey(c))
		if ok {
			return next(c)
		}
		secs := int(math.Ceil(wait.Seconds()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return echo.NewHTTPError(http.StatusTooManyRequests,
			fmt.Sprintf("Too many sign-in attempts from your address. Try again in %d seconds.", secs))
	}
}

func clientKey(c echo.Context) string {
	addr := ""
	if c.Echo().IPExtractor != nil {
		addr = c.RealIP()
	} else if host, _, err := net.SplitHostPort(c.Request().RemoteAddr); err == nil {
		addr = host
	}
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(ipv6Network, 128)).String()
	}
	return ip.String()
}
