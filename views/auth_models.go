package views

import "github.com/a-h/templ"

// TokenSignInPage is the sign-in form of token mode: paste a bearer token.
type TokenSignInPage struct {
	Layout Layout
	// Action is where the form posts; Return is the path to go on to.
	Action templ.SafeURL
	Return string
	// Context and Server name the API server the token is checked against.
	Context string
	Server  string
	// Error says why the last token was refused.
	Error string
}

// SignedOutPage confirms a sign-out.
type SignedOutPage struct {
	Layout Layout
	SignIn templ.SafeURL
}
