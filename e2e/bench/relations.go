package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Targets of relations (issue 24), each the median over -relations-runs
// loads of the whole page over HTTP, as a browser asks.
const (
	// targetRelatedAddedPct is what the Related section may add to an
	// object page's time.
	targetRelatedAddedPct = 30
	// targetMapMs is the map of a Deployment with 3 Pods.
	targetMapMs = 500
	// targetNamespaceMapMs is the namespace map of demo.
	targetNamespaceMapMs = 1000
)

// The object the relations measurement loads: the seed's Deployment, which
// has the 3 Pods (e2e/devcluster/seed.go).
const (
	relationsNamespace  = "demo"
	relationsDeployment = "web"
	relationsReplicas   = 3
)

// What the bench reads of the relation pages (views/relations.templ): the
// scan's summary, whose line states its requests ("18 kinds asked in 19
// requests, 0.02 s."), and the kinds it skipped, each with its reason.
const (
	relatedSummarySelector = `[data-testid="scan-summary"]`
	scanLineSelector       = `[data-testid="scan-line"]`
	relatedSkippedSelector = `[data-testid="related-skipped"] li[data-testid="skipped-kind"]`
	skipReasonSelector     = `.scan-skip-reason`
	relatedRowSelector     = `[data-testid="related-row"]`
	mapNodeSelector        = `[data-testid="map-node"]`
)

// scanRequests finds the request count in a scan's line.
var scanRequests = regexp.MustCompile(`\b([0-9]+) requests?\b`)

// relationsBudget is what a relation page states of its scan.
type relationsBudget struct {
	// requests are the upstream requests the scan made (the summary's
	// data-requests).
	requests int
	// skipped are the kinds the page names as not listed, with why.
	skipped []skippedKind
	// rows are the Related section's rows; nodes the map's nodes.
	rows, nodes int
}

// digits are the numbers in a reason ("none here 3s ago"), which the
// report counts together.
var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// parseRelationsPage reads the scan's budget a relation page states: the
// requests its summary line names (required), each skipped kind (its
// data-resource and reason; the item's text where either is missing), the
// Related rows and the map's nodes.
func parseRelationsPage(body []byte) (relationsBudget, error) {
	var b relationsBudget
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return b, err
	}
	text := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
	b.rows = doc.Find(relatedRowSelector).Length()
	b.nodes = doc.Find(mapNodeSelector).Length()
	summary := doc.Find(relatedSummarySelector)
	if summary.Length() != 1 {
		return b, fmt.Errorf("the page has %d elements %s, want one", summary.Length(), relatedSummarySelector)
	}
	line := text(summary.Find(scanLineSelector))
	m := scanRequests.FindStringSubmatch(line)
	if m == nil {
		return b, fmt.Errorf("the scan's line %q states no request count", line)
	}
	if b.requests, err = strconv.Atoi(m[1]); err != nil {
		return b, fmt.Errorf("the scan's line %q: %w", line, err)
	}
	summary.Find(relatedSkippedSelector).Each(func(_ int, li *goquery.Selection) {
		resource, _ := li.Attr("data-resource")
		reason := text(li.Find(skipReasonSelector))
		if resource == "" {
			resource = text(li)
		}
		if reason == "" {
			reason = text(li)
		}
		b.skipped = append(b.skipped, skippedKind{resource: resource, reason: reason})
	})
	return b, nil
}

// skippedByReason counts skipped kinds by reason, numbers made "N" so that
// "none here 3s ago" and "none here 12s ago" count together; most first,
// then by reason.
func skippedByReason(skipped []skippedKind) []reasonCount {
	counts := map[string]*reasonCount{}
	var order []string
	for _, s := range skipped {
		r := digits.ReplaceAllString(s.reason, "N")
		c, ok := counts[r]
		if !ok {
			c = &reasonCount{reason: r}
			counts[r] = c
			order = append(order, r)
		}
		c.n++
		if len(c.examples) < 3 && !slices.Contains(c.examples, s.resource) {
			c.examples = append(c.examples, s.resource)
		}
	}
	out := make([]reasonCount, 0, len(order))
	for _, r := range order {
		out = append(out, *counts[r])
	}
	slices.SortStableFunc(out, func(a, b reasonCount) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.reason, b.reason)
	})
	return out
}

// relationsPage is one page of the measurement and its loads.
type relationsPage struct {
	name, path string
	// scan says the page states a scan (all but the overview without
	// Related).
	scan    bool
	samples []sample
	budgets []relationsBudget
}

// ms are the samples' times in ms.
func (p relationsPage) ms() []float64 {
	out := make([]float64, len(p.samples))
	for i, s := range p.samples {
		out[i] = float64(s.d) / float64(time.Millisecond)
	}
	return out
}

func (p relationsPage) p50() float64 { return median(p.ms()) }

// relationsResult is the relations measurement. The pages are loaded in a
// row, as a user opens them, so the console reuses the user's lists of
// the moment before (for 3 s); the fresh ones (?fresh=1) list every kind
// anew, as the first page of a namespace or a live re-render does.
type relationsResult struct {
	replicas                         int
	without, with, depMap, namespace relationsPage
	withFresh, mapFresh, nsFresh     relationsPage
}

func (r *relationsResult) pages() []*relationsPage {
	return []*relationsPage{&r.without, &r.with, &r.withFresh, &r.depMap, &r.mapFresh, &r.namespace, &r.nsFresh}
}

// addedPct is what the Related section adds to the overview, in % of the
// overview without it (medians).
func (r relationsResult) addedPct() float64 {
	return (r.with.p50() - r.without.p50()) / r.without.p50() * 100
}

// addedFreshPct is addedPct with every kind listed anew.
func (r relationsResult) addedFreshPct() float64 {
	return (r.withFresh.p50() - r.without.p50()) / r.without.p50() * 100
}

// measureRelations loads the Deployment demo/web's overview without and
// with its Related section, its map and the namespace map of demo,
// o.warmup rounds unmeasured then o.relationsRuns measured, the four pages
// taking turns in each round so that the cluster's drift falls on all
// alike. Each load is a whole page over HTTP as a browser asks for it
// (compressed); each scan's stated budget is read from its page.
func measureRelations(ctx context.Context, o options, kube, browser *http.Client, server, consoleURL string) (relationsResult, error) {
	res := relationsResult{}
	replicas, err := waitForDeployment(ctx, kube, server, relationsNamespace, relationsDeployment, 2*time.Minute)
	if err != nil {
		return res, err
	}
	res.replicas = replicas
	if replicas != relationsReplicas {
		return res, fmt.Errorf("deployment %s/%s has %d replicas; the map's target is for one of %d", relationsNamespace, relationsDeployment, replicas, relationsReplicas)
	}
	object := "/c/" + contextName + "/apis/apps/v1/namespaces/" + relationsNamespace + "/deployments/" + relationsDeployment
	res.without = relationsPage{name: "object page, `?related=0`", path: object + "?related=0"}
	namespace := "/c/" + contextName + "/api/v1/namespaces/" + relationsNamespace
	res.with = relationsPage{name: "object page, with Related", path: object, scan: true}
	res.withFresh = relationsPage{name: "object page, with Related listed anew", path: object + "?fresh=1", scan: true}
	res.depMap = relationsPage{name: "map of the Deployment", path: object + "?view=map", scan: true}
	res.mapFresh = relationsPage{name: "map of the Deployment listed anew", path: object + "?view=map&fresh=1", scan: true}
	res.namespace = relationsPage{name: "namespace map of " + relationsNamespace, path: namespace + "?view=map", scan: true}
	res.nsFresh = relationsPage{name: "namespace map listed anew", path: namespace + "?view=map&fresh=1", scan: true}
	pages := res.pages()
	for round := range o.warmup + o.relationsRuns {
		for _, p := range pages {
			if err := ctx.Err(); err != nil {
				return res, context.Cause(ctx)
			}
			s, err := fetch(ctx, browser, consoleURL+p.path, "text/html", browserAcceptEncoding)
			if err != nil {
				return res, err
			}
			var b relationsBudget
			if p.scan {
				if b, err = parseRelationsPage(s.body); err != nil {
					return res, fmt.Errorf("%s: %w", p.path, err)
				}
			} else if bytes.Contains(s.body, []byte(`data-testid="related"`)) {
				return res, fmt.Errorf("%s renders the Related section", p.path)
			}
			if round >= o.warmup {
				p.samples = append(p.samples, s)
				p.budgets = append(p.budgets, b)
			}
		}
	}
	return res, nil
}

// waitForDeployment waits until a Deployment has all its replicas
// available and updated, and returns how many it wants.
func waitForDeployment(ctx context.Context, kube *http.Client, server, ns, name string, timeout time.Duration) (int, error) {
	url := server + "/apis/apps/v1/namespaces/" + ns + "/deployments/" + name
	deadline := time.Now().Add(timeout)
	for {
		s, err := fetch(ctx, kube, url, "application/json", "")
		if err != nil {
			return 0, err
		}
		var d struct {
			Metadata struct{ Generation int64 }
			Spec     struct{ Replicas *int }
			Status   struct {
				ObservedGeneration                           int64
				Replicas, UpdatedReplicas, AvailableReplicas int
			}
		}
		if err := json.Unmarshal(s.body, &d); err != nil {
			return 0, fmt.Errorf("decoding %s: %w", url, err)
		}
		want := 1
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		st := d.Status
		if st.ObservedGeneration >= d.Metadata.Generation && st.Replicas == want && st.UpdatedReplicas == want && st.AvailableReplicas == want {
			return want, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("deployment %s/%s not settled after %s: %d replicas wanted, status %+v", ns, name, timeout, want, st)
		}
		select {
		case <-ctx.Done():
			return 0, context.Cause(ctx)
		case <-time.After(time.Second):
		}
	}
}

// requestsCell is the upstream requests the page states, "p50 (min–max)".
func requestsCell(bs []relationsBudget) string {
	xs := make([]float64, len(bs))
	for i, b := range bs {
		xs[i] = float64(b.requests)
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", median(xs), nearestRank(xs, 0), nearestRank(xs, 1))
}

// skippedCell is the last load's skipped kinds: their number, and by
// reason with a few examples each.
func skippedCell(b relationsBudget) string {
	if len(b.skipped) == 0 {
		return "0"
	}
	var parts []string
	for _, c := range skippedByReason(b.skipped) {
		parts = append(parts, fmt.Sprintf("%d %s (%s)", c.n, c.reason, strings.Join(c.examples, ", ")))
	}
	return fmt.Sprintf("%d: %s", len(b.skipped), strings.Join(parts, "; "))
}

func reportRelations(w io.Writer, o options, res relationsResult, err error) (targets []targetResult) {
	names := []string{
		fmt.Sprintf("relations: Related section adds ≤ %d %% to the object page (p50, pages in a row)", targetRelatedAddedPct),
		fmt.Sprintf("relations: Related section adds ≤ %d %% to the object page (p50, every kind listed anew)", targetRelatedAddedPct),
		fmt.Sprintf("relations: map of a Deployment with %d Pods ≤ %d ms (p50)", relationsReplicas, targetMapMs),
		fmt.Sprintf("relations: namespace map of %s ≤ %d ms (p50)", relationsNamespace, targetNamespaceMapMs),
	}
	cluster := fmt.Sprintf("%d bulk pods, %d bench CRDs", o.pods, o.crds)
	if o.kubeconfig != "" {
		cluster = "the cluster of " + o.kubeconfig
	}
	fmt.Fprintf(w, "\n### Relations: Deployment %s/%s (%s)\n\n", relationsNamespace, relationsDeployment, cluster)
	if err != nil {
		fmt.Fprintf(w, "Not measured: %v\n", err)
		for _, n := range names {
			targets = append(targets, targetResult{name: n, value: "not measured"})
		}
		return targets
	}
	fmt.Fprintf(w, "%d loads of each page after %d unmeasured, the four taking turns; the whole response over HTTP as a browser asks (`%s`), from the bench's Go client.\n\n",
		o.relationsRuns, o.warmup, browserAcceptEncoding)
	fmt.Fprintln(w, "| page | p50 | p90 | min–max | reported | upstream requests the page states, p50 (min–max) | map nodes / Related rows | kinds skipped (last load) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, p := range res.pages() {
		if !p.scan {
			fmt.Fprintf(w, "| %s `%s` | %s | | | |\n", p.name, p.path, msCells(p.ms()))
			continue
		}
		last := p.budgets[len(p.budgets)-1]
		fmt.Fprintf(w, "| %s `%s` | %s | %s | %d / %d | %s |\n", p.name, p.path, msCells(p.ms()), requestsCell(p.budgets), last.nodes, last.rows, skippedCell(last))
	}
	added, fresh := res.addedPct(), res.addedFreshPct()
	fmt.Fprintf(w, "\nThe Related section adds %+.0f %% (%.0f ms against %.0f ms, medians) to pages opened in a row, which reuse the user's lists of a moment before, and %+.0f %% (%.0f ms) when every kind is listed anew (`?fresh=1`).\n",
		added, res.with.p50(), res.without.p50(), fresh, res.withFresh.p50())
	mapMs, nsMs := max(res.depMap.p50(), res.mapFresh.p50()), max(res.namespace.p50(), res.nsFresh.p50())
	return []targetResult{
		{names[0], fmt.Sprintf("%+.0f %% (%.0f ms vs %.0f ms)", added, res.with.p50(), res.without.p50()), !math.IsNaN(added) && added <= targetRelatedAddedPct},
		{names[1], fmt.Sprintf("%+.0f %% (%.0f ms vs %.0f ms)", fresh, res.withFresh.p50(), res.without.p50()), !math.IsNaN(fresh) && fresh <= targetRelatedAddedPct},
		{names[2], fmt.Sprintf("%.0f ms (the slower of reused and anew)", mapMs), mapMs <= targetMapMs},
		{names[3], fmt.Sprintf("%.0f ms (the slower of reused and anew)", nsMs), nsMs <= targetNamespaceMapMs},
	}
}
