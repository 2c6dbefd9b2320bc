package page

import "github.com/tabula-console/tabula/views"

// UnservedError is an API path discovery did not resolve, with ways onward
// built from what the server serves instead (the apiclient.NotServedError
// it wraps): the error mapper makes them the 404 page's links.
type UnservedError struct {
	// Links lead to the page asked for where it is served: at the versions
	// serving the resource, under the names a typo is nearest to, in other
	// groups; or to the groups nearest an unknown group.
	Links []views.Link
	// Available are the lists of the group's resources, AvailableLabel
	// saying whose.
	Available      []views.Link
	AvailableLabel string
	Err            error
}

func (e *UnservedError) Error() string { return e.Err.Error() }
func (e *UnservedError) Unwrap() error { return e.Err }
