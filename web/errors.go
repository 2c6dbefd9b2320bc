package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

// statusOf is the HTTP status code an error is served with.
func statusOf(err error) int {
	return classify(err).Code
}

// classify is the one place that decides how an error looks to the user. A
// metav1.Status from the API server keeps its code, reason, message and
// causes, so the console never hides what the server said.
func classify(err error) views.ErrorPage {
	p := classifyStatus(err)
	var action *actionError
	if errors.As(err, &action) {
		switch p.Code {
		case http.StatusForbidden:
			p.Hint = action.describe()
		case http.StatusNotFound:
			if action.ListHref != "" {
				p.Links = append(p.Links, views.Link{Label: "All " + action.Resource.Name, Href: action.ListHref})
			}
		}
	}
	return p
}

func classifyStatus(err error) views.ErrorPage {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := fmt.Sprint(he.Message)
		if he.Message == nil {
			msg = http.StatusText(he.Code)
		}
		return views.ErrorPage{Code: he.Code, Title: titleFor(he.Code), Message: msg}
	}
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		st := apiStatus.Status()
		code := int(st.Code)
		if code == 0 {
			code = http.StatusInternalServerError
		}
		p := views.ErrorPage{Code: code, Title: titleFor(code), Reason: string(st.Reason), Message: st.Message}
		if st.Details != nil {
			p.RetryAfterSeconds = int(st.Details.RetryAfterSeconds)
			for _, c := range st.Details.Causes {
				p.Causes = append(p.Causes, views.ErrorCause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
			}
		}
		return p
	}
	if errors.Is(err, apiclient.ErrUnknownContext) {
		return views.ErrorPage{Code: http.StatusNotFound, Title: "Unknown context", Reason: "NotFound", Message: err.Error()}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return views.ErrorPage{Code: http.StatusGatewayTimeout, Title: "The API server did not answer in time", Reason: "Timeout", Message: err.Error()}
	}
	var urlErr *url.Error
	var netErr net.Error
	if errors.As(err, &urlErr) || errors.As(err, &netErr) {
		return views.ErrorPage{
			Code:    http.StatusBadGateway,
			Title:   "The API server is unreachable",
			Reason:  "ServiceUnavailable",
			Message: err.Error(),
		}
	}
	return views.ErrorPage{
		Code:    http.StatusInternalServerError,
		Title:   "Something went wrong",
		Reason:  "InternalError",
		Message: "Tabula could not complete this request. The details are in the server log.",
	}
}

func titleFor(code int) string {
	switch code {
	case http.StatusUnauthorized:
		return "Not signed in"
	case http.StatusForbidden:
		return "Access denied"
	case http.StatusNotFound:
		return "Not found"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusTooManyRequests:
		return "Too many requests"
	case http.StatusNotImplemented:
		return "Not built yet"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(code)
}

// handleError is echo's HTTPErrorHandler: every handler error ends here.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		s.log.Warn("error after response started", "path", c.Request().URL.Path, "error", err)
		return
	}
	p := classify(err)
	if p.Code >= 500 {
		s.log.Error("request failed", "path", c.Request().URL.Path, "status", p.Code, "error", err)
	}
	if p.RetryAfterSeconds > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfterSeconds))
	}
	if c.Request().Method == http.MethodGet && (p.Code >= 500 || p.Code == http.StatusTooManyRequests) {
		p.RetryHref = c.Request().URL.RequestURI()
	}
	ctxName := pathParam(c, "context")
	if _, cerr := s.clusters.Context(ctxName); cerr != nil {
		ctxName = ""
	}
	p.Layout = s.layout(c, ctxName, p.Title)
	if ctxName != "" {
		p.Links = append(p.Links, views.Link{Label: "API resources of " + ctxName, Href: contextHome(ctxName)})
	} else {
		for _, ctx := range s.clusters.Contexts() {
			p.Links = append(p.Links, views.Link{Label: "Context " + ctx.Name, Href: contextHome(ctx.Name)})
		}
	}
	var buf bytes.Buffer
	// The page's deadline may be what failed; the error page still renders
	// (with the request's values, such as the CSP nonce).
	renderCtx := context.WithoutCancel(c.Request().Context())
	if rerr := views.Error(p).Render(renderCtx, &buf); rerr != nil {
		s.log.Error("rendering error page", "error", rerr, "original", err)
		_ = c.String(p.Code, p.Title+": "+p.Message)
		return
	}
	if werr := c.HTMLBlob(p.Code, buf.Bytes()); werr != nil {
		s.log.Debug("writing error page", "error", werr)
	}
}
