package web_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"github.com/tabula-console/tabula/static"
	"github.com/tabula-console/tabula/web"
	"github.com/tabula-console/tabula/web/webtest"
)

func decodeImportMap(t *testing.T, raw string) map[string]string {
	t.Helper()
	var m struct {
		Imports map[string]string `json:"imports"`
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("import map %q: %v", raw, err)
	}
	return m.Imports
}

// Every JavaScript asset is in the import map under its logical URL, and
// maps to the URL the server serves it under.
func TestImportMapNamesEveryModule(t *testing.T) {
	a, err := web.NewAssets(static.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	imports := decodeImportMap(t, a.ImportMap())
	var modules []string
	err = fs.WalkDir(static.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(name) == ".js" {
			modules = append(modules, name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modules) < 3 {
		t.Fatalf("found only %v; is static/live/ embedded?", modules)
	}
	for _, name := range modules {
		if got, want := imports["/static/"+name], a.URL(name); got == "" || got != want {
			t.Errorf("import map[/static/%s] = %q, want %q", name, got, want)
		}
	}
	if len(imports) != len(modules) {
		t.Errorf("import map has %d entries for %d modules: %v", len(imports), len(modules), imports)
	}
	for key := range imports {
		if !strings.HasSuffix(key, ".js") {
			t.Errorf("import map names a non-module %s", key)
		}
	}
}

// The relative specifiers the modules use resolve, against the hashed URL
// of the module that imports them, to keys of the map: hashed names keep
// their directory.
func TestImportMapResolvesRelativeSpecifiers(t *testing.T) {
	a, err := web.NewAssets(static.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	imports := decodeImportMap(t, a.ImportMap())
	for _, tc := range []struct{ importer, specifier, want string }{
		{"live.bundle.js", "./live/channel.js", "/static/live/channel.js"},
		{"live.js", "./live/channel.js", "/static/live/channel.js"},
		{"live.js", "./live/log.js", "/static/live/log.js"},
		{"live/log.js", "./channel.js", "/static/live/channel.js"},
		{"live/log.js", "./render.js", "/static/live/render.js"},
	} {
		base, err := url.Parse("http://console" + a.URL(tc.importer))
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := url.Parse(tc.specifier)
		got := base.ResolveReference(ref).Path
		if got != tc.want {
			t.Errorf("%q from %s resolves to %s, want %s", tc.specifier, base.Path, got, tc.want)
		}
		if imports[got] == "" {
			t.Errorf("%s is not in the import map", got)
		}
	}
}

// The map goes inside a <script> element: nothing in it may close one.
func TestImportMapCannotCloseItsScript(t *testing.T) {
	a, err := web.NewAssets(fstest.MapFS{
		"</script><b>.js": {Data: []byte("x")},
		"a&b.js":          {Data: []byte("y")},
		"app.css":         {Data: []byte("body{}")},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	raw := a.ImportMap()
	if strings.ContainsAny(raw, "<>&") {
		t.Fatalf("import map has raw HTML characters: %s", raw)
	}
	if imports := decodeImportMap(t, raw); imports["/static/</script><b>.js"] == "" {
		t.Fatalf("import map lost the odd name: %s", raw)
	}
}

// Every asset, nested ones included, is served at the URL pages use.
func TestEveryAssetIsServedAtItsURL(t *testing.T) {
	h := webtest.New(t)
	for name, u := range h.Server.AssetURLs() {
		resp, body := h.Get(t, u, http.StatusOK)
		want, _ := fs.ReadFile(static.FS, name)
		if body != string(want) {
			t.Errorf("GET %s: body differs from %s", u, name)
		}
		if path.Ext(name) == ".js" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
			t.Errorf("GET %s: Content-Type %q, want a JavaScript type", u, resp.Header.Get("Content-Type"))
		}
	}
	h.Get(t, "/static/live/channel.js", http.StatusNotFound)
}

// The page carries the import map, with the CSP nonce, before any module
// script, since a map that comes after a module started loading is ignored.
func TestLayoutRendersTheImportMapFirst(t *testing.T) {
	h := webtest.New(t)
	resp, body := h.Get(t, "/c/dev/", http.StatusOK)
	doc := webtest.Parse(t, body)
	scripts := doc.Find("head script")
	first := scripts.First()
	if typ, _ := first.Attr("type"); typ != "importmap" {
		t.Fatalf("first script in head is %q, want the import map; head scripts: %d", typ, scripts.Length())
	}
	nonce, _ := first.Attr("nonce")
	if nonce == "" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "'nonce-"+nonce+"'") {
		t.Errorf("import map nonce %q does not match the CSP %q", nonce, resp.Header.Get("Content-Security-Policy"))
	}
	imports := decodeImportMap(t, first.Text())
	if got := imports["/static/live/channel.js"]; got != h.Server.AssetURL("live/channel.js") {
		t.Errorf("rendered import map[/static/live/channel.js] = %q", got)
	}
}

// Every page carries the stylesheet inside a <style> element: a sheet
// that could end the element early, or imports another (which would
// resolve against each page), is refused when the console starts.
func TestInlineStylesheetCannotCloseItsElement(t *testing.T) {
	for name, css := range map[string]string{
		"closes":  "a{color:red}</style><script>alert(1)</script>",
		"imports": `@import "more.css"; a{}`,
		"missing": "",
	} {
		t.Run(name, func(t *testing.T) {
			files := fstest.MapFS{"app.js": {Data: []byte("x")}}
			if css != "" {
				files["app.css"] = &fstest.MapFile{Data: []byte(css)}
			}
			if _, err := web.NewAssets(files, ""); err == nil {
				t.Fatal("no error")
			}
		})
	}
	a, err := web.NewAssets(static.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	css, err := static.FS.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	if a.Styles() != string(css) {
		t.Error("pages do not carry app.css as it is")
	}
}

// Pages load the bundles (make modules): whatever a bundle still imports
// resolves, against its hashed URL, to a key of the import map, and the
// pages name the bundles, not the module graph they were built from.
func TestPagesLoadTheModuleBundles(t *testing.T) {
	a, err := web.NewAssets(static.FS, "")
	if err != nil {
		t.Fatal(err)
	}
	imports := decodeImportMap(t, a.ImportMap())
	specifier := regexp.MustCompile(`(?:from|import)\s*"(\.[^"]+)"`)
	for _, bundle := range []string{"app.bundle.js", "live.bundle.js"} {
		body, err := static.FS.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		base, err := url.Parse("http://console" + a.URL(bundle))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range specifier.FindAllStringSubmatch(string(body), -1) {
			ref, _ := url.Parse(m[1])
			if got := base.ResolveReference(ref).Path; imports[got] == "" {
				t.Errorf("%s imports %q, which resolves to %s, not in the import map", bundle, m[1], got)
			}
		}
	}
	h := webtest.New(t)
	_, body := h.Get(t, "/c/dev/api/v1/namespaces/demo/pods", http.StatusOK)
	var srcs []string
	webtest.Parse(t, body).Find("script[type=module][src]").Each(func(_ int, s *goquery.Selection) {
		srcs = append(srcs, s.AttrOr("src", ""))
	})
	for _, want := range []string{a.URL("app.bundle.js"), a.URL("live.bundle.js")} {
		if !slices.Contains(srcs, want) {
			t.Errorf("a list page's modules %v lack %s", srcs, want)
		}
	}
}
