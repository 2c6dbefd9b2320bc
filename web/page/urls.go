package page

import (
	"context"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// URLs the console builds are templ.SafeURL and built only here and in the
// features' model builders from these: a URL taken from API data stays a
// string, so templ sanitises it. Every builder takes the request's context,
// which carries the base path (WithBasePath): behind an ingress that
// forwards a prefix, every URL the console writes starts with it.

type basePathKey struct{}

// WithBasePath carries the path prefix of every console URL ("" or
// "/tabula") to the builders; the server sets it on each request.
func WithBasePath(ctx context.Context, base string) context.Context {
	if base == "" {
		return ctx
	}
	return context.WithValue(ctx, basePathKey{}, base)
}

// BasePath is the prefix of the console's URLs, "" when it is served at /.
func BasePath(ctx context.Context) string {
	base, _ := ctx.Value(basePathKey{}).(string)
	return base
}

// ConsoleURL is a console path that belongs to no context ("/",
// "/auth/login") under the base path.
func ConsoleURL(ctx context.Context, path string) templ.SafeURL {
	return templ.SafeURL(BasePath(ctx) + path)
}

// The sign-in pages (web/auth serves them), as console paths: build their
// URLs with ConsoleURL.
const (
	SignOutPath      = "/auth/logout"
	SignedOutPath    = "/auth/signed-out"
	SessionCheckPath = "/auth/session"
	TokenSignInPath  = "/auth/token"
)

// SignInURL is the sign-in page, going on to returnTo once signed in; ""
// goes on to the home page. returnTo is a console path, without the base
// path: the sign-in adds it when it sends the browser there.
func SignInURL(ctx context.Context, returnTo string) templ.SafeURL {
	if returnTo == "" {
		return ConsoleURL(ctx, "/auth/login")
	}
	return ConsoleURL(ctx, "/auth/login?"+url.Values{"return": {returnTo}}.Encode())
}

// ContextHome is the home page of a context.
func ContextHome(ctx context.Context, name string) templ.SafeURL {
	return ConsoleURL(ctx, "/c/"+url.PathEscape(name)+"/")
}

// ContextURL is a console path under a context ("/c/{context}/jump").
func ContextURL(ctx context.Context, name, path string) templ.SafeURL {
	return ConsoleURL(ctx, "/c/"+url.PathEscape(name)+path)
}

// ResourceURL is the console page of a resource's list (name "") or object,
// in a namespace or all ("").
func ResourceURL(ctx context.Context, contextName string, r apiclient.Resource, namespace, name string) templ.SafeURL {
	return ContextURL(ctx, contextName, r.Path(namespace, name))
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

// ObjectActionURL is an action page of an object: …/{name}/edit, /delete,
// /scale, /restart.
func ObjectActionURL(ctx context.Context, contextName string, r apiclient.Resource, namespace, name, action string) templ.SafeURL {
	return ResourceURL(ctx, contextName, r, namespace, name) + "/" + templ.SafeURL(url.PathEscape(action))
}

// NewObjectURL is the create page of a collection, …/{resource}/new.
func NewObjectURL(ctx context.Context, contextName string, r apiclient.Resource, namespace string) templ.SafeURL {
	return ResourceURL(ctx, contextName, r, namespace, "") + "/new"
}
