package page

// APIPath is an API server path, as the console mirrors it under /c/{context}.
type APIPath struct {
	Group       string
	Version     string
	Namespace   string
	Resource    string
	Name        string
	Subresource string
}
