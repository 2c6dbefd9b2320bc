// Package views holds Tabula's templ components and the typed view models they
// render. Nothing here talks to a server: handlers build the models.
package views

import "github.com/a-h/templ"

// Layout is what every page's frame needs.
type Layout struct {
	Title  string
	Assets Assets
	// Home is the console's root, which the brand links to ("" is "/").
	Home templ.SafeURL
	// BasePath is the prefix of the console's URLs ("" or "/tabula"),
	// for scripts that build URLs: they read it from data-base-path.
	BasePath string
	// Theme is "light", "dark" or "" to follow the system.
	Theme string
	// Context is the cluster context the page belongs to; zero on pages that
	// belong to no context.
	Context ContextBar
	// Nav is the sidebar; empty hides it.
	Nav []NavGroup
	// Jump is the header's jump box; a zero Action hides it.
	Jump JumpBox
	// Warnings are what the API server said in Warning headers while the
	// page was made (deprecations, for example), shown as kubectl prints them.
	Warnings []string
	// Notice is a one-time message from the previous action ("Saved …").
	Notice string
	// ClearDraft names an editor draft the browser may forget: its text
	// was saved.
	ClearDraft string
	// Session is who the page is shown to, for the header.
	Session SessionBar
}

// SessionBar is the header's sign-in state.
type SessionBar struct {
	// User is the signed-in user, with a sign-out button; empty when
	// nobody is signed in.
	User   string
	Groups []string
	// SignOut is the sign-out form's action.
	SignOut templ.SafeURL
	// SharedIdentity, set in kubeconfig mode, names the context whose
	// kubeconfig user every visitor acts as; the header says so.
	SharedIdentity string
	// SharedFleet: the page runs over several contexts, each with its own
	// kubeconfig user.
	SharedFleet bool
	// SessionCheck, set in sign-in modes, is where live pages ask whether
	// the session still holds after a stream was refused; SignIn is where
	// they send the user when it does not.
	SessionCheck templ.SafeURL
	SignIn       templ.SafeURL
}

// NavGroup is one collapsible API group of the sidebar.
type NavGroup struct {
	Label string
	Open  bool
	Items []NavItem
}

// JumpBox resolves kubectl-style names ("deploy", "sts.apps", "all").
type JumpBox struct {
	Action    templ.SafeURL
	Namespace string
	Query     string
	// Names feed the browser's autocompletion.
	Names []string
}

// Assets are the page's stylesheet, inline, and the fingerprinted URLs of
// its scripts.
type Assets struct {
	// Styles is the stylesheet, which every page carries inline under the
	// CSP nonce: a linked one would block the first paint on a request.
	Styles string
	JS     string
	// Live is the module behind live pages: lists, object pages and logs.
	Live string
	// Editor is the YAML editor's module (static/editor, bundled), for edit
	// and create pages only: at ~500 KB it stays off pages that do not edit.
	Editor string
	// Bulk is the bulk actions' module (static/bulk.js): range selection
	// on lists, progress on the results page.
	Bulk string
	// Terminal and TerminalCSS are the terminal's module (static/terminal,
	// xterm.js bundled) and stylesheet, for terminal pages only.
	Terminal    string
	TerminalCSS string
	// ImportMap is the JSON import map from each module's logical URL to
	// its fingerprinted one, so modules can import each other relatively.
	ImportMap string
}

// ContextBar is the header's view of the current context and the switcher.
type ContextBar struct {
	Current string
	Cluster string
	Server  string
	Options []ContextOption
	// FleetAction is the form that opens a chosen set of contexts
	// together ("" with a single context).
	FleetAction templ.SafeURL
}

// ContextOption is one entry of the context switcher.
type ContextOption struct {
	Name    string
	Cluster string
	Href    templ.SafeURL
	Current bool
	// All is the entry of every context at once; InFleet says the context
	// is one of the page's several.
	All, InFleet bool
}

// NavItem is one sidebar link.
type NavItem struct {
	Label   string
	Href    templ.SafeURL
	Current bool
	// Denied, when set, says why the user may not list the resource: the
	// link is dimmed, and still followed (the server decides).
	Denied string
}

// HomePage lists what the server serves.
type HomePage struct {
	Layout Layout
	// Health opens the page: called while the page streams, after its
	// frame and resources are sent (a shadow root's slot shows it first).
	Health func() HomeHealth
	Groups []APIGroup
	// Unavailable names group versions discovery could not describe.
	Unavailable []string
	// ChangesHref is the recent-changes page.
	ChangesHref templ.SafeURL
}

// APIGroup is one API group at its preferred version.
type APIGroup struct {
	Anchor    string
	Name      string // "core" for the legacy group
	Version   string
	Versions  []string
	Resources []APIResource
}

// APIResource is one resource link on the home page.
type APIResource struct {
	Name string
	// Group is "group/version", shown where resources of several groups mix.
	Group      string
	Kind       string
	Href       templ.SafeURL
	Namespaced bool
	ShortNames []string
	Listable   bool
	// Search is the lower-cased text the filter box matches against.
	Search string
}

// ErrorPage explains a failure with the status code it was served with.
type ErrorPage struct {
	Layout  Layout
	Code    int
	Title   string
	Reason  string
	Message string
	// Hint restates the failure in the console's terms ("You may not list
	// secrets in namespace demo.").
	Hint   string
	Causes []ErrorCause
	// RetryHref, when set, offers to load the page again.
	RetryHref templ.SafeURL
	// RetryAfterSeconds is the server's hint for throttled requests.
	RetryAfterSeconds int
	// Links offer ways onward, such as the home page of the context.
	Links []Link
	// Served lists, under ServedLabel, what the server does serve near
	// what was asked (an unserved resource's group), as plain links.
	ServedLabel string
	Served      []Link
}

// ErrorCause is one field-level cause of a metav1.Status.
type ErrorCause struct {
	Field   string
	Reason  string
	Message string
}

// Link is a labelled URL; TestID, when set, is its data-testid.
type Link struct {
	Label  string
	Href   templ.SafeURL
	TestID string
}

// JumpPage lists what a jump-box query matched, or says nothing did.
type JumpPage struct {
	Layout  Layout
	Query   string
	Matches []APIResource
}
