package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// testID names a test: its package and name ("T/sub" for a subtest). An
// empty name stands for a package that failed outside any test (a build
// failure, a panic in TestMain, a timeout).
type testID struct{ pkg, test string }

func (id testID) String() string {
	if id.test == "" {
		return id.pkg + " (the package failed outside any test: see its output)"
	}
	return id.pkg + " " + id.test
}

// runResult is what one run of the suite gave.
type runResult struct {
	n       int
	elapsed time.Duration
	exitErr error // go test's exit: nil when it passed
	load    string
	suite
}

func (r runResult) failed() bool { return r.exitErr != nil || len(r.failures) > 0 }

// suite is what a go test -json stream says.
type suite struct {
	passed, skipped int
	// failures are the failing tests with no failing subtest (a parent
	// fails because its subtest did), then the packages that failed with
	// no failing test, in the order they ended.
	failures []testID
	// output holds the last lines of each failing test's and package's
	// output, and, under the zero testID, the lines that were not test
	// events (go's own messages).
	output map[testID][]string
}

// maxOutputLines bounds the output kept per test: the end says why it failed.
const maxOutputLines = 40

// testEvent is one line of go test -json (cmd/test2json).
type testEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // of build-output and build-fail events
}

// collect reads a go test -json stream, copying its text to log as go test
// without -json would have printed it (with -v).
func collect(r io.Reader, log io.Writer) (suite, error) {
	s := suite{output: map[testID][]string{}}
	var failedTests []testID
	failedPkgs := map[string]bool{}
	var pkgOrder []string
	keep := func(id testID, text string) {
		lines := append(s.output[id], strings.TrimRight(text, "\n"))
		if len(lines) > maxOutputLines {
			lines = lines[len(lines)-maxOutputLines:]
		}
		s.output[id] = lines
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var ev testEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(log, sc.Text())
			keep(testID{}, sc.Text())
			continue
		}
		switch ev.Action {
		case "output":
			io.WriteString(log, ev.Output)
			keep(testID{ev.Package, ev.Test}, ev.Output)
		case "build-output":
			io.WriteString(log, ev.Output)
			keep(testID{ev.ImportPath, ""}, ev.Output)
		case "pass":
			if ev.Test != "" {
				s.passed++
			}
		case "skip":
			if ev.Test != "" {
				s.skipped++
			}
		case "fail":
			if ev.Test != "" {
				failedTests = append(failedTests, testID{ev.Package, ev.Test})
			} else if !failedPkgs[ev.Package] {
				failedPkgs[ev.Package] = true
				pkgOrder = append(pkgOrder, ev.Package)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("reading go test's output: %w", err)
	}
	for _, id := range failedTests {
		hasFailedChild := slices.ContainsFunc(failedTests, func(o testID) bool {
			return o.pkg == id.pkg && strings.HasPrefix(o.test, id.test+"/")
		})
		if !hasFailedChild {
			s.failures = append(s.failures, id)
		}
	}
	for _, pkg := range pkgOrder {
		if !slices.ContainsFunc(failedTests, func(o testID) bool { return o.pkg == pkg }) {
			s.failures = append(s.failures, testID{pkg, ""})
		}
	}
	// Keep only the output worth showing.
	for id := range s.output {
		if id != (testID{}) && !slices.Contains(s.failures, id) {
			delete(s.output, id)
		}
	}
	return s, nil
}

// report prints one run's line and, when it failed, why.
func report(out io.Writer, r runResult, runs int) {
	status := "ok  "
	if r.failed() {
		status = "FAIL"
	}
	fmt.Fprintf(out, "run %2d/%d  %s  %4.0fs  load %s  %d passed, %d skipped, %d failed\n",
		r.n, runs, status, r.elapsed.Seconds(), r.load, r.passed, r.skipped, len(r.failures))
	for _, id := range r.failures {
		fmt.Fprintf(out, "    --- %s\n", id)
		for _, line := range r.output[id] {
			fmt.Fprintf(out, "        %s\n", line)
		}
	}
	if r.exitErr != nil && len(r.failures) == 0 {
		fmt.Fprintf(out, "    go test failed (%v) with no failing test; its last words:\n", r.exitErr)
		for _, line := range r.output[testID{}] {
			fmt.Fprintf(out, "        %s\n", line)
		}
	}
}

// summarize prints the totals and returns the number of failed runs.
func summarize(out io.Writer, results []runResult, logs string) int {
	failedRuns := 0
	runsFailedIn := map[testID]int{}
	var ids []testID
	for _, r := range results {
		if r.failed() {
			failedRuns++
		}
		for _, id := range r.failures {
			if runsFailedIn[id] == 0 {
				ids = append(ids, id)
			}
			runsFailedIn[id]++
		}
	}
	fmt.Fprintf(out, "\nstress: %d runs, %d failed\n", len(results), failedRuns)
	if len(ids) > 0 {
		fmt.Fprintln(out, "failing tests (runs failed in):")
		slices.SortStableFunc(ids, func(a, b testID) int { return runsFailedIn[b] - runsFailedIn[a] })
		for _, id := range ids {
			fmt.Fprintf(out, "  %d/%d  %s\n", runsFailedIn[id], len(results), id)
		}
	}
	if logs != "" {
		fmt.Fprintf(out, "full output of each run: %s\n", logs)
	}
	return failedRuns
}
