package yamltext

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// ParseError is a parse error with a 1-based position. Line is 0 when the
// parser gave none; Column is 0 when it gave a line only.
type ParseError struct {
	Line, Column int
	Message      string
}

func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

func nodeError(n *yaml.Node, format string, args ...any) *ParseError {
	return &ParseError{Line: n.Line, Column: n.Column, Message: fmt.Sprintf(format, args...)}
}

// syntaxError locates a syntax error the parser reported. go-yaml gives a
// line without a column, and an inexact one: v3 names the line where the
// enclosing construct starts (a mapping that began 100 lines up), v2 the
// line of the problem, and both give none when that is the first line. So
// both parse the text again behind an empty line (which makes the first line
// 2) and the error is placed on v2's problem line, or on v3's line when the
// problem is past the end of the text (an unclosed quote or bracket, found
// at the end, is reported where it opened).
func syntaxError(text string, err error) *ParseError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		e := &ParseError{Message: msg}
		if loc := regexp.MustCompile(`\*` + regexp.QuoteMeta(m[1]) + `(\s|[,\]}]|$)`).FindStringIndex(text); loc != nil {
			e.Line = strings.Count(text[:loc[0]], "\n") + 1
			e.Column = utf8.RuneCountInString(text[strings.LastIndexByte(text[:loc[0]], '\n')+1:loc[0]]) + 1
		}
		return e
	}
	padded := "\n" + strings.TrimPrefix(text, "\uFEFF")
	v3Line, v3Msg := errorLine(decodeAllV3(padded))
	v2Line, v2Msg := errorLine(decodeAllV2(padded))
	e := &ParseError{Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Message = m[2]
	}
	switch {
	case v2Line > 0 && v2Line <= lineCount(text):
		e.Line = v2Line
		if v2Msg != "" {
			e.Message = v2Msg
		}
	case v3Line > 0:
		e.Line = min(v3Line, max(1, lineCount(text))) // the end of the text, not the empty line after it
		if v3Msg != "" {
			e.Message = v3Msg
		}
	}
	return e
}

// lineCount is the number of lines of text, a last one without a line end
// included.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

var (
	yamlLine      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// parserProblems are the problems go-yaml's parser (not its scanner)
// reports: it gives their 0-based line, the scanner a 1-based one.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// errorLine returns the 1-based line of the text behind the empty line that
// a go-yaml error names, and its problem; 0 when there is none.
func errorLine(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, ""
	}
	line, _ := strconv.Atoi(m[1])
	if !parserProblems[m[2]] {
		line--
	}
	return line, m[2]
}

func decodeAllV3(text string) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func decodeAllV2(text string) error {
	dec := yamlv2.NewDecoder(strings.NewReader(text))
	for {
		var v parsedOnly
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// parsedOnly takes a go-yaml v2 document without decoding it (aliases
// unexpanded): the parse is all syntaxError needs.
type parsedOnly struct{}

func (*parsedOnly) UnmarshalYAML(func(any) error) error { return nil }
