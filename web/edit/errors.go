package edit

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/tabula-console/tabula/views"
	"github.com/tabula-console/tabula/web/edit/yamltext"
	"github.com/tabula-console/tabula/web/page"
)

// editErrorOf is an upstream failure as the editor shows it: the one error
// mapper's code, reason, message and causes, beside the kept text.
func editErrorOf(err error) *views.EditError {
	p := page.Classify(err)
	e := &views.EditError{Title: p.Title, Code: p.Code, Reason: p.Reason, Message: p.Message}
	if p.Hint != "" {
		e.Message = p.Hint + " " + p.Message
	}
	for _, c := range p.Causes {
		e.Causes = append(e.Causes, views.EditCause{Field: c.Field, Reason: c.Reason, Message: c.Message})
	}
	for _, l := range p.Links {
		e.Links = append(e.Links, l)
	}
	return e
}

// yamlError is a parse failure with its position.
func yamlError(err error) *views.EditError {
	e := &views.EditError{Title: "The YAML does not parse", Code: http.StatusBadRequest, Message: err.Error()}
	var ye *yamltext.ParseError
	if errors.As(err, &ye) {
		e.Line, e.Column, e.Message = ye.Line, ye.Column, ye.Message
	}
	if errors.Is(err, yamltext.ErrTooLarge) {
		e.Title, e.Code = "Too large", http.StatusRequestEntityTooLarge
	}
	return e
}

// fieldStep splits a StatusCause field path ("spec.ports[0].port",
// "metadata.labels[app.kubernetes.io/name]") into keys and indexes.
var fieldStep = regexp.MustCompile(`([^.\[\]]+)|\[([^\]]*)\]`)

// LineOf is the 1-based line of text where a cause's field is, as far as
// the path can be followed (the deepest key found), or 0.
func LineOf(text, field string) int {
	if field == "" {
		return 0
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(text), &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n, line := doc.Content[0], 0
	for _, m := range fieldStep.FindAllStringSubmatch(field, -1) {
		key := m[1]
		if key == "" {
			key = m[2]
		}
		next, at := child(n, key)
		if next == nil {
			break
		}
		n, line = next, at
	}
	return line
}

// child follows one step from a mapping (by key) or sequence (by index),
// returning the node and the line that names it.
func child(n *yaml.Node, key string) (*yaml.Node, int) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1], n.Content[i].Line
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(strings.TrimSpace(key)); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i], n.Content[i].Line
		}
	}
	return nil, 0
}
