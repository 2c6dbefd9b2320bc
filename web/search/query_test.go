package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Query
	}{
		{"", Query{}},
		{"Web  API", Query{Words: []string{"web", "api"}}},
		{"web app=web tier!=db", Query{Words: []string{"web"}, LabelSelector: "app=web,tier!=db"}},
		{"env in (prod, staging) web", Query{Words: []string{"web"}, LabelSelector: "env in (prod,staging)"}},
		{"env in(a,b) tier notin (x) !canary label:app", Query{LabelSelector: "app,!canary,env in (a,b),tier notin (x)"}},
		{"web ns:demo", Query{Words: []string{"web"}, Namespace: "demo"}},
		{"web namespace:* kind:deploy,sts kind:lh", Query{Words: []string{"web"}, Namespace: AllNamespaces, Kinds: []string{"deploy", "sts", "lh"}}},
		{"kind:all", Query{Kinds: []string{"all"}}},
		{"field:status.phase=Running web", Query{Words: []string{"web"}, FieldSelector: "status.phase=Running"}},
		{"field:status.phase=Running field:spec.nodeName!=n1", Query{FieldSelector: "spec.nodeName!=n1,status.phase=Running"}},
		{"in notin", Query{Words: []string{"in", "notin"}}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := ParseQuery(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Text = tc.text
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// Every query the page refuses says why, in words that help; none panics.
func TestParseQueryRefuses(t *testing.T) {
	for _, tc := range []struct{ text, says string }{
		{strings.Repeat("a", maxQueryBytes+1), "bytes long"},
		{"web\x00", "control character"},
		{"web\u0007", "control character"},
		{"\xff\xfe", "UTF-8"},
		{"env in (a,b", "unbalanced"},
		{"env in a,b)", "unbalanced"},
		{"env in ((a))", "nests"},
		{"=web", "label terms"},
		{"app=web=x", "label terms"},
		{"tier(y)", "label terms"},
		{"field:", "field: needs"},
		{"field:status.phase", "field terms"},
		{"ns:", "ns: needs"},
		{"ns:Demo_1 web", "not a namespace"},
		{"ns:demo ns:team-a web", "two namespaces"},
		{"kind:", "kind: needs"},
		{"kind:" + strings.Repeat("a,", maxKinds+1), "more than"},
		{"ns:demo", "ns: alone"},
		{"demo/web", "cannot be part of an object's name"},
		{"label:", "label: needs"},
		{strings.Repeat("a ", maxTerms+1), "terms"},
	} {
		t.Run(tc.says, func(t *testing.T) {
			q, err := ParseQuery(tc.text)
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("ParseQuery(%q) = %v, want a QueryError", tc.text, err)
			}
			if !strings.Contains(qe.Reason, tc.says) {
				t.Errorf("reason %q does not say %q", qe.Reason, tc.says)
			}
			if q.Text != tc.text {
				t.Errorf("the text is not kept: %q", q.Text)
			}
		})
	}
}

func TestQueryMatches(t *testing.T) {
	q, err := ParseQuery("WEB 5d9")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"web-5d9-a": true, "Web-5D9": true, "web": false, "api-5d9": false} {
		if q.Matches(name) != want {
			t.Errorf("Matches(%q) = %v", name, !want)
		}
	}
	if all, _ := ParseQuery("app=web"); !all.Matches("anything") {
		t.Error("a query without words matches every name")
	}
}

// The text a narrowed or widened link carries parses back to the same
// query, with the kinds replaced.
func TestQueryTextRoundTrips(t *testing.T) {
	q, err := ParseQuery("web api env in (a,b) app=x field:status.phase=Running ns:demo kind:po,deploy")
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseQuery(q.narrowedTo("replicasets.apps"))
	if err != nil {
		t.Fatal(err)
	}
	want := q
	want.Text, want.Kinds = back.Text, []string{"replicasets.apps"}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("narrowed\n got  %#v\n want %#v", back, want)
	}
	if got := q.textWith(nil); strings.Contains(got, "kind:") {
		t.Errorf("textWith(nil) = %q names kinds", got)
	}
}
