package views

import "github.com/a-h/templ"

// TerminalPage is a terminal to one container of a pod: exec (a command,
// by default a shell) or attach (the container's own process).
type TerminalPage struct {
	Layout    Layout
	Pod       string
	Namespace string
	PodHref   templ.SafeURL
	LogsHref  templ.SafeURL
	// Attach: the page joins the container's process; else it runs Command.
	Attach     bool
	Containers []TerminalContainer
	Container  string
	// Command is the command field as typed ("" runs the default shell);
	// DefaultCommand is what runs then, shown as its placeholder.
	Command        string
	DefaultCommand string
	// Action is where the form submits (the page itself).
	Action templ.SafeURL
	// SwitchHref leads to the other mode for this container: attach from
	// exec when the container's process takes a TTY, exec from attach.
	SwitchHref  templ.SafeURL
	SwitchLabel string
	// Socket and Token open the session; Denied, when set, replaces the
	// terminal with why the user may not open one.
	Socket templ.SafeURL
	Token  string
	Denied string
	// Notice warns before connecting (a container that is not running).
	Notice string
	// DebugHref adds a debug container, where the server has them.
	DebugHref templ.SafeURL
}

// TerminalContainer is one choice of the container picker.
type TerminalContainer struct {
	Name string
	// Label adds what the name does not say: "init", "ephemeral", "not running".
	Label string
}

// PodPicker lists a workload's pods to open a terminal to.
type PodPicker struct {
	Layout    Layout
	Kind      string
	Name      string
	Namespace string
	BackHref  templ.SafeURL
	Selector  string
	Pods      []PodChoice
	// More: the workload has more pods than the page lists.
	More bool
}

// PodChoice is one pod of a PodPicker.
type PodChoice struct {
	Name  string
	Phase string
	Ready string
	Href  templ.SafeURL
}

// DebugForm adds an ephemeral debug container to a pod, as kubectl debug
// does, then opens a terminal to it.
type DebugForm struct {
	Layout          Layout
	Pod             string
	Namespace       string
	PodHref         templ.SafeURL
	Action          templ.SafeURL
	ResourceVersion string
	Image           string
	// Targets are the pod's containers whose process namespace the debug
	// container may share; Target is the chosen one ("" for none).
	Targets []string
	Target  string
	Name    string
	Error   string
}
