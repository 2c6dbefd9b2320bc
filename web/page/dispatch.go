package page

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// Target is what an API path under /c/{context} addresses, resolved
// through discovery: the resource, and the namespace, name and subresource
// of the path, with the request's URLs in its context.
type Target struct {
	Client   *apiclient.Client
	Resource apiclient.Resource
	Path     APIPath
	URLs     URLs
}

// ObjectURL is the console page of the object (or the list, for a
// collection's path) t addresses.
func (t Target) ObjectURL() templ.SafeURL {
	return t.URLs.Resource(t.Resource, t.Path.Namespace, t.Path.Name)
}

// ActionURL is an action page of t's object (…/{name}/edit).
func (t Target) ActionURL(action string) templ.SafeURL {
	return t.URLs.Action(t.Resource, t.Path.Namespace, t.Path.Name, action)
}

// ListURL is the console page of the list t's object is in.
func (t Target) ListURL() templ.SafeURL { return t.URLs.Resource(t.Resource, t.Path.Namespace, "") }

// ResourceHandler serves one shape of API path (a list, an object, a
// subresource) for any resource.
type ResourceHandler func(c echo.Context, t Target) error
