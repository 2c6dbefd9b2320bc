package web

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tabula-console/tabula/web/page"
)

// Metrics owns the console's Prometheus registry. It is created per server,
// never registered globally, so tests can run servers side by side.
type Metrics struct {
	registry     *prometheus.Registry
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	apiCalls     *prometheus.CounterVec
	apiDuration  *prometheus.HistogramVec
	// WebSockets counts open browser WebSocket connections.
	WebSockets prometheus.Gauge
	watches    sync.Once
	slots      sync.Once
}

// NewMetrics registers Tabula's collectors on a fresh registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tabula_http_requests_total",
			Help: "HTTP requests served, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tabula_http_request_duration_seconds",
			Help:    "Time to serve HTTP requests, by route pattern.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
		apiCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tabula_upstream_requests_total",
			Help: "Requests to API servers, by verb, resource and status code.",
		}, []string{"verb", "resource", "code"}),
		apiDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tabula_upstream_request_duration_seconds",
			Help:    "Latency of requests to API servers, by verb and resource.",
			Buckets: prometheus.DefBuckets,
		}, []string{"verb", "resource"}),
		WebSockets: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tabula_websockets_open",
			Help: "Browser WebSocket connections currently open.",
		}),
	}
	m.registry.MustRegister(
		m.httpRequests, m.httpDuration, m.apiCalls, m.apiDuration, m.WebSockets,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// upstreamWatches exports how many upstream watches live lists share.
func (m *Metrics) upstreamWatches(count func() float64) {
	m.watches.Do(func() {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tabula_upstream_watches",
			Help: "Upstream list watches open, each shared by the live pages of one identity.",
		}, count))
	})
}

// streamSlots exports the console's stream slots (page.Env.StreamSlots):
// every log follow and live page holds one, and a user may hold only
// their share, so these bound the upstream streams and watches.
func (m *Metrics) streamSlots(slots func() (inUse, limit int, refusedUser, refusedConsole uint64)) {
	refused := func(user bool) func() float64 {
		return func() float64 {
			_, _, u, c := slots()
			if user {
				return float64(u)
			}
			return float64(c)
		}
	}
	m.slots.Do(func() {
		m.registry.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "tabula_stream_slots_in_use",
				Help: "Upstream stream slots taken: log follows and live pages (lists, objects, editors), across all users.",
			}, func() float64 { n, _, _, _ := slots(); return float64(n) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "tabula_stream_slots_limit",
				Help: "Upstream stream slots the console has (--max-streams).",
			}, func() float64 { _, n, _, _ := slots(); return float64(n) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "tabula_stream_slots_refused_total",
				Help:        "Streams refused a slot: scope user when the user held their share (--max-streams-per-user), console when all were taken.",
				ConstLabels: prometheus.Labels{"scope": "user"},
			}, refused(true)),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "tabula_stream_slots_refused_total",
				Help:        "Streams refused a slot: scope user when the user held their share (--max-streams-per-user), console when all were taken.",
				ConstLabels: prometheus.Labels{"scope": "console"},
			}, refused(false)),
		)
	})
}

// ObserveAPICall implements apiclient.Observer.
func (m *Metrics) ObserveAPICall(verb, resource, code string, elapsed time.Duration) {
	m.apiCalls.WithLabelValues(verb, resource, code).Inc()
	m.apiDuration.WithLabelValues(verb, resource).Observe(elapsed.Seconds())
}

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// middleware counts requests by route pattern, not raw path, so object names
// never become label values.
func (m *Metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		code := c.Response().Status
		if err != nil && !c.Response().Committed {
			code = page.StatusOf(err)
		}
		m.httpRequests.WithLabelValues(route, methodLabel(c.Request().Method), strconv.Itoa(code)).Inc()
		// A WebSocket's lifetime is not a response time.
		if code != http.StatusSwitchingProtocols {
			m.httpDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
		}
		return err
	}
}

// methodLabel bounds the method label: any token is a valid HTTP method,
// and a label value per token would be a series per request.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
