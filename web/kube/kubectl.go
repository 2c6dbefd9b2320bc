package kube

import (
	"strings"

	"github.com/tabula-console/tabula/apiclient"
)

// KubectlGet is the kubectl command that shows what a page shows, for
// users to copy to a terminal.
type KubectlGet struct {
	// Context is --context; "" leaves kubectl on its current context.
	Context string
	// Resource names the resource as kubectl resolves it (KubectlResource).
	Resource   string
	Namespaced bool
	// Namespace is -n; "" on a namespaced resource is -A, unless Name is set.
	Namespace     string
	Name          string
	Subresource   string
	LabelSelector string
	FieldSelector string
	// Output is -o ("wide", "yaml"), or "" for kubectl's table.
	Output string
	// LabelColumns is -L (comma-separated keys); ShowLabels --show-labels.
	LabelColumns string
	ShowLabels   bool
}

// String is the command, every argument quoted for a POSIX shell.
func (k KubectlGet) String() string {
	args := []string{"kubectl"}
	flag := func(short, long, value string) {
		switch {
		case value == "":
		case strings.HasPrefix(value, "-"):
			// -n -x would read as two flags to a person, if not to kubectl.
			args = append(args, shellQuote("--"+long+"="+value))
		case short != "":
			args = append(args, "-"+short, shellQuote(value))
		default:
			args = append(args, "--"+long, shellQuote(value))
		}
	}
	flag("", "context", k.Context)
	args = append(args, "get", shellQuote(k.Resource))
	// A name kubectl would take for a flag goes after "--", the flags before.
	dashed := strings.HasPrefix(k.Name, "-")
	if k.Name != "" && !dashed {
		args = append(args, shellQuote(k.Name))
	}
	switch {
	case !k.Namespaced:
	case k.Namespace != "":
		flag("n", "namespace", k.Namespace)
	case k.Name == "":
		args = append(args, "-A")
	}
	flag("", "subresource", k.Subresource)
	flag("l", "selector", k.LabelSelector)
	flag("", "field-selector", k.FieldSelector)
	flag("o", "output", k.Output)
	flag("L", "label-columns", k.LabelColumns)
	if k.ShowLabels {
		args = append(args, "--show-labels")
	}
	if dashed {
		args = append(args, "--", shellQuote(k.Name))
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell: as is when it is made only of
// characters no shell treats specially, else in single quotes, each single
// quote inside closing them, escaped, and opening them again.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("@%+=:,./_-", r)
}

// KubectlResource names r as kubectl resolves it with d: the plural alone
// when kubectl would pick r by it (the core group always wins a plain
// name, as in kubectl), "name.group" when another group's resource answers
// to the same name, "name.version.group" when r's version is not its
// group's preferred one. Without discovery, the fullest form.
func KubectlResource(d *apiclient.Discovery, r apiclient.Resource) string {
	if r.Group == "" {
		return r.Name
	}
	full := r.Name + "." + r.Version + "." + r.Group
	if d == nil {
		return full
	}
	// What kubectl would take the plain name for: r at its preferred
	// version, or also others (a short name, another group's plural).
	preferred, others := false, 0
	for _, m := range d.Resolve(r.Name) {
		if m.Group == r.Group && m.Name == r.Name {
			preferred = m.Version == r.Version
		} else {
			others++
		}
	}
	switch {
	case !preferred:
		return full
	case others > 0:
		return r.Name + "." + r.Group
	}
	return r.Name
}
