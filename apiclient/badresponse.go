package apiclient

// BadResponseError is an answer from the server that could not be read:
// cut short, malformed or too large. It is the server's (or the network's)
// failure, not the console's.
type BadResponseError struct{ Err error }

func (e *BadResponseError) Error() string {
	return "reading the API server's response: " + e.Err.Error()
}

func (e *BadResponseError) Unwrap() error { return e.Err }
