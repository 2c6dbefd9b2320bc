package aggregated

import (
	"errors"
	"net/http"
	"slices"
)

// frontProxyAuth authenticates requests the way an aggregated API server
// authenticates what kube-apiserver proxies to it (the "request header"
// authenticator): the TLS client certificate must chain to the front-proxy
// CA — the TLS config verifies that (see tlsConfig) — and carry an allowed
// common name; the user is then whoever X-Remote-User names.
type frontProxyAuth struct {
	// allowedNames are the accepted certificate CNs; empty accepts any
	// certificate the CA signed, like --requestheader-allowed-names.
	allowedNames []string
}

// user is the authenticated requester.
type user struct {
	name   string
	groups []string
}

// authenticate returns the user a proxied request acts for.
func (a frontProxyAuth) authenticate(r *http.Request) (user, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return user{}, errors.New("a client certificate signed by the front-proxy CA is required")
	}
	cn := r.TLS.VerifiedChains[0][0].Subject.CommonName
	if len(a.allowedNames) > 0 && !slices.Contains(a.allowedNames, cn) {
		return user{}, errors.New("client certificate common name " + cn + " is not an allowed front proxy")
	}
	name := r.Header.Get("X-Remote-User")
	if name == "" {
		return user{}, errors.New("X-Remote-User is missing")
	}
	return user{name: name, groups: r.Header.Values("X-Remote-Group")}, nil
}
