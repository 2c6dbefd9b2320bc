package textdiff

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pmezard/go-difflib/difflib"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// render writes hunks as a unified diff body, line numbers included.
func render(hunks []Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		b.WriteString(h.Header + "\n")
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%c%d/%d %s\n", l.Op, l.Old, l.New, l.Text)
		}
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	ten := numbered(10)
	for _, tc := range []struct {
		name, a, b string
		n          int
		want       string
	}{
		{"equal", ten, ten, 3, ""},
		{"both empty", "", "", 3, ""},
		{"one line changed, context around", ten, strings.Replace(ten, "line 5\n", "LINE 5\n", 1), 3,
			"@@ -2,7 +2,7 @@\n 2/2 line 2\n 3/3 line 3\n 4/4 line 4\n-5/0 line 5\n+0/5 LINE 5\n 6/6 line 6\n 7/7 line 7\n 8/8 line 8\n"},
		{"insertion shifts the new numbers", numbered(5), strings.Replace(numbered(5), "line 2\n", "line 2\nnew\n", 1), 3,
			"@@ -1,5 +1,6 @@\n 1/1 line 1\n 2/2 line 2\n+0/3 new\n 3/4 line 3\n 4/5 line 4\n 5/6 line 5\n"},
		{"deletion at the end", numbered(5), numbered(4), 3,
			"@@ -2,4 +2,3 @@\n 2/2 line 2\n 3/3 line 3\n 4/4 line 4\n-5/0 line 5\n"},
		{"from nothing", "", "a\nb\n", 3, "@@ -0,0 +1,2 @@\n+0/1 a\n+0/2 b\n"},
		{"to nothing", "a\nb\n", "", 3, "@@ -1,2 +0,0 @@\n-1/0 a\n-2/0 b\n"},
		{"one line each", "a\n", "b\n", 3, "@@ -1 +1 @@\n-1/0 a\n+0/1 b\n"},
		{"the last line gains its newline", "a\nb", "a\nb\n", 3, "@@ -1,2 +1,2 @@\n 1/1 a\n-2/0 b\n+0/2 b\n"},
		{"no context", ten, strings.Replace(ten, "line 5\n", "LINE 5\n", 1), 0, "@@ -5 +5 @@\n-5/0 line 5\n+0/5 LINE 5\n"},
		{"negative context is 3", ten, strings.Replace(ten, "line 5\n", "LINE 5\n", 1), -1,
			"@@ -2,7 +2,7 @@\n 2/2 line 2\n 3/3 line 3\n 4/4 line 4\n-5/0 line 5\n+0/5 LINE 5\n 6/6 line 6\n 7/7 line 7\n 8/8 line 8\n"},
		{"far changes, two hunks", numbered(20), strings.Replace(strings.Replace(numbered(20), "line 2\n", "two\n", 1), "line 18\n", "", 1), 2,
			"@@ -1,4 +1,4 @@\n 1/1 line 1\n-2/0 line 2\n+0/2 two\n 3/3 line 3\n 4/4 line 4\n" +
				"@@ -16,5 +16,4 @@\n 16/16 line 16\n 17/17 line 17\n-18/0 line 18\n 19/18 line 19\n 20/19 line 20\n"},
		{"near changes, one hunk", ten, strings.Replace(strings.Replace(ten, "line 3\n", "three\n", 1), "line 7\n", "seven\n", 1), 2,
			"@@ -1,9 +1,9 @@\n 1/1 line 1\n 2/2 line 2\n-3/0 line 3\n+0/3 three\n 4/4 line 4\n 5/5 line 5\n 6/6 line 6\n-7/0 line 7\n+0/7 seven\n 8/8 line 8\n 9/9 line 9\n"},
		{"windows line ends", "a\r\nb\r\n", "a\r\nc\r\n", 3, "@@ -1,2 +1,2 @@\n 1/1 a\n-2/0 b\n+0/2 c\n"},
	} {
		if got := render(Diff(tc.a, tc.b, tc.n)); got != tc.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func TestDiffStats(t *testing.T) {
	h := Diff(numbered(20), strings.Replace(strings.Replace(numbered(20), "line 2\n", "two\nzwei\n", 1), "line 18\n", "", 1), 3)
	if added, removed := DiffStats(h); added != 2 || removed != 2 {
		t.Errorf("got +%d -%d, want +2 -2", added, removed)
	}
	if added, removed := DiffStats(nil); added != 0 || removed != 0 {
		t.Errorf("nil: +%d -%d", added, removed)
	}
}

// patchLines applies hunks to a and returns the lines of the result,
// checking every line number and every line the hunks say a has.
func patchLines(t *testing.T, a string, hunks []Hunk) []string {
	t.Helper()
	al := lines(a)
	var out []string
	next := 0 // index in al
	for _, h := range hunks {
		for _, l := range h.Lines {
			if l.Op == '+' {
				for len(out) < l.New-1 && next < len(al) { // equal lines between hunks
					out = append(out, trimEOL(al[next]))
					next++
				}
				if l.Old != 0 || l.New != len(out)+1 {
					t.Fatalf("%+v: want new line %d", l, len(out)+1)
				}
				out = append(out, l.Text)
				continue
			}
			for next < l.Old-1 {
				out = append(out, trimEOL(al[next]))
				next++
			}
			if l.Old != next+1 || trimEOL(al[next]) != l.Text {
				t.Fatalf("%+v: a's line %d is %q", l, next+1, al[next])
			}
			next++
			if l.Op == ' ' {
				if l.New != len(out)+1 {
					t.Fatalf("%+v: want new line %d", l, len(out)+1)
				}
				out = append(out, l.Text)
			} else if l.New != 0 {
				t.Fatalf("%+v: a removed line has a new number", l)
			}
		}
	}
	for ; next < len(al); next++ {
		out = append(out, trimEOL(al[next]))
	}
	return out
}

func checkDiff(t *testing.T, a, b string, n int) []Hunk {
	t.Helper()
	h := Diff(a, b, n)
	got := patchLines(t, a, h)
	want := []string{}
	for _, l := range lines(b) {
		want = append(want, trimEOL(l))
	}
	if len(got) == 0 {
		got = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the hunks turn a into\n%q\nnot\n%q", got, want)
	}
	return h
}

func TestDiffReconstructs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", "- name: x", "  image: y", ""}
	text := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(words[r.Intn(len(words))] + "\n")
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		a, b, n := text(r.Intn(30)), text(r.Intn(30)), r.Intn(5)
		checkDiff(t, a, b, n)
		// Small texts are difflib's own diff.
		want := difflib.NewMatcher(lines(a), lines(b)).GetGroupedOpCodes(n)
		if got := groupOpCodes(opCodes(lines(a), lines(b)), n); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%q → %q: got %v, difflib %v", a, b, got, want)
		}
	}
	// Large ones diffed in pieces still reconstruct.
	big := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if r.Intn(3) == 0 {
				fmt.Fprintf(&b, "unique %d\n", r.Intn(100000))
			} else {
				b.WriteString(words[r.Intn(len(words))] + "\n")
			}
		}
		return b.String()
	}
	for i := 0; i < 5; i++ {
		a := big(5000)
		b := strings.Join(strings.SplitAfter(a, "\n")[1000:], "") + big(3000)
		checkDiff(t, a, b, 3)
		checkDiff(t, b, a, 0)
	}
}

func TestDiffLargeIsBounded(t *testing.T) {
	// A value changed in every item of 12000: difflib alone takes minutes.
	var a, b strings.Builder
	for i := 0; i < 12000; i++ {
		fmt.Fprintf(&a, "- name: c%d\n  image: registry/x:1\n  ports:\n  - containerPort: 8080\n    protocol: TCP\n", i)
		fmt.Fprintf(&b, "- name: c%d\n  image: registry/x:1\n  ports:\n  - containerPort: 8080\n    protocol: UDP\n", i)
	}
	start := time.Now()
	h := checkDiff(t, a.String(), b.String(), 3)
	if added, removed := DiffStats(h); added != 12000 || removed != 12000 {
		t.Errorf("got +%d -%d, want +12000 -12000", added, removed)
	}
	// Nothing in common to anchor on: replaced whole, still fast.
	checkDiff(t, a.String(), strings.ReplaceAll(a.String(), "name: c", "name: d"), 3)
	checkDiff(t, a.String(), "", 3)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
