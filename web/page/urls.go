package page

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// URLs the console builds are templ.SafeURL and built only from a URLs
// value and the features' model builders: a URL taken from API data stays a
// string, so templ sanitises it.

type basePathKey struct{}

// WithBasePath carries the path prefix of every console URL ("" or
// "/tabula") to the builders; the server sets it on each request.
func WithBasePath(ctx context.Context, base string) context.Context {
	if base == "" {
		return ctx
	}
	return context.WithValue(ctx, basePathKey{}, base)
}

// URLs builds the console's URLs as one request sees them: under the base
// path the console is served at (behind an ingress that forwards a
// prefix), and, for those of a context, under /c/{context}. It is built
// once per request (URLsOf) and handed to the builders; a page about
// several clusters holds one per cluster (In).
type URLs struct {
	base    string
	context string
}

// URLsOf is the request's URLs, in the context it addresses ("" outside
// /c/{context}).
func URLsOf(ctx context.Context) URLs {
	u := URLs{}
	u.base, _ = ctx.Value(basePathKey{}).(string)
	u.context, _ = ctx.Value(contextNameKey{}).(string)
	return u
}

// In is u for another context of the same console.
func (u URLs) In(contextName string) URLs {
	u.context = contextName
	return u
}

// ContextName is the context u builds URLs in.
func (u URLs) ContextName() string { return u.context }

// Base is the prefix of every console URL, "" when it is served at /.
func (u URLs) Base() string { return u.base }

// Console is a console path that belongs to no context ("/",
// "/auth/login").
func (u URLs) Console(path string) templ.SafeURL { return templ.SafeURL(u.base + path) }

// Home is the home page of u's context.
func (u URLs) Home() templ.SafeURL { return u.Path("/") }

// Path is a console path under u's context ("/jump" is /c/{context}/jump).
func (u URLs) Path(path string) templ.SafeURL {
	segment := url.PathEscape(u.context)
	if IsFleetSegment(u.context) {
		// A set of contexts reads as one: /c/a,b/ (a comma needs no
		// escaping in a path, and no context's name has one).
		segment = strings.ReplaceAll(segment, "%2C", ",")
	}
	return u.Console("/c/" + segment + path)
}

// Resource is the console page of a resource's list (name "") or object,
// in a namespace or all ("").
func (u URLs) Resource(r apiclient.Resource, namespace, name string) templ.SafeURL {
	return u.Path(r.Path(namespace, name))
}

// Action is an action page of an object: …/{name}/edit, /delete, /scale…
func (u URLs) Action(r apiclient.Resource, namespace, name, action string) templ.SafeURL {
	return u.Resource(r, namespace, name) + "/" + templ.SafeURL(url.PathEscape(action))
}

// New is the create page of a collection, …/{resource}/new.
func (u URLs) New(r apiclient.Resource, namespace string) templ.SafeURL {
	return u.Resource(r, namespace, "") + "/new"
}

// The sign-in pages (web/auth serves them), as console paths: build their
// URLs with Console.
const (
	signOutPath      = "/auth/logout"
	SignedOutPath    = "/auth/signed-out"
	sessionCheckPath = "/auth/session"
	TokenSignInPath  = "/auth/token"
)

// SignIn is the sign-in page, going on to returnTo once signed in; ""
// goes on to the home page. returnTo is a console path, without the base
// path: the sign-in adds it when it sends the browser there.
func (u URLs) SignIn(returnTo string) templ.SafeURL {
	if returnTo == "" {
		return u.Console("/auth/login")
	}
	return u.Console("/auth/login?" + url.Values{"return": {returnTo}}.Encode())
}

// WithQuery appends an encoded query to a console URL.
func WithQuery(u templ.SafeURL, v url.Values) templ.SafeURL {
	if len(v) == 0 {
		return u
	}
	return u + "?" + templ.SafeURL(v.Encode())
}

// HiddenFields carries query values over in a form, in a stable order.
func HiddenFields(v url.Values) []views.HiddenField {
	var out []views.HiddenField
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, val := range v[k] {
			out = append(out, views.HiddenField{Name: k, Value: val})
		}
	}
	return out
}

// PathParam returns a route parameter decoded exactly once: echo routes on
// the escaped path when the URL has one, so names with "/" or ":" survive.
func PathParam(c echo.Context, name string) string {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v
	}
	if dec, err := url.PathUnescape(v); err == nil {
		return dec
	}
	return v
}

// Bool reads a boolean query parameter as the API does: "true" and "1"
// (strconv.ParseBool's spellings) are true; anything else, or absence, is false.
func Bool(q url.Values, key string) bool {
	v := q.Get(key)
	b, err := strconv.ParseBool(v)
	// "on" is what an HTML checkbox without a value sends.
	return err == nil && b || v == "on"
}
