package list

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tabula-console/tabula/web/page"
)

func TestParseQueryBoundsThePagingHistory(t *testing.T) {
	q := url.Values{"continue": {"c"}, "page": {"50"}}
	for range 1000 {
		q.Add("back", "token")
	}
	lq, err := ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(lq.Back) != maxBack {
		t.Errorf("kept %d back tokens, want %d", len(lq.Back), maxBack)
	}
	// An oversized token ends the history there: Back leads to the first page.
	q = url.Values{"continue": {"c"}, "page": {"3"}, "back": {"", strings.Repeat("x", maxToken+1)}}
	if lq, err = ParseQuery(q); err != nil || len(lq.Back) != 0 {
		t.Errorf("oversized back token: %v %v", lq.Back, err)
	}
	if _, err := ParseQuery(url.Values{"continue": {strings.Repeat("x", maxToken+1)}}); page.StatusOf(err) != 400 {
		t.Errorf("oversized continue token: %v, want a 400", err)
	}
}

func TestQueryRoundTrips(t *testing.T) {
	in := url.Values{"labelSelector": {"app=web"}, "wide": {"true"}, "sort": {"-Age"}, "limit": {"50"}, "continue": {"c2"}, "page": {"3"}, "back": {"", "c1"}}
	lq, err := ParseQuery(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseQuery(lq.Values())
	if err != nil {
		t.Fatal(err)
	}
	if again.Values().Encode() != lq.Values().Encode() || !again.Wide || again.Page != 3 || len(again.Back) != 2 {
		t.Errorf("round trip: %+v, from %+v", again, lq)
	}
	if first := lq.FirstPage(); first.Continue != "" || first.Back != nil || first.Page != 1 || first.LabelSelector != "app=web" {
		t.Errorf("FirstPage = %+v", first)
	}
}

// Filters round-trip in order, and a filtered page's position travels in
// continue, back and page as an unfiltered page's token does.
func TestFilteredQueryRoundTrips(t *testing.T) {
	pos := position{Continue: "tok.en=", Skip: 3, Scanned: 1200}
	in := url.Values{"filter": {"Status!=Running", "web"}, "continue": {pos.String()}, "page": {"3"}, "back": {"", "0.2.t1"}}
	lq, err := ParseQuery(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := lq.Values()["filter"]; len(got) != 2 || got[0] != "Status!=Running" || got[1] != "web" {
		t.Errorf("filters %v", got)
	}
	if got, err := parsePosition(lq.Continue); err != nil || got != pos {
		t.Errorf("position %+v, %v; want %+v", got, err, pos)
	}
	if lq.Page != 3 || len(lq.Back) != 2 {
		t.Errorf("paging %+v", lq)
	}
	// A position starting within the first upstream page is paging too.
	first := position{Skip: 7}
	lq, err = ParseQuery(url.Values{"filter": {"web"}, "continue": {first.String()}, "page": {"2"}, "back": {""}})
	if err != nil || lq.Page != 2 || len(lq.Back) != 1 {
		t.Errorf("mid-first-page position: %+v %v", lq, err)
	}
	if f := lq.FirstPage(); f.Continue != "" || len(f.Filter) != 1 {
		t.Errorf("FirstPage = %+v", f)
	}
}
