package views

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// plural picks the form of a word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinComma(s []string) string { return strings.Join(s, ", ") }

func pageTitle(l Layout) string {
	switch {
	case l.Title != "" && l.Context.Current != "":
		return l.Title + " · " + l.Context.Current + " · Tabula"
	case l.Title != "":
		return l.Title + " · Tabula"
	default:
		return "Tabula"
	}
}

// themeAttr keeps only the values the stylesheet knows.
func themeAttr(theme string) string {
	if theme == "light" || theme == "dark" {
		return theme
	}
	return ""
}

// homeHref is the brand's link: the console's root.
func homeHref(l Layout) templ.SafeURL {
	if l.Home == "" {
		return "/"
	}
	return l.Home
}

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// textPart is a run of a sentence; Code ones are shown as code.
type textPart struct {
	Text string
	Code bool
}

// emptyReason says why a list shows no rows: which selectors matched
// nothing, and where ("No pods match the label selector app=web in
// namespace demo.").
func emptyReason(p ListPage) []textPart {
	parts := []textPart{{Text: "No " + p.Resource}}
	var selectors []textPart
	if p.Filter.LabelSelector != "" {
		selectors = append(selectors, textPart{Text: " the label selector "}, textPart{Text: p.Filter.LabelSelector, Code: true})
	}
	if p.Filter.FieldSelector != "" {
		if len(selectors) > 0 {
			selectors = append(selectors, textPart{Text: " and"})
		}
		selectors = append(selectors, textPart{Text: " the field selector "}, textPart{Text: p.Filter.FieldSelector, Code: true})
	}
	if len(selectors) > 0 {
		parts = append(append(parts, textPart{Text: " match"}), selectors...)
	}
	switch {
	case !p.Namespaced:
	case p.Namespace == "":
		parts = append(parts, textPart{Text: " in any namespace"})
	default:
		parts = append(parts, textPart{Text: " in namespace "}, textPart{Text: p.Namespace, Code: true})
	}
	return append(parts, textPart{Text: "."})
}

// filtered says whether a list page has a selector to clear.
func filtered(p ListPage) bool {
	return p.Filter.LabelSelector != "" || p.Filter.FieldSelector != ""
}

// selectorNoun is "selector", or "selectors" when both are set.
func selectorNoun(p ListPage) string {
	if p.Filter.LabelSelector != "" && p.Filter.FieldSelector != "" {
		return "selectors"
	}
	return "selector"
}

// articleFor is the indefinite article of a kind ("a Pod", "an Ingress").
func articleFor(kind string) string {
	if kind != "" && strings.ContainsRune("AEIO", rune(kind[0])) {
		return "an"
	}
	return "a"
}

func i32toa(n int32) string { return strconv.FormatInt(int64(n), 10) }

// liveAttr names a page's live behaviour, or none.
func liveAttr(on bool, kind string) string {
	if on {
		return kind
	}
	return ""
}

// bodyAttrs are the body element's attributes: the editor draft a saved
// page lets the browser forget, and where live pages check the session.
func bodyAttrs(l Layout) templ.Attributes {
	a := templ.Attributes{}
	if l.ClearDraft != "" {
		a["data-clear-draft"] = l.ClearDraft
	}
	if l.Session.SessionCheck != "" {
		a["data-session-check"] = string(l.Session.SessionCheck)
	}
	return a
}

// navAttrs mark the sidebar link of the page shown, and dim one the user
// may not list, saying why.
func navAttrs(item NavItem) templ.Attributes {
	a := templ.Attributes{}
	if item.Current {
		a["aria-current"] = "page"
	}
	if item.Denied != "" {
		a["class"] = "nav-denied"
		a["title"] = item.Denied
		a["data-denied"] = true
	}
	return a
}

// linkAttrs are a link's optional attributes.
func linkAttrs(l Link) templ.Attributes {
	if l.TestID == "" {
		return nil
	}
	return templ.Attributes{"data-testid": l.TestID}
}

// editorAttrs are the editor textarea's data attributes (see the editor
// module), present only when set.
func editorAttrs(p EditorPage) templ.Attributes {
	a := templ.Attributes{"data-loaded-rv": p.State.ResourceVersion}
	set := func(k, v string) {
		if v != "" {
			a[k] = v
		}
	}
	set("data-schema-url", p.SchemaURL)
	set("data-draft-key", p.DraftKey)
	set("data-live-url", p.LiveURL)
	if e := p.Error; e != nil {
		if e.Line > 0 {
			a["data-error-line"] = itoa(e.Line)
			a["data-error-column"] = itoa(e.Column)
			a["data-error-message"] = e.Message
		}
		if len(e.Causes) > 0 {
			type cause struct {
				Line    int    `json:"line"`
				Field   string `json:"field"`
				Message string `json:"message"`
			}
			cs := make([]cause, len(e.Causes))
			for i, c := range e.Causes {
				cs[i] = cause{Line: c.Line, Field: c.Field, Message: c.Message}
			}
			if b, err := json.Marshal(cs); err == nil {
				a["data-causes"] = string(b)
			}
		}
	}
	return a
}

func diffSign(op string) string {
	switch op {
	case "add":
		return "+"
	case "del":
		return "−"
	}
	return " "
}

// textareaText is a textarea's content as written into the page. HTML
// parsers drop one newline right after <textarea>, so one is always
// written: a text that starts with a blank line keeps it (and the line
// numbers of its errors) through every round trip.
func textareaText(s string) string { return "\n" + s }

// groupsTitle is the tooltip of the user's name: the name in full (the
// header may cut it) and the groups.
func groupsTitle(user string, groups []string) string {
	if len(groups) == 0 {
		return "Signed in as " + user
	}
	return "Signed in as " + user + "\nGroups: " + strings.Join(groups, ", ")
}

// initial is the first letter of a name, for the avatar.
func initial(name string) string {
	for _, r := range name {
		return string(r)
	}
	return "?"
}

// regionLabel names a table's scrolling region (focusable, so a keyboard
// can scroll a table wider than the screen): its title, else a fallback.
func regionLabel(title, fallback string) string {
	if title != "" {
		return title
	}
	return fallback
}

// inlineStyles is the page's stylesheet in a <style> element under the CSP
// nonce. templ writes a <style> element's content as it stands in the
// template, so the element is written here; the sheet is the console's own
// (web checks at start that it cannot end the element early).
func inlineStyles(css string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, `<style nonce="`+html.EscapeString(templ.GetNonce(ctx))+`">`); err != nil {
			return err
		}
		if _, err := io.WriteString(w, css); err != nil {
			return err
		}
		_, err := io.WriteString(w, `</style>`)
		return err
	})
}
