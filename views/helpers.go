package views

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

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

func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func emptySuffix(p ListPage) string {
	var s string
	if p.Namespaced && p.Namespace != "" {
		s = " in namespace " + p.Namespace
	}
	if p.Filter.LabelSelector != "" || p.Filter.FieldSelector != "" {
		s += " matching the selectors"
	}
	return s
}

func i32toa(n int32) string { return strconv.FormatInt(int64(n), 10) }

// liveAttr names a page's live behaviour, or none.
func liveAttr(on bool, kind string) string {
	if on {
		return kind
	}
	return ""
}
