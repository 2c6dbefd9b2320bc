package apiclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Observer receives one call per upstream API request. Implementations must be
// cheap and safe for concurrent use (for example Prometheus collectors).
type Observer interface {
	ObserveAPICall(verb, resource string, code string, elapsed time.Duration)
}

type observingTransport struct {
	next     http.RoundTripper
	observer Observer
}

func observeTransport(o Observer) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return &observingTransport{next: next, observer: o}
	}
}

func (t *observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	verb, resource := classifyRequest(req)
	t.observer.ObserveAPICall(verb, resource, code, time.Since(start))
	return resp, err
}

// classifyRequest maps a request onto the Kubernetes verb and a bounded
// resource label ("apps/deployments", "pods/log", or "discovery" for
// non-resource paths) so metrics keep a low cardinality.
func classifyRequest(req *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	var rest []string
	group := ""
	switch {
	case parts[0] == "api" && len(parts) <= 2, parts[0] == "apis" && len(parts) <= 3:
		return "get", "discovery"
	case parts[0] == "api":
		rest = parts[2:]
	case parts[0] == "apis":
		group, rest = parts[1], parts[3:]
	default:
		return strings.ToLower(req.Method), "nonresource"
	}
	if rest[0] == "namespaces" && len(rest) >= 3 {
		rest = rest[2:]
	}
	res := rest[0]
	named := len(rest) >= 2
	if len(rest) >= 3 {
		res += "/" + rest[2]
	}
	if group != "" {
		res = group + "/" + res
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if !named {
			verb = "deletecollection"
		}
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, res
}
