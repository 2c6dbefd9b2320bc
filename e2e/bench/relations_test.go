package main

import (
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// relationsPageFixture is a map page as the issue describes it: nodes, the
// scan's summary and the skipped kinds.
const relationsPageFixture = `<!doctype html><html><body><main>
<section data-testid="relation-map">
<svg data-testid="map-svg">
<a data-testid="map-node" data-kind="Deployment" data-name="web" href="/c/admin/apis/apps/v1/namespaces/demo/deployments/web"></a>
<a data-testid="map-node" data-kind="ReplicaSet" data-name="web-1" href="/c/admin/apis/apps/v1/namespaces/demo/replicasets/web-1"></a>
<a data-testid="map-node" data-kind="Pod" data-name="web-1-a" href="/c/admin/api/v1/namespaces/demo/pods/web-1-a"></a>
</svg>
<div data-testid="scan-summary">
<p data-testid="scan-line">18 kinds asked in 23 requests, 0.02 s.</p>
<details data-testid="related-skipped"><summary>4 kinds not asked or not answered</summary><ul>
<li data-testid="skipped-kind" data-resource="secrets"><strong>Secret</strong> <span class="scan-skip-reason">forbidden: you may not list it here</span></li>
<li data-testid="skipped-kind" data-resource="jobs.batch"><strong>Job</strong> <span class="scan-skip-reason">none here 3s ago</span></li>
<li data-testid="skipped-kind" data-resource="cronjobs.batch"><strong>CronJob</strong> <span class="scan-skip-reason">none here 12s ago</span></li>
<li data-testid="skipped-kind">leases.coordination.k8s.io: over the scan's budget of 64 kinds</li>
</ul></details>
</div>
</section>
</main></body></html>`

func TestParseRelationsPage(t *testing.T) {
	b, err := parseRelationsPage([]byte(relationsPageFixture))
	if err != nil {
		t.Fatal(err)
	}
	if b.requests != 23 || b.nodes != 3 || b.rows != 0 || len(b.skipped) != 4 {
		t.Errorf("budget %+v", b)
	}
	if b.skipped[0] != (skippedKind{resource: "secrets", reason: "forbidden: you may not list it here"}) {
		t.Errorf("first skipped %+v", b.skipped[0])
	}
	// Without data attributes, the item's text stands for both.
	if want := "leases.coordination.k8s.io: over the scan's budget of 64 kinds"; b.skipped[3] != (skippedKind{resource: want, reason: want}) {
		t.Errorf("skipped without attributes %+v", b.skipped[3])
	}

	rows := strings.Replace(relationsPageFixture, `<svg`, `<table data-testid="related"><tr data-testid="related-row"></tr><tr data-testid="related-row"></tr></table><svg`, 1)
	if b, err := parseRelationsPage([]byte(rows)); err != nil || b.rows != 2 {
		t.Errorf("rows %d, %v; want 2", b.rows, err)
	}

	if b, err := parseRelationsPage([]byte(strings.Replace(relationsPageFixture, `in 23 requests`, `in 1 request`, 1))); err != nil || b.requests != 1 {
		t.Errorf("one request: %d, %v", b.requests, err)
	}
	for name, page := range map[string]string{
		"no summary":       strings.Replace(relationsPageFixture, `data-testid="scan-summary"`, ``, 1),
		"two summaries":    strings.Replace(relationsPageFixture, `</main>`, `<div data-testid="scan-summary"><p data-testid="scan-line">1 kind asked in 1 request</p></div></main>`, 1),
		"no line":          strings.Replace(relationsPageFixture, `data-testid="scan-line"`, ``, 1),
		"no request count": strings.Replace(relationsPageFixture, `in 23 requests`, `in many requests`, 1),
	} {
		if _, err := parseRelationsPage([]byte(page)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSkippedByReason(t *testing.T) {
	b, err := parseRelationsPage([]byte(relationsPageFixture))
	if err != nil {
		t.Fatal(err)
	}
	got := skippedByReason(b.skipped)
	if len(got) != 3 {
		t.Fatalf("reasons %+v, want 3", got)
	}
	// The two "none here …s ago" count together, first as the most.
	if got[0].reason != "none here Ns ago" || got[0].n != 2 || strings.Join(got[0].examples, ",") != "jobs.batch,cronjobs.batch" {
		t.Errorf("first reason %+v", got[0])
	}
	if got[1].reason != "forbidden: you may not list it here" || got[1].n != 1 {
		t.Errorf("second reason %+v", got[1])
	}
	if cell := skippedCell(b); !strings.HasPrefix(cell, "4: 2 none here Ns ago (jobs.batch, cronjobs.batch); 1 forbidden") {
		t.Errorf("skippedCell = %q", cell)
	}
	if cell := skippedCell(relationsBudget{}); cell != "0" {
		t.Errorf("skippedCell of none = %q", cell)
	}
}

func TestRelationsReport(t *testing.T) {
	loads := func(ms ...int) []sample {
		var out []sample
		for _, m := range ms {
			out = append(out, sample{d: time.Duration(m) * time.Millisecond})
		}
		return out
	}
	budgets := []relationsBudget{{requests: 20}, {requests: 24, nodes: 9, skipped: []skippedKind{{"secrets", "forbidden"}}}}
	res := relationsResult{
		replicas:  3,
		without:   relationsPage{name: "without", path: "/a?related=0", samples: loads(100, 100, 110)},
		with:      relationsPage{name: "with", path: "/a", scan: true, samples: loads(120, 125, 130), budgets: budgets},
		withFresh: relationsPage{name: "with anew", path: "/a?fresh=1", scan: true, samples: loads(140, 150, 160), budgets: budgets},
		depMap:    relationsPage{name: "map", path: "/a?view=map", scan: true, samples: loads(300, 350), budgets: budgets},
		mapFresh:  relationsPage{name: "map anew", path: "/a?view=map&fresh=1", scan: true, samples: loads(400, 700), budgets: budgets},
		namespace: relationsPage{name: "ns", path: "/ns?view=map", scan: true, samples: loads(900, 1200, 1300), budgets: budgets},
		nsFresh:   relationsPage{name: "ns anew", path: "/ns?view=map&fresh=1", scan: true, samples: loads(900, 950, 1000), budgets: budgets},
	}
	if got := res.addedPct(); math.Abs(got-25) > 1e-9 {
		t.Errorf("addedPct = %v, want 25", got)
	}
	if got := res.addedFreshPct(); math.Abs(got-50) > 1e-9 {
		t.Errorf("addedFreshPct = %v, want 50", got)
	}
	var out strings.Builder
	targets := reportRelations(&out, options{relationsRuns: 3, warmup: 1, pods: 10, crds: 2}, res, nil)
	if len(targets) != 4 || !targets[0].ok || targets[1].ok || targets[2].ok || targets[3].ok {
		t.Errorf("targets %+v: want the Related section met in a row (25 %%) and missed anew (50 %%), the map missed (550 ms anew), the namespace map missed (1200 ms)", targets)
	}
	for _, want := range []string{"+25 %", "+50 %", "| 22 (20–24) |", "9 / 0", "1: 1 forbidden (secrets)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	targets = reportRelations(&out, options{}, relationsResult{}, errTest)
	if len(targets) != 4 || targets[0].ok || targets[0].value != "not measured" || !strings.Contains(out.String(), "Not measured: boom") {
		t.Errorf("on error: %+v\n%s", targets, out.String())
	}
}

var errTest = errors.New("boom")

// measureRelations keeps every measured load of each page, and reads the
// Deployment's replicas from the API server first.
func TestMeasureRelationsKeepsEveryLoad(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/apis/apps/v1/"):
			_, _ = io.WriteString(w, `{"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"availableReplicas":3}}`)
		case r.URL.Query().Get("related") == "0":
			_, _ = io.WriteString(w, `<html><body><h1>web</h1></body></html>`)
		default:
			_, _ = io.WriteString(w, relationsPageFixture)
		}
	}))
	defer srv.Close()
	res, err := measureRelations(t.Context(), options{warmup: 1, relationsRuns: 4}, srv.Client(), srv.Client(), srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.pages() {
		if len(p.samples) != 4 || (p.scan && (len(p.budgets) != 4 || p.budgets[3].requests != 23)) {
			t.Errorf("%s: %d loads, budgets %+v; want 4 of each", p.name, len(p.samples), p.budgets)
		}
	}
}
