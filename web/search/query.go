package search

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Bounds of a query: a search box is typed into, and nothing typed is
// longer; the bounds keep a hostile URL from costing more than a page.
const (
	maxQueryBytes = 1024
	maxTerms      = 32
	maxKinds      = 32
)

// AllNamespaces is the ns: value that searches every namespace, and
// cluster-scoped kinds too.
const AllNamespaces = "*"

// Query is a parsed search. Words are matched against object names; the
// rest becomes the list requests' selectors and scope.
type Query struct {
	// Text is the query as typed, for the search box.
	Text string
	// Words are lowercased name substrings; a name must contain them all.
	Words []string
	// LabelSelector and FieldSelector go to the server as they are.
	LabelSelector string
	FieldSelector string
	// Namespace is the ns: term: a namespace, AllNamespaces, or "" when
	// the query has none (the namespace picker's then decides).
	Namespace string
	// Kinds are the kind: term's names, as typed; "" when it has none.
	Kinds []string
}

// Empty says the query asks nothing: the page then shows only the form.
func (q Query) Empty() bool {
	return len(q.Words) == 0 && q.LabelSelector == "" && q.FieldSelector == "" && len(q.Kinds) == 0 && q.Namespace == ""
}

// Matches says whether an object's name holds every word.
func (q Query) Matches(name string) bool {
	if len(q.Words) == 0 {
		return true
	}
	lower := strings.ToLower(name)
	for _, w := range q.Words {
		if !strings.Contains(lower, w) {
			return false
		}
	}
	return true
}

// QueryError is a query the page cannot run, and why, in words a user
// can act on. The page answers it with a 400 that keeps the text.
type QueryError struct{ Reason string }

func (e *QueryError) Error() string { return e.Reason }

func queryError(format string, args ...any) error {
	return &QueryError{Reason: fmt.Sprintf(format, args...)}
}

// ParseQuery reads the query language:
//
//	web               name contains "web" (every word must match)
//	app=web  tier!=db  env in (a,b)  env notin (a,b)  !canary  label:app
//	                  label terms, sent as one labelSelector
//	ns:demo  ns:*     the namespace, or all of them and cluster-scoped kinds
//	kind:deploy,sts   kinds, resources, short names or categories (all)
//	field:status.phase=Running
//	                  a fieldSelector, for the kinds whose server accepts it
func ParseQuery(text string) (Query, error) {
	q := Query{Text: text}
	if len(text) > maxQueryBytes {
		return q, queryError("The query is %d bytes long; a search takes at most %d.", len(text), maxQueryBytes)
	}
	if !utf8.ValidString(text) {
		return q, queryError("The query is not valid UTF-8 text.")
	}
	if i := strings.IndexFunc(text, unicode.IsControl); i >= 0 {
		return q, queryError("The query holds a control character (%U at byte %d); type it without one.", []rune(text[i:])[0], i)
	}
	tokens, err := tokenize(text)
	if err != nil {
		return q, err
	}
	if len(tokens) > maxTerms {
		return q, queryError("The query has %d terms; a search takes at most %d.", len(tokens), maxTerms)
	}
	var labelTerms, fieldTerms []string
	for _, tok := range tokens {
		key, value, hasKey := strings.Cut(tok, ":")
		switch {
		case hasKey && (key == "ns" || key == "namespace"):
			if err := q.setNamespace(value); err != nil {
				return q, err
			}
		case hasKey && key == "kind":
			if err := q.addKinds(value); err != nil {
				return q, err
			}
		case hasKey && key == "field":
			if value == "" {
				return q, queryError("field: needs a selector, such as field:status.phase=Running.")
			}
			fieldTerms = append(fieldTerms, value)
		case hasKey && key == "label":
			if value == "" {
				return q, queryError("label: needs a label, such as label:app or label:app=web.")
			}
			labelTerms = append(labelTerms, value)
		case isLabelTerm(tok):
			labelTerms = append(labelTerms, tok)
		case strings.ContainsAny(tok, "/:"):
			return q, queryError("“%s” cannot be part of an object's name, which has no “/” or “:”. Narrow with ns:NAMESPACE, kind:KIND, label:KEY or field:SELECTOR.", tok)
		default:
			q.Words = append(q.Words, strings.ToLower(tok))
		}
	}
	if len(labelTerms) > 0 {
		sel, err := labels.Parse(strings.Join(labelTerms, ","))
		if err != nil {
			return q, queryError("The label terms are not a selector the server would take: %v.", trimSentence(err))
		}
		q.LabelSelector = sel.String()
	}
	if len(fieldTerms) > 0 {
		sel, err := fields.ParseSelector(strings.Join(fieldTerms, ","))
		if err != nil {
			return q, queryError("The field terms are not a selector the server would take: %v.", trimSentence(err))
		}
		q.FieldSelector = sel.String()
	}
	if !q.Empty() && len(q.Words) == 0 && q.LabelSelector == "" && q.FieldSelector == "" && len(q.Kinds) == 0 {
		return q, queryError("ns: alone would list every object of every kind. Add a word of the name, a label, a field or kind: term.")
	}
	return q, nil
}

func (q *Query) setNamespace(ns string) error {
	switch {
	case ns == "":
		return queryError("ns: needs a namespace, such as ns:demo, or ns:* for all of them.")
	case ns == AllNamespaces:
	case len(validation.IsDNS1123Label(ns)) > 0:
		return queryError("“%s” is not a namespace name.", ns)
	}
	if q.Namespace != "" && q.Namespace != ns {
		return queryError("The query names two namespaces (%s and %s); a search takes one, or ns:* for all.", q.Namespace, ns)
	}
	q.Namespace = ns
	return nil
}

func (q *Query) addKinds(list string) error {
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if len(q.Kinds) == maxKinds {
			return queryError("kind: names more than %d kinds; use a category such as kind:all.", maxKinds)
		}
		q.Kinds = append(q.Kinds, k)
	}
	if len(q.Kinds) == 0 {
		return queryError("kind: needs a kind, such as kind:deploy,sts or kind:all.")
	}
	return nil
}

// isLabelTerm says whether a token is a label requirement rather than a
// word of a name: an (in)equality, a set term, or a negated key.
func isLabelTerm(tok string) bool {
	return strings.ContainsAny(tok, "=(") || strings.HasPrefix(tok, "!")
}

// tokenize splits a query on spaces, keeping a parenthesized set with the
// key and operator before it ("env in (a, b)" is one term).
func tokenize(text string) ([]string, error) {
	var tokens []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if cur.Len() > 0 {
			tokens = append(tokens, cur.String())
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case r == '(':
			depth++
			if depth > 1 {
				return nil, queryError("The query nests parentheses; a set is one level: env in (a,b).")
			}
			// "env in (a)" and "env in(a)": the set joins its key.
			glueSet(&tokens, &cur)
			cur.WriteRune(r)
		case r == ')':
			if depth == 0 {
				return nil, errUnbalanced
			}
			depth--
			cur.WriteRune(r)
		case unicode.IsSpace(r):
			if depth > 0 {
				continue // "(a, b)" is "(a,b)"
			}
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	if depth != 0 {
		return nil, errUnbalanced
	}
	flush()
	return tokens, nil
}

var errUnbalanced = &QueryError{Reason: "The query's parentheses are unbalanced; a set is written env in (a,b)."}

// glueSet joins "key in" or "key notin" before an opening parenthesis
// into the term being built, so the set reads as one label term.
func glueSet(tokens *[]string, cur *strings.Builder) {
	op := cur.String()
	if op == "" && len(*tokens) > 0 {
		op = (*tokens)[len(*tokens)-1]
		*tokens = (*tokens)[:len(*tokens)-1]
	}
	cur.Reset()
	if op == "in" || op == "notin" {
		if len(*tokens) > 0 {
			key := (*tokens)[len(*tokens)-1]
			*tokens = (*tokens)[:len(*tokens)-1]
			cur.WriteString(key + " " + op + " ")
			return
		}
	}
	// "keyin(" typed without spaces, or a bare "(": labels.Parse says
	// what is wrong with it.
	cur.WriteString(op)
}

// trimSentence is an error's text without a final period, to end a
// sentence of the page's own.
func trimSentence(err error) string { return strings.TrimSuffix(err.Error(), ".") }
