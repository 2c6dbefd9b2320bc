package object

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/views"
)

func TestHistoryRoundTripsAndIsBounded(t *testing.T) {
	h := []sample{{at: 100, cpu: 5, mem: 1 << 20}, {at: 115, cpu: 7, mem: 2 << 20}}
	enc := encodeHistory(h)
	if enc != "100,5,1048576;115,7,2097152" {
		t.Errorf("encoded = %q", enc)
	}
	back, err := parseHistory(enc)
	if err != nil || len(back) != 2 || back[1] != h[1] {
		t.Errorf("parsed = %v, %v", back, err)
	}
	for _, bad := range []string{"1", "1,2", "a,b,c", "1,2,3;", "1,-2,3", "5,1,1;5,1,1", strings.Repeat("1", maxHistory+1)} {
		if _, err := parseHistory(bad); err == nil {
			t.Errorf("parseHistory(%q) accepted", bad)
		}
	}
	// A full history takes a new sample by dropping its oldest; the same
	// sample twice (metrics-server between scrapes) is kept once.
	var full []sample
	for i := range maxSamples {
		full = append(full, sample{at: int64(1000 + 15*i), cpu: 1, mem: 1})
	}
	if enc := encodeHistory(full); len(enc) > maxHistory {
		t.Errorf("a full history of small samples is %d bytes, over the bound", len(enc))
	}
	next := apiclient.UsageSample{Timestamp: time.Unix(2000, 0), Usage: apiclient.Usage{CPUMilli: 9, MemoryBytes: 9}}
	got := addSample(full, next)
	if len(got) != maxSamples || got[0].at != 1015 || got[len(got)-1].at != 2000 {
		t.Errorf("after a new sample: %d samples, %d…%d", len(got), got[0].at, got[len(got)-1].at)
	}
	if again := addSample(got, next); len(again) != maxSamples || again[len(again)-1] != got[len(got)-1] {
		t.Error("the same sample was added twice")
	}
	if older := addSample(got, apiclient.UsageSample{Timestamp: time.Unix(1500, 0)}); len(older) != maxSamples || older[len(older)-1].at != 2000 {
		t.Error("an older sample was appended")
	}
	// Forged samples far from the current one are dropped: one in the
	// future cannot freeze the chart, nor an ancient one stretch it.
	now := apiclient.UsageSample{Timestamp: time.Unix(1_800_000_000, 0), Usage: apiclient.Usage{CPUMilli: 3, MemoryBytes: 3}}
	forged := []sample{{at: 1, cpu: 1, mem: 1}, {at: 1_799_999_990, cpu: 2, mem: 2}, {at: 1 << 62, cpu: 1, mem: 1}}
	if got := addSample(forged, now); len(got) != 2 || got[0].at != 1_799_999_990 || got[1].at != 1_800_000_000 {
		t.Errorf("after forged samples: %v, want the plausible one and the current one", got)
	}
}

// renderChart renders a chart as the usage endpoint answers it.
func renderChart(t *testing.T, c views.UsageChart) string {
	t.Helper()
	var buf bytes.Buffer
	if err := views.UsageChartView(c).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The chart is well-formed SVG, escapes what it names, and draws at most
// maxSamples points inside its box.
func TestUsageChartSVG(t *testing.T) {
	var h []sample
	for i := range maxSamples {
		h = append(h, sample{at: int64(1000 + 15*i), cpu: int64(i % 7 * 10), mem: int64(i) << 20})
	}
	name := `web"><script>alert(1)</script>`
	html := renderChart(t, usageChart("/c/dev/api/v1/namespaces/demo/pods/x", "Pod", name, h, 15*time.Second))
	if strings.Contains(html, "<script>") {
		t.Fatalf("the name is not escaped:\n%s", html)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	if label := doc.Find("svg").First().AttrOr("aria-label", ""); !strings.Contains(label, name) || !strings.Contains(label, "now 30m, peak 60m") {
		t.Errorf("aria-label = %q", label)
	}
	svgs := doc.Find("svg")
	if svgs.Length() != 2 {
		t.Fatalf("%d svg elements, want 2", svgs.Length())
	}
	svgs.Each(func(_ int, s *goquery.Selection) {
		markup, err := goquery.OuterHtml(s)
		if err != nil {
			t.Fatal(err)
		}
		// Inline SVG is parsed as HTML; it is also well-formed XML.
		dec := xml.NewDecoder(strings.NewReader(markup))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, markup)
			}
		}
		points := strings.Fields(s.Find("polyline").AttrOr("points", ""))
		if len(points) != maxSamples {
			t.Errorf("%d points, want %d", len(points), maxSamples)
		}
		for _, p := range points {
			x, y, _ := strings.Cut(p, ",")
			xf, err1 := strconv.ParseFloat(x, 64)
			yf, err2 := strconv.ParseFloat(y, 64)
			if err1 != nil || err2 != nil || xf < 0 || xf > sparkW || yf < 0 || yf > sparkH {
				t.Errorf("point %q outside the %dx%d box", p, sparkW, sparkH)
			}
		}
	})
	chart := doc.Find("[data-usage-src]")
	if chart.AttrOr("data-usage-src", "") != "/c/dev/api/v1/namespaces/demo/pods/x/usage" || chart.AttrOr("data-usage-history", "") != encodeHistory(h) {
		t.Errorf("chart attributes: %v", chart.Nodes[0].Attr)
	}
	if !strings.Contains(chart.Text(), "60 samples over the last 14m") {
		t.Errorf("note = %q", chart.Find("[data-testid=usage-chart-note]").Text())
	}
}

func TestUsageChartPeriodFollowsTheWindow(t *testing.T) {
	for window, want := range map[time.Duration]string{0: "15000", time.Second: "10000", 30 * time.Second: "30000", 5 * time.Minute: "60000"} {
		if got := usageChart("/x", "Node", "n", nil, window).Every; got != want {
			t.Errorf("window %s: every %s ms, want %s", window, got, want)
		}
	}
	empty := usageChart("/x", "Node", "n", nil, 0)
	html := renderChart(t, empty)
	if strings.Contains(html, "<polyline") || !strings.Contains(html, "first sample of this node") {
		t.Errorf("empty chart:\n%s", html)
	}
}
