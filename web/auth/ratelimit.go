package auth

import (
	"container/list"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
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
	ipv6Network = 64 // an IPv6 client is its /64: it has them all
	// refilled is how long a client's whole burst takes to come back: a
	// client not seen for that long is as good as never seen.
	refilled = loginBurst * loginEvery
)

// The forwarding headers Config.ProxyHeader may name.
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// limiter bounds sign-in attempts per client address. It remembers at most
// maxClients clients, least recently seen last: forgetting a client only
// gives it a fresh burst, so when full it forgets the one seen longest ago
// (the one whose budget has come back the most) and never refuses a client
// it has no room for. Addresses are never pooled into a shared bucket,
// which one flood would exhaust for everyone.
type limiter struct {
	now func() time.Time

	mu      sync.Mutex
	clients map[string]*list.Element // of *client
	order   *list.List               // most recently seen first
}

type client struct {
	key  string
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, clients: map[string]*list.Element{}, order: list.New()}
}

// allow takes one attempt for key, or says how long until one is left.
func (l *limiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetRefilled(now)
	var cl *client
	if el, ok := l.clients[key]; ok {
		cl = el.Value.(*client)
		l.order.MoveToFront(el)
	} else {
		if len(l.clients) >= maxClients {
			oldest := l.order.Back()
			l.order.Remove(oldest)
			delete(l.clients, oldest.Value.(*client).key)
		}
		cl = &client{key: key, lim: rate.NewLimiter(rate.Every(loginEvery), loginBurst)}
		l.clients[key] = l.order.PushFront(cl)
	}
	cl.seen = now
	r := cl.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// forgetRefilled drops the clients whose whole burst has come back, from
// the least recently seen: each call does as much work as clients it drops.
func (l *limiter) forgetRefilled(now time.Time) {
	for el := l.order.Back(); el != nil; el = l.order.Back() {
		cl := el.Value.(*client)
		if now.Sub(cl.seen) < refilled {
			return
		}
		l.order.Remove(el)
		delete(l.clients, cl.key)
	}
}

// size is how many clients are remembered (tests).
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// Limit rate-limits sign-in attempts per client (clientKey): 429 with
// Retry-After past the limit.
func (h *Handler) Limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ok, wait := h.limit.allow(clientKey(h.clientAddr(c.Request())))
		if ok {
			return next(c)
		}
		secs := int(math.Ceil(wait.Seconds()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return echo.NewHTTPError(http.StatusTooManyRequests,
			fmt.Sprintf("Too many sign-in attempts from your address. Try again in %d seconds.", secs))
	}
}

// clientKey is what the limit counts an address under: an IPv4 address, or
// an IPv6 address's /64.
func clientKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		return netip.PrefixFrom(ip, ipv6Network).Masked().String()
	}
	return ip.String()
}

// clientAddress says which address a request comes from.
type clientAddress func(*http.Request) string

// newClientAddress is the request's TCP peer, or, when that peer is one of
// trusted, the right-most address in header that is not: a proxy appends
// the address it was reached from, so everything left of the last
// untrusted hop was written by someone the console cannot vouch for. For
// X-Forwarded-For this is echo's extractor, with none of its default
// trusted ranges (loopback, link-local, private networks: in a cluster
// every pod is one of those).
func newClientAddress(trusted []netip.Prefix, header string) (clientAddress, error) {
	if len(trusted) == 0 {
		return clientAddress(echo.ExtractIPDirect()), nil
	}
	switch {
	case header == "" || strings.EqualFold(header, HeaderXForwardedFor):
		opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
		for _, p := range trusted {
			opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Masked().Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
		}
		return clientAddress(echo.ExtractIPFromXFFHeader(opts...)), nil
	case strings.EqualFold(header, HeaderForwarded):
		return func(req *http.Request) string { return fromForwarded(req, trusted) }, nil
	}
	return nil, fmt.Errorf("auth: proxy header %q: want %s or %s", header, HeaderXForwardedFor, HeaderForwarded)
}

// fromForwarded applies newClientAddress's rule to the for= parameters of
// the Forwarded headers (RFC 7239). As echo does for X-Forwarded-For, a
// hop that is not an address ("unknown", an obfuscated name) ends the
// trust: the peer is then the client.
func fromForwarded(req *http.Request, trusted []netip.Prefix) string {
	direct := echo.ExtractIPDirect()(req)
	var hops []string
	for _, line := range req.Header.Values(HeaderForwarded) {
		for _, element := range strings.Split(line, ",") {
			for _, pair := range strings.Split(element, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(k, "for") {
					hops = append(hops, forwardedNode(v))
				}
			}
		}
	}
	hops = append(hops, direct)
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(hops[i])
		if err != nil {
			return direct
		}
		if !trustedAddr(trusted, ip.Unmap()) {
			return ip.Unmap().String()
		}
	}
	return hops[0] // every hop trusted: the farthest, as echo
}

// forwardedNode is the address of a Forwarded for= value: unquoted, without
// brackets or port ("[2001:db8::1]:4711" → 2001:db8::1, "192.0.2.1:80" →
// 192.0.2.1).
func forwardedNode(v string) string {
	v = strings.Trim(strings.TrimSpace(v), `"`)
	if strings.HasPrefix(v, "[") {
		if end := strings.IndexByte(v, ']'); end > 0 {
			return v[1:end]
		}
		return v
	}
	if host, _, err := net.SplitHostPort(v); err == nil {
		return host
	}
	return v
}

func trustedAddr(trusted []netip.Prefix, ip netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
