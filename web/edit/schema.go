package edit

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/page"
)

// Schema serves GET /c/{context}/schema/{api path of a collection}: the
// OpenAPI v3 schema of its kind, trimmed for the editor's field help. A
// server without OpenAPI v3 answers 404 and the editor simply shows none.
func (h *Handler) Schema(c echo.Context) error {
	// The escaped path is /c/{context}/schema/api…; the context segment is
	// skipped as sent.
	parts := strings.SplitN(c.Request().URL.EscapedPath(), "/", 5)
	if len(parts) < 5 {
		return echo.ErrNotFound
	}
	p, err := page.ParseAPIPath("/" + parts[4])
	if err != nil || p.Name != "" {
		return echo.NewHTTPError(http.StatusNotFound, "Not a collection path.")
	}
	client, err := h.env.Client(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	r, err := client.Resource(ctx, p.Group, p.Version, p.Resource)
	if err != nil {
		return err
	}
	schema, err := client.KindSchema(ctx, r)
	if errors.Is(err, apiclient.ErrNoOpenAPI) {
		return h.env.Blob(c, http.StatusNotFound, echo.MIMEApplicationJSON, []byte(`{}`))
	}
	if err != nil {
		return err
	}
	return h.env.Blob(c, http.StatusOK, echo.MIMEApplicationJSON, schema)
}
