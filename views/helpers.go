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
