package main

import (
	"slices"
	"strings"
	"testing"
)

// A stream as go test -json writes it: a failing subtest (whose parent then
// fails too), a passing and a skipped test, a package that panics outside
// any test, a build failure, and a line that is not an event.
const stream = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestWatch"}
{"Action":"run","Package":"m/a","Test":"TestWatch/resume"}
{"Action":"output","Package":"m/a","Test":"TestWatch/resume","Output":"    watch_test.go:238: stream ended\n"}
{"Action":"fail","Package":"m/a","Test":"TestWatch/resume","Elapsed":0.1}
{"Action":"output","Package":"m/a","Test":"TestWatch","Output":"--- FAIL: TestWatch (0.10s)\n"}
{"Action":"fail","Package":"m/a","Test":"TestWatch","Elapsed":0.1}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"pass","Package":"m/a","Test":"TestOK","Elapsed":0}
{"Action":"skip","Package":"m/a","Test":"TestLater","Elapsed":0}
{"Action":"fail","Package":"m/a","Elapsed":0.2}
{"Action":"output","Package":"m/b","Output":"panic: boom\n"}
{"Action":"fail","Package":"m/b","Elapsed":0.2}
{"ImportPath":"m/c [m/c.test]","Action":"build-output","Output":"c.go:1: syntax error\n"}
{"ImportPath":"m/c [m/c.test]","Action":"build-fail"}
{"Action":"fail","Package":"m/c","Elapsed":0,"FailedBuild":"m/c [m/c.test]"}
go: some message that is not an event
`

func TestCollect(t *testing.T) {
	var log strings.Builder
	s, err := collect(strings.NewReader(stream), &log)
	if err != nil {
		t.Fatal(err)
	}
	want := []testID{{"m/a", "TestWatch/resume"}, {"m/b", ""}, {"m/c", ""}}
	if !slices.Equal(s.failures, want) {
		t.Errorf("failures = %v, want %v", s.failures, want)
	}
	if s.passed != 1 || s.skipped != 1 {
		t.Errorf("passed %d, skipped %d, want 1 and 1", s.passed, s.skipped)
	}
	if got := s.output[testID{"m/a", "TestWatch/resume"}]; !slices.Equal(got, []string{"    watch_test.go:238: stream ended"}) {
		t.Errorf("the failing subtest's output = %q", got)
	}
	if got := s.output[testID{"m/b", ""}]; !slices.Equal(got, []string{"panic: boom"}) {
		t.Errorf("the package's output = %q", got)
	}
	if got := s.output[testID{}]; !slices.Equal(got, []string{"go: some message that is not an event"}) {
		t.Errorf("go's own output = %q", got)
	}
	if _, kept := s.output[testID{"m/a", "TestWatch"}]; kept {
		t.Error("kept the output of a parent that failed only through its subtest")
	}
	for _, line := range []string{"watch_test.go:238: stream ended", "panic: boom", "c.go:1: syntax error", "go: some message"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log lacks %q:\n%s", line, log.String())
		}
	}
}

func TestSummarize(t *testing.T) {
	flaky := testID{"m/a", "TestWatch"}
	results := []runResult{
		{n: 1},
		{n: 2, suite: suite{failures: []testID{flaky}}},
		{n: 3, suite: suite{failures: []testID{flaky, {"m/b", "TestOther"}}}},
	}
	var out strings.Builder
	if n := summarize(&out, results, "logs"); n != 2 {
		t.Errorf("summarize = %d failed runs, want 2", n)
	}
	for _, want := range []string{"3 runs, 2 failed", "2/3  m/a TestWatch", "1/3  m/b TestOther", "logs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"-runs", "3"})
	if err != nil || o.runs != 3 || o.hogs != 2 || o.goCmd != "go" || !slices.Equal(o.goTest, []string{"-race", "-count=1", "./..."}) {
		t.Errorf("defaults: %+v %v", o, err)
	}
	o, err = parseOptions([]string{"-hogs", "0", "--", "-run", "TestX", "./streaming/"})
	if err != nil || o.hogs != 0 || !slices.Equal(o.goTest, []string{"-run", "TestX", "./streaming/"}) {
		t.Errorf("go test arguments: %+v %v", o, err)
	}
	if _, err := parseOptions([]string{"-runs", "0"}); err == nil {
		t.Error("-runs 0 accepted")
	}
}
