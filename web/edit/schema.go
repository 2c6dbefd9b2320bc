package edit

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/page"
)

// Schema serves GET /c/{context}/schema/{api path of a collection}: the
// OpenAPI v3 schema of its kind, trimmed for the editor's field help. A
// server without OpenAPI v3 answers 404 and the editor simply shows none.
func (h *Handler) Schema(c echo.Context, t page.Target) error {
	schema, err := t.Client.KindSchema(c.Request().Context(), t.Resource)
	if errors.Is(err, apiclient.ErrNoOpenAPI) {
		return h.env.Blob(c, http.StatusNotFound, echo.MIMEApplicationJSON, []byte(`{}`))
	}
	if err != nil {
		return err
	}
	return h.env.Blob(c, http.StatusOK, echo.MIMEApplicationJSON, schema)
}
