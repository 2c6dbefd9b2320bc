package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
	"github.com/tabula-console/tabula/web/page"
)

// namespaceSubresources are the subresources of Namespace objects, which
// would otherwise read as resources inside the namespace (as kube-apiserver
// itself disambiguates them).
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// objectPages are the console's pages of an object, …/{name}/{page}
// (page.URLs.Action). For a Namespace they too would read as resources
// inside it; the core group, the only one with namespaces, has no
// resources by these names.
var objectPages = map[string]bool{"edit": true, "delete": true, "scale": true, "restart": true}

// parseAPIPath splits "/api/v1/namespaces/demo/pods/web-1/log" and
// "/apis/apps/v1/deployments" into their parts. Segments arrive escaped.
func parseAPIPath(escaped string) (page.APIPath, error) {
	raw := strings.Split(strings.Trim(escaped, "/"), "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		dec, err := url.PathUnescape(s)
		// A decoded "/" or ".." would address another path upstream.
		if err != nil || !apiclient.ValidPathSegment(dec) {
			return page.APIPath{}, badPath(escaped)
		}
		segs[i] = dec
	}
	var p page.APIPath
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		p.Version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		p.Group, p.Version, segs = segs[1], segs[2], segs[3:]
	default:
		return page.APIPath{}, badPath(escaped)
	}
	namespacePage := len(segs) == 3 && p.Group == "" && objectPages[segs[2]]
	if segs[0] == "namespaces" && len(segs) >= 3 && !namespaceSubresources[segs[2]] && !namespacePage {
		p.Namespace, segs = segs[1], segs[2:]
	}
	switch len(segs) {
	case 1:
		p.Resource = segs[0]
	case 2:
		p.Resource, p.Name = segs[0], segs[1]
	case 3:
		p.Resource, p.Name, p.Subresource = segs[0], segs[1], segs[2]
	default:
		return page.APIPath{}, badPath(escaped)
	}
	// A name no server can hold is refused here, not sent upstream to
	// come back as an empty list.
	problem := ""
	if p.Namespace != "" {
		problem = kube.NamespaceProblem(p.Namespace)
	}
	if problem == "" {
		problem = kube.NameProblem(p.Name)
	}
	if problem != "" {
		return page.APIPath{}, echo.NewHTTPError(http.StatusBadRequest, problem+".")
	}
	return p, nil
}

func badPath(p string) error {
	return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("%q is not an API resource path", p))
}
