package main

import "testing"

func TestParseChangesPage(t *testing.T) {
	body := []byte(`<section data-testid="changes"><table><tbody>
		<tr data-testid="change-row"></tr><tr data-testid="change-row"></tr></tbody></table>
		<p data-testid="changes-cost">33 kinds asked in 74
		requests, 20067 objects read, 0.94 s.</p>
		<ul><li data-testid="changes-skipped-kind"></li></ul></section>`)
	rows, objects, requests, skipped, cost, err := parseScanPage(body, changesPage)
	if err != nil || rows != 2 || objects != 20067 || requests != 74 || skipped != 1 || cost != "33 kinds asked in 74 requests, 20067 objects read, 0.94 s." {
		t.Errorf("rows %d, objects %d, requests %d, skipped %d, cost %q, %v", rows, objects, requests, skipped, cost, err)
	}
	if _, _, _, _, _, err := parseScanPage([]byte(`<p>no cost</p>`), changesPage); err == nil {
		t.Errorf("a page without its cost line parsed")
	}
}
