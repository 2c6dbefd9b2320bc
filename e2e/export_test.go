//go:build e2e

package e2e

import (
	"context"
	"encoding/csv"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Export menu downloads every pod of demo as CSV: the same pods, each
// once, as the API server lists (kubectl get pods --no-headers | wc -l).
func TestExportCSVOfDemoPodsHasEveryPodTheAPIServerLists(t *testing.T) {
	cs, _ := clientset(t, "admin")
	apiNames := func() []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var names []string
		opts := metav1.ListOptions{Limit: 100}
		for {
			list, err := cs.CoreV1().Pods("demo").List(ctx, opts)
			must(t, err)
			for _, p := range list.Items {
				names = append(names, p.Name)
			}
			if opts.Continue = list.Continue; opts.Continue == "" {
				slices.Sort(names)
				return names
			}
		}
	}

	page := newPage(t, playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1360, Height: 900}, AcceptDownloads: playwright.Bool(true),
	})
	_, err := page.Goto(env.console.URL + "/c/admin/api/v1/namespaces/demo/pods")
	must(t, err)
	menu := page.GetByTestId("export-menu")
	summary := menu.Locator("summary")
	csvLink := page.GetByTestId("export-csv")

	// By keyboard: the menu opens with Enter and closes with Escape,
	// giving the focus back.
	must(t, summary.Focus())
	must(t, summary.Press("Enter"))
	must(t, expect.Locator(csvLink).ToBeVisible())
	must(t, page.Keyboard().Press("Escape"))
	must(t, expect.Locator(csvLink).ToBeHidden())
	must(t, expect.Locator(summary).ToBeFocused())

	must(t, summary.Click())
	must(t, expect.Locator(csvLink).ToBeVisible())
	for _, f := range []string{"tsv", "json", "yaml"} {
		must(t, expect.Locator(page.GetByTestId("export-"+f)).ToHaveAttribute("href", "/c/admin/api/v1/namespaces/demo/pods?export="+f))
	}
	checkA11y(t, page, "list-export-menu-open")
	screenshotThemes(t, page, "list-export-menu")

	// The pods may change while a test elsewhere works in demo: the API
	// server's list is read before and after the download, until both agree.
	deadline := time.Now().Add(time.Minute)
	for {
		before := apiNames()
		download, err := page.ExpectDownload(func() error { return csvLink.Click() })
		must(t, err)
		if got := download.SuggestedFilename(); got != "admin-demo-pods.csv" {
			t.Errorf("file name %q, want admin-demo-pods.csv", got)
		}
		if err := download.Failure(); err != nil {
			t.Fatalf("the download failed: %v", err)
		}
		path, err := download.Path()
		must(t, err)
		after := apiNames()
		if !slices.Equal(before, after) {
			if time.Now().After(deadline) {
				t.Fatalf("the pods of demo kept changing: %v, then %v", before, after)
			}
			if open, _ := csvLink.IsVisible(); !open {
				must(t, summary.Click())
			}
			continue
		}
		f, err := os.Open(path)
		must(t, err)
		records, err := csv.NewReader(f).ReadAll()
		f.Close()
		must(t, err)
		if len(records) == 0 || records[0][0] != "Name" {
			t.Fatalf("no header row: %v", records)
		}
		var names []string
		for _, r := range records[1:] {
			names = append(names, r[0])
		}
		slices.Sort(names)
		if len(names) != len(after) || !slices.Equal(names, after) {
			t.Fatalf("the CSV has %d rows (%s), the API server lists %d pods (%s)", len(names), strings.Join(names, " "), len(after), strings.Join(after, " "))
		}
		t.Logf("CSV export: %d rows, as the API server's %d pods; header %v", len(names), len(after), records[0])
		return
	}
}

// On a phone the toolbar wraps; the open menu stays on the screen.
func TestExportMenuFitsAPhone(t *testing.T) {
	page := newPage(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 390, Height: 844}})
	_, err := page.Goto(env.console.URL + "/c/admin/api/v1/namespaces/demo/pods")
	must(t, err)
	must(t, page.GetByTestId("export-menu").Locator("summary").Click())
	pop := page.GetByTestId("export-menu").Locator(".menu-pop")
	must(t, expect.Locator(pop).ToBeVisible())
	box, err := pop.BoundingBox()
	must(t, err)
	if box.X < 0 || box.X+box.Width > 390 {
		t.Errorf("the open menu spans x %.0f to %.0f of a 390-pixel screen", box.X, box.X+box.Width)
	}
	checkA11y(t, page, "list-export-menu-phone")
	screenshotThemes(t, page, "list-export-menu-390x844")
}
