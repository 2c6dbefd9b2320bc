// Package textdiff is the line diff the console shows wherever two texts
// are compared: the editor's review and conflict pages, an object's
// revisions. A leaf: it knows texts and the views' diff model, nothing else.
package textdiff

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/tabula-console/tabula/views"
)

// DiffLine is one line of a hunk.
type DiffLine struct {
	Op       byte // ' ', '+', '-'
	Old, New int  // 1-based line numbers; 0 when the line is not on that side
	Text     string
}

// Hunk is one group of changes with its context.
type Hunk struct {
	Header string // "@@ -a,b +c,d @@" as unified diffs write it: ",1" left out, an empty range numbered from the line before
	Lines  []DiffLine
}

// Diff is a line diff of two texts in unified-diff hunks with n lines of
// context (difflib's grouped opcodes; n < 0 means 3). Equal texts have no
// hunks. Large texts are aligned within bounds (see wholeLimit). Lines are compared with their line ends, so a last line that
// gains or loses its newline shows as changed; Text has no line end.
func Diff(a, b string, n int) []Hunk {
	al, bl := lines(a), lines(b)
	var hunks []Hunk
	for _, group := range groupOpCodes(opCodes(al, bl), n) {
		first, last := group[0], group[len(group)-1]
		h := Hunk{Header: fmt.Sprintf("@@ -%s +%s @@",
			unifiedRange(first.I1, last.I2), unifiedRange(first.J1, last.J2))}
		for _, c := range group {
			if c.Tag == 'e' {
				for i := c.I1; i < c.I2; i++ {
					j := c.J1 + i - c.I1
					h.Lines = append(h.Lines, DiffLine{Op: ' ', Old: i + 1, New: j + 1, Text: trimEOL(al[i])})
				}
				continue
			}
			if c.Tag == 'r' || c.Tag == 'd' {
				for i := c.I1; i < c.I2; i++ {
					h.Lines = append(h.Lines, DiffLine{Op: '-', Old: i + 1, Text: trimEOL(al[i])})
				}
			}
			if c.Tag == 'r' || c.Tag == 'i' {
				for j := c.J1; j < c.J2; j++ {
					h.Lines = append(h.Lines, DiffLine{Op: '+', New: j + 1, Text: trimEOL(bl[j])})
				}
			}
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// DiffStats counts added and removed lines.
func DiffStats(h []Hunk) (added, removed int) {
	for _, hunk := range h {
		for _, l := range hunk.Lines {
			switch l.Op {
			case '+':
				added++
			case '-':
				removed++
			}
		}
	}
	return added, removed
}

// Alignment bounds. difflib's SequenceMatcher is quadratic when equal runs
// are short and many (a value changed on every fifth line of 1.7 MB took a
// minute and a half), and Diff runs on text a user sends. Texts of up to
// wholeLimit lines are aligned by difflib alone. In larger ones the common
// head and tail are equal without asking difflib, a middle of up to
// wholeLimit lines on each side is aligned by difflib in one piece, and a
// larger one is first cut at anchors, lines found exactly once on each side
// and in the same order (as patience diff does), difflib aligning each gap
// between them. A gap larger than gapLimit on both sides is replaced whole.
const (
	wholeLimit = 2000
	gapLimit   = 1000
)

// opCodes aligns a and b as difflib's GetOpCodes does, within the bounds
// above.
func opCodes(a, b []string) []difflib.OpCode {
	if len(a) <= wholeLimit && len(b) <= wholeLimit {
		return difflib.NewMatcher(a, b).GetOpCodes()
	}
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var codes []difflib.OpCode
	add := func(c difflib.OpCode) {
		if c.I1 == c.I2 && c.J1 == c.J2 {
			return
		}
		if l := len(codes) - 1; l >= 0 && codes[l].Tag == 'e' && c.Tag == 'e' {
			codes[l].I2, codes[l].J2 = c.I2, c.J2
			return
		}
		codes = append(codes, c)
	}
	add(difflib.OpCode{Tag: 'e', I1: 0, I2: head, J1: 0, J2: head})
	am, bm := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(am) <= wholeLimit && len(bm) <= wholeLimit {
		alignGap(am, bm, head, head, false, add)
	} else {
		i, j := 0, 0
		for _, an := range anchors(am, bm) {
			alignGap(am[i:an[0]], bm[j:an[1]], head+i, head+j, true, add)
			add(difflib.OpCode{Tag: 'e', I1: head + an[0], I2: head + an[0] + 1, J1: head + an[1], J2: head + an[1] + 1})
			i, j = an[0]+1, an[1]+1
		}
		alignGap(am[i:], bm[j:], head+i, head+j, true, add)
	}
	add(difflib.OpCode{Tag: 'e', I1: len(a) - tail, I2: len(a), J1: len(b) - tail, J2: len(b)})
	return codes
}

// alignGap adds the opcodes of a and b, which start at lines i0 and j0.
func alignGap(a, b []string, i0, j0 int, bounded bool, add func(difflib.OpCode)) {
	switch {
	case len(a) == 0 && len(b) == 0:
	case len(b) == 0:
		add(difflib.OpCode{Tag: 'd', I1: i0, I2: i0 + len(a), J1: j0, J2: j0})
	case len(a) == 0:
		add(difflib.OpCode{Tag: 'i', I1: i0, I2: i0, J1: j0, J2: j0 + len(b)})
	case bounded && len(a) > gapLimit && len(b) > gapLimit:
		add(difflib.OpCode{Tag: 'r', I1: i0, I2: i0 + len(a), J1: j0, J2: j0 + len(b)})
	default:
		for _, c := range difflib.NewMatcher(a, b).GetOpCodes() {
			add(difflib.OpCode{Tag: c.Tag, I1: i0 + c.I1, I2: i0 + c.I2, J1: j0 + c.J1, J2: j0 + c.J2})
		}
	}
}

// anchors returns the pairs (i, j) of lines that occur once in a and once in
// b, a[i] == b[j], the longest run of them increasing on both sides.
func anchors(a, b []string) [][2]int {
	count := make(map[string]int, len(a))
	for _, l := range a {
		count[l]++
	}
	at := make(map[string]int, len(b))
	for j, l := range b {
		if count[l] == 1 {
			if _, dup := at[l]; dup {
				at[l] = -1
			} else {
				at[l] = j
			}
		}
	}
	var pairs [][2]int
	for i, l := range a {
		if j, ok := at[l]; ok && j >= 0 && count[l] == 1 {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	// Longest increasing subsequence of j (pairs are in i order), by
	// patience sorting.
	var tops []int // index in pairs of the smallest last j of a run of each length
	prev := make([]int, len(pairs))
	for k, p := range pairs {
		n := sort.Search(len(tops), func(t int) bool { return pairs[tops[t]][1] > p[1] })
		prev[k] = -1
		if n > 0 {
			prev[k] = tops[n-1]
		}
		if n == len(tops) {
			tops = append(tops, k)
		} else {
			tops[n] = k
		}
	}
	out := make([][2]int, len(tops))
	if len(tops) > 0 {
		for k, t := len(tops)-1, tops[len(tops)-1]; k >= 0; k, t = k-1, prev[t] {
			out[k] = pairs[t]
		}
	}
	return out
}

// groupOpCodes is difflib's GetGroupedOpCodes over opcodes: the changes
// with n lines of context, a group per run of changes closer than 2n lines.
func groupOpCodes(codes []difflib.OpCode, n int) [][]difflib.OpCode {
	if n < 0 {
		n = 3
	}
	if len(codes) == 0 || len(codes) == 1 && codes[0].Tag == 'e' {
		return nil
	}
	codes = append([]difflib.OpCode(nil), codes...)
	if c := codes[0]; c.Tag == 'e' {
		codes[0] = difflib.OpCode{Tag: 'e', I1: max(c.I1, c.I2-n), I2: c.I2, J1: max(c.J1, c.J2-n), J2: c.J2}
	}
	if c := codes[len(codes)-1]; c.Tag == 'e' {
		codes[len(codes)-1] = difflib.OpCode{Tag: 'e', I1: c.I1, I2: min(c.I2, c.I1+n), J1: c.J1, J2: min(c.J2, c.J1+n)}
	}
	var groups [][]difflib.OpCode
	var group []difflib.OpCode
	for _, c := range codes {
		if c.Tag == 'e' && c.I2-c.I1 > 2*n {
			group = append(group, difflib.OpCode{Tag: 'e', I1: c.I1, I2: min(c.I2, c.I1+n), J1: c.J1, J2: min(c.J2, c.J1+n)})
			groups = append(groups, group)
			group = nil
			c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].Tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

// lines splits s after each "\n"; a last line without one is a line too.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

func trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// unifiedRange is a range as unified diffs write it (difflib's
// formatRangeUnified): "start,length", "start" alone for one line, and an
// empty range starting at the line before it.
func unifiedRange(start, stop int) string {
	beginning, length := start+1, stop-start
	if length == 1 {
		return fmt.Sprintf("%d", beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}

// Titled is a titled line diff of two texts, as the views show it, with
// three lines of context; empty says why there is no hunk.
func Titled(title, before, after, empty string) views.Diff {
	hunks := Diff(before, after, 3)
	d := views.Diff{Title: title, Empty: empty}
	d.Added, d.Removed = DiffStats(hunks)
	for _, h := range hunks {
		vh := views.DiffHunk{Header: h.Header}
		for _, l := range h.Lines {
			vl := views.DiffLine{Text: l.Text, Op: "ctx"}
			switch l.Op {
			case '+':
				vl.Op = "add"
			case '-':
				vl.Op = "del"
			}
			if l.Old > 0 {
				vl.Old = strconv.Itoa(l.Old)
			}
			if l.New > 0 {
				vl.New = strconv.Itoa(l.New)
			}
			vh.Lines = append(vh.Lines, vl)
		}
		d.Hunks = append(d.Hunks, vh)
	}
	return d
}
