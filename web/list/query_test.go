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
