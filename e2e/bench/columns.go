package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Targets of the columns measurement (issue 27).
const (
	// targetLabelColumnsRatio is a label-column page over the raw Metadata
	// Table request it makes.
	targetLabelColumnsRatio = 1.3
	// columnsLabels are the label columns the page adds.
	columnsLabels = "app.kubernetes.io/name,app.kubernetes.io/managed-by"
	// columnsCustom is the custom column of the reported figure.
	columnsCustom = "IMAGE:.spec.containers[*].image"
	// customRows is the page size of a list with custom columns
	// (kube.MaxObjectRows).
	customRows = 200
)

// measureColumns compares, interleaved on keep-alive connections after a
// warm-up, the -limit-row page of namespace bulk with label columns
// (?labelColumns= the two labels bulk pods carry) against the raw Metadata Table it asks for, and,
// reported without a target, the custom-column page (200 rows) against
// its raw Object Table.
func measureColumns(ctx context.Context, o options, kube, browser *http.Client, server, consoleURL string) (listResult, error) {
	page := consoleURL + "/c/" + contextName + "/api/v1/namespaces/" + namespace + "/pods"
	raw := fmt.Sprintf("%s/api/v1/namespaces/%s/pods?limit=", server, namespace)
	limit := ""
	if o.limit != 500 {
		limit = "&limit=" + strconv.Itoa(o.limit)
	}
	kinds := []listKind{
		{name: "console, namespace " + namespace + ", `?labelColumns=" + columnsLabels + "`", client: browser, accept: "text/html", encoding: "identity", console: true,
			url: page + "?labelColumns=" + url.QueryEscape(columnsLabels) + limit},
		{name: "raw Table, namespace " + namespace + ", `Metadata`", client: kube, accept: tableAccept, encoding: "gzip",
			url: raw + strconv.Itoa(o.limit) + "&includeObject=Metadata"},
		{name: "console, namespace " + namespace + ", `?columns=" + columnsCustom + "`", client: browser, accept: "text/html", encoding: "identity", console: true,
			url: page + "?columns=" + url.QueryEscape(columnsCustom)},
		{name: "raw Table, namespace " + namespace + ", `Object`", client: kube, accept: tableAccept, encoding: "gzip",
			url: raw + strconv.Itoa(customRows) + "&includeObject=Object"},
	}
	res := listResult{kinds: kinds, samples: make([][]sample, len(kinds))}
	get := func(k listKind) (sample, error) {
		s, err := fetch(ctx, k.client, k.url, k.accept, k.encoding)
		if err != nil {
			return s, fmt.Errorf("%s: %w", k.name, err)
		}
		return s, nil
	}
	for range o.warmup {
		for _, k := range kinds {
			if _, err := get(k); err != nil {
				return res, err
			}
		}
	}
	for round := range o.requests {
		for j := range kinds {
			i := (j + round) % len(kinds)
			s, err := get(kinds[i])
			if err != nil {
				return res, err
			}
			res.samples[i] = append(res.samples[i], s)
		}
	}
	return res, nil
}

func reportColumns(w io.Writer, o options, res listResult, err error) ([]targetResult, []reportedFigure) {
	name := fmt.Sprintf("label-column page (%d rows) / raw `Metadata` Table, p50", o.limit)
	if err != nil {
		fmt.Fprintf(w, "\n### Label and custom columns\n\nnot measured: %v\n", err)
		return []targetResult{{name: name, value: "not measured"}}, nil
	}
	st := make([]stats, len(res.kinds))
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "\n### Label and custom columns: %d pods in namespace %s, %d measured requests of each kind, interleaved (after %d warm-up rounds)\n\n",
		o.pods, namespace, o.requests, o.warmup)
	fmt.Fprintln(w, "| request | p50 | p95 | mean | body bytes | rows |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for i, k := range res.kinds {
		st[i] = summarize(durations(res.samples[i]))
		last := res.samples[i][len(res.samples[i])-1]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %d |\n", k.name, ms(st[i].p50), ms(st[i].p95), ms(st[i].mean), len(last.body), rowsOf(k, last.body))
	}
	label, custom := ratioOf(st[0], st[1]), ratioOf(st[2], st[3])
	fmt.Fprintf(w, "\n| ratio | p50 | p95 | mean | target |\n|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| label-column page / raw `Metadata` Table | %.2f× | %.2f× | %.2f× | ≤ %.1f× (p50) |\n", label.p50, label.p95, label.mean, targetLabelColumnsRatio)
	fmt.Fprintf(w, "| custom-column page (%d rows) / raw `Object` Table | %.2f× | %.2f× | %.2f× | none |\n", customRows, custom.p50, custom.p95, custom.mean)
	slog.Info("columns measured", "label ratio p50", label.p50, "custom ratio p50", custom.p50)
	return []targetResult{{name: name, value: fmt.Sprintf("%.2f× (%s / %s)", label.p50, ms(st[0].p50), ms(st[1].p50)), ok: label.p50 <= targetLabelColumnsRatio}},
		[]reportedFigure{{name: fmt.Sprintf("custom-column page (%d rows) / raw `Object` Table, p50", customRows), value: fmt.Sprintf("%.2f×", custom.p50), note: "reported"}}
}
