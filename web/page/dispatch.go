package page

import (
	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
)

// Target is what an API path under /c/{context} addresses, resolved
// through discovery: the resource, and the namespace, name and subresource
// of the path.
type Target struct {
	Client   *apiclient.Client
	Resource apiclient.Resource
	Path     APIPath
}

// ResourceHandler serves one shape of API path (a list, an object, a
// subresource) for any resource.
type ResourceHandler func(c echo.Context, t Target) error
