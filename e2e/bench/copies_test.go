package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/tabula-console/tabula/views"
)

// basePage is a page as the console writes it (views.Base), with its
// scripts and sidebar.
func basePage(t *testing.T) string {
	t.Helper()
	l := views.Layout{
		Title:  "pods",
		Assets: views.Assets{Styles: ".nav-toggle{} #sidebar{}", JS: "/static/app.bundle.js", Live: "/static/live.bundle.js", Bulk: "/static/bulk.js", ImportMap: `{"imports":{}}`},
		Nav:    []views.NavGroup{{Label: "Workloads", Open: true, Items: []views.NavItem{{Label: "pods", Href: "/c/admin/api/v1/pods", Current: true}}}},
	}
	var b strings.Builder
	ctx := templ.WithNonce(context.Background(), "n0nce")
	main := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, `<table><tr><td elementtiming="list-first-row">row</td></tr></table>`)
		return err
	})
	if err := views.Base(l).Render(templ.WithChildren(ctx, main), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A copy keeps the page as the console wrote it; the bare copy loses its
// scripts and sidebar (and the sidebar's column and toggle), nothing else.
func TestStaticCopiesServeThePageWholeAndBare(t *testing.T) {
	page := basePage(t)
	for _, want := range []string{`<script type="importmap"`, `<script type="module"`, `id="sidebar"`, `class="shell shell-with-nav"`, `class="nav-toggle"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the page has no %s: the test's layout is not the console's\n%s", want, page)
		}
	}
	console := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/static/app.bundle.js" {
			_, _ = io.WriteString(w, "export {}")
			return
		}
		_, _ = io.WriteString(w, page)
	}))
	defer console.Close()
	copies := &staticCopies{console: console.URL}
	srv := httptest.NewServer(copies.handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "floor") })))
	defer srv.Close()
	whole, bare, err := copies.add(context.Background(), console.URL+"/c/admin/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, wantCode int) string {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != wantCode {
			t.Fatalf("%s: %s, want %d", path, resp.Status, wantCode)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get(whole, 200); got != page {
		t.Errorf("whole copy differs from the page:\n%s", got)
	}
	got := get(bare, 200)
	for _, gone := range []string{"<script", `id="sidebar"`, "shell-with-nav", `class="nav-toggle"`, "Workloads"} {
		if strings.Contains(got, gone) {
			t.Errorf("bare copy keeps %s:\n%s", gone, got)
		}
	}
	for _, kept := range []string{`<style nonce="n0nce">.nav-toggle{} #sidebar{}</style>`, `class="topbar"`, `<main id="main"`, `elementtiming="list-first-row"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("bare copy lost %s:\n%s", kept, got)
		}
	}
	if got := get("/static/app.bundle.js", 200); got != "export {}" {
		t.Errorf("asset through the copies' server: %q", got)
	}
	if got := get("/", 200); got != "floor" {
		t.Errorf("the floor: %q", got)
	}
	get("/copy/2", 404)
	get("/copy/x", 404)
}

// A page without the scripts or sidebar to take out is an error, not a
// "bare" copy equal to the whole.
func TestStaticCopyOfAPageWithoutSidebarIsRefused(t *testing.T) {
	for _, page := range []string{"<!doctype html><p>plain</p>", strings.Replace(basePage(t), `<nav id="sidebar"`, `<nav id="elsewhere"`, 1)} {
		if _, err := withoutScriptsAndSidebar([]byte(page)); err == nil {
			t.Errorf("no error for %.80q…", page)
		}
	}
}
