package views

import "context"

type csrfKey struct{}

// WithCSRFToken gives the request's CSRF token to the forms it renders.
func WithCSRFToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, csrfKey{}, token)
}

// CSRFToken is the token WithCSRFToken stored, or "".
func CSRFToken(ctx context.Context) string {
	s, _ := ctx.Value(csrfKey{}).(string)
	return s
}
