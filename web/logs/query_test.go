package logs

import (
	"testing"
	"time"

	"github.com/tabula-console/tabula/web/page"
)

func TestParseLogQueryDefaultsAndErrors(t *testing.T) {
	first, err := ParseQuery(map[string][]string{})
	if err != nil || !first.Follow || first.TailLines == nil || *first.TailLines != 500 || first.Keep != defaultKeepLines {
		t.Fatalf("first visit: %+v %v", first, err)
	}
	submitted, err := ParseQuery(map[string][]string{"tailLines": {"all"}, "since": {"10m"}})
	if err != nil || submitted.Follow || submitted.TailLines != nil || submitted.Since != 10*time.Minute {
		t.Fatalf("submitted form: %+v %v", submitted, err)
	}
	for _, bad := range []map[string][]string{
		{"tailLines": {"-1"}}, {"tailLines": {"lots"}}, {"since": {"yesterday"}}, {"max": {"5"}}, {"max": {"200000"}}, {"sinceTime": {"noon"}},
	} {
		if _, err := ParseQuery(bad); page.StatusOf(err) != 400 {
			t.Errorf("%v: %v, want a 400", bad, err)
		}
	}
}

func TestParseQueryTakesTheAPIsBooleanSpellings(t *testing.T) {
	for _, v := range []string{"1", "true", "True", "t"} {
		q, err := ParseQuery(map[string][]string{"follow": {v}, "timestamps": {v}, "previous": {v}, "wrap": {v}, "filter": {v}, "tailLines": {"10"}})
		if err != nil || !q.Follow || !q.Timestamps || !q.Previous || !q.Wrap || !q.Filter {
			t.Errorf("%q: %+v %v, want every flag on", v, q, err)
		}
	}
	for _, v := range []string{"0", "false", "no", ""} {
		q, err := ParseQuery(map[string][]string{"follow": {v}, "timestamps": {v}, "tailLines": {"10"}})
		if err != nil || q.Follow || q.Timestamps {
			t.Errorf("%q: %+v %v, want the flags off", v, q, err)
		}
	}
}

func TestDownloadsNeverFollow(t *testing.T) {
	for _, v := range []string{"1", "true"} {
		q, err := ParseQuery(map[string][]string{"download": {v}, "follow": {"true"}})
		if err != nil || !q.Download || q.Follow {
			t.Errorf("download=%s&follow=true: %+v %v, want a download that does not follow", v, q, err)
		}
	}
}
