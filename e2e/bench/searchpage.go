package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// What the bench reads of the search page (issue 23). The page streams its
// rows and writes the summary last, just before the end of its body.
const (
	searchRowSelector     = `tr[data-testid="search-row"]`
	searchSummarySelector = `[data-testid="search-summary"]`
	searchSkippedSelector = `li[data-testid="search-skipped"]`
	// searchRowMarker is how a row's start is found in the streamed bytes.
	searchRowMarker = `data-testid="search-row"`
	// searchFirstRowMark is the Element Timing identifier of the first
	// result row. Chromium reports Element Timing for the element whose
	// text it paints: a cell (as the list's first row has it), not a tr.
	searchFirstRowMark = "search-first-row"
	// maxSearchPage bounds the body the bench keeps of one search.
	maxSearchPage = 64 << 20
)

// skipReasons are the reasons the page may give for a kind it did not
// search (web/search's Reason), in the order the report prints them;
// same-objects is a kind another API serves too (events.k8s.io's Events),
// searched there.
var skipReasons = []string{"forbidden", "too-many", "timeout", "no-list", "field-refused", "expired", "failed", "same-objects"}

// searchBudget is what the search page states it spent, from its summary's
// data attributes and its skipped kinds.
type searchBudget struct {
	kindsAsked, kindsSkipped, requests, matches int
	bytes                                       int64
	elapsedMs                                   float64
	// reviews are the access reviews among requests; -1 when the page
	// does not say (data-reviews is not part of the bench's contract).
	reviews int
	// rows are the result rows on the page.
	rows int
	// shared is the summary's data-shared: "true" when the search joined
	// an identical one already running (web/search's flights), "false"
	// when it ran on its own, "" when the page does not say.
	shared  string
	skipped []skippedKind
}

// skippedKind is one li[data-testid="search-skipped"].
type skippedKind struct{ resource, reason string }

// parseSearchPage reads the budget a whole search page states. A page
// without its summary did not finish (or lacks the hook); an attribute that
// is missing or not a number is an error naming it.
func parseSearchPage(body []byte) (searchBudget, error) {
	var b searchBudget
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return b, err
	}
	b.rows = doc.Find(searchRowSelector).Length()
	summary := doc.Find(searchSummarySelector)
	switch summary.Length() {
	case 0:
		return b, fmt.Errorf("the page has no %s: the search did not finish, or the page does not write its summary", searchSummarySelector)
	case 1:
	default:
		return b, fmt.Errorf("the page has %d elements %s, want one", summary.Length(), searchSummarySelector)
	}
	var errs []error
	attr := func(name string) (string, bool) {
		v, ok := summary.Attr(name)
		if !ok {
			errs = append(errs, fmt.Errorf("the summary has no %s", name))
		}
		return strings.TrimSpace(v), ok
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"data-kinds-asked", &b.kindsAsked},
		{"data-kinds-skipped", &b.kindsSkipped},
		{"data-requests", &b.requests},
		{"data-matches", &b.matches},
	} {
		if v, ok := attr(f.name); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("the summary's %s is %q, not a count", f.name, v))
			}
			*f.dst = n
		}
	}
	b.reviews = -1
	if v, ok := summary.Attr("data-reviews"); ok {
		if b.reviews, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || b.reviews < 0 {
			errs = append(errs, fmt.Errorf("the summary's data-reviews is %q, not a count", v))
		}
	}
	if v, ok := summary.Attr("data-shared"); ok {
		if b.shared = strings.TrimSpace(v); b.shared != "true" && b.shared != "false" {
			errs = append(errs, fmt.Errorf("the summary's data-shared is %q, not true or false", v))
		}
	}
	if v, ok := attr("data-bytes"); ok {
		if b.bytes, err = strconv.ParseInt(v, 10, 64); err != nil || b.bytes < 0 {
			errs = append(errs, fmt.Errorf("the summary's data-bytes is %q, not a count", v))
		}
	}
	if v, ok := attr("data-elapsed-ms"); ok {
		if b.elapsedMs, err = strconv.ParseFloat(v, 64); err != nil || b.elapsedMs < 0 {
			errs = append(errs, fmt.Errorf("the summary's data-elapsed-ms is %q, not a duration in ms", v))
		}
	}
	doc.Find(searchSkippedSelector).Each(func(i int, s *goquery.Selection) {
		resource, ok1 := s.Attr("data-resource")
		reason, ok2 := s.Attr("data-reason")
		if !ok1 || !ok2 {
			errs = append(errs, fmt.Errorf("skipped kind %d lacks data-resource or data-reason", i+1))
		}
		b.skipped = append(b.skipped, skippedKind{resource: resource, reason: reason})
	})
	return b, errors.Join(errs...)
}

// reasonCount is how many kinds the page skipped for one reason.
type reasonCount struct {
	reason string
	known  bool // one of skipReasons
	n      int
	// examples are the first few resources, in page order, each once.
	examples []string
}

// byReason counts the skipped kinds by reason: the known reasons in
// skipReasons' order (those with none too), then unknown ones by name.
func (b searchBudget) byReason() []reasonCount {
	counts := map[string]*reasonCount{}
	var unknown []string
	for _, r := range skipReasons {
		counts[r] = &reasonCount{reason: r, known: true}
	}
	for _, s := range b.skipped {
		c, ok := counts[s.reason]
		if !ok {
			c = &reasonCount{reason: s.reason}
			counts[s.reason] = c
			unknown = append(unknown, s.reason)
		}
		c.n++
		if len(c.examples) < 3 && !slices.Contains(c.examples, s.resource) {
			c.examples = append(c.examples, s.resource)
		}
	}
	slices.Sort(unknown)
	out := make([]reasonCount, 0, len(counts))
	for _, r := range append(slices.Clone(skipReasons), unknown...) {
		out = append(out, *counts[r])
	}
	return out
}

// searchFetch is one search over HTTP, timed from the request.
type searchFetch struct {
	// firstRow is when the bytes of the first result row had arrived
	// (0: none came); complete when the last byte had.
	firstRow, complete time.Duration
	body               []byte
}

// fetchSearch GETs a search page as identity, so its stream can be read as
// it comes, and notes when the first row arrives.
func fetchSearch(ctx context.Context, c *http.Client, url string) (searchFetch, error) {
	var f searchFetch
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return f, err
	}
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Accept-Encoding", "identity")
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return f, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return f, fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		return f, fmt.Errorf("GET %s: Content-Encoding %s although identity was asked", url, enc)
	}
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	marker := []byte(searchRowMarker)
	for {
		n, err := resp.Body.Read(chunk)
		if n > 0 {
			// The marker may straddle two reads.
			from := max(0, buf.Len()-len(marker)+1)
			buf.Write(chunk[:n])
			if f.firstRow == 0 && bytes.Contains(buf.Bytes()[from:], marker) {
				f.firstRow = time.Since(start)
			}
			if buf.Len() > maxSearchPage {
				return f, fmt.Errorf("GET %s: the page is over %d MiB", url, maxSearchPage>>20)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return f, fmt.Errorf("GET %s: reading body: %w", url, err)
		}
	}
	f.complete, f.body = time.Since(start), buf.Bytes()
	return f, nil
}
