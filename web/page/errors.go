package page

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/kube"
)

// StatusOf is the HTTP status code an error is served with.
func StatusOf(err error) int {
	return Classify(err).Code
}

// Classify is the one place that decides how an error looks to the user. A
// metav1.Status from the API server keeps its code, reason, message and
// causes, so the console never hides what the server said.
func Classify(err error) views.ErrorPage {
	p := classifyStatus(err)
	var notServed *apiclient.NotServedError
	if errors.As(err, &notServed) {
		p.Message = kube.NotServedMessage(notServed)
	}
	var unserved *UnservedError
	if errors.As(err, &unserved) {
		p.Links = append(p.Links, unserved.Links...)
		p.ServedLabel, p.Served = unserved.AvailableLabel, unserved.Available
	}
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
	var signIn *SignInRequired
	if errors.As(err, &signIn) {
		return views.ErrorPage{
			Code: http.StatusUnauthorized, Title: titleFor(http.StatusUnauthorized), Reason: "Unauthorized", Message: signIn.Message,
			Links: []views.Link{{Label: "Sign in", Href: signIn.SignIn}},
		}
	}
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
	var noSelector *apiclient.NoSelectorError
	var plain *apiclient.PlainHTTPError
	switch {
	case errors.As(err, &plain):
		return views.ErrorPage{
			Code: http.StatusBadGateway, Title: "The API server is not reached securely", Reason: "PlainHTTP",
			Message: "The API server of context " + plain.Context + " (" + plain.Server + ") is reached over plain HTTP, so the console will not send your credentials to it: they would cross the network unencrypted. The console's operator must give this context an https:// server URL.",
		}
	case errors.Is(err, apiclient.ErrUnknownContext):
		return views.ErrorPage{Code: http.StatusNotFound, Title: "Unknown context", Reason: "NotFound", Message: err.Error()}
	case errors.As(err, &noSelector):
		return views.ErrorPage{
			Code: http.StatusNotFound, Title: "No pods to show", Reason: "NotFound",
			Message: err.Error() + ", so there are no pods whose logs to show.",
		}
	case errors.Is(err, context.DeadlineExceeded):
		return views.ErrorPage{Code: http.StatusGatewayTimeout, Title: "The API server did not answer in time", Reason: "Timeout", Message: err.Error()}
	}
	var urlErr *url.Error
	var netErr net.Error
	var bad *apiclient.BadResponseError
	if errors.As(err, &bad) {
		return views.ErrorPage{
			Code:    http.StatusBadGateway,
			Title:   "The API server's answer could not be read",
			Reason:  "BadGateway",
			Message: bad.Error() + ". Nothing of it is shown: retry, or check the server.",
		}
	}
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
	case http.StatusMisdirectedRequest:
		return "Unknown host"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(code)
}

// StatusFor is the metav1.Status a stream reports for err on channel 3: the
// API server's own Status when there is one, otherwise what the error
// mapper would show on a page (never internals).
func StatusFor(err error) metav1.Status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		return api.Status()
	}
	p := Classify(err)
	msg := p.Message
	if p.Hint != "" {
		msg = p.Hint + " " + msg
	}
	return metav1.Status{Status: metav1.StatusFailure, Code: int32(p.Code), Reason: metav1.StatusReason(p.Reason), Message: msg}
}

// Misdirected refuses a request addressed to a host the console does not
// answer to. Its page is bare: a stranger's page must learn nothing about
// the clusters behind the console.
func Misdirected(host string) error {
	return echo.NewHTTPError(http.StatusMisdirectedRequest, fmt.Sprintf("This console does not answer to the host %q.", host))
}

// HandleError is echo's HTTPErrorHandler: every handler error ends here.
func (e *Env) HandleError(err error, c echo.Context) {
	if c.Response().Committed {
		e.Log.Warn("error after response started", "path", c.Request().URL.Path, "error", err)
		return
	}
	p := Classify(err)
	if p.Code >= 500 {
		e.Log.Error("request failed", "path", c.Request().URL.Path, "status", p.Code, "error", err)
	}
	if p.RetryAfterSeconds > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfterSeconds))
	}
	// The page's deadline may be what failed; the error page still renders
	// (with the request's values, such as the CSP nonce).
	ctx := context.WithoutCancel(c.Request().Context())
	if p.Code == http.StatusMisdirectedRequest {
		p.Layout = e.bareLayout(URLsOf(ctx), p.Title)
	} else {
		e.frameError(ctx, c, err, &p)
	}
	var buf bytes.Buffer
	if rerr := views.Error(p).Render(ctx, &buf); rerr != nil {
		e.Log.Error("rendering error page", "error", rerr, "original", err)
		_ = c.String(p.Code, p.Title+": "+p.Message)
		return
	}
	if werr := e.Blob(c, p.Code, echo.MIMETextHTMLCharsetUTF8, buf.Bytes()); werr != nil {
		e.Log.Debug("writing error page", "error", werr)
	}
}

// frameError puts an error page in its context's frame, with ways onward.
func (e *Env) frameError(ctx context.Context, c echo.Context, err error, p *views.ErrorPage) {
	var signIn *SignInRequired
	if errors.As(err, &signIn) {
		// Whoever is not signed in learns nothing about the clusters.
		p.Layout = e.Layout(ctx, URLsOf(ctx).In(""), p.Title)
		return
	}
	if c.Request().Method == http.MethodGet && (p.Code >= 500 || p.Code == http.StatusTooManyRequests) {
		p.RetryHref = requestURL(c)
	}
	name := PathParam(c, "context")
	current, cerr := e.Clusters.Context(name)
	if cerr != nil {
		name = ""
	}
	if p.Code == http.StatusUnauthorized && name != "" && current.CredentialsDropped {
		p.Hint = "The API server " + current.Server + " is reached over plain HTTP, and client-go never sends credentials such as a bearer token over plain HTTP, so every request is anonymous. Use an https:// server URL in the kubeconfig."
	}
	u := URLsOf(ctx).In(name)
	p.Layout = e.Layout(ctx, u, p.Title)
	if name != "" {
		p.Links = append(p.Links, views.Link{Label: "API resources of " + name, Href: u.Home()})
		return
	}
	for _, kc := range e.Clusters.Contexts() {
		p.Links = append(p.Links, views.Link{Label: "Context " + kc.Name, Href: u.In(kc.Name).Home()})
	}
}

// requestURL is this request's URL, to offer it again. It is request data,
// so templ sanitises it like any URL the console did not build.
func requestURL(c echo.Context) templ.SafeURL {
	return templ.URL(URLsOf(c.Request().Context()).Base() + c.Request().URL.RequestURI())
}

// RequestPath is this request's escaped path, base path included, for
// forms and links that lead back to the same page.
func RequestPath(c echo.Context) templ.SafeURL {
	return templ.URL(URLsOf(c.Request().Context()).Base() + c.Request().URL.EscapedPath())
}

// actionError says what the user tried when the server refused, so a 403
// can name the verb and resource and a 404 can offer the list.
type actionError struct {
	Verb      string
	Resource  apiclient.Resource
	Namespace string
	ListHref  templ.SafeURL
	err       error
}

func (e *actionError) Error() string { return e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

// WithAction wraps err, if any, with what the user tried.
func WithAction(err error, verb string, r apiclient.Resource, namespace string, listHref templ.SafeURL) error {
	if err == nil {
		return nil
	}
	return &actionError{Verb: verb, Resource: r, Namespace: namespace, ListHref: listHref, err: err}
}

func (e *actionError) describe() string {
	what := e.Resource.Name
	if e.Resource.Group != "" {
		what += "." + e.Resource.Group
	}
	s := fmt.Sprintf("You may not %s %s", e.Verb, what)
	switch {
	case e.Namespace != "":
		s += " in namespace " + e.Namespace
	case e.Resource.Namespaced:
		s += " across all namespaces"
	}
	return s + "."
}

// SignInRequired is a request that needs a session it does not carry (none,
// or one that ended): 401, with a way to sign in and nothing else.
type SignInRequired struct {
	Message string
	// SignIn is the sign-in page, returning to where the user was.
	SignIn templ.SafeURL
}

func (e *SignInRequired) Error() string { return "sign-in required: " + e.Message }
